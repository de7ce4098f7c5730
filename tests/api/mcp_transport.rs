//! How `/mcp` answers a tool call that kioku answers itself (a plain call from a client that
//! is not a browser) and one the SDK's transport answers: alike, byte for byte, under every
//! protocol version the SDK knows, and neither taken from a browser page elsewhere or under a
//! host kioku is not.

use kioku::config::StoreKind;
use reqwest::RequestBuilder;
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

use crate::helpers::on_both_stores;
use crate::helpers::{Fresh, TestApp, authorize, spawn_fresh, summaries};
use crate::mcp::{mcp_post, tools_call};

on_both_stores!(
    a_tool_call_is_answered_alike_by_kioku_and_by_the_sdk,
    a_stateless_tool_call_is_answered_alike_by_kioku_and_by_the_sdk,
    a_plain_tool_call_is_refused_from_a_foreign_origin_or_host,
    without_a_public_url_the_listen_address_is_the_only_origin,
);

/// The server's public URL, which sets the origins and hosts the transport allows.
const PUBLIC_URL: &str = "https://kioku.example";

/// Status, content type and body of `request`'s answer.
async fn answer(request: RequestBuilder) -> (u16, Option<String>, String) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response.headers().get("content-type");
    let content_type = content_type.map(|t| t.to_str().unwrap().to_owned());
    (status, content_type, response.text().await.unwrap())
}

async fn a_tool_call_is_answered_alike_by_kioku_and_by_the_sdk(store: StoreKind) {
    let public_url = Some(PUBLIC_URL.to_owned());
    let Fresh { app, token, .. } = spawn_fresh(store, |s| s.public_url = public_url).await;
    app.save(
        &token,
        Some("t-1"),
        "会話の要約、「引用」と \"quotes\" と\\。",
    )
    .await;
    let calls = [
        ("load_memories", json!({})),
        ("load_memories", json!({"q": "要約", "limit": 1})),
        ("load_memories", json!({"q": "a ".repeat(5_001)})),
        ("save_memory", json!({"summary": " "})),
        ("save_memory", json!({"summary": 42})),
        ("forget_memory", json!({"thread_id": "t-none"})),
        ("load_profile", json!({})),
        ("no_such_tool", json!({})),
    ];
    // Every version the SDK knows but the one whose calls carry their context in `_meta`
    // (below), so that an SDK upgrade is compared too.
    let versions = ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .map(ToString::to_string);
    for version in versions.filter(|version| version != STATELESS) {
        for (name, arguments) in &calls {
            let call = tools_call(name, arguments.clone());
            let post = || {
                let request = (app.client.post(format!("{}/mcp", app.base)))
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-protocol-version", &version)
                    .json(&call);
                authorize(request, Some(&token))
            };
            let plain = answer(post()).await;
            // Any `Origin`, even the server's own, which the SDK allows, leaves a call to it.
            let to_the_sdk = answer(post().header("origin", PUBLIC_URL)).await;
            assert_eq!(plain, to_the_sdk, "{version}: {name} {arguments}");
            assert_eq!(plain.0, 200, "{version}: {name} {arguments}: {}", plain.2);
        }
    }
}

const STATELESS: &str = "2026-07-28";

/// A call's headers, by name.
type Headers = Vec<(&'static str, String)>;
/// A change to a call's message or headers.
type Tweak = Box<dyn Fn(&mut Value, &mut Headers)>;

/// A 2026-07-28 `tools/call` of `name`: its context in `_meta` and SEP-2243's headers, as
/// the SDKs send them; `tweak` may change either before it goes.
fn stateless_call(
    app: &TestApp,
    token: &str,
    name: &str,
    arguments: &Value,
    tweak: impl FnOnce(&mut Value, &mut Headers),
) -> RequestBuilder {
    let mut message = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": STATELESS,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "kioku-test", "version": "1.0.0"},
        }},
    });
    let mut headers = vec![
        ("mcp-protocol-version", STATELESS.to_owned()),
        ("mcp-method", "tools/call".to_owned()),
        ("mcp-name", name.to_owned()),
    ];
    tweak(&mut message, &mut headers);
    let mut request = app
        .client
        .post(format!("{}/mcp", app.base))
        .header("accept", "application/json, text/event-stream")
        .json(&message);
    for (header, value) in headers {
        request = request.header(header, value);
    }
    authorize(request, Some(token))
}

