//! kioku on Firestore over HTTP: the original's data, the document limit, and outages.

use std::process::Stdio;
use std::time::{Duration, Instant};

use kioku::config::StoreKind;
use kioku::domain::{Entry, Namespace};
use serde_json::{Value, json};

use crate::app::Browser;
use crate::emulator::Emulator;
use crate::helpers::{ALICE, TestApp, api_tokens, error_json, ok_json, spawn_app_with};
use crate::launch::Launch;
use crate::needs;
use crate::original::{PROJECT, emulator_host, raw_db, write_as_original};

/// A bare token no test uses, as long as kioku requires.
const UNUSED_BARE_TOKEN: &str = "unused-bare-token-0123456789-abcdef";

async fn spawn_on_firestore(
    extra_token: &str,
    customize: impl FnOnce(&mut kioku::config::Settings),
) -> TestApp {
    emulator_host();
    spawn_app_with(|s| {
        s.store = Some(StoreKind::Firestore);
        s.google_cloud_project = Some(PROJECT.into());
        s.api_tokens = Some(format!("{},{extra_token}", api_tokens()).into());
        customize(s);
    })
    .await
}

fn entry(summary: &str, timestamp: &str) -> Entry {
    Entry {
        writer: None,
        summary: summary.into(),
        timestamp: timestamp.into(),
    }
}

