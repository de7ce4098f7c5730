//! Sign-in at a real OpenID Provider (tests/oidc-provider, started here on loopback): each
//! person gets a namespace of their own, the same one each time, and no one else's memories.

use std::net::TcpListener;

use kioku::config::{SignInMode, StoreKind};
use kioku::startup::Application;
use kioku::throttle::UNSIGNED_WRITES_PER_WINDOW;
use reqwest::header::SET_COOKIE;

use super::flow::{
    browser, consent_form, decide, location, param, pkce, registered_public_client, token_request,
    tokens,
};
use crate::helpers::on_both_stores;
use crate::helpers::{TestApp, on_store, settings, summaries};
use crate::provider::{OpenIdProvider, sign_in_at_provider};

on_both_stores!(
    each_person_signed_in_at_the_provider_gets_a_memory_of_their_own,
    the_page_signed_in_at_the_provider_shows_the_persons_own_memory,
);

const REDIRECT: &str = "http://127.0.0.1:9/cb";

/// kioku with `oidc` sign-in at a provider that knows its callback, on `store`; `None` once
/// the test is skipped for want of the provider.
async fn spawn_with_provider(store: StoreKind) -> Option<(TestApp, OpenIdProvider)> {
    // The provider must know kioku's callback before kioku starts: the address comes first.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let secret = format!("provider-secret-{}", uuid::Uuid::new_v4());
    let provider = OpenIdProvider::start("kioku", &secret, &format!("{base}/oauth/callback"))?;
    let data_dir = tempfile::tempdir().unwrap();
    let mut settings = settings(data_dir.path());
    on_store(&mut settings, store);
    settings.oauth.modes = vec![SignInMode::Oidc];
    settings.oauth.oidc_issuer = Some(provider.issuer().to_owned());
    settings.oauth.oidc_client_id = Some("kioku".into());
    settings.oauth.oidc_client_secret = Some(secret.into());
    let app = Application::build_on(settings, listener)
        .await
        .expect("the app starts");
    tokio::spawn(app.run_until_stopped());
    let app = TestApp {
        base,
        data_dir,
        client: reqwest::Client::new(),
    };
    Some((app, provider))
}

/// `login` signs in at the provider from the consent page; the access token the client gets.
async fn sign_in(app: &TestApp, client_id: &str, login: &str) -> String {
    let browser = browser();
    let (verifier, challenge) = pkce();
    let params = [
        ("response_type", "code"),
        ("client_id", client_id),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("state", "st"),
    ];
    let form = consent_form(app, &browser, &params).await;
    let to_provider = decide(app, &browser, &form, &[("decision", "oidc")]).await;
    let cookie = to_provider.headers()[SET_COOKIE]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    let at_provider = location(&to_provider);
    let callback = sign_in_at_provider(&browser, at_provider.as_str(), login).await;
    assert!(
        callback.starts_with(&format!("{}/oauth/callback", app.base)),
        "{callback}"
    );
    let back = location(&browser.get(&callback).send().await.unwrap());
    assert!(back.as_str().starts_with(REDIRECT), "{back}");
    assert_eq!(param(&back, "state").as_deref(), Some("st"));
    let code = param(&back, "code").unwrap();
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("client_id", client_id),
        ("code_verifier", verifier.as_str()),
    ];
    let issued = tokens(token_request(app, &form, None).await).await;
    issued["access_token"].as_str().unwrap().to_owned()
}

async fn each_person_signed_in_at_the_provider_gets_a_memory_of_their_own(store: StoreKind) {
    let Some((app, _provider)) = spawn_with_provider(store).await else {
        return;
    };
    let client_id = registered_public_client(&app, REDIRECT).await;
    let run = uuid::Uuid::new_v4();
    let (alice, bob) = (format!("alice-{run}"), format!("bob-{run}"));

    let alice_token = sign_in(&app, &client_id, &alice).await;
    app.save(&alice_token, None, "alice's first memory").await;
    let bob_token = sign_in(&app, &client_id, &bob).await;
    assert_eq!(app.load(&bob_token).await["status"], "empty");
    app.save(&bob_token, None, "bob's memory").await;
    assert_eq!(
        summaries(&app.load(&alice_token).await),
        ["alice's first memory"]
    );

    // Alice again, another day: the same namespace.
    let again = sign_in(&app, &client_id, &alice).await;
    assert_ne!(again, alice_token);
    assert_eq!(summaries(&app.load(&again).await), ["alice's first memory"]);
    assert_eq!(summaries(&app.load(&bob_token).await), ["bob's memory"]);
}

