//! The real binary: start-up, logs, signals and crashes.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::{ADMIN, ALICE, BARE, summaries};
use crate::launch::Launch;

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

/// What the save loops and the test share while the server runs.
#[derive(Default)]
struct Saves {
    /// Set, under the lock, when the server is killed: no save starts, or counts as in flight,
    /// after it.
    killed: bool,
    /// Saves whose request was written whole and whose answer has not been read.
    in_flight: HashSet<String>,
    /// Saves answered 200.
    answered: Vec<String>,
    /// Saves whose request was written whole and that got no answer at all.
    unanswered: Vec<String>,
}

/// Saves `durable-<worker>-<n>` to thread `t<worker>`, one after another, each on a connection
/// of its own, until the server is killed. Plain HTTP over a socket, so that "sent" means the
/// whole request was written.
fn save_loop(address: SocketAddr, worker: usize, saves: &Mutex<Saves>) {
    for n in 0.. {
        let summary = format!("durable-{worker}-{n}");
        let request = format!(
            "GET /?mode=save&thread_id=t{worker}&summary={summary} HTTP/1.1\r\n\
             Host: {address}\r\nAuthorization: Bearer {ALICE}\r\nConnection: close\r\n\r\n"
        );
        if saves.lock().unwrap().killed {
            return;
        }
        let Ok(mut stream) = TcpStream::connect(address) else {
            return;
        };
        if stream.write_all(request.as_bytes()).is_err() {
            return;
        }
        {
            let mut saves = saves.lock().unwrap();
            if !saves.killed {
                saves.in_flight.insert(summary.clone());
            }
        }
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let mut saves = saves.lock().unwrap();
        saves.in_flight.remove(&summary);
        if answer.starts_with(b"HTTP/1.1 200 ") {
            saves.answered.push(summary);
        } else if answer.is_empty() {
            saves.unanswered.push(summary);
        }
    }
}

/// SIGKILL while saves are in flight: at least one sent save goes unanswered, and every save
/// answered 200 is there after a restart. The kernel keeps a killed process's writes in its page
/// cache, so this shows durability across a crash of the server, not across power loss
/// (SECURITY.md).
#[tokio::test]
async fn answered_saves_survive_kill_9() {
    let launch = Launch::new().set("KIOKU_RATE_LIMIT", "0");
    let mut server = launch.start().unwrap();
    let address = SocketAddr::from(([127, 0, 0, 1], server.address.port()));
    let saves = Mutex::new(Saves::default());

    let interrupted = std::thread::scope(|scope| {
        for worker in 0..8 {
            let saves = &saves;
            scope.spawn(move || save_loop(address, worker, saves));
        }
        // Once 100 saves are answered, kill at a moment when saves are in flight; the lock
        // keeps every loop from starting or finishing one meanwhile. Past the deadline, kill
        // anyway, so that the loops end and the assertions below say what went wrong.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            {
                let mut saves = saves.lock().unwrap();
                let due = saves.answered.len() >= 100 && !saves.in_flight.is_empty();
                if due || Instant::now() > deadline {
                    saves.killed = true;
                    server.kill();
                    break saves.in_flight.clone();
                }
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    });
    let Saves {
        answered,
        unanswered,
        ..
    } = saves.into_inner().unwrap();
    assert!(answered.len() >= 100, "{} saves answered", answered.len());
    assert!(
        interrupted.iter().any(|save| unanswered.contains(save)),
        "the kill cut no save short: each one in flight was answered"
    );

    let restarted = launch.start().unwrap();
    let loaded = summaries(&load(&restarted.base(), ALICE).await);
    for save in &answered {
        assert!(loaded.contains(save), "answered save {save} was lost");
    }
}

#[tokio::test]
async fn sigterm_stops_the_server_cleanly() {
    let launch = Launch::new();
    let server = launch.start().unwrap();
    load(&server.base(), ALICE).await;
    let (status, _) = server.stop_and_collect();
    assert_eq!(status.code(), Some(0));
}

