//! The official MCP TypeScript SDK's OAuth client (tests/mcp-clients/oauth.mjs) connects an
//! OAuth-only client end to end: discovery, registration (or a client ID metadata document),
//! PKCE, the resource, the consent page, tools with the access token, and a refresh; what it
//! saved is then read through the API.

use std::path::Path;
use std::process::Command;

use kioku::config::StoreKind;
use serde_json::{Value, json};

use kioku::oauth::LoopbackDocuments;

use super::documents::{Answer, DocumentServer, document};
use super::flow::spawn_oauth;
use crate::helpers::on_both_stores;
use crate::helpers::summaries;
use crate::needs;

on_both_stores!(
    the_mcp_sdk_connects_with_oauth,
    the_mcp_sdk_connects_by_its_metadata_document,
);

/// How the client makes itself known.
enum Known {
    Registered,
    /// By a metadata document kioku fetches from the client's `client_id`.
    ByDocument,
}

const NAME: &str = "kioku test (MCP TypeScript SDK, by its document)";
/// The name oauth.mjs registers under.
const REGISTERED_NAME: &str = "kioku test (MCP TypeScript SDK)";

async fn sdk_connects(store: StoreKind, known: Known) {
    if !needs::npm_packages("tests/mcp-clients") {
        return;
    }
    let (documents, metadata_url) = match known {
        Known::Registered => (None, None),
        Known::ByDocument => {
            let server = DocumentServer::start(|base| {
                let url = format!("{base}/kioku-test-client.json");
                vec![(
                    "/kioku-test-client.json".into(),
                    Answer::json(&document(&url, NAME)),
                )]
            })
            .await;
            let url = format!("{}/kioku-test-client.json", server.base);
            (Some(server), Some(url))
        }
    };
    let root_pem = documents.as_ref().map(|server| server.root_pem.clone());
    let fresh = spawn_oauth(store, |s| {
        s.oauth.loopback_documents = root_pem.map(|root_pem| LoopbackDocuments { root_pem });
    })
    .await;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp-clients");
    let mut command = Command::new("node");
    command
        .arg(dir.join("oauth.mjs"))
        .env("KIOKU_MCP_URL", format!("{}/mcp", fresh.app.base))
        .env("KIOKU_TOKEN", &fresh.token);
    // As the consent page shows it: a document's name beside its host.
    let mut shown_name = REGISTERED_NAME.to_owned();
    if let (Some(url), Some(server)) = (&metadata_url, &documents) {
        let host = server.base.trim_start_matches("https://");
        shown_name = format!("{NAME} ({host})");
        command
            .env("KIOKU_CLIENT_METADATA_URL", url)
            .env("KIOKU_EXPECT_CLIENT_NAME", &shown_name);
    }
    // The server runs on this test's runtime, so the client is waited for off it.
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the SDK's OAuth client failed:\n{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let outcome: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap();
    let loaded = fresh.app.load(&fresh.token).await;
    assert_eq!(summaries(&loaded), [outcome["saved"].as_str().unwrap()]);
    let entry = &loaded["data"][outcome["thread_id"].as_str().unwrap()][0];
    // The app is the writer, by the id it signed in with and the name the consent page showed,
    // through the MCP tool and the API alike.
    let writer = json!({"by": "app", "client_id": outcome["client_id"], "name": shown_name});
    assert_eq!(outcome["writer"], writer, "{outcome}");
    assert_eq!(entry["writer"], writer, "{loaded}");
}

async fn the_mcp_sdk_connects_with_oauth(store: StoreKind) {
    sdk_connects(store, Known::Registered).await;
}

async fn the_mcp_sdk_connects_by_its_metadata_document(store: StoreKind) {
    sdk_connects(store, Known::ByDocument).await;
}
