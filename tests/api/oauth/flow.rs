//! The steps of an OAuth flow as a browser and a client take them against a running kioku:
//! the consent page and its form, the redirect, the token endpoint; and PKCE.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use kioku::config::{SignInMode, StoreKind};
use reqwest::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, LOCATION, SET_COOKIE};
use reqwest::{Response, redirect};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::helpers::{Fresh, TestApp, spawn_fresh};

/// A server with the OAuth server on, token sign-in, plus a namespace of the test's own.
pub async fn spawn_oauth(
    store: StoreKind,
    customize: impl FnOnce(&mut kioku::config::Settings),
) -> Fresh {
    spawn_fresh(store, |s| {
        s.oauth.modes = vec![SignInMode::Token];
        customize(s);
    })
    .await
}

/// A browser: it keeps cookies and does not follow redirects, so each can be checked.
pub fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(redirect::Policy::none())
        .build()
        .unwrap()
}

/// A PKCE verifier and its S256 challenge (RFC 7636, section 4).
pub fn pkce() -> (String, String) {
    let verifier = format!("{}-{}", uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

/// The consent page for `params`, checked to be a page that cannot be framed or cached; its
/// form's fields.
pub async fn consent_form(
    app: &TestApp,
    browser: &reqwest::Client,
    params: &[(&str, &str)],
) -> Vec<(String, String)> {
    let response = browser
        .get(format!("{}/oauth/authorize", app.base))
        .query(params)
        .send()
        .await
        .unwrap();
    let csp = response.headers()[CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(response.headers()[CACHE_CONTROL], "no-store");
    let status = response.status();
    let html = response.text().await.unwrap();
    assert_eq!(status, 200, "{html}");
    hidden_fields(&html)
}

/// The `<input type="hidden">` fields of a page, their values unescaped.
pub fn hidden_fields(html: &str) -> Vec<(String, String)> {
    html.split("<input type=\"hidden\" ")
        .skip(1)
        .map(|tag| {
            let attr = |name: &str| {
                let start = tag.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
                let end = start + tag[start..].find('"').unwrap();
                unescape(&tag[start..end])
            };
            (attr("name"), attr("value"))
        })
        .collect()
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Posts the consent form with `extra` fields; the response, not followed.
pub async fn decide(
    app: &TestApp,
    browser: &reqwest::Client,
    form: &[(String, String)],
    extra: &[(&str, &str)],
) -> Response {
    let mut fields: Vec<(String, String)> = form.to_vec();
    fields.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    browser
        .post(format!("{}/oauth/authorize", app.base))
        .form(&fields)
        .send()
        .await
        .unwrap()
}

/// Where a 303 sends the browser.
pub fn location(response: &Response) -> url::Url {
    assert_eq!(response.status(), 303, "{:?}", response.headers());
    url::Url::parse(response.headers()[LOCATION].to_str().unwrap()).unwrap()
}

/// A query parameter of `url`.
pub fn param(url: &url::Url, name: &str) -> Option<String> {
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// The whole authorization step with token sign-in: the page, then "allow" with `token`; the
/// redirect back to the client.
pub async fn authorize_with_token(app: &TestApp, params: &[(&str, &str)], token: &str) -> url::Url {
    let browser = browser();
    let form = consent_form(app, &browser, params).await;
    let response = decide(
        app,
        &browser,
        &form,
        &[("token", token), ("decision", "allow")],
    )
    .await;
    assert!(response.headers().get(SET_COOKIE).is_none() || response.status() == 303);
    location(&response)
}

/// A token request with `form`, the client authenticating with HTTP Basic when `basic` is
/// given.
pub async fn token_request(
    app: &TestApp,
    form: &[(&str, &str)],
    basic: Option<(&str, &str)>,
) -> Response {
    let mut request = app
        .client
        .post(format!("{}/oauth/token", app.base))
        .form(form);
    if let Some((id, secret)) = basic {
        request = request.basic_auth(id, Some(secret));
    }
    request.send().await.unwrap()
}

/// A public client's refresh with `refresh_token`.
pub async fn refresh(app: &TestApp, client_id: &str, refresh_token: &str) -> Response {
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token),
        ("client_id", client_id),
    ];
    token_request(app, &form, None).await
}

/// A successful token response's body, checked not to be cacheable.
pub async fn tokens(response: Response) -> Value {
    assert_eq!(response.headers()[CACHE_CONTROL], "no-store");
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["token_type"], "Bearer");
    body
}

/// An OAuth error response (RFC 6749, section 5.2): its status and `error`.
pub async fn oauth_error(response: Response, status: u16, error: &str) {
    assert_eq!(response.headers()[CACHE_CONTROL], "no-store");
    let got = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        (got.as_u16(), body["error"].as_str()),
        (status, Some(error)),
        "{body}"
    );
    assert!(
        body["error_description"]
            .as_str()
            .is_some_and(|d| d.len() > 10),
        "{body}"
    );
}

/// A confidential client added by the operator: its id and secret.
pub async fn operator_client(app: &TestApp, redirect_uri: &str) -> (String, String) {
    let response = app
        .call(
            reqwest::Method::POST,
            "/admin/oauth/clients",
            crate::helpers::ADMIN,
        )
        .json(&serde_json::json!({"name": "Memory GPT", "redirect_uris": [redirect_uri]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.unwrap();
    (
        body["client_id"].as_str().unwrap().to_owned(),
        body["client_secret"].as_str().unwrap().to_owned(),
    )
}

/// A public client registered as MCP clients do (RFC 7591): its id.
pub async fn registered_public_client(app: &TestApp, redirect_uri: &str) -> String {
    let response = app
        .client
        .post(format!("{}/oauth/register", app.base))
        .json(&serde_json::json!({
            "client_name": CLIENT_NAME,
            "redirect_uris": [redirect_uri],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.unwrap();
    assert!(body.get("client_secret").is_none(), "{body}");
    body["client_id"].as_str().unwrap().to_owned()
}

/// What the registered client calls itself, as the page lists it.
pub const CLIENT_NAME: &str = "An MCP client";

/// A client connected to `token`'s namespace through the OAuth flow: its access token.
pub async fn connected_app(app: &TestApp, token: &str) -> String {
    let (_, issued) = connected_client(app, token).await;
    issued["access_token"].as_str().unwrap().to_owned()
}

/// A public client connected to `token`'s namespace through the OAuth flow: its id, and the
/// token response.
pub async fn connected_client(app: &TestApp, token: &str) -> (String, Value) {
    let client = PublicClient::register(app, "http://127.0.0.1:9/callback").await;
    let back = authorize_with_token(app, &client.authorization(&[]), token).await;
    let code = param(&back, "code").expect("a code");
    let issued = tokens(client.exchange(app, &code, &[]).await).await;
    (client.id, issued)
}

/// A public client registered as MCP clients do, with a PKCE pair: the two requests of its
/// authorization code flow, written once.
pub struct PublicClient {
    pub id: String,
    /// Where the flow sends the browser back: the registered URI, unless the test changes it.
    pub redirect_uri: &'static str,
    verifier: String,
    challenge: String,
}

impl PublicClient {
    pub async fn register(app: &TestApp, redirect_uri: &'static str) -> Self {
        let id = registered_public_client(app, redirect_uri).await;
        let (verifier, challenge) = pkce();
        Self {
            id,
            redirect_uri,
            verifier,
            challenge,
        }
    }

    /// The authorization request's parameters (S256 PKCE), then `extra`.
    pub fn authorization<'a>(&'a self, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
        let mut params = vec![
            ("response_type", "code"),
            ("client_id", self.id.as_str()),
            ("redirect_uri", self.redirect_uri),
            ("code_challenge", self.challenge.as_str()),
            ("code_challenge_method", "S256"),
        ];
        params.extend_from_slice(extra);
        params
    }

    /// The token request that exchanges `code` with the PKCE verifier, then `extra`.
    pub async fn exchange(&self, app: &TestApp, code: &str, extra: &[(&str, &str)]) -> Response {
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", self.redirect_uri),
            ("client_id", self.id.as_str()),
            ("code_verifier", self.verifier.as_str()),
        ];
        form.extend_from_slice(extra);
        token_request(app, &form, None).await
    }
}
