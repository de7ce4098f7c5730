//! A save that says nearly what the thread's last one said, in other words (a model sending a
//! conversation again after a timeout), is stored, and flagged `similar_to` that one's
//! timestamp: over HTTP, on both stores, with the real model scripts/test writes
//! (multilingual-e5-small), held to the threshold measured for it.

use std::path::PathBuf;

use kioku::config::StoreKind;
use serde_json::Value;

use crate::helpers::on_both_stores;
use crate::helpers::{Fresh, spawn_fresh};
use crate::needs;

on_both_stores!(a_near_repeat_is_stored_and_flagged,);

const FIRST: &str =
    "Physiotherapy twice a week since the ligament surgery; the swelling went down.";
/// FIRST in other words.
const AGAIN: &str =
    "Since the ligament operation I go to physio twice a week, and the swelling has gone down.";
const OTHER: &str = "Ordered the oak standing desk; delivery in three weeks.";

async fn server(store: StoreKind, model: PathBuf, similar_cosine: Option<f32>) -> Fresh {
    spawn_fresh(store, |s| {
        s.embedding_model = Some(model);
        s.similar_cosine = similar_cosine;
        if store == StoreKind::Firestore {
            s.google_cloud_project = Some(crate::semantic::own_project());
        }
    })
    .await
}

async fn save(fresh: &Fresh, thread: Option<&str>, summary: &str) -> Value {
    fresh.app.save(&fresh.token, thread, summary).await
}

async fn a_near_repeat_is_stored_and_flagged(store: StoreKind) {
    let Some(model) = needs::model() else {
        return;
    };
    let fresh = server(store, model, None).await;
    let first = save(&fresh, None, FIRST).await;
    assert!(first.get("similar_to").is_none(), "{first}");
    let thread = first["thread_id"].as_str().unwrap();

    let again = save(&fresh, Some(thread), AGAIN).await;
    assert_eq!(again["similar_to"], first["timestamp"], "{again}");
    assert!(
        again.get("duplicate").is_none(),
        "stored, not dropped: {again}"
    );
    let other = save(&fresh, Some(thread), OTHER).await;
    assert!(other.get("similar_to").is_none(), "{other}");

    // In another thread, the same words are no repeat of this one.
    let elsewhere = save(&fresh, None, AGAIN).await;
    assert!(elsewhere.get("similar_to").is_none(), "{elsewhere}");
    // An exact repeat is answered as one, not as a near one.
    let exact = save(&fresh, Some(thread), OTHER).await;
    assert_eq!(exact["duplicate"], true, "{exact}");
    assert!(exact.get("similar_to").is_none(), "{exact}");

    let loaded = fresh.app.load(&fresh.token).await;
    let entries = loaded["data"][thread].as_array().unwrap();
    assert_eq!(entries.len(), 3, "all three are stored: {loaded}");
}

/// FIRST and AGAIN in Japanese, and OTHER: multilingual-e5-small puts unrelated texts near a
/// cosine of 0.75, where all-MiniLM-L6-v2's threshold is: its own threshold (0.953) tells them
/// apart, in Japanese as in English.
const FIRST_JA: &str = "靭帯の手術のあと、週に二回リハビリに通っていて、腫れは引いてきた。";
const AGAIN_JA: &str = "靭帯を手術してから週2回理学療法に通っており、腫れもだいぶ治まった。";
const OTHER_JA: &str = "オーク材のスタンディングデスクを注文した。届くのは三週間後。";

#[tokio::test]
async fn a_japanese_near_repeat_is_flagged_under_the_multilingual_model() {
    let Some(model) = needs::model() else {
        return;
    };
    let fresh = server(StoreKind::Sqlite, model, None).await;
    let first = save(&fresh, None, FIRST_JA).await;
    let thread = first["thread_id"].as_str().unwrap();
    let again = save(&fresh, Some(thread), AGAIN_JA).await;
    assert_eq!(again["similar_to"], first["timestamp"], "{again}");
    let other = save(&fresh, Some(thread), OTHER_JA).await;
    assert!(other.get("similar_to").is_none(), "{other}");
}

#[tokio::test]
async fn a_threshold_set_replaces_the_measured_one() {
    let Some(model) = needs::model() else {
        return;
    };
    let fresh = server(StoreKind::Sqlite, model, Some(0.99)).await;
    let first = save(&fresh, None, FIRST).await;
    let thread = first["thread_id"].as_str().unwrap();
    let again = save(&fresh, Some(thread), AGAIN).await;
    assert!(again.get("similar_to").is_none(), "not that close: {again}");
}
