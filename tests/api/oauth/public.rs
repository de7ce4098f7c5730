//! An MCP client, as the MCP authorization spec has it: discovery from the 401, registration,
//! PKCE, a token for the `/mcp` resource, and that token at `/mcp` but not at the API.

use kioku::config::StoreKind;
use serde_json::{Value, json};

use super::flow::{PublicClient, authorize_with_token, param, spawn_oauth, token_request, tokens};
use crate::helpers::on_both_stores;
use crate::helpers::{ADMIN, TestApp, error_json, ok_json};

on_both_stores!(an_mcp_client_connects_with_oauth,);

const REDIRECT: &str = "http://127.0.0.1:33418/callback";
/// The same, on the port the app listens on this time: any port matches (RFC 8252, section 7.3).
const THIS_TIME: &str = "http://127.0.0.1:51234/callback";

/// A JSON-RPC `initialize` to `/mcp` with `token`.
async fn initialize(app: &TestApp, token: &str) -> reqwest::Response {
    app.client
        .post(format!("{}/mcp", app.base))
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "0"}}
        }))
        .send()
        .await
        .unwrap()
}

/// When the client `client_id` goes if nobody completes a grant for it, as the operator sees.
async fn expiry(app: &TestApp, client_id: &str) -> Value {
    let listed: Value = ok_json(
        app.call(reqwest::Method::GET, "/admin/oauth/clients", ADMIN)
            .send()
            .await
            .unwrap(),
    )
    .await;
    let clients = listed["clients"].as_array().unwrap();
    let client = clients.iter().find(|c| c["client_id"] == client_id);
    client.expect("the client is listed")["expires_at"].clone()
}

async fn an_mcp_client_connects_with_oauth(store: StoreKind) {
    let fresh = spawn_oauth(store, |_| {}).await;
    let app = &fresh.app;
    let issuer = app.base.clone();

    // Discovery starts at the 401 (MCP authorization spec; RFC 9728, section 5.1).
    let refused = app
        .client
        .post(format!("{issuer}/mcp"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let challenge = refused.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_owned();
    let metadata_url = challenge
        .split("resource_metadata=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap();
    let resource: Value = ok_json(app.client.get(metadata_url).send().await.unwrap()).await;
    assert_eq!(resource["resource"], format!("{issuer}/mcp"));
    assert_eq!(resource["authorization_servers"], json!([issuer]));
    let server: Value = ok_json(
        app.client
            .get(format!("{issuer}/.well-known/oauth-authorization-server"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(server["issuer"], issuer.as_str());
    assert_eq!(server["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(
        server["registration_endpoint"],
        format!("{issuer}/oauth/register")
    );

    let mut client = PublicClient::register(app, REDIRECT).await;
    let client_id = client.id.clone();
    // Anyone may register: a client nobody completes a grant for goes after a day.
    assert!(expiry(app, &client_id).await.is_string());
    // The registered loopback URI, on the port this run of the app listens on.
    client.redirect_uri = THIS_TIME;
    let mcp_resource = format!("{issuer}/mcp");
    let resource = [("resource", mcp_resource.as_str())];
    let params = client.authorization(&[resource[0], ("state", "s")]);
    let back = authorize_with_token(app, &params, &fresh.token).await;
    assert!(back.as_str().starts_with(THIS_TIME), "{back}");
    let code = param(&back, "code").unwrap();
    let issued = tokens(client.exchange(app, &code, &resource).await).await;
    let access = issued["access_token"].as_str().unwrap();
    assert_eq!(
        expiry(app, &client_id).await,
        Value::Null,
        "a used client stays"
    );

    let answer = initialize(app, access).await;
    assert_eq!(answer.status(), 200);
    let answer: Value = answer.json().await.unwrap();
    assert_eq!(answer["result"]["serverInfo"]["name"], "kioku", "{answer}");

    // A token for `/mcp` is not one for the API (RFC 8707).
    let api = app
        .get(Some(access), &[("mode", "load")])
        .send()
        .await
        .unwrap();
    error_json(api, 401, "invalid_token").await;

    // A public client refreshes with its id alone.
    let rotated = tokens(
        token_request(
            app,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", issued["refresh_token"].as_str().unwrap()),
                ("client_id", &client_id),
            ],
            None,
        )
        .await,
    )
    .await;
    let again = initialize(app, rotated["access_token"].as_str().unwrap()).await;
    assert_eq!(again.status(), 200);
}