async fn a_stateless_tool_call_is_answered_alike_by_kioku_and_by_the_sdk(store: StoreKind) {
    let public_url = Some(PUBLIC_URL.to_owned());
    let Fresh { app, token, .. } = spawn_fresh(store, |s| s.public_url = public_url).await;
    let saved = "会話の要約、「引用」と \"quotes\"。";
    app.save(&token, Some("t-1"), saved).await;
    let calls = [
        ("load_memories", json!({"q": "要約"})),
        ("save_memory", json!({"summary": " "})),
        ("forget_memory", json!({"thread_id": "t-none"})),
        ("load_profile", json!({})),
        ("no_such_tool", json!({})),
    ];
    for (name, arguments) in &calls {
        let plain = answer(stateless_call(&app, &token, name, arguments, |_, _| {})).await;
        let to_the_sdk =
            stateless_call(&app, &token, name, arguments, |_, _| {}).header("origin", PUBLIC_URL);
        assert_eq!(plain, answer(to_the_sdk).await, "{name} {arguments}");
        assert_eq!(plain.0, 200, "{name} {arguments}: {}", plain.2);
    }
    let (_, _, loaded) = answer(stateless_call(
        &app,
        &token,
        "load_memories",
        &json!({}),
        |_, _| {},
    ))
    .await;
    assert!(
        loaded.starts_with(r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","#),
        "{loaded}"
    );

    // What the SDK refuses under 2026-07-28 is not answered here either.
    let meta = "/params/_meta";
    let refusals: [(&str, Tweak); 6] = [
        (
            "no Mcp-Method",
            Box::new(|_, h| h.retain(|(n, _)| *n != "mcp-method")),
        ),
        (
            "another Mcp-Name",
            Box::new(|_, h| h[2].1 = "load_memories".into()),
        ),
        (
            "no _meta",
            Box::new(|m, _| {
                m["params"].as_object_mut().unwrap().remove("_meta");
            }),
        ),
        (
            "capabilities unreadable",
            Box::new(move |m, _| {
                m.pointer_mut(meta).unwrap()["io.modelcontextprotocol/clientCapabilities"] =
                    json!({"roots": 5});
            }),
        ),
        (
            "no capabilities",
            Box::new(move |m, _| {
                m.pointer_mut(meta)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove("io.modelcontextprotocol/clientCapabilities");
            }),
        ),
        (
            "another version in _meta",
            Box::new(move |m, _| {
                m.pointer_mut(meta).unwrap()["io.modelcontextprotocol/protocolVersion"] =
                    json!("2025-11-25");
            }),
        ),
    ];
    for (why, tweak) in refusals {
        let refused = stateless_call(&app, &token, "save_memory", &json!({"summary": why}), tweak);
        let (status, _, body) = answer(refused).await;
        assert_eq!(status, 400, "{why}: {body}");
    }
    assert_eq!(
        summaries(&app.load(&token).await),
        [saved],
        "a refused call saved"
    );
}

async fn a_plain_tool_call_is_refused_from_a_foreign_origin_or_host(store: StoreKind) {
    let public_url = Some(PUBLIC_URL.to_owned());
    let Fresh { app, token, .. } = spawn_fresh(store, |s| s.public_url = public_url).await;
    let save = tools_call("save_memory", json!({"summary": "from elsewhere"}));
    // The public origin and host are the server's own, and allowed.
    let sent = [
        ("origin", "https://elsewhere.example", 403),
        ("origin", "null", 403),
        ("host", "elsewhere.example", 403),
        ("host", "kioku.example.elsewhere.example", 403),
        ("host", "kioku.example:1@elsewhere.example", 403),
        ("host", "kioku.example:1:2", 400),
        ("origin", "https://kioku.example", 200),
        ("host", "kioku.example", 200),
    ];
    for (name, value, expected) in sent {
        let request = mcp_post(&app, Some(&token), &save).header(name, value);
        let (status, content_type, body) = answer(request).await;
        assert_eq!(status, expected, "{name}: {value}: {body}");
        refused_as_json(status, content_type, &body);
    }
    let kept = summaries(&app.load(&token).await);
    assert_eq!(kept, ["from elsewhere", "from elsewhere"]);
}

/// A refusal of `/mcp`, whoever wrote it, is JSON with a code and a message that says what
/// to change.
fn refused_as_json(status: u16, content_type: Option<String>, body: &str) {
    if status < 400 {
        return;
    }
    let content_type = content_type.unwrap_or_default();
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}: {body}"
    );
    let refusal: Value = serde_json::from_str(body).unwrap();
    let code = refusal["code"].as_str().unwrap_or_default();
    assert!(!code.is_empty() && refusal["message"].is_string(), "{body}");
    if status == 403 {
        assert_eq!(code, "origin_not_allowed", "{body}");
    }
}

/// A local run (no public URL) takes a page of its own listen address, as the MCP Inspector
/// and the conformance suite send it, and no other origin.
async fn without_a_public_url_the_listen_address_is_the_only_origin(store: StoreKind) {
    let Fresh { app, token, .. } = spawn_fresh(store, |_| {}).await;
    let port = app.base.rsplit(':').next().unwrap().to_owned();
    let save = tools_call("save_memory", json!({"summary": "from a local page"}));
    let sent = [
        (format!("http://127.0.0.1:{port}"), 200),
        (format!("http://localhost:{port}"), 200),
        (
            format!("http://127.0.0.1:{}", port.parse::<u16>().unwrap() ^ 1),
            403,
        ),
        ("https://elsewhere.example".to_owned(), 403),
        ("null".to_owned(), 403),
    ];
    for (origin, expected) in sent {
        let request = mcp_post(&app, Some(&token), &save).header("origin", &origin);
        let (status, content_type, body) = answer(request).await;
        assert_eq!(status, expected, "{origin}: {body}");
        refused_as_json(status, content_type, &body);
    }
    // What the SDK's transport refuses in plain text is JSON here too.
    let request = app
        .client
        .post(format!("{}/mcp", app.base))
        .header("accept", "text/html")
        .header("mcp-protocol-version", "2025-11-25")
        .json(&save);
    let request = authorize(request, Some(&token));
    let (status, content_type, body) = answer(request).await;
    assert_eq!(status, 406, "{body}");
    refused_as_json(status, content_type, &body);
    assert_eq!(summaries(&app.load(&token).await).len(), 2);
}