/// The keys of a JSON object, in its order.
fn keys(object: &Value) -> Vec<&str> {
    object
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

fn sorted_keys(object: &Value) -> Vec<&str> {
    let mut keys = keys(object);
    keys.sort_unstable();
    keys
}

/// Asserts that `kioku` answers what `original` does but for the order of its threads: the
/// same fields, status and count, and the same threads, each with the same entries in the same
/// order.
fn assert_same_but_thread_order(kioku: &Value, original: &Value) {
    assert_eq!(sorted_keys(kioku), sorted_keys(original));
    assert_eq!(kioku["status"], original["status"]);
    assert_eq!(kioku["count"], original["count"]);
    assert_eq!(sorted_keys(&kioku["data"]), sorted_keys(&original["data"]));
    for id in keys(&original["data"]) {
        assert_eq!(kioku["data"][id], original["data"][id], "thread {id}");
    }
}

/// A GPT moving from the original function keeps its bare token: kioku loads the memories the
/// original wrote with what the original answered (the same status and count, the same threads,
/// each with the same entries in the same order), threads most recently saved first where the
/// original went by thread id, and saves where the original would.
#[tokio::test]
async fn a_namespace_written_by_the_original_loads_and_saves_as_the_original_would() {
    if needs::firestore().is_none() {
        return;
    }
    let token = format!("seed-{}", uuid::Uuid::new_v4());
    let ns = Namespace::bare_token(&token, 1).unwrap();
    let db = raw_db().await;
    let uuid_thread = "35b928b1-fe99-4467-a646-9f26996727c8";
    let first = [
        entry("初回", "2025-08-19T08:39:27.174624+09:00"),
        entry("二回目", "2025-08-20T10:00:00+09:00"),
    ];
    let other = [entry("別スレッド", "2025-08-21T12:28:00+09:00")];
    write_as_original(&db, &ns, uuid_thread, &first).await;
    write_as_original(&db, &ns, "other", &other).await;
    let app = spawn_on_firestore(&token, |_| {}).await;

    // The original's answer, threads in Firestore's order (by document id).
    let original = json!({
        "status": "loaded",
        "count": 2,
        "data": {uuid_thread: first, "other": other},
    });
    let loaded = app.load(&token).await;
    assert_same_but_thread_order(&loaded, &original);
    assert_eq!(
        keys(&loaded["data"]),
        ["other", uuid_thread],
        "most recently saved first (`other` holds the newest entry), not by thread id"
    );

    let saved = app.save(&token, Some(uuid_thread), "kiokuで追記").await;
    assert_eq!(saved["count"], 2);
    let loaded = app.load(&token).await;
    let thread = loaded["data"][uuid_thread].as_array().unwrap();
    assert_eq!(thread.len(), 3);
    assert_eq!(
        thread[..2],
        original["data"][uuid_thread].as_array().unwrap()[..]
    );
    // kioku records the writer beside the original's fields: the bare token by its label,
    // `bare-token-N`, never by itself.
    let label = thread[2]["writer"]["label"].as_str().unwrap_or_default();
    assert!(label.starts_with("bare-token-"), "{}", thread[2]);
    assert_eq!(
        thread[2],
        json!({
            "summary": "kiokuで追記",
            "timestamp": saved["timestamp"],
            "writer": {"by": "token", "label": label},
        })
    );
    assert_eq!(
        keys(&loaded["data"]),
        [uuid_thread, "other"],
        "the thread just saved comes first"
    );
}

/// A save that would pass Firestore's 1 MiB document limit drops the thread's oldest
/// summaries, and the answer says so.
#[tokio::test]
async fn a_thread_at_the_document_limit_drops_its_oldest_summaries() {
    if needs::firestore().is_none() {
        return;
    }
    // A namespace of its own: the other tests' saves to ALICE's need not wait on its megabyte.
    let token = format!("tok-big-{}", uuid::Uuid::new_v4().simple());
    let app = spawn_on_firestore(&format!("big-{token}:{token}"), |s| {
        s.max_summary_chars = 300_000;
        s.load_budget_chars = 1_000_000;
    })
    .await;
    let thread = format!("big-{}", uuid::Uuid::new_v4());
    // 300 KB each, as one word: segmenting it is cheap, so the test is held to the size limit,
    // not to how fast a debug build segments 300 KB of kanji.
    let big = |i: usize| format!("{i}{}", "x".repeat(299_999));
    let body = |i| json!({"mode": "save", "thread_id": thread, "summary": big(i)});
    for i in 0..3 {
        let saved = ok_json(app.post(Some(&token), &body(i)).send().await.unwrap()).await;
        assert!(saved.get("dropped_entries").is_none(), "{saved}");
    }
    let saved = ok_json(app.post(Some(&token), &body(3)).send().await.unwrap()).await;
    assert_eq!(saved["dropped_entries"], 1);
    assert!(
        saved["notice"].as_str().unwrap().contains("size limit"),
        "{saved}"
    );
    let query = [("mode", "load"), ("thread_id", thread.as_str())];
    let loaded: Value = ok_json(app.get(Some(&token), &query).send().await.unwrap()).await;
    let entries: Vec<&str> = loaded["data"][&thread]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["summary"].as_str().unwrap())
        .collect();
    assert_eq!(entries, [big(1), big(2), big(3)]);
}

/// With Firestore down, requests get 503 JSON with Retry-After within the time limit and
/// readiness fails; once it is back, kioku serves again without a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outage_answers_503_promptly_and_heals_without_restart() {
    if needs::firestore().is_none() {
        return;
    }
    let emulator = Emulator::start(0, Stdio::inherit());
    let port = emulator.port;
    let launch = Launch::on_firestore(&api_tokens(), &emulator.host());
    let server = launch.start().unwrap();
    let client = reqwest::Client::new();
    let save = |summary: &'static str| {
        client
            .get(server.base())
            .bearer_auth(ALICE)
            .query(&[("mode", "save"), ("thread_id", "t"), ("summary", summary)])
            .send()
    };
    ok_json(save("before").await.unwrap()).await;

    drop(emulator);
    let started = Instant::now();
    let response = save("during").await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(response.headers()["retry-after"], "5");
    error_json(response, 503, "store_unavailable").await;
    let ready = client
        .get(format!("{}/readyz", server.base()))
        .send()
        .await
        .unwrap();
    error_json(ready, 503, "store_unavailable").await;

    let _back = Emulator::start(port, Stdio::inherit());
    ok_json(save("after").await.unwrap()).await;
    // Readiness is asked of the store at most every few seconds: it follows within those.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let ready = client
            .get(format!("{}/readyz", server.base()))
            .send()
            .await
            .unwrap();
        if ready.status() == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "/readyz still answers {}",
            ready.status()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// `/readyz` needs no token, so however often it is called it asks the store at most once
