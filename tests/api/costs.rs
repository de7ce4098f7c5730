//! On Firestore, each request's log line says how many calls it made and how many documents
//! they read and wrote, counted as Firestore bills them: through the API and through MCP tools
//! alike.

use serde_json::{Value, json};

use std::process::Stdio;

use kioku::domain::{Entry, Namespace};

use crate::emulator::Emulator;
use crate::helpers::ok_json;
use crate::launch::Launch;
use crate::needs;
use crate::original::{emulator_host, raw_db_at, write_many_as_original};

/// What a request line says it cost: its method and route, then the calls, reads and writes.
type Cost = (String, Option<u64>, Option<u64>, Option<u64>);

/// The cost of each request line, in order.
fn costs(log: &[String]) -> Vec<Cost> {
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
                line["firestore_calls"].as_u64(),
                line["firestore_reads"].as_u64(),
                line["firestore_writes"].as_u64(),
            )
        })
        .collect()
}

#[tokio::test]
async fn each_request_line_carries_the_calls_and_documents_it_cost() {
    if needs::firestore().is_none() {
        return;
    }
    let id = uuid::Uuid::new_v4();
    let token = format!("tok-{id}-0123456789abcdef");
    let tokens = format!("ns-{id}:{token}");
    let launch = Launch::on_firestore(&tokens, &emulator_host());
    let server = launch.start().unwrap();
    let app = server.app();
    for thread in ["a", "b", "c", "d"] {
        app.save(&token, Some(thread), "要約").await;
    }
    app.load(&token).await;
    app.load(&token).await;
    let rewrite = [("mode", "profile"), ("profile", "Rust を書く")];
    ok_json(app.get(Some(&token), &rewrite).send().await.unwrap()).await;
    app.load(&token).await;
    let since = [("mode", "load"), ("since", "2000-01-01")];
    ok_json(app.get(Some(&token), &since).send().await.unwrap()).await;
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

    let line = |route: &str, calls, reads, writes| {
        (route.to_owned(), Some(calls), Some(reads), Some(writes))
    };
    assert_eq!(
        costs(&log),
        [
            // The thread (to tell a repeat, and a new thread) and the thread count, at once;
            // then the commit.
            line("GET /", 3, 2, 1),
            line("GET /", 3, 2, 1),
            line("GET /", 3, 2, 1),
            line("GET /", 3, 2, 1),
            // A namespace this instance has not loaded: no profile (a query that finds none
            // is billed one read); the four threads, in one listing, the whole namespace.
            line("GET /", 2, 5, 0),
            // Seen small without a profile: any profile written since and the threads, in one
            // call.
            line("GET /", 1, 4, 0),
            // The newest version (none), and the new one created.
            line("GET /", 2, 1, 1),
            // With a profile: the newest version and the threads, in one round trip.
            line("GET /", 2, 5, 0),
            // A filtered load carries no profile: one call.
            line("GET /", 1, 4, 0),
            line("POST /mcp", 2, 5, 0),
            ("GET /healthz".to_owned(), None, None, None),
        ]
    );
}

