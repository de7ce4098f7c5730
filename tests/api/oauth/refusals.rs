//! Everything the OAuth server refuses, on each store: each an OAuth error in OAuth's shape
//! (or, for a client or redirect URI that cannot be trusted, a page that redirects nowhere),
//! never a server error.

use std::time::Duration;

use kioku::config::StoreKind;
use reqwest::header::LOCATION;

use super::flow::{
    authorize_with_token, browser, consent_form, decide, location, oauth_error, operator_client,
    param, pkce, registered_public_client, spawn_oauth, token_request, tokens,
};
use crate::helpers::on_both_stores;
use crate::helpers::{TestApp, error_json, spawn_app};

on_both_stores!(oauth_refusals, codes_and_access_tokens_expire,);

const REDIRECT: &str = "http://127.0.0.1:9/cb";

/// A code for a public client with PKCE: the code and its verifier.
async fn public_code(app: &TestApp, client_id: &str, token: &str) -> (String, String) {
    let (verifier, challenge) = pkce();
    let back = authorize_with_token(
        app,
        &[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", REDIRECT),
            ("code_challenge", &challenge),
            ("code_challenge_method", "S256"),
        ],
        token,
    )
    .await;
    (param(&back, "code").unwrap(), verifier)
}

/// The authorization endpoint's answer to `params`, from a browser that follows no redirect.
async fn authorization_page(app: &TestApp, params: &[(&str, &str)]) -> reqwest::Response {
    browser()
        .get(format!("{}/oauth/authorize", app.base))
        .query(params)
        .send()
        .await
        .unwrap()
}

fn exchange<'a>(client_id: &'a str, code: &'a str, verifier: &'a str) -> [(&'a str, &'a str); 5] {
    [
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", REDIRECT),
        ("client_id", client_id),
        ("code_verifier", verifier),
    ]
}

