//! The official MCP TypeScript SDK's OAuth client (tests/mcp-clients/oauth.mjs) connects an
//! OAuth-only client end to end: discovery, registration, PKCE, the resource, the consent page,
//! tools with the access token, and a refresh; what it saved is then read through the API.

use std::path::Path;
use std::process::Command;

use kioku::config::StoreKind;
use serde_json::Value;

use super::flow::{STORES, spawn_oauth};
use crate::helpers::summaries;

async fn sdk_connects(store: StoreKind) {
    let fresh = spawn_oauth(store, |_| {}).await;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp-clients");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/sdk").is_dir(),
        "the MCP TypeScript SDK is missing: run the tests with scripts/test"
    );
    let mut command = Command::new("node");
    command
        .arg(dir.join("oauth.mjs"))
        .env("KIOKU_MCP_URL", format!("{}/mcp", fresh.app.base))
        .env("KIOKU_TOKEN", &fresh.token);
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
    assert!(
        loaded["data"]
            .get(outcome["thread_id"].as_str().unwrap())
            .is_some(),
        "{loaded}"
    );
}

#[tokio::test]
async fn the_mcp_sdk_connects_with_oauth_on_sqlite() {
    sdk_connects(STORES[0]).await;
}

#[tokio::test]
async fn the_mcp_sdk_connects_with_oauth_on_firestore() {
    sdk_connects(STORES[1]).await;
}
