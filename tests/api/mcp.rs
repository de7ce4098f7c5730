//! The MCP endpoint, `POST /mcp`, as MCP clients meet it, on each store: the official TypeScript
//! and Python SDKs run their scenario (tests/mcp-clients, installed by scripts/test) and what they
//! saved and forgot is checked through the HTTP API; then, over raw JSON-RPC, bearer auth,
//! namespaces kept apart, and refusals that match the HTTP API's and are never a server error.

use std::path::{Path, PathBuf};
use std::process::Command;

use kioku::config::StoreKind;
use reqwest::{Method, RequestBuilder};
use serde_json::{Value, json};

use crate::helpers::on_both_stores;
use crate::helpers::{Fresh, TestApp, authorize, error_json, ok_json, spawn_fresh, summaries};
use crate::needs;

on_both_stores!(
    mcp_takes_only_known_bearer_tokens,
    a_token_reaches_only_its_own_namespace_over_mcp,
    mcp_refusals_are_the_http_apis_and_never_a_server_error,
    the_typescript_sdk_uses_every_tool,
    the_python_sdk_uses_every_tool,
);

/// The official MCP SDK a client program is written with.
#[derive(Debug, Clone, Copy)]
enum Sdk {
    TypeScript,
    Python,
}

impl Sdk {
    /// The command that runs this SDK's client, with the SDK scripts/test installs; `None`
    /// once the test is skipped for want of it.
    fn command(self) -> Option<Command> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp-clients");
        let (program, script): (PathBuf, _) = match self {
            Self::TypeScript => {
                if !needs::npm_packages("tests/mcp-clients") {
                    return None;
                }
                ("node".into(), dir.join("client.mjs"))
            }
            Self::Python => (
                needs::var("KIOKU_MCP_PYTHON")?.into(),
                dir.join("client.py"),
            ),
        };
        let mut command = Command::new(program);
        command.arg(script);
        Some(command)
    }
}

/// Saves a summary through HTTP, runs `sdk`'s client against `store` (it fails on any unmet
/// expectation of the contract), then checks through HTTP what its last line says it left.
async fn client_scenario(sdk: Sdk, store: StoreKind) {
    let Some(mut command) = sdk.command() else {
        return;
    };
    let Fresh { app, token, ns, .. } = spawn_fresh(store, |_| {}).await;
    let before = format!("Saved through HTTP before the {sdk:?} client ran");
    let before_thread = app.save(&token, None, &before).await["thread_id"]
        .as_str()
        .unwrap()
        .to_owned();

    command
        .env("KIOKU_MCP_URL", format!("{}/mcp", app.base))
        .env("KIOKU_TOKEN", &token)
        .env("KIOKU_EXPECT_SUMMARY", &before)
        .env("KIOKU_EXPECT_THREAD", &before_thread)
        .env(
            "KIOKU_EXPECT_WRITER",
            serde_json::json!({"by": "token", "label": ns}).to_string(),
        );
    // The server runs on this test's runtime, so the client is waited for off it.
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("the {sdk:?} client did not start: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the {sdk:?} client failed ({}):\n{stdout}{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    let outcome: Value = serde_json::from_str(last)
        .unwrap_or_else(|e| panic!("the {sdk:?} client's last line is not JSON ({e}): {stdout}"));

    let load = app.load(&token).await;
    let text = |field: &str| {
        outcome[field]
            .as_str()
            .unwrap_or_else(|| panic!("{field}: {last}"))
    };
    assert_eq!(thread_summaries(&load, text("thread_id")), [text("kept")]);
    assert!(
        !summaries(&load).iter().any(|s| s == text("forgotten")),
        "forget_memory left the summary: {load}"
    );
    assert_eq!(thread_summaries(&load, &before_thread), [before.as_str()]);
    // The profile the client wrote through MCP reads back through HTTP.
    let profile = ok_json(
        app.get(Some(&token), &[("mode", "profile")])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (&profile["profile"], &profile["version"]),
        (&json!(text("profile")), &json!(1))
    );
}

/// The summaries of `thread` in a load.
fn thread_summaries<'a>(load: &'a Value, thread: &str) -> Vec<&'a str> {
    let entries = load["data"][thread].as_array().into_iter().flatten();
    entries.map(|e| e["summary"].as_str().unwrap()).collect()
}

