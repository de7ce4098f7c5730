//! A save that says nearly what the thread's last one said, in other words (a model sending a
//! conversation again after a timeout), is stored, and flagged `similar_to` that one's
//! timestamp: over HTTP, on both stores, with the real model scripts/test fetches.

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

async fn server(store: StoreKind, model: PathBuf) -> Fresh {
    spawn_fresh(store, |s| {
        s.embedding_model = Some(model);
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
    let fresh = server(store, model).await;
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
