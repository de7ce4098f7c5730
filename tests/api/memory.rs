//! The original function's save/load contract.

use futures::future::join_all;
use serde_json::{Value, json};

use crate::helpers::{ALICE, BOB, assert_json, ok_json, spawn_app, spawn_app_with, summaries};

fn is_tokyo_micros(ts: &str) -> bool {
    // e.g. 2025-08-19T08:39:27.174624+09:00
    chrono::DateTime::parse_from_rfc3339(ts).is_ok()
        && ts.len() == 32
        && ts.as_bytes()[19] == b'.'
        && ts.ends_with("+09:00")
}

#[tokio::test]
async fn a_first_save_issues_a_thread_id() {
    let app = spawn_app().await;
    let saved = app.save(ALICE, None, "first memory").await;
    assert_eq!(saved["status"], "saved");
    assert_eq!(saved["count"], 1);
    let id = saved["thread_id"].as_str().unwrap();
    assert_eq!(uuid::Uuid::parse_str(id).unwrap().get_version_num(), 4);
    assert!(
        is_tokyo_micros(saved["timestamp"].as_str().unwrap()),
        "{saved}"
    );

    // An empty thread_id, as a GPT may send, also means a new thread.
    let again = app.save(ALICE, Some(""), "second").await;
    assert_ne!(again["thread_id"], saved["thread_id"]);
    assert_eq!(again["count"], 2);
}

#[tokio::test]
async fn load_returns_threads_most_recent_first_with_entries_oldest_first() {
    let app = spawn_app().await;
    app.save(ALICE, Some("t1"), "t1 first").await;
    app.save(ALICE, Some("t2"), "t2 first").await;
    let saved = app.save(ALICE, Some("t1"), "t1 second").await;
    assert_eq!(saved["count"], 2);
    assert_eq!(saved["thread_id"], "t1");

    let loaded = app.load(ALICE).await;
    let keys: Vec<_> = loaded.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["status", "count", "data"]);
    assert_eq!(loaded["status"], "loaded");
    assert_eq!(loaded["count"], 2);
    let threads: Vec<_> = loaded["data"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(threads, ["t1", "t2"]);
    let t1 = loaded["data"]["t1"].as_array().unwrap();
    assert_eq!(t1.len(), 2);
    assert_eq!(t1[0]["summary"], "t1 first");
    assert_eq!(t1[1]["summary"], "t1 second");
    assert_eq!(t1[1]["timestamp"], saved["timestamp"]);
    for entry in t1 {
        let fields: Vec<_> = entry.as_object().unwrap().keys().cloned().collect();
        assert_eq!(fields, ["summary", "timestamp", "writer"]);
        assert!(is_tokyo_micros(entry["timestamp"].as_str().unwrap()));
        assert_eq!(entry["writer"]["by"], "token", "{entry}");
    }
}

#[tokio::test]
async fn an_empty_namespace_loads_as_the_original_does() {
    let app = spawn_app().await;
    let response = app
        .get(Some(ALICE), &[("mode", "load")])
        .send()
        .await
        .unwrap();
    assert_json(&response);
    assert_eq!(
        ok_json(response).await,
        json!({"status": "empty", "count": 0, "data": {}})
    );
}

#[tokio::test]
async fn post_with_a_json_body_behaves_like_get() {
    let app = spawn_app().await;
    let body = json!({"mode": "save", "thread_id": null, "summary": "from POST"});
    let saved = ok_json(app.post(Some(ALICE), &body).send().await.unwrap()).await;
    assert_eq!(saved["status"], "saved");
    let id = saved["thread_id"].as_str().unwrap();

    let body = json!({"mode": "save", "thread_id": id, "summary": "again"});
    ok_json(app.post(Some(ALICE), &body).send().await.unwrap()).await;
    let via_post = ok_json(
        app.post(Some(ALICE), &json!({"mode": "load"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(via_post, app.load(ALICE).await);
    assert_eq!(summaries(&via_post), ["from POST", "again"]);
}

#[tokio::test]
async fn the_configured_zone_sets_the_offset() {
    let app = spawn_app_with(|s| s.timezone = "America/New_York".parse().unwrap()).await;
    let saved = app.save(ALICE, None, "x").await;
    let ts = chrono::DateTime::parse_from_rfc3339(saved["timestamp"].as_str().unwrap()).unwrap();
    assert!(
        [-5 * 3600, -4 * 3600].contains(&ts.offset().local_minus_utc()),
        "{ts}"
    );
}

#[tokio::test]
async fn exotic_unicode_round_trips_byte_for_byte() {
    let app = spawn_app().await;
    // U+200F is a right-to-left mark, kept; an override such as U+202E is refused
    // (errors.rs).
    let text = "👩‍👩‍👧 \u{200f}RTL עברית العربية\u{200b}zero\u{feff}width 𠮷野家 tab\there\r\nline";
    app.save(ALICE, Some("u"), text).await;
    let body = json!({"mode": "save", "thread_id": "v", "summary": text});
    ok_json(app.post(Some(ALICE), &body).send().await.unwrap()).await;
    assert_eq!(summaries(&app.load(ALICE).await), [text, text]);
}

#[tokio::test]
async fn a_get_save_of_2000_japanese_characters_works() {
    let app = spawn_app().await;
    let summary = "記憶を次のスレッドへ持ち込む。".repeat(134)[..2_000 * 3].to_owned();
    assert_eq!(summary.chars().count(), 2_000);
    let saved = app.save(ALICE, None, &summary).await;
    assert_eq!(saved["status"], "saved");
    assert_eq!(summaries(&app.load(ALICE).await), [summary]);
}

#[tokio::test]
async fn summaries_up_to_the_limit_are_accepted_in_any_script() {
    let app = spawn_app().await;
    let at_limit = "あ".repeat(5_000);
    let body = json!({"mode": "save", "summary": at_limit});
    ok_json(app.post(Some(ALICE), &body).send().await.unwrap()).await;
    let lowered = spawn_app_with(|s| s.max_summary_chars = 10).await;
    lowered.save(ALICE, None, "0123456789").await;
}

#[tokio::test]
async fn two_hundred_parallel_saves_to_one_thread_all_land() {
    let app = spawn_app().await;
    let saves = (0..200).map(|i| {
        let summary = format!("parallel {i}");
        let request = app.get(
            Some(ALICE),
            &[
                ("mode", "save"),
                ("thread_id", "busy"),
                ("summary", &summary),
            ],
        );
        async move { request.send().await.unwrap().status() }
    });
    let statuses = join_all(saves).await;
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    let mut loaded = summaries(&app.load(ALICE).await);
    loaded.sort();
    let mut expected: Vec<_> = (0..200).map(|i| format!("parallel {i}")).collect();
    expected.sort();
    assert_eq!(loaded, expected);
}

#[tokio::test]
async fn a_load_ignores_the_summary_and_filters_by_thread_id() {
    let app = spawn_app().await;
    app.save(BOB, Some("t"), "kept").await;
    app.save(BOB, Some("other"), "elsewhere").await;
    let query = [("mode", "load"), ("summary", "ignored"), ("thread_id", "t")];
    let loaded: Value = ok_json(app.get(Some(BOB), &query).send().await.unwrap()).await;
    assert_eq!(summaries(&loaded), ["kept"]);
    let everything = [("mode", "load"), ("thread_id", "")];
    let loaded: Value = ok_json(app.get(Some(BOB), &everything).send().await.unwrap()).await;
    assert_eq!(summaries(&loaded), ["elsewhere", "kept"]);
}
