//! On Firestore, each request's log line says how many documents it read and wrote, counted as
//! Firestore bills them: through the API and through MCP tools alike.

use serde_json::{Value, json};

use crate::helpers::{Process, ok_json, on_firestore};
use crate::original::emulator_host;

/// `(reads, writes)` of each request line, in order, with its method and route.
fn costs(log: &[String]) -> Vec<(String, Option<u64>, Option<u64>)> {
    log.iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["httpRequest"].is_object())
        .map(|line| {
            let request = &line["httpRequest"];
            (
                format!(
                    "{} {}",
                    request["requestMethod"].as_str().unwrap(),
                    request["requestUrl"].as_str().unwrap()
                ),
                line["firestore_reads"].as_u64(),
                line["firestore_writes"].as_u64(),
            )
        })
        .collect()
}

#[tokio::test]
async fn each_request_line_carries_the_documents_it_read_and_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let id = uuid::Uuid::new_v4();
    let token = format!("tok-{id}-0123456789abcdef");
    let tokens = format!("ns-{id}:{token}");
    let host = emulator_host();
    let server = Process::start(dir.path(), &on_firestore(&tokens, &host)).unwrap();
    let app = server.app();
    for thread in ["a", "b", "c"] {
        app.save(&token, Some(thread), "要約").await;
    }
    app.load(&token).await;
    let rewrite = [("mode", "profile"), ("profile", "Rust を書く")];
    ok_json(app.get(Some(&token), &rewrite).send().await.unwrap()).await;
    app.load(&token).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "load_memories", "arguments": {}}});
    let mcp = app
        .client
        .post(format!("{}/mcp", app.base))
        .bearer_auth(&token)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .json(&call)
        .send()
        .await
        .unwrap();
    assert_eq!(mcp.status(), 200);
    let health = app.path("/healthz").send().await.unwrap();
    assert_eq!(health.status(), 200);
    let (_, log) = server.stop_and_collect();

    let line = |route: &str, reads, writes| (route.to_owned(), Some(reads), Some(writes));
    assert_eq!(
        costs(&log),
        [
            // The thread (to tell a repeat, and a new thread), the commit, the thread count.
            line("GET /", 2, 1),
            line("GET /", 2, 1),
            line("GET /", 2, 1),
            // No profile (a query that finds none is billed one read), and the three threads.
            line("GET /", 4, 0),
            // The newest version (none), and the new one created.
            line("GET /", 1, 1),
            line("GET /", 4, 0),
            line("POST /mcp", 4, 0),
            ("GET /healthz".to_owned(), None, None),
        ]
    );
}
