//! What a hostile or careless client cannot make kioku do: hold a connection with a trickled
//! body, get an answer sniffed or cached, put what it sent into the log (through kioku or the
//! MCP SDK), or find the memory files open to other users; and on Cloud Run, the URL kioku
//! names is never a request's.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{ALICE, ok_json, spawn_app, spawn_app_with};
use crate::launch::Launch;
use crate::mcp::{mcp_post, tools_call};

/// A body sent a byte a second is cut off with 408 JSON, and stores nothing.
#[tokio::test]
async fn a_trickled_body_gets_408() {
    let app = spawn_app().await;
    let address = app.base.trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&address).await.unwrap();
    let head = format!(
        "POST / HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {ALICE}\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let trickle = tokio::spawn(async move {
        while writer.write_all(b" ").await.is_ok() {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
    let started = Instant::now();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&answer).contains("}") {
        let read = tokio::time::timeout(Duration::from_secs(30), reader.read(&mut buffer))
            .await
            .expect("an answer within 30 s")
            .unwrap();
        if read == 0 {
            break;
        }
        answer.extend_from_slice(&buffer[..read]);
    }
    trickle.abort();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains(r#""code":"body_timeout""#), "{answer}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    app.assert_nothing_stored().await;
}

/// Every answer says what it is and that it is not to be cached.
#[tokio::test]
async fn answers_are_neither_sniffed_nor_cached() {
    let app = spawn_app().await;
    for response in [
        app.get(Some(ALICE), &[("mode", "load")])
            .send()
            .await
            .unwrap(),
        app.get(None, &[("mode", "load")]).send().await.unwrap(),
        app.path("/nowhere").send().await.unwrap(),
    ] {
        assert_eq!(response.headers()["x-content-type-options"], "nosniff");
        assert_eq!(response.headers()["cache-control"], "no-store");
    }
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The data directory and every file of the store are their owner's alone.
#[tokio::test]
async fn the_memory_files_are_their_owners_alone() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("fresh/data");
    let app = spawn_app_with(|s| s.data_dir = data.clone()).await;
    app.save(ALICE, None, "private").await;
    assert_eq!(mode(&data), 0o700);
    for file in ["kioku.sqlite3", "kioku.sqlite3-wal", "kioku.sqlite3-shm"] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
}

/// A data directory found open to others is used, and the operator told.
#[tokio::test]
async fn a_data_directory_open_to_others_draws_a_warning() {
    let launch = Launch::new();
    std::fs::set_permissions(launch.dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = launch.start().unwrap();
    let (_, log) = server.stop_and_collect();
    assert!(
        log.iter()
            .any(|l| l.contains("others may read this") && l.contains("chmod 700")),
        "{log:?}"
    );
}

/// Neither a path no route matched nor an oversized trace header reaches the log.
#[tokio::test]
async fn what_a_client_sends_is_not_logged() {
    let launch = Launch::new();
    let server = launch.start().unwrap();
    let client = reqwest::Client::new();
    let secret_path = format!("/{ALICE}/{}", "x".repeat(60_000));
    let response = client
        .get(format!("{}{secret_path}", server.base()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let long_trace = "a".repeat(500);
    let traced = client
        .get(format!("{}/healthz", server.base()))
        .header("x-cloud-trace-context", format!("{long_trace}/1;o=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(traced.status(), 200);
    let (_, log) = server.stop_and_collect();
    let lines: Vec<Value> = log
        .iter()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l["httpRequest"]["requestUrl"] == "(unmatched)"),
        "{log:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l["httpRequest"]["requestUrl"] == "/healthz"),
        "{log:?}"
    );
    for line in &log {
        assert!(
            !line.contains(ALICE) && !line.contains(&long_trace),
            "{line}"
        );
        assert!(line.len() < 2_000, "a line of {} bytes", line.len());
    }
}

/// The MCP SDK's own log lines (a rejected `Origin`, a request it answered with an error) say
/// where they were raised and nothing of what the client sent.
#[tokio::test]
async fn the_mcp_sdk_logs_nothing_a_client_sent() {
    let launch = Launch::new().set("KIOKU_PUBLIC_URL", "https://kioku.example");
    let server = launch.start().unwrap();
    let app = server.app();
    let initialize = json!({"jsonrpc": "2.0", "id": "id-marker-1", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "client-marker", "version": "1"}}});
    let from_elsewhere = mcp_post(&app, Some(ALICE), &initialize)
        .header("origin", "https://origin-marker.example")
        .send()
        .await
        .unwrap();
    assert_eq!(from_elsewhere.status(), 403);
    let mut unknown = tools_call("tool-marker", json!({"argument-marker": 1}));
    unknown["id"] = json!("id-marker-2");
    let refused = mcp_post(&app, Some(ALICE), &unknown).send().await.unwrap();
    assert!(refused.status().is_success(), "{}", refused.status());
    let (_, log) = server.stop_and_collect();
    let withheld = log
        .iter()
        .filter(|l| l.contains(r#""target":"rmcp"#) && l.contains("details are withheld"))
        .count();
    assert!(withheld >= 2, "the SDK's lines: {log:#?}");
    for line in &log {
        assert!(!line.contains("marker"), "{line}");
    }
}

/// On Cloud Run the schema names the configured URL, whatever a request's forwarding headers
/// say; without one configured, kioku does not start.
#[tokio::test]
async fn on_cloud_run_the_url_is_the_configured_one() {
    let cloud = Launch::new().on_cloud_run().unset("KIOKU_PUBLIC_URL");
    let Err((status, log)) = cloud.start() else {
        panic!("started on Cloud Run without KIOKU_PUBLIC_URL");
    };
    assert!(!status.success());
    assert!(
        log.iter()
            .any(|l| l.contains("KIOKU_PUBLIC_URL is not set")),
        "{log:?}"
    );

    let server = cloud.on_cloud_run().start().unwrap();
    let schema = reqwest::Client::new()
        .get(format!("{}/openapi.json", server.base()))
        .header("x-forwarded-host", "attacker.example")
        .header("x-forwarded-proto", "https")
        .send()
        .await
        .unwrap();
    let schema: Value = ok_json(schema).await;
    assert_eq!(schema["servers"][0]["url"], "https://kioku.example");
}

/// The developer's setting for local client metadata documents lets a client_id make kioku
/// fetch from its own host: on Cloud Run kioku refuses to start with it, naming it.
#[test]
fn on_cloud_run_local_client_documents_are_refused() {
    let cloud = Launch::new()
        .on_cloud_run()
        .set("KIOKU_DEV_INSECURE_LOCAL_CLIENT_DOCUMENTS", "true");
    let Err((status, log)) = cloud.start() else {
        panic!("started on Cloud Run with local client documents");
    };
    assert!(!status.success());
    assert!(
        log.iter()
            .any(|l| l.contains("KIOKU_DEV_INSECURE_LOCAL_CLIENT_DOCUMENTS is set")),
        "{log:?}"
    );
    // Off, the same launch starts.
    let server = cloud
        .set("KIOKU_DEV_INSECURE_LOCAL_CLIENT_DOCUMENTS", "false")
        .start();
    assert!(server.is_ok());
}

/// A kept-alive connection sending its next request head a byte a second is closed at the head
/// deadline, as one sending its first is; so is one that goes quiet after its answer. Neither
/// holds its place (and a worker's share of connections) for longer.
#[tokio::test]
async fn a_later_request_head_is_held_to_the_first_ones_deadline() {
    let app = spawn_app().await;
    let address = app.base.trim_start_matches("http://").to_owned();
    let held = (0..60).map(|n| {
        let address = address.clone();
        async move {
            let mut stream = TcpStream::connect(&address).await.unwrap();
            stream
                .write_all(b"GET /healthz HTTP/1.1\r\nHost: kioku\r\n\r\n")
                .await
                .unwrap();
            // Two in three trickle a next head; the rest say nothing more.
            let trickles = n % 3 != 0;
            let mut next_head = b"GET /healthz HTTP/1.1\r\nX-Slow: ".iter().copied();
            let closed = async {
                let mut answer = [0; 1024];
                loop {
                    tokio::select! {
                        read = stream.read(&mut answer) => match read {
                            Ok(0) | Err(_) => return,
                            Ok(_) => {}
                        },
                        () = tokio::time::sleep(Duration::from_secs(1)) => {
                            let byte = next_head.next().unwrap_or(b'a');
                            if trickles && stream.write_all(&[byte]).await.is_err() {
                                return;
                            }
                        }
                    }
                }
            };
            // The deadline is 5 seconds, from a head's first byte or the answer's end.
            tokio::time::timeout(Duration::from_secs(9), closed)
                .await
                .is_ok()
        }
    });
    let closed = futures::future::join_all(held).await;
    let open = closed.iter().filter(|closed| !**closed).count();
    assert_eq!(open, 0, "{open} of {} connections still held", closed.len());
    let health = app.path("/healthz").send().await.unwrap();
    assert_eq!(health.status(), 200);
}