/// A callback that is not the one this browser began: refused on the page.
#[tokio::test]
async fn a_callback_from_another_browser_is_refused() {
    let Some((app, _provider)) = spawn_with_provider(StoreKind::Sqlite).await else {
        return;
    };
    let response = browser()
        .get(format!(
            "{}/oauth/callback?state=forged&code=stolen",
            app.base
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
}

/// The memory page's sign-in page, checked to offer the provider, and its button pressed: the
/// answer, not followed.
async fn begin_at_memory_page(app: &TestApp, browser: &reqwest::Client) -> reqwest::Response {
    let page = browser.get(format!("{}/app", app.base)).send().await;
    let page = page.unwrap().text().await.unwrap();
    assert!(
        page.contains("/app/sign-in/provider"),
        "no provider button: {page}"
    );
    browser
        .post(format!("{}/app/sign-in/provider", app.base))
        .form(&[("csrf", crate::app::csrf(&page))])
        .send()
        .await
        .unwrap()
}

/// The memory page's sign-in at the provider opens the same namespace the person's apps use.
async fn the_page_signed_in_at_the_provider_shows_the_persons_own_memory(store: StoreKind) {
    let Some((app, _provider)) = spawn_with_provider(store).await else {
        return;
    };
    let client_id = registered_public_client(&app, REDIRECT).await;
    let login = format!("carol-{}", uuid::Uuid::new_v4());
    let access = sign_in(&app, &client_id, &login).await;
    app.save(&access, None, "carol saved this through an app")
        .await;

    let browser = browser();
    let to_provider = begin_at_memory_page(&app, &browser).await;
    assert_eq!(to_provider.status(), 303);
    let callback = sign_in_at_provider(&browser, location(&to_provider).as_str(), &login).await;
    let entered = browser.get(&callback).send().await.unwrap();
    assert_eq!(entered.status(), 303);
    assert_eq!(entered.headers()["location"], "/app");
    let page = browser
        .get(format!("{}/app", app.base))
        .send()
        .await
        .unwrap();
    let page = page.text().await.unwrap();
    assert!(page.contains("carol saved this through an app"), "{page}");
}

/// Each sign-in begun at the provider is stored until it ends or expires: one address may
/// begin only so many a minute, from the consent page and the memory page alike; past that,
/// the page says to wait, with 429 and `Retry-After`.
#[tokio::test]
async fn sign_ins_begun_at_the_provider_are_limited_per_address() {
    let Some((app, _provider)) = spawn_with_provider(StoreKind::Sqlite).await else {
        return;
    };
    let client_id = registered_public_client(&app, REDIRECT).await;
    let browser = browser();
    let (_, challenge) = pkce();
    let params = [
        ("response_type", "code"),
        ("client_id", client_id.as_str()),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ];
    let form = consent_form(&app, &browser, &params).await;
    // The registration above was one of this address's records too.
    for n in 1..UNSIGNED_WRITES_PER_WINDOW {
        let begun = decide(&app, &browser, &form, &[("decision", "oidc")]).await;
        assert_eq!(begun.status(), 303, "sign-in {n}");
    }
    let refused = decide(&app, &browser, &form, &[("decision", "oidc")]).await;
    assert_eq!(refused.status(), 429);
    assert!(refused.headers().contains_key("retry-after"));
    let page = refused.text().await.unwrap();
    assert!(page.contains("Too many sign-ins were begun"), "{page}");

    let refused = begin_at_memory_page(&app, &browser).await;
    assert_eq!(refused.status(), 429);
    assert!(refused.headers().contains_key("retry-after"));
}