/// A 2,000-thread namespace the original function wrote, once `kioku migrate` has tracked and
/// indexed it, on an emulator of its own (`migrate` covers every namespace, and other tests'
/// scans of every namespace need not read through these), built once for both checks:
///
/// - A first page reads the threads it answers with and at most two more, whether the budget
///   or `limit` ends it; beside them, the profile (one read) and the count of the namespace's
///   threads and entries (a read per 1,000). The first load of a namespace an instance has not
///   seen also reads the first 17 threads by name, the most a small namespace holds, to tell it
///   is not small; the next loads there do not.
/// - A search for a term 3 threads hold reads those 3 threads; beside them, the counts: the
///   namespace's threads and those indexed (a read per 1,000 each), once for the term counts
///   and once for the candidates, and the term's threads (one read).
#[tokio::test]
async fn a_large_namespace_reads_what_a_load_or_a_search_answers() {
    if needs::firestore().is_none() {
        return;
    }
    let id = uuid::Uuid::new_v4();
    let token = format!("tok-{id}-0123456789abcdef");
    let tokens = format!("ns-{id}:{token}");
    let emulator = Emulator::start(0, Stdio::null());
    let host = emulator.host();
    let ns = Namespace::named(&format!("ns-{id}")).unwrap();
    let threads: Vec<(String, Vec<Entry>)> = (0..2_000)
        .map(|i| {
            let entries = (0..3)
                .map(|j| {
                    let word = if i % 700 == 0 && j == 0 {
                        "needle"
                    } else {
                        "hay"
                    };
                    Entry {
                        writer: None,
                        summary: format!("{i} {j} {word} {}", "記憶".repeat(150)),
                        timestamp: format!(
                            "2025-08-{:02}T{:02}:{:02}:{:02}.000000+09:00",
                            1 + j * 10,
                            i / 3600,
                            i / 60 % 60,
                            i % 60
                        ),
                    }
                })
                .collect();
            (format!("t{i:04}"), entries)
        })
        .collect();
    write_many_as_original(&raw_db_at(&host).await, &ns, &threads).await;
    let launch = Launch::on_firestore(&tokens, &host);
    let migrated = launch.command().arg("migrate").output().unwrap();
    let stderr = String::from_utf8_lossy(&migrated.stderr);
    assert!(migrated.status.success(), "{stderr}");
    assert!(
        stderr.contains("migrated: 2000 threads changed"),
        "{stderr}"
    );

    let server = launch.start().unwrap();
    let app = server.app();
    let loaded = app.load(&token).await;
    let limited = app.get(Some(&token), &[("mode", "load"), ("limit", "10")]);
    let limited = ok_json(limited.send().await.unwrap()).await;
    let search = app.get(Some(&token), &[("mode", "load"), ("q", "needle")]);
    let found = ok_json(search.send().await.unwrap()).await;
    let (_, log) = server.stop_and_collect();
    let mut costs = costs(&log);

    assert_eq!(loaded["truncated"], true);
    assert_eq!(
        loaded["omitted_threads"].as_u64().unwrap() as usize + answered(&loaded),
        2_000
    );
    assert_eq!(answered(&limited), 10);
    let beside = 1 + 2;
    let once = [17, 0];
    for ((load, (_, _, reads, _)), once) in [loaded, limited].iter().zip(&costs).zip(once) {
        let reads = reads.unwrap();
        assert!(
            reads <= answered(load) as u64 + 2 + beside + once,
            "{reads} reads for {} threads",
            answered(load)
        );
    }

    assert_eq!(found["count"], 3, "{found}");
    let (_, _, reads, writes) = costs.remove(2);
    let counts = 2 * (2 + 2) + 1;
    assert_eq!(writes, Some(0));
    assert!(reads.unwrap() <= 3 + counts, "{reads:?} reads");
}

fn answered(load: &Value) -> usize {
    load["data"].as_object().unwrap().len()
}

/// Over `KIOKU_MAX_THREADS`, a save reads the threads it drops, not every thread: the thread
/// saved to, the count, and the least recent thread, whatever the namespace holds.
#[tokio::test]
async fn a_save_over_the_thread_cap_reads_only_what_it_drops() {
    if needs::firestore().is_none() {
        return;
    }
    let id = uuid::Uuid::new_v4();
    let token = format!("tok-{id}-0123456789abcdef");
    let tokens = format!("ns-{id}:{token}");
    let launch = Launch::on_firestore(&tokens, &emulator_host()).set("KIOKU_MAX_THREADS", "10");
    let server = launch.start().unwrap();
    let app = server.app();
    for thread in 0..11 {
        app.save(&token, Some(&format!("t{thread:02}")), "要約")
            .await;
    }
    let load = app.load(&token).await;
    let (_, log) = server.stop_and_collect();
    assert_eq!(load["count"], 10, "{load}");
    assert!(
        load["data"].get("t00").is_none(),
        "the least recent went: {load}"
    );
    let saves: Vec<_> = costs(&log)
        .into_iter()
        .filter(|(route, ..)| route == "GET /")
        .collect();
    // The eleventh save: its (missing) thread, the count, the least recent thread, the query
    // for that thread's vectors (none: a read, as Firestore bills an empty answer); the commit
    // and the delete.
    assert_eq!(
        saves[10],
        ("GET /".to_owned(), Some(6), Some(4), Some(2)),
        "{saves:?}"
    );
}
