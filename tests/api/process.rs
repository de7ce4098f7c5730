//! The real binary: start-up, logs, signals and crashes.

use futures::future::join_all;
use serde_json::Value;

use crate::helpers::{ADMIN, ALICE, BARE, Process, api_tokens, summaries};

fn tokens_env() -> String {
    api_tokens()
}

async fn load(base: &str, token: &str) -> Value {
    let response = reqwest::Client::new()
        .get(base)
        .bearer_auth(token)
        .query(&[("mode", "load")])
        .send()
        .await
        .unwrap();
    crate::helpers::ok_json(response).await
}

/// Every save that was answered 200 before a kill -9 is there after a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn answered_saves_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = tokens_env();
    let env = [("API_TOKENS", tokens.as_str())];
    let mut server = Process::start(dir.path(), &env).unwrap();
    let base = server.base();
    let client = reqwest::Client::new();

    let (answered_tx, mut answered_rx) = tokio::sync::mpsc::unbounded_channel();
    let saves = (0..300).map(|i| {
        let request = client.get(&base).bearer_auth(ALICE).query(&[
            ("mode", "save"),
            ("thread_id", &format!("t{}", i % 7)),
            ("summary", &format!("durable {i}")),
        ]);
        let answered = answered_tx.clone();
        tokio::spawn(async move {
            if let Ok(response) = request.send().await
                && response.status() == 200
            {
                let _ = answered.send(i);
            }
        })
    });
    let saves: Vec<_> = saves.collect();
    drop(answered_tx);
    // Kill once a third of the saves have been answered, while the rest are in flight.
    let mut answered = Vec::new();
    while answered.len() < 100 {
        answered.push(answered_rx.recv().await.expect("saves are answered"));
    }
    server.kill();
    join_all(saves).await;
    while let Ok(i) = answered_rx.try_recv() {
        answered.push(i);
    }

    let restarted = Process::start(dir.path(), &env).unwrap();
    let loaded = summaries(&load(&restarted.base(), ALICE).await);
    for i in &answered {
        assert!(
            loaded.contains(&format!("durable {i}")),
            "answered save {i} was lost"
        );
    }
}

#[tokio::test]
async fn sigterm_stops_the_server_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = tokens_env();
    let server = Process::start(dir.path(), &[("API_TOKENS", tokens.as_str())]).unwrap();
    load(&server.base(), ALICE).await;
    let (status, _) = server.stop_and_collect();
    assert_eq!(status.code(), Some(0));
}

/// On Cloud Run: listens on every interface, logs in Cloud Logging's shape with the trace,
/// and never logs a token or a summary.
#[tokio::test]
async fn cloud_run_logs_are_structured_and_hold_no_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = tokens_env();
    let env = [
        ("API_TOKENS", tokens.as_str()),
        ("K_SERVICE", "kioku"),
        ("GOOGLE_CLOUD_PROJECT", "demo-project"),
        ("KIOKU_STORE", "sqlite"),
        ("KIOKU_ADMIN_TOKENS", ADMIN),
    ];
    let server = Process::start(dir.path(), &env).unwrap();
    assert!(server.address.ip().is_unspecified(), "{}", server.address);
    let summary = "unforgettable-secret-summary";
    let response = reqwest::Client::new()
        .get(server.base())
        .bearer_auth(BARE)
        .header(
            "x-cloud-trace-context",
            "105445aa7843bc8bf206b12000100000/1;o=1",
        )
        .query(&[("mode", "save"), ("summary", summary)])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    // An admin deletes the bare token's namespace, whose name is the token.
    let deleted = reqwest::Client::new()
        .delete(format!("{}/admin/namespaces/{BARE}", server.base()))
        .bearer_auth(ADMIN)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    let (_, log) = server.stop_and_collect();

    let lines: Vec<Value> = log
        .iter()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    let request = lines
        .iter()
        .find(|l| l["httpRequest"]["status"] == 200)
        .expect("a request line");
    assert_eq!(request["severity"], "INFO");
    assert_eq!(request["httpRequest"]["requestMethod"], "GET");
    assert_eq!(request["httpRequest"]["requestUrl"], "/");
    assert!(
        request["httpRequest"]["latency"]
            .as_str()
            .unwrap()
            .ends_with('s')
    );
    assert_eq!(
        request["logging.googleapis.com/trace"],
        "projects/demo-project/traces/105445aa7843bc8bf206b12000100000"
    );
    assert_eq!(request["namespace"], "bare-token-4");
    assert!(
        lines.iter().any(|l| l["severity"] == "WARNING"),
        "the bare token draws a warning"
    );
    // The last request's line, whose path holds the bare token, is read too.
    let last = lines
        .iter()
        .rfind(|l| l["httpRequest"].is_object())
        .unwrap();
    assert_eq!(last["httpRequest"]["requestMethod"], "DELETE", "{last}");
    assert_eq!(
        last["httpRequest"]["requestUrl"],
        "/admin/namespaces/{name}"
    );
    for line in &log {
        for secret in [BARE, ALICE, ADMIN, summary] {
            assert!(!line.contains(secret), "secret in log: {line}");
        }
    }
}

#[tokio::test]
async fn cloud_run_without_tokens_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let Err((status, log)) = Process::start(dir.path(), &[("K_SERVICE", "kioku")]) else {
        panic!("started without API_TOKENS");
    };
    assert!(!status.success());
    assert!(
        log.iter().any(|l| l.contains("API_TOKENS is not set")),
        "{log:?}"
    );
}

/// Without API_TOKENS a local run makes a private token, says how to use it, and accepts it.
#[tokio::test]
async fn a_local_run_generates_a_private_token() {
    let dir = tempfile::tempdir().unwrap();
    let server = Process::start(dir.path(), &[]).unwrap();
    let path = dir.path().join("api_token");
    let token = std::fs::read_to_string(&path).unwrap().trim().to_owned();
    assert_eq!(token.len(), 64);
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&path).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    assert_eq!(load(&server.base(), &token).await["status"], "empty");
    let (_, log) = server.stop_and_collect();
    assert!(
        log.iter()
            .any(|l| l.contains("curl -H \"Authorization: Bearer $(cat")),
        "{log:?}"
    );
}