/// every few seconds: with the store gone, it still answers from its last check at once, and
/// learns of the outage only when that check is old.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_asks_the_store_at_most_every_few_seconds() {
    if needs::firestore().is_none() {
        return;
    }
    let emulator = Emulator::start(0, Stdio::inherit());
    let host = emulator.host();
    let launch = Launch::on_firestore(&api_tokens(), &host).set("KIOKU_STORE_TIMEOUT_SECS", "2");
    let server = launch.start().unwrap();
    let readyz = || {
        reqwest::Client::new()
            .get(format!("{}/readyz", server.base()))
            .send()
    };
    assert_eq!(readyz().await.unwrap().status(), 200);
    drop(emulator);
    let checked = Instant::now();
    for _ in 0..20 {
        assert_eq!(
            readyz().await.unwrap().status(),
            200,
            "a call reached the store"
        );
    }
    assert!(
        checked.elapsed() < Duration::from_secs(4),
        "{:?}",
        checked.elapsed()
    );
    tokio::time::sleep(Duration::from_secs(6)).await;
    error_json(readyz().await.unwrap(), 503, "store_unavailable").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_hundred_concurrent_saves_on_firestore() {
    if needs::firestore().is_none() {
        return;
    }
    let app = spawn_on_firestore(UNUSED_BARE_TOKEN, |_| {}).await;
    crate::hostile::five_hundred_concurrent_saves_land_exactly(&app).await;
}

/// A stalled store costs a request its one time limit, not one per store call: with the
/// emulator stopped mid-service, a save with the model on (its embedding, the near-repeat read
/// and the write) and a search (the term counts, the candidates, the nearest vectors) each
/// answer 503 within the limit and a second, and the memory page says in words that the memory
/// cannot be reached. Afterwards the service goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_store_costs_a_request_one_time_limit() {
    let (Some(_), Some(model)) = (needs::firestore(), needs::model()) else {
        return;
    };
    let emulator = Emulator::start(0, Stdio::null());
    let limit = Duration::from_secs(2);
    let launch = Launch::on_firestore(&api_tokens(), &emulator.host())
        .set("KIOKU_STORE_TIMEOUT_SECS", limit.as_secs().to_string())
        .set("KIOKU_EMBEDDING_MODEL", model.display().to_string());
    let server = launch.start().unwrap();
    let app = server.app();
    let first = app
        .save(ALICE, None, "Chose oak for the garden shed's floor")
        .await;
    let thread = first["thread_id"].as_str().unwrap();
    let page = Browser::new(&app.base);
    let signed_in = page.sign_in(ALICE).await;
    assert_eq!(signed_in.status(), 303);

    emulator.pause();
    let requests = [
        app.get(
            Some(ALICE),
            &[
                ("mode", "save"),
                ("thread_id", thread),
                ("summary", "Ordered the oak boards for the shed"),
            ],
        ),
        app.get(Some(ALICE), &[("mode", "load"), ("q", "shed floor wood")]),
    ];
    for request in requests {
        let started = Instant::now();
        let response = request.send().await.unwrap();
        let took = started.elapsed();
        error_json(response, 503, "store_unavailable").await;
        assert!(
            took < limit + Duration::from_secs(1),
            "answered after {took:?}"
        );
    }
    let started = Instant::now();
    let (status, shown) = page.get("/app").await;
    assert_eq!(status, 503, "{shown}");
    assert!(shown.contains("cannot be reached") || shown.contains("記憶にアクセスできません"));
    assert!(started.elapsed() < limit + Duration::from_secs(1));
    emulator.resume();

    let loaded = app.load(ALICE).await;
    assert_eq!(
        crate::helpers::summaries(&loaded),
        ["Chose oak for the garden shed's floor"]
    );
}