async fn oauth_refusals(store: StoreKind) {
    let fresh = spawn_oauth(store, |_| {}).await;
    let (app, token) = (&fresh.app, fresh.token.as_str());
    let client_id = registered_public_client(app, REDIRECT).await;

    // A wrong PKCE verifier.
    let (code, _) = public_code(app, &client_id, token).await;
    let (wrong, _) = pkce();
    let response = token_request(app, &exchange(&client_id, &code, &wrong), None).await;
    oauth_error(response, 400, "invalid_grant").await;

    // A code used twice: the second exchange fails and revokes what the first got.
    let (code, verifier) = public_code(app, &client_id, token).await;
    let first =
        tokens(token_request(app, &exchange(&client_id, &code, &verifier), None).await).await;
    let again = token_request(app, &exchange(&client_id, &code, &verifier), None).await;
    oauth_error(again, 400, "invalid_grant").await;
    let revoked = app
        .get(
            Some(first["access_token"].as_str().unwrap()),
            &[("mode", "load")],
        )
        .send()
        .await
        .unwrap();
    error_json(revoked, 401, "invalid_token").await;

    // A redirect URI at the token endpoint that differs from the authorization's.
    let (code, verifier) = public_code(app, &client_id, token).await;
    let mut form = exchange(&client_id, &code, &verifier);
    form[2].1 = "http://127.0.0.1:9/other";
    oauth_error(token_request(app, &form, None).await, 400, "invalid_grant").await;

    // A confidential client with a wrong secret, by Basic and in the form.
    let (gpt, _) = operator_client(app, "https://chat.openai.com/aip/g-x/oauth/callback").await;
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", "kioku_rt_x"),
    ];
    let by_basic = token_request(app, &form, Some((&gpt, "kioku_cs_wrong"))).await;
    assert_eq!(
        by_basic.headers()["www-authenticate"],
        r#"Basic realm="kioku""#
    );
    oauth_error(by_basic, 401, "invalid_client").await;
    let in_form = [
        ("client_id", gpt.as_str()),
        ("client_secret", "wrong"),
        form[0],
        form[1],
    ];
    oauth_error(
        token_request(app, &in_form, None).await,
        401,
        "invalid_client",
    )
    .await;

    // A grant type this server does not issue, and a repeated parameter.
    let unsupported = [
        ("grant_type", "password"),
        ("client_id", client_id.as_str()),
    ];
    oauth_error(
        token_request(app, &unsupported, None).await,
        400,
        "unsupported_grant_type",
    )
    .await;
    let repeated = [
        ("grant_type", "refresh_token"),
        ("grant_type", "refresh_token"),
        ("client_id", client_id.as_str()),
    ];
    oauth_error(
        token_request(app, &repeated, None).await,
        400,
        "invalid_request",
    )
    .await;

    // A revoked access token (RFC 7009).
    let (code, verifier) = public_code(app, &client_id, token).await;
    let issued =
        tokens(token_request(app, &exchange(&client_id, &code, &verifier), None).await).await;
    let access = issued["access_token"].as_str().unwrap();
    let revoke = app
        .client
        .post(format!("{}/oauth/revoke", app.base))
        .form(&[("token", access), ("client_id", &client_id)])
        .send()
        .await
        .unwrap();
    assert_eq!(revoke.status(), 200);
    let after = app
        .get(Some(access), &[("mode", "load")])
        .send()
        .await
        .unwrap();
    error_json(after, 401, "invalid_token").await;

    // The operator's client is trusted with its errors: they go back to it.
    const GPT_CALLBACK: &str = "https://chat.openai.com/aip/g-y/oauth/callback";
    let (gpt, _) = operator_client(app, GPT_CALLBACK).await;
    for (params, error) in [
        (
            vec![("response_type", "token"), ("client_id", gpt.as_str())],
            "unsupported_response_type",
        ),
        (
            vec![
                ("response_type", "code"),
                ("client_id", gpt.as_str()),
                ("resource", "https://other.example/mcp"),
            ],
            "invalid_target",
        ),
    ] {
        let response = authorization_page(app, &params).await;
        let back = location(&response);
        assert!(back.as_str().starts_with(GPT_CALLBACK), "{back}");
        assert_eq!(param(&back, "error").as_deref(), Some(error));
    }

    // A client anyone could register gets its errors on this page, so that it cannot use this
    // server as an open redirector (RFC 9700, section 4.11.2): no PKCE from a public client, a
    // resource of another server, an implicit grant.
    let (_, challenge) = pkce();
    for params in [
        vec![("response_type", "code"), ("client_id", client_id.as_str())],
        vec![
            ("response_type", "code"),
            ("client_id", client_id.as_str()),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("resource", "https://other.example/mcp"),
        ],
        vec![
            ("response_type", "token"),
            ("client_id", client_id.as_str()),
        ],
    ] {
        let response = authorization_page(app, &params).await;
        assert_eq!(response.status(), 400, "{params:?}");
        assert!(response.headers().get(LOCATION).is_none(), "{params:?}");
        let page = response.text().await.unwrap();
        assert!(page.contains("cannot answer"), "{page}");
    }

    // Shown, never redirected: an unknown client, a redirect URI it did not register.
    for params in [
        vec![
            ("response_type", "code"),
            ("client_id", "nobody"),
            ("redirect_uri", REDIRECT),
        ],
        vec![
            ("response_type", "code"),
            ("client_id", client_id.as_str()),
            ("redirect_uri", "https://attacker.example/cb"),
        ],
        // Only a loopback IP's port may differ (RFC 8252, section 7.3).
        vec![
            ("response_type", "code"),
            ("client_id", client_id.as_str()),
            ("redirect_uri", "http://127.0.0.1:10/other"),
        ],
    ] {
        let response = authorization_page(app, &params).await;
        assert_eq!(response.status(), 400);
        assert!(response.headers().get(LOCATION).is_none());
        assert!(response.text().await.unwrap().contains("<h1>"));
    }

    // The consent form: an unknown token is asked again; a post without the CSRF cookie is
    // refused; neither sends the person anywhere.
    let (_, challenge) = pkce();
    let params = [
        ("response_type", "code"),
        ("client_id", client_id.as_str()),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ];
    let page_browser = browser();
    let form = consent_form(app, &page_browser, &params).await;
    let unknown = decide(
        app,
        &page_browser,
        &form,
        &[("token", "not-a-token"), ("decision", "allow")],
    )
    .await;
    assert_eq!(unknown.status(), 401);
    let forged = decide(
        app,
        &browser(),
        &form,
        &[("token", token), ("decision", "allow")],
    )
    .await;
    assert_eq!(forged.status(), 403);
    assert!(forged.headers().get(LOCATION).is_none());

    // Registration metadata that cannot be used.
    for (body, error) in [
        (
            serde_json::json!({"redirect_uris": ["http://evil.example/cb"]}),
            "invalid_redirect_uri",
        ),
        // Redirect schemes are allowed by name (https, loopback http, an app's own), not
        // refused by name.
        (
            serde_json::json!({"redirect_uris": ["view-source:https://evil.example/"]}),
            "invalid_redirect_uri",
        ),
        (
            serde_json::json!({"redirect_uris": ["ms-settings:privacy"]}),
            "invalid_redirect_uri",
        ),
        (
            serde_json::json!({"redirect_uris": ["http://127.1/cb"]}),
            "invalid_redirect_uri",
        ),
        (
            serde_json::json!({"redirect_uris": [REDIRECT], "grant_types": ["implicit"]}),
            "invalid_client_metadata",
        ),
        // A name that reads otherwise than it is: reversed by a bidi override, or one app's
        // name split by an invisible character to pass for another's.
        (
            serde_json::json!({"redirect_uris": [REDIRECT], "client_name": "\u{202e}TPGtahC"}),
            "invalid_client_metadata",
        ),
        (
            serde_json::json!({"redirect_uris": [REDIRECT], "client_name": "Chat\u{200b}GPT"}),
            "invalid_client_metadata",
        ),
    ] {
        let response = app
            .client
            .post(format!("{}/oauth/register", app.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        oauth_error(response, 400, error).await;
    }
    // Scripts that need a joiner keep it: a Persian name with a zero-width non-joiner.
    let persian = app
        .client
        .post(format!("{}/oauth/register", app.base))
        .json(&serde_json::json!({"redirect_uris": [REDIRECT], "client_name": "می\u{200c}خواهم"}))
        .send()
        .await
        .unwrap();
    assert_eq!(persian.status(), 201);
}

/// Codes and access tokens stop working when they expire.
async fn codes_and_access_tokens_expire(store: StoreKind) {
    let fresh = spawn_oauth(store, |s| {
        // Room for the second code's exchange on a busy machine; the first waits out both.
        s.oauth.code_secs = 3;
        s.oauth.access_token_secs = 1;
    })
    .await;
    let (app, token) = (&fresh.app, fresh.token.as_str());
    let client_id = registered_public_client(app, REDIRECT).await;
    let (stale_code, stale_verifier) = public_code(app, &client_id, token).await;
    let (code, verifier) = public_code(app, &client_id, token).await;
    let issued =
        tokens(token_request(app, &exchange(&client_id, &code, &verifier), None).await).await;
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    let response = token_request(
        app,
        &exchange(&client_id, &stale_code, &stale_verifier),
        None,
    )
    .await;
    oauth_error(response, 400, "invalid_grant").await;
    let access = issued["access_token"].as_str().unwrap();
    // A token issued here that expired is no guess: presented past the guessing limit, it is
    // still answered 401 (refresh it), never throttled.
    for _ in 0..=kioku::throttle::FAILURES_PER_WINDOW {
        let expired = app
            .get(Some(access), &[("mode", "load")])
            .send()
            .await
            .unwrap();
        error_json(expired, 401, "invalid_token").await;
    }
}

/// With `KIOKU_OAUTH` unset, there is no OAuth server to find.
#[tokio::test]
async fn oauth_is_off_by_default() {
    let app = spawn_app().await;
    for path in [
        "/.well-known/oauth-authorization-server",
        "/oauth/authorize",
        "/oauth/register",
    ] {
        let response = app
            .client
            .post(format!("{}{path}", app.base))
            .send()
            .await
            .unwrap();
        assert!([404, 405].contains(&response.status().as_u16()), "{path}");
    }
    let metadata = app
        .path("/.well-known/oauth-protected-resource/mcp")
        .send()
        .await
        .unwrap();
    let metadata: serde_json::Value = metadata.json().await.unwrap();
    assert!(
        metadata.get("authorization_servers").is_none(),
        "{metadata}"
    );
}
