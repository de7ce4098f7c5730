//! Clients known by a client ID metadata document (MCP 2025-11-25): the server fetches the
//! `client_id` URL, shows the document's name with its host, takes only its redirect URIs, and
//! refuses, on its page and without redirecting, every document it cannot use, and every
//! address a `client_id` could use to reach inside: loopback, private, link-local, metadata.

use kioku::config::StoreKind;
use kioku::oauth::LoopbackDocuments;
use reqwest::header::LOCATION;
use serde_json::json;

use super::documents::{Answer, DocumentServer, document};
use super::flow::{browser, pkce, spawn_oauth};
use crate::helpers::{TestApp, ok_json};

const NAME: &str = "Document test app";

/// The authorization request of a public client `client_id` coming back to `redirect_uri`.
async fn authorize(app: &TestApp, client_id: &str, redirect_uri: &str) -> reqwest::Response {
    let (_, challenge) = pkce();
    browser()
        .get(format!("{}/oauth/authorize", app.base))
        .query(&[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", redirect_uri),
            ("code_challenge", &challenge),
            ("code_challenge_method", "S256"),
        ])
        .send()
        .await
        .unwrap()
}

/// The request is refused on kioku's own page, saying `why`, and sends the person nowhere.
async fn refused(app: &TestApp, client_id: &str, why: &str) {
    let response = authorize(app, client_id, "http://127.0.0.1:7/callback").await;
    assert_eq!(response.status(), 400, "{client_id}");
    assert!(response.headers().get(LOCATION).is_none(), "{client_id}");
    let page = response.text().await.unwrap();
    assert!(
        page.contains(why),
        "{client_id} should be refused with {why:?}: {page}"
    );
}

async fn documents() -> DocumentServer {
    DocumentServer::start(|base| {
        let at = |path: &str| format!("{base}{path}");
        let mut moved = Answer::json(&json!({}));
        moved.status = 302;
        moved.headers.push(("location", at("/client.json")));
        let big = json!({"client_id": at("/big.json"), "padding": "x".repeat(6000)});
        let mut secret = document(&at("/secret.json"), NAME);
        secret["token_endpoint_auth_method"] = json!("client_secret_basic");
        vec![
            (
                "/client.json".into(),
                Answer::json(&document(&at("/client.json"), NAME)),
            ),
            ("/moved.json".into(), moved),
            ("/big.json".into(), Answer::json(&big)),
            (
                "/impostor.json".into(),
                Answer::json(&document("https://claude.ai/client.json", NAME)),
            ),
            ("/secret.json".into(), Answer::json(&secret)),
        ]
    })
    .await
}

#[tokio::test]
async fn a_metadata_document_names_the_client_and_its_redirects() {
    let server = documents().await;
    let root_pem = server.root_pem.clone();
    let fresh = spawn_oauth(StoreKind::Sqlite, move |s| {
        s.oauth.loopback_documents = Some(LoopbackDocuments { root_pem });
    })
    .await;
    let app = &fresh.app;
    let metadata = ok_json(
        app.client
            .get(format!(
                "{}/.well-known/oauth-authorization-server",
                app.base
            ))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(metadata["client_id_metadata_document_supported"], true);

    // Any port of the document's loopback redirect; the name with the host it came from.
    let client_id = format!("{}/client.json", server.base);
    let consent = authorize(app, &client_id, "http://127.0.0.1:7/callback").await;
    assert_eq!(consent.status(), 200);
    let host = server.base.trim_start_matches("https://");
    let page = consent.text().await.unwrap();
    assert!(page.contains(&format!("{NAME} ({host})")), "{page}");

    refused(app, &client_id.replace("client", "missing"), "HTTP 404").await;
    let not_listed = authorize(app, &client_id, "https://attacker.example/cb").await;
    assert_eq!(not_listed.status(), 400);
    assert!(not_listed.headers().get(LOCATION).is_none());
    let base = &server.base;
    refused(
        app,
        &format!("{base}/moved.json"),
        "redirects are not followed",
    )
    .await;
    refused(app, &format!("{base}/big.json"), "larger than 5120 bytes").await;
    refused(app, &format!("{base}/impostor.json"), "is not the URL").await;
    refused(
        app,
        &format!("{base}/secret.json"),
        "token_endpoint_auth_method",
    )
    .await;
}

#[tokio::test]
async fn a_client_id_cannot_reach_inside() {
    let server = documents().await;
    // As deployed: no loopback documents.
    let fresh = spawn_oauth(StoreKind::Sqlite, |_| {}).await;
    let port = server.base.rsplit(':').next().unwrap();
    for inside in [
        format!("{}/client.json", server.base),
        format!("https://localhost:{port}/client.json"),
        format!("https://[::1]:{port}/client.json"),
        "https://10.0.0.1/client.json".into(),
        "https://192.168.1.1/client.json".into(),
        "https://169.254.169.254/latest/meta-data/client.json".into(),
        "https://100.100.100.200/client.json".into(),
        "https://[fd00:ec2::254]/client.json".into(),
        // ::ffff:127.0.0.1, as a URL parser writes it.
        "https://[::ffff:7f00:1]/client.json".into(),
    ] {
        refused(&fresh.app, &inside, "public address").await;
    }
    // Not https: not a document's URL, so a client_id this server never issued.
    refused(
        &fresh.app,
        "http://app.example/client.json",
        "No app with this client_id",
    )
    .await;
}
