//! Retention, the same on every store: caps enforced at save and reported, entries past
//! their age never reported as a save's drops, and concurrent saves landing with every limit
//! set.

use std::collections::HashSet;
use std::num::NonZeroU32;

use chrono::{SecondsFormat, TimeDelta, Utc};
use futures::future::try_join_all;
use kioku::domain::{Entry, Retention, ThreadId};

use crate::conformance::{KEEP_ALL, entry, load_all, namespace, summary_set};

/// Every limit set, none of them reached by the tests that use it.
const EVERY_LIMIT: Retention = Retention {
    max_entries_per_thread: NonZeroU32::new(1_000),
    max_threads: NonZeroU32::new(100),
    max_age_days: NonZeroU32::new(30),
};

fn days_ago(days: i64) -> String {
    (Utc::now() - TimeDelta::days(days)).to_rfc3339_opts(SecondsFormat::Micros, false)
}

fn summaries(entries: &[Entry]) -> Vec<&str> {
    entries.iter().map(|e| e.summary.as_str()).collect()
}

pub async fn parallel_saves_with_every_limit_set_all_land(store: &impl crate::Backend) {
    let ns = namespace();
    let id = ThreadId::parse("busy").unwrap();
    let expected: HashSet<String> = (0..20).map(|i| format!("entry {i}")).collect();
    let entries: Vec<Entry> = expected.iter().map(|s| entry(s, &days_ago(0))).collect();
    try_join_all(
        entries
            .iter()
            .map(|e| store.save(&ns, &id, e, None, &EVERY_LIMIT)),
    )
    .await
    .unwrap();
    assert_eq!(summary_set(&load_all(store, &ns).await[0]), expected);
}

pub async fn entries_past_their_age_are_never_a_saves_drops(store: &impl crate::Backend) {
    let ns = namespace();
    let id = ThreadId::parse("t").unwrap();
    let old = entry("old", &days_ago(30));
    let recent = entry("recent", &days_ago(1));
    store.import(&ns, &id, &[old, recent]).await.unwrap();
    let week = Retention {
        max_age_days: NonZeroU32::new(7),
        ..KEEP_ALL
    };
    let alone = store
        .save(&ns, &id, &entry("a", &days_ago(0)), None, &week)
        .await;
    assert_eq!(alone.unwrap().dropped.entries, 0, "age alone");

    // With a cap, the entry past its age neither counts toward it nor is reported.
    let capped = Retention {
        max_entries_per_thread: NonZeroU32::new(3),
        ..week
    };
    let mut dropped = Vec::new();
    for summary in ["b", "c"] {
        let new = entry(summary, &days_ago(0));
        let saved = store.save(&ns, &id, &new, None, &capped).await.unwrap();
        dropped.push(saved.dropped.entries);
    }
    assert_eq!(dropped, [0, 1]);
    let threads = load_all(store, &ns).await;
    assert_eq!(summaries(&threads[0].entries), ["a", "b", "c"]);
}
