//! Search by meaning, over HTTP on a server running a real embedding model (multilingual-e5-small,
//! which scripts/test writes from its PyPI packages): a question that shares no word with any
//! memory still finds the one it is about, a forgotten entry's vector goes with it, and a model
//! directory that lacks a file refuses the start, naming the file.

use std::path::PathBuf;

use kioku::config::StoreKind;
use kioku::error_chain::ErrorChain;
use kioku::startup::Application;
use reqwest::Method;
use serde_json::Value;

use crate::helpers::on_both_stores;
use crate::helpers::{Fresh, ok_json, on_store, settings, spawn_app_with, spawn_fresh};
use crate::needs;

on_both_stores!(
    a_question_sharing_no_word_with_its_memory_finds_it_by_meaning,
    a_forgotten_entry_is_not_found_by_meaning,
    entries_saved_before_the_model_was_set_are_found_by_meaning_once_backfilled,
);

const REHAB: &str =
    "Physiotherapy twice a week since the ligament surgery; the swelling went down.";
const TRIP: &str = "Booked the ryokan near Arashiyama for the autumn trip.";
const DESK: &str = "Ordered the oak standing desk; delivery in three weeks.";
const MOVE: &str = "来月から東京都の新しいアパートに引っ越す予定。荷造りは週末にまとめてやる。";
/// Not one of its words (or their stems) is in any summary above.
const QUESTION: &str = "How is my knee doing?";

async fn search(fresh: &Fresh, q: &str) -> Value {
    let query = [("mode", "load"), ("q", q)];
    ok_json(
        fresh
            .app
            .get(Some(&fresh.token), &query)
            .send()
            .await
            .unwrap(),
    )
    .await
}

/// The four summaries saved on `store`, embedded by `model` when there is one.
async fn saved(store: StoreKind, model: Option<&PathBuf>) -> (Fresh, Vec<String>) {
    saved_in(store, model, &own_project()).await
}

/// A Firestore database of the test's own: the backfill a model starts reads every namespace.
pub fn own_project() -> String {
    format!("semantic-{}", uuid::Uuid::new_v4())
}

async fn saved_in(
    store: StoreKind,
    model: Option<&PathBuf>,
    project: &str,
) -> (Fresh, Vec<String>) {
    let fresh = spawn_fresh(store, |s| {
        s.embedding_model = model.cloned();
        if store == StoreKind::Firestore {
            s.google_cloud_project = Some(project.to_owned());
        }
    })
    .await;
    let mut threads = Vec::new();
    for summary in [REHAB, TRIP, DESK, MOVE] {
        let saved = fresh.app.save(&fresh.token, None, summary).await;
        threads.push(saved["thread_id"].as_str().unwrap().to_owned());
    }
    (fresh, threads)
}

async fn a_question_sharing_no_word_with_its_memory_finds_it_by_meaning(store: StoreKind) {
    let Some(model) = needs::model() else {
        return;
    };
    let (words_only, _) = saved(store, None).await;
    let found = search(&words_only, QUESTION).await;
    assert_eq!(found["status"], "no_match", "by words alone: {found}");

    let (fresh, threads) = saved(store, Some(&model)).await;
    let found = search(&fresh, QUESTION).await;
    assert_eq!(found["status"], "found", "{found}");
    assert_eq!(found["results"][0]["thread_id"], threads[0], "{found}");
    assert_eq!(
        found["results"][0]["matched"],
        serde_json::json!([]),
        "{found}"
    );

    // Words still count: the entry holding them comes first.
    let found = search(&fresh, "the oak desk").await;
    assert_eq!(found["results"][0]["thread_id"], threads[2], "{found}");
    let matched = found["results"][0]["matched"].as_array().unwrap();
    assert!(matched.iter().any(|m| m == "desk"), "{found}");
}

async fn a_forgotten_entry_is_not_found_by_meaning(store: StoreKind) {
    let Some(model) = needs::model() else {
        return;
    };
    let (fresh, threads) = saved(store, Some(&model)).await;
    let forget = format!("/forget?thread_id={}", threads[0]);
    let forgotten = fresh.app.call(Method::GET, &forget, &fresh.token);
    ok_json(forgotten.send().await.unwrap()).await;
    let found = search(&fresh, QUESTION).await;
    let results = found["results"].as_array().unwrap();
    assert!(
        results.iter().all(|r| r["thread_id"] != threads[0]),
        "{found}"
    );
    assert_eq!(
        results.len(),
        3,
        "the other three are still found by meaning: {found}"
    );
}

/// A question the model cannot read whole (𠮷, a kanji its vocabulary lacks) is ranked by its
/// words alone: the answer is the one a server without a model gives.
#[tokio::test]
async fn a_question_the_model_cannot_read_is_ranked_by_its_words_alone() {
    let Some(model) = needs::model() else {
        return;
    };
    let summaries = |found: &Value| -> Vec<String> {
        let results = found["results"].as_array().unwrap();
        results.iter().map(|r| r["summary"].to_string()).collect()
    };
    let question = "𠮷田さんと東京への引っ越しはいつだっけ？";
    let (words, _) = saved(StoreKind::Sqlite, None).await;
    let (meaning, _) = saved(StoreKind::Sqlite, Some(&model)).await;
    let by_words = search(&words, question).await;
    assert_eq!(summaries(&by_words), [format!("{MOVE:?}")], "{by_words}");
    assert_eq!(
        summaries(&search(&meaning, question).await),
        summaries(&by_words)
    );
}

/// Saved with no model, then served by a server started with one: the backfill embeds what
/// was saved, and the same question then finds it by meaning.
async fn entries_saved_before_the_model_was_set_are_found_by_meaning_once_backfilled(
    store: StoreKind,
) {
    let Some(model) = needs::model() else {
        return;
    };
    let project = own_project();
    let (before, threads) = saved_in(store, None, &project).await;
    let dir = before.app.data_dir.path().to_owned();
    let token = before.token.clone();
    let after = spawn_app_with(|s| {
        on_store(s, store);
        if store == StoreKind::Firestore {
            s.google_cloud_project = Some(project);
        }
        s.data_dir = dir;
        s.api_tokens = Some(format!("{ns}:{token}", ns = before.ns).into());
        s.embedding_model = Some(model);
    })
    .await;
    let after = Fresh {
        app: after,
        ns: before.ns.clone(),
        token,
    };
    // The backfill embeds one entry after another: until it reaches the one the question is
    // about, another may be the nearest there is.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let found = search(&after, QUESTION).await;
        if found["status"] == "found" && found["results"][0]["thread_id"] == threads[0] {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never found by meaning once backfilled: {found}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

async fn refusal(customize: impl FnOnce(&mut kioku::config::Settings)) -> String {
    let data_dir = tempfile::tempdir().unwrap();
    let mut settings = settings(data_dir.path());
    customize(&mut settings);
    let err = Application::build(settings)
        .await
        .err()
        .expect("the start is refused");
    ErrorChain(&err).to_string()
}

#[tokio::test]
async fn a_model_directory_without_the_model_refuses_the_start_naming_what_is_missing() {
    let empty = tempfile::tempdir().unwrap();
    let message = refusal(|s| s.embedding_model = Some(empty.path().to_owned())).await;
    assert!(message.contains("KIOKU_EMBEDDING_MODEL"), "{message}");
    assert!(message.contains("has no config.json"), "{message}");
}