/// A POST of one JSON-RPC `message` to `/mcp` as a client sends it after `initialize`; the
/// server is stateless, so none is needed first.
pub fn mcp_post(app: &TestApp, token: Option<&str>, message: &Value) -> RequestBuilder {
    let request = app
        .client
        .post(format!("{}/mcp", app.base))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .json(message);
    authorize(request, token)
}

pub fn tools_call(name: &str, arguments: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    })
}

/// The HTTP status and JSON-RPC answer of a `tools/call`, which is never a server error.
async fn send_call(app: &TestApp, token: &str, name: &str, arguments: &Value) -> (u16, Value) {
    let message = tools_call(name, arguments.clone());
    let response = mcp_post(app, Some(token), &message).send().await.unwrap();
    let status = response.status().as_u16();
    let body = response.text().await.unwrap();
    assert!(status < 500, "{name} {arguments}: {status} {body}");
    let answer = serde_json::from_str(&body)
        .unwrap_or_else(|e| panic!("{name} {arguments}: {status}, not JSON ({e}): {body}"));
    (status, answer)
}

/// The JSON-RPC answer of a `tools/call` answered with 200, as every tool result is.
pub async fn call_tool(app: &TestApp, token: &str, name: &str, arguments: Value) -> Value {
    let (status, answer) = send_call(app, token, name, &arguments).await;
    assert_eq!(status, 200, "{name} {arguments}: {answer}");
    answer
}

/// The structuredContent of a tool call that succeeded.
pub fn structured(answer: &Value) -> &Value {
    let result = &answer["result"];
    assert_ne!(result["isError"], true, "{answer}");
    assert!(result["structuredContent"].is_object(), "{answer}");
    &result["structuredContent"]
}

/// The structuredContent of a tool error with `code`.
fn tool_error<'a>(answer: &'a Value, code: &str) -> &'a Value {
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    let error = &result["structuredContent"];
    assert_eq!(error["status"], "error", "{answer}");
    assert_eq!(error["code"], code, "{answer}");
    error
}

/// JSON-RPC's codes for a request's invalid parameters and for an unknown method.
const INVALID_PARAMS: i64 = -32602;
const METHOD_NOT_FOUND: i64 = -32601;

/// Whether `answer` refuses the call: a tool error with one of `codes` (any, when empty), or a
/// JSON-RPC error with one of `rpc_codes`.
fn refused(answer: &Value, codes: &[&str], rpc_codes: &[i64]) -> bool {
    if let Some(code) = answer["error"]["code"].as_i64() {
        return rpc_codes.contains(&code);
    }
    let code = answer["result"]["structuredContent"]["code"].as_str();
    answer["result"]["isError"] == true
        && code.is_some_and(|code| codes.is_empty() || codes.contains(&code))
}

async fn mcp_takes_only_known_bearer_tokens(store: StoreKind) {
    let Fresh { app, .. } = spawn_fresh(store, |_| {}).await;
    let save = tools_call("save_memory", json!({"summary": "refused"}));

    let response = mcp_post(&app, None, &save).send().await.unwrap();
    let metadata = format!("{}/.well-known/oauth-protected-resource/mcp", app.base);
    assert_eq!(
        response.headers()["www-authenticate"],
        format!("Bearer resource_metadata=\"{metadata}\", scope=\"memory\"").as_str()
    );
    error_json(response, 401, "missing_credentials").await;
    // The challenge names the document a client learns about the resource from.
    let document = ok_json(app.client.get(&metadata).send().await.unwrap()).await;
    assert_eq!(document["resource"], format!("{}/mcp", app.base));

    let response = mcp_post(&app, Some("tok-nobody"), &save)
        .send()
        .await
        .unwrap();
    error_json(response, 403, "unknown_token").await;

    // The view, which the SDK answers rather than kioku's own path, behind the same gate.
    let read = json!({
        "jsonrpc": "2.0", "id": 2, "method": "resources/read",
        "params": {"uri": "ui://kioku/memory.html"},
    });
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/list"});
    for message in [read, list] {
        let response = mcp_post(&app, None, &message).send().await.unwrap();
        error_json(response, 401, "missing_credentials").await;
    }
}

