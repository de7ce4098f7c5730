//! The sign-in forms' CSRF cookies take only tokens this server signed, so that a value planted
//! in the browser (by a sibling subdomain, or over plain http) is not taken for one; over https
//! every cookie is `__Host-` (host-only, `Secure`, path `/`), and a cookie without the prefix is
//! not read there.

use kioku::config::StoreKind;
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, COOKIE, LOCATION, SET_COOKIE};

use super::app::csrf;
use super::helpers::{TestApp, spawn_fresh};
use super::oauth::flow::{hidden_fields, pkce, registered_public_client, spawn_oauth};

/// A value of the shape the cookies held before they were signed.
const PLANTED: &str = "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed";

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// The memory page's sign-in page with `cookie`: the `Set-Cookie` lines, and its form's token.
async fn sign_in_page(app: &TestApp, cookie: &str) -> (Vec<String>, String) {
    let answer = client()
        .get(format!("{}/app", app.base))
        .header(ACCEPT, "text/html")
        .header(COOKIE, cookie)
        .send()
        .await
        .unwrap();
    let set: Vec<String> = answer
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect();
    (set, csrf(&answer.text().await.unwrap()))
}

async fn sign_in(app: &TestApp, cookie: &str, csrf: &str, token: &str) -> reqwest::Response {
    client()
        .post(format!("{}/app/sign-in", app.base))
        .header(COOKIE, cookie)
        .form(&[("csrf", csrf), ("token", token)])
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_planted_csrf_cookie_is_replaced_and_refused() {
    let fresh = spawn_oauth(StoreKind::Sqlite, |_| {}).await;
    let app = &fresh.app;
    let planted = format!("kioku_page_csrf={PLANTED}");
    let (_, token) = sign_in_page(app, &planted).await;
    assert_ne!(
        token, PLANTED,
        "the page took the planted value as its token"
    );
    let refused = sign_in(app, &planted, PLANTED, &fresh.token).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    // The token the page signed works.
    let cookie = format!("kioku_page_csrf={token}");
    let entered = sign_in(app, &cookie, &token, &fresh.token).await;
    assert_eq!(entered.status(), StatusCode::SEE_OTHER);

    // The consent page likewise.
    let redirect = "http://127.0.0.1:9/callback";
    let client_id = registered_public_client(app, redirect).await;
    let (_, challenge) = pkce();
    let params = [
        ("response_type", "code"),
        ("client_id", client_id.as_str()),
        ("redirect_uri", redirect),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ];
    let consent = client()
        .get(format!("{}/oauth/authorize", app.base))
        .query(&params)
        .header(COOKIE, format!("kioku_csrf={PLANTED}"))
        .send()
        .await
        .unwrap();
    let mut form = hidden_fields(&consent.text().await.unwrap());
    let given = form
        .iter()
        .find(|(name, _)| name == "csrf")
        .unwrap()
        .1
        .clone();
    assert_ne!(given, PLANTED, "the consent page took the planted value");
    form.retain(|(name, _)| name != "csrf");
    form.push(("csrf".into(), PLANTED.into()));
    form.push(("token".into(), fresh.token.clone()));
    form.push(("decision".into(), "allow".into()));
    let refused = client()
        .post(format!("{}/oauth/authorize", app.base))
        .header(COOKIE, format!("kioku_csrf={PLANTED}"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn over_https_every_cookie_is_host_only() {
    let fresh = spawn_fresh(StoreKind::Sqlite, |s| {
        s.public_url = Some("https://kioku.example".into());
    })
    .await;
    let app = &fresh.app;
    let (set, token) = sign_in_page(app, "").await;
    let csrf_cookie = set
        .iter()
        .find(|c| c.starts_with("__Host-kioku_page_csrf="))
        .unwrap_or_else(|| panic!("{set:?}"));
    for attribute in ["Secure", "HttpOnly", "Path=/;", "SameSite=Strict"] {
        assert!(
            format!("{csrf_cookie};").contains(attribute),
            "{csrf_cookie}"
        );
    }
    assert!(!csrf_cookie.contains("Domain"), "{csrf_cookie}");

    // A cookie without the prefix is not read over https, even one the page signed.
    let unprefixed = sign_in(
        app,
        &format!("kioku_page_csrf={token}"),
        &token,
        &fresh.token,
    )
    .await;
    assert_eq!(unprefixed.status(), StatusCode::FORBIDDEN);
    let cookie = format!("__Host-kioku_page_csrf={token}");
    let entered = sign_in(app, &cookie, &token, &fresh.token).await;
    assert_eq!(entered.status(), StatusCode::SEE_OTHER);
    assert_eq!(entered.headers()[LOCATION], "/app");
    let session = entered
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|c| c.starts_with("__Host-kioku_session="))
        .expect("a __Host- session cookie");
    assert!(
        session.contains("Secure") && session.contains("Path=/;"),
        "{session}"
    );
}