/// On Cloud Run: listens on every interface, logs in Cloud Logging's shape with the trace,
/// and never logs a token, a summary or a profile.
#[tokio::test]
async fn cloud_run_logs_are_structured_and_hold_no_secrets() {
    let launch = Launch::new()
        .on_cloud_run()
        .set("GOOGLE_CLOUD_PROJECT", "demo-project")
        .set("KIOKU_ADMIN_TOKENS", ADMIN);
    let server = launch.start().unwrap();
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
    // A profile rewrite, then the same again from a stale version: refused with the profile.
    let profile = "unforgettable-secret-profile";
    for status in [200, 409] {
        let rewrite = reqwest::Client::new()
            .get(server.base())
            .bearer_auth(BARE)
            .query(&[
                ("mode", "profile"),
                ("profile", profile),
                ("expected_version", "0"),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(rewrite.status(), status);
    }
    // An admin deletes the bare token's namespace, whose name is the token: by its label, as
    // the token itself in the URL is refused.
    let delete = |name: &str| {
        reqwest::Client::new()
            .delete(format!("{}/admin/namespaces/{name}", server.base()))
            .bearer_auth(ADMIN)
            .send()
    };
    assert_eq!(delete(BARE).await.unwrap().status(), 400);
    assert_eq!(delete("bare-token-4").await.unwrap().status(), 200);
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
    // The last request's line, whose path names the namespace, is read too.
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
        for secret in [BARE, ALICE, ADMIN, summary, profile] {
            assert!(!line.contains(secret), "secret in log: {line}");
        }
    }
}

#[tokio::test]
async fn cloud_run_without_tokens_refuses_to_start() {
    let launch = Launch::new().unset("API_TOKENS").set("K_SERVICE", "kioku");
    let Err((status, log)) = launch.start() else {
        panic!("started without API_TOKENS");
    };
    assert!(!status.success());
    assert!(
        log.iter().any(|l| l.contains("API_TOKENS is not set")),
        "{log:?}"
    );
}

/// A port already taken: the start names the address and what to set instead.
#[tokio::test]
async fn a_taken_port_is_named_with_what_to_change() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let launch = Launch::new().set("PORT", port.to_string());
    let Err((status, log)) = launch.start() else {
        panic!("started on a taken port");
    };
    assert!(!status.success());
    let named = format!("127.0.0.1:{port}");
    assert!(
        log.iter()
            .any(|l| l.contains(&named) && l.contains("set PORT") && l.contains("in use")),
        "{log:?}"
    );
}

/// Without API_TOKENS a local run makes a private token, says how to use it, and accepts it.
#[tokio::test]
async fn a_local_run_generates_a_private_token() {
    let launch = Launch::new().unset("API_TOKENS");
    let server = launch.start().unwrap();
    let path = launch.dir().join("api_token");
    let token = std::fs::read_to_string(&path).unwrap().trim().to_owned();
    assert_eq!(token.len(), 64);
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&path).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    assert_eq!(load(&server.base(), &token).await["status"], "empty");
    // The banner names each door, and each answers where it says.
    let base = server.base();
    let client = reqwest::Client::new();
    for (method, path, status) in [
        (reqwest::Method::GET, "/app", 200),
        // MCP is posted to, and asks for a token.
        (reqwest::Method::POST, "/mcp", 401),
        (reqwest::Method::GET, "/openapi.yaml", 200),
        (reqwest::Method::GET, "/prompt?lang=en", 200),
    ] {
        let url = format!("{base}{path}");
        let answer = client.request(method, url).send().await.unwrap();
        assert_eq!(answer.status(), status, "{path}");
    }
    let (_, log) = server.stop_and_collect();
    for shown in [
        format!("your memory, in a browser   {base}/app"),
        format!("MCP clients                 {base}/mcp"),
        format!("the GPT Action's schema     {base}/openapi.yaml"),
        format!("the GPT's instructions      {base}/prompt?lang=en"),
        "curl -H \"Authorization: Bearer $(cat".to_owned(),
    ] {
        assert!(
            log.iter().any(|l| l.contains(&shown)),
            "no {shown:?} in {log:?}"
        );
    }
}

/// With a model set, the start's log names it, its dimension, and the precision its layers
/// multiply at on this CPU.
#[tokio::test]
async fn the_start_names_the_embedding_model_and_how_it_runs() {
    let Some(model) = crate::needs::model() else {
        return;
    };
    let launch = Launch::new().set("KIOKU_EMBEDDING_MODEL", model.to_string_lossy());
    let server = launch.start().unwrap();
    let (_, log) = server.stop_and_collect();
    let loaded = log
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|line| line["message"] == "embedding model loaded: search by meaning is on")
        .unwrap_or_else(|| panic!("no line says the model loaded: {log:#?}"));
    assert_eq!(loaded["model"], "sha256:f2aa92f0182deb07/384/whole");
    assert_eq!(loaded["dimension"], 384);
    let precision = kioku::embedding::Precision::fastest().to_string();
    assert_eq!(loaded["precision"], precision.as_str());
}
