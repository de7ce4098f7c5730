//! The apps people sign in with, replayed: the client ID metadata documents Claude Code,
//! Codex, ChatGPT and Copilot CLI publish (tests/api/oauth/clients/, each naming where it was
//! copied from), served from this host under the developer setting, each signed in with the
//! redirect URI its app sends and each calling a tool; a document whose host goes down serves
//! from its last good copy; and no redirect but a loopback one matches on another port.

use std::path::Path;

use kioku::config::StoreKind;
use reqwest::header::LOCATION;
use serde_json::{Value, json};

use super::documents::{Answer, DocumentServer};
use super::flow::{authorize_with_token, param, pkce, spawn_oauth, token_request, tokens};
use crate::helpers::{TestApp, ok_json};
use crate::mcp::{mcp_post, structured, tools_call};

/// One app's published document, and the redirect URI the app sends (`{port}`: any).
struct Published {
    name: &'static str,
    /// Where the app publishes it; its path is where this host serves it.
    path: String,
    sends: String,
    document: Value,
}

fn published() -> Vec<Published> {
    ["claude-code", "codex", "chatgpt", "copilot-cli"]
        .into_iter()
        .map(|name| {
            let file = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/api/oauth/clients")
                .join(format!("{name}.json"));
            let fixture: Value =
                serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            let source = url::Url::parse(fixture["source"].as_str().unwrap()).unwrap();
            assert_eq!(fixture["document"]["client_id"], source.as_str(), "{name}");
            Published {
                name,
                path: source.path().to_owned(),
                sends: fixture["sends"].as_str().unwrap().to_owned(),
                document: fixture["document"].clone(),
            }
        })
        .collect()
}

/// Serves each app's document at its own path, naming the URL it is now served at (a
/// document names its own URL), with `cache_control`.
async fn serve(clients: &[Published], cache_control: &'static str) -> DocumentServer {
    DocumentServer::start_plain(|base| {
        clients
            .iter()
            .map(|client| {
                let mut document = client.document.clone();
                document["client_id"] = json!(format!("{base}{}", client.path));
                let mut answer = Answer::json(&document);
                answer.headers.push(("cache-control", cache_control.into()));
                (client.path.clone(), answer)
            })
            .collect()
    })
    .await
}

/// The authorization request of `client_id` back to `redirect_uri`, with `challenge`.
fn authorization<'a>(
    client_id: &'a str,
    redirect_uri: &'a str,
    challenge: &'a str,
    resource: &'a str,
) -> [(&'a str, &'a str); 7] {
    [
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", redirect_uri),
        ("code_challenge", challenge),
        ("code_challenge_method", "S256"),
        ("resource", resource),
        ("state", "s"),
    ]
}

/// Signs `client_id` in as its app does, back to `redirect_uri`; its access token for `/mcp`.
async fn sign_in(app: &TestApp, token: &str, client_id: &str, redirect_uri: &str) -> String {
    let (verifier, challenge) = pkce();
    let resource = format!("{}/mcp", app.base);
    let params = authorization(client_id, redirect_uri, &challenge, &resource);
    let back = authorize_with_token(app, &params, token).await;
    assert!(
        back.as_str().starts_with(redirect_uri),
        "{client_id}: {back}"
    );
    let code = param(&back, "code").unwrap();
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", redirect_uri),
        ("client_id", client_id),
        ("code_verifier", verifier.as_str()),
        ("resource", resource.as_str()),
    ];
    let issued = tokens(token_request(app, &form, None).await).await;
    issued["access_token"].as_str().unwrap().to_owned()
}