async fn a_token_reaches_only_its_own_namespace_over_mcp(store: StoreKind) {
    let id = uuid::Uuid::new_v4().simple();
    let b_token = format!("tok-b-{id}");
    let Fresh { app, token, .. } = spawn_fresh(store, |s| {
        let tokens = s.api_tokens.take().unwrap();
        let tokens = tokens.expose();
        s.api_tokens = Some(format!("{tokens},ns-b-{id}:{b_token}").into());
    })
    .await;
    let word = format!("secret{id}");
    let secret = format!("Only for namespace A: {word}");
    let saved = app.save(&token, None, &secret).await;
    let thread = saved["thread_id"].as_str().unwrap();
    app.save(&b_token, None, "Namespace B's own note").await;

    // B loads its own memory, exactly as over HTTP, and nothing of A's.
    let b_load = call_tool(&app, &b_token, "load_memories", json!({})).await;
    assert_eq!(structured(&b_load), &app.load(&b_token).await);
    let shown = b_load.to_string();
    assert!(!shown.contains(&word) && !shown.contains(thread), "{shown}");
    for narrowed in [json!({"thread_id": thread}), json!({"q": word})] {
        let answer = call_tool(&app, &b_token, "load_memories", narrowed).await;
        assert_eq!(structured(&answer)["status"], "no_match", "{answer}");
    }

    // Nor can B forget A's thread; it is told so as the HTTP API tells it.
    let refused = call_tool(
        &app,
        &b_token,
        "forget_memory",
        json!({"thread_id": thread}),
    )
    .await;
    let refused = tool_error(&refused, "nothing_to_forget");
    let path = format!("/forget?thread_id={thread}");
    let http = app.call(Method::GET, &path, &b_token).send().await.unwrap();
    let http = error_json(http, 404, "nothing_to_forget").await;
    assert_eq!(refused["message"], http["message"]);

    // A's thread is whole, and A's loads answer as the HTTP API does.
    assert_eq!(summaries(&app.load(&token).await), [secret.as_str()]);
    for (arguments, query) in [
        (json!({"thread_id": thread}), ("thread_id", thread)),
        (json!({"q": word}), ("q", word.as_str())),
    ] {
        let answer = call_tool(&app, &token, "load_memories", arguments).await;
        let request = app.get(Some(&token), &[("mode", "load"), query]);
        let http = ok_json(request.send().await.unwrap()).await;
        assert_eq!(structured(&answer), &http);
    }
}

async fn mcp_refusals_are_the_http_apis_and_never_a_server_error(store: StoreKind) {
    let Fresh { app, token, .. } = spawn_fresh(store, |_| {}).await;

    // Tool errors with the HTTP API's code and message.
    let long = "x".repeat(5_001);
    for (summary, code) in [
        (long.as_str(), "summary_too_long"),
        (" \t ", "blank_summary"),
        ("a\u{202e}b", "summary_control_character"),
    ] {
        let answer = call_tool(&app, &token, "save_memory", json!({"summary": summary})).await;
        let error = tool_error(&answer, code);
        let http = app.get(Some(&token), &[("mode", "save"), ("summary", summary)]);
        let http = error_json(http.send().await.unwrap(), 400, code).await;
        assert_eq!(error["message"], http["message"]);
    }
    let q = "a ".repeat(5_001);
    let answer = call_tool(&app, &token, "load_memories", json!({"q": q})).await;
    let error = tool_error(&answer, "query_too_long");
    let http = app.get(Some(&token), &[("mode", "load"), ("q", &q)]);
    let http = error_json(http.send().await.unwrap(), 400, "query_too_long").await;
    assert_eq!(error, &http);

    // Arguments that do not fit the schema (one it does not name, too), and an unknown
    // tool; send_call refuses a 5xx.
    for arguments in [
        json!({"summary": 42}),
        json!({}),
        json!({"summary": "kept?", "colour": "red"}),
    ] {
        let (_, answer) = send_call(&app, &token, "save_memory", &arguments).await;
        let unfit = ["malformed_json", "missing_summary"];
        assert!(
            refused(&answer, &unfit, &[INVALID_PARAMS]),
            "{arguments}: {answer}"
        );
    }
    let (_, answer) = send_call(&app, &token, "no_such_tool", &json!({})).await;
    let rpc_codes = [INVALID_PARAMS, METHOD_NOT_FOUND];
    assert!(refused(&answer, &[], &rpc_codes), "{answer}");

    // None of it saved anything.
    assert_eq!(
        app.load(&token).await,
        json!({"status": "empty", "count": 0, "data": {}})
    );
}

async fn the_typescript_sdk_uses_every_tool(store: StoreKind) {
    client_scenario(Sdk::TypeScript, store).await;
}

async fn the_python_sdk_uses_every_tool(store: StoreKind) {
    client_scenario(Sdk::Python, store).await;
}