/// The answer to an authorization request that kioku refuses on its own page.
async fn refused(app: &TestApp, client_id: &str, redirect_uri: &str) -> String {
    let (_, challenge) = pkce();
    let resource = format!("{}/mcp", app.base);
    let response = super::flow::browser()
        .get(format!("{}/oauth/authorize", app.base))
        .query(&authorization(
            client_id,
            redirect_uri,
            &challenge,
            &resource,
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400, "{client_id} {redirect_uri}");
    assert!(response.headers().get(LOCATION).is_none());
    response.text().await.unwrap()
}

#[tokio::test]
async fn each_published_app_signs_in_and_calls_a_tool() {
    let clients = published();
    let server = serve(&clients, "public, max-age=300").await;
    let fresh = spawn_oauth(StoreKind::Sqlite, |s| {
        s.oauth.dev_insecure_local_client_documents = true;
    })
    .await;
    let app = &fresh.app;
    let mut ids = Vec::new();
    for client in &clients {
        let client_id = format!("{}{}", server.base, client.path);
        let redirect_uri = client.sends.replace("{port}", "49152");
        let access = sign_in(app, &fresh.token, &client_id, &redirect_uri).await;
        let save = tools_call("save_memory", json!({"summary": client.name}));
        let answer = ok_json(mcp_post(app, Some(&access), &save).send().await.unwrap()).await;
        assert_eq!(structured(&answer)["status"], "saved", "{}", client.name);
        ids.push(client_id);
    }
    // Each summary names the app that saved it.
    let load = app.load(&fresh.token).await;
    let writers: Vec<&str> = load["data"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|entries| entries.as_array().unwrap())
        .map(|entry| entry["writer"]["client_id"].as_str().unwrap())
        .collect();
    for id in &ids {
        assert!(writers.contains(&id.as_str()), "{id}: {load}");
    }

    // Only a loopback redirect matches on another port, and only on its own host.
    let [claude, _, chatgpt, copilot] = &ids[..] else {
        unreachable!()
    };
    for (client_id, redirect_uri) in [
        (
            chatgpt,
            "https://chatgpt.com:8443/connector_platform_oauth_redirect",
        ),
        (claude, "http://localhost.evil.example:1/callback"),
        (claude, "https://localhost:1/callback"),
        (copilot, "http://localhost:33418/"),
        (copilot, "http://127.0.0.1:1/elsewhere"),
    ] {
        refused(app, client_id, redirect_uri).await;
    }
}

#[tokio::test]
async fn a_document_whose_host_is_down_serves_from_its_last_good_copy() {
    let clients = published();
    let claude = &clients[0];
    // Stale at once: every request refetches it.
    let server = serve(&clients, "max-age=0").await;
    let fresh = spawn_oauth(StoreKind::Sqlite, |s| {
        s.oauth.dev_insecure_local_client_documents = true;
    })
    .await;
    let app = &fresh.app;
    let client_id = format!("{}{}", server.base, claude.path);
    let redirect_uri = claude.sends.replace("{port}", "50000");
    sign_in(app, &fresh.token, &client_id, &redirect_uri).await;
    server.set_down(true);
    // The last good copy stands in while the host answers 503.
    sign_in(app, &fresh.token, &client_id, &redirect_uri).await;
    // A document never fetched has none.
    let codex = format!("{}{}", server.base, clients[1].path);
    let page = refused(app, &codex, "http://127.0.0.1:1/callback").await;
    assert!(page.contains("HTTP 503"), "{page}");

    // Once its host says not to store it, no earlier copy stands in either.
    server.set_down(false);
    let mut document = claude.document.clone();
    document["client_id"] = json!(client_id);
    let mut no_store = Answer::json(&document);
    no_store.headers.push(("cache-control", "no-store".into()));
    server.answer(&claude.path, no_store);
    sign_in(app, &fresh.token, &client_id, &redirect_uri).await;
    server.set_down(true);
    let page = refused(app, &client_id, &redirect_uri).await;
    assert!(page.contains("HTTP 503"), "{page}");

    // A document its client withdrew (410) has no copy standing in for it.
    let server = serve(&clients, "max-age=0").await;
    let client_id = format!("{}{}", server.base, claude.path);
    sign_in(app, &fresh.token, &client_id, &redirect_uri).await;
    let mut gone = Answer::json(&json!({}));
    gone.status = 410;
    server.answer(&claude.path, gone);
    let page = refused(app, &client_id, &redirect_uri).await;
    assert!(page.contains("HTTP 410"), "{page}");
}

#[tokio::test]
async fn without_the_developer_setting_a_local_document_is_no_client() {
    let clients = published();
    let server = serve(&clients, "max-age=300").await;
    let fresh = spawn_oauth(StoreKind::Sqlite, |_| {}).await;
    let client_id = format!("{}{}", server.base, clients[0].path);
    let page = refused(&fresh.app, &client_id, "http://localhost:1/callback").await;
    assert!(page.contains("No app with this client_id"), "{page}");
}

/// The developer's setting opens plain http on this host, and nothing else: this host over
/// https stays closed, as does any other host over plain http.
#[tokio::test]
async fn the_developer_setting_opens_local_http_alone() {
    let clients = published();
    let document = clients[0].document.clone();
    let tls = DocumentServer::start(move |base| {
        let mut document = document;
        document["client_id"] = json!(format!("{base}/client.json"));
        vec![("/client.json".into(), Answer::json(&document))]
    })
    .await;
    let fresh = spawn_oauth(StoreKind::Sqlite, |s| {
        s.oauth.dev_insecure_local_client_documents = true;
    })
    .await;
    let app = &fresh.app;
    let port = tls.base.rsplit(':').next().unwrap();
    for inside in [
        format!("{}/client.json", tls.base),
        format!("https://localhost:{port}/client.json"),
    ] {
        let page = refused(app, &inside, "http://localhost:1/callback").await;
        assert!(page.contains("public address"), "{inside}: {page}");
    }
    for elsewhere in [
        "http://app.example/client.json",
        "http://10.0.0.1/client.json",
    ] {
        let page = refused(app, elsewhere, "http://localhost:1/callback").await;
        assert!(
            page.contains("No app with this client_id"),
            "{elsewhere}: {page}"
        );
    }
}
