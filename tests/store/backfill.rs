//! Threads without the tracked fields and the search index (the original function's) on the
//! emulator: loads and searches stay exact before the backfill, after it, and when the original
//! writes on after it; the backfill starts on its own and `migrate` runs it whole.

use std::time::Duration;

use firestore::gcloud_sdk::google::firestore::v1::Document;
use firestore::gcloud_sdk::google::firestore::v1::value::ValueType;
use kioku::domain::{Entry, Filter, Namespace, Page, PageBuilder, ThreadId};
use kioku::store::{FirestoreStore, Maintenance, MemoryStore};

use crate::conformance::{KEEP_ALL, entry, namespace};
use crate::firestore::connect;
use crate::original::{append_as_original, raw_db, read_raw, write_as_original};
use crate::search::search_for;

const THREADS: usize = 12;

fn at(minute: usize) -> String {
    format!("2025-08-19T10:{minute:02}:00.000000+09:00")
}

/// Threads `o00`… as the original wrote them, each with two entries between other threads'.
async fn originals(db: &firestore::FirestoreDb) -> (Namespace, Vec<Entry>) {
    let ns = namespace();
    let mut all = Vec::new();
    for i in 0..THREADS {
        let entries = [
            entry(&format!("o{i:02} first"), &at(i)),
            entry(&format!("o{i:02} then"), &at(20 + (i * 5) % THREADS)),
        ];
        write_as_original(db, &ns, &format!("o{i:02}"), &entries).await;
        all.extend(entries);
    }
    (ns, all)
}

/// The summaries a search for `q` finds, sorted.
async fn found(store: &FirestoreStore, ns: &Namespace, q: &str) -> Vec<String> {
    let found = search_for(store, ns, &Filter::default(), q).await;
    let mut found: Vec<String> = found.into_iter().map(|(_, summary)| summary).collect();
    found.sort();
    found
}

/// The pages of a load with a small budget, through to the last.
async fn every_page(store: &FirestoreStore, ns: &Namespace) -> Vec<Page> {
    let mut filter = Filter::default();
    let mut pages = Vec::new();
    loop {
        let page = store
            .page(ns, &filter, PageBuilder::new(600))
            .await
            .unwrap();
        let next = page.next_before.clone();
        pages.push(page);
        let Some(next) = next else { return pages };
        filter.before = Some(kioku::domain::parse_instant(&next, chrono_tz::UTC).unwrap());
    }
}

fn shown(pages: &[Page]) -> Vec<Vec<(String, Vec<String>)>> {
    pages
        .iter()
        .map(|page| {
            page.threads
                .iter()
                .map(|t| {
                    let summaries = t.entries.iter().map(|e| e.summary.clone()).collect();
                    (t.id.clone(), summaries)
                })
                .collect()
        })
        .collect()
}

fn tracked(doc: &Document) -> Option<(i64, i64)> {
    let integer = |field: &str| match doc.fields.get(field)?.value_type {
        Some(ValueType::IntegerValue(n)) => Some(n),
        _ => None,
    };
    Some((integer("newest_micros")?, integer("entry_count")?))
}

#[tokio::test]
async fn the_originals_threads_load_the_same_before_and_after_migrate() {
    let Some(store) = connect().await else {
        return;
    };
    let db = raw_db().await;
    let (ns, all) = originals(&db).await;
    let before = every_page(&store, &ns).await;
    assert!(before.len() > 2, "the budget cut: {} pages", before.len());
    let reached: usize = before
        .iter()
        .flat_map(|p| &p.threads)
        .map(|t| t.entries.len())
        .sum();
    assert_eq!(reached, all.len());

    // The loads started a backfill of their own, so `migrate` may find part of its work done.
    store.migrate().await.unwrap();
    let doc = read_raw(&db, &ns, "o03").await;
    let newest = kioku::domain::entry_micros(&at(20 + 15 % THREADS));
    assert_eq!(tracked(&doc), Some((newest, 2)));
    assert_eq!(
        store.migrate().await.unwrap(),
        0,
        "a second run has nothing to do"
    );

    let after = every_page(&store, &ns).await;
    assert_eq!(shown(&after), shown(&before));
    assert_eq!(
        after.iter().map(|p| p.omitted).collect::<Vec<_>>(),
        before.iter().map(|p| p.omitted).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn a_load_that_finds_untracked_threads_tracks_them_in_the_background() {
    let Some(store) = connect().await else {
        return;
    };
    let db = raw_db().await;
    let (ns, _) = originals(&db).await;
    store
        .page(&ns, &Filter::default(), PageBuilder::new(600))
        .await
        .unwrap();
    for _ in 0..100 {
        let mut untracked = 0;
        for i in 0..THREADS {
            let doc = read_raw(&db, &ns, &format!("o{i:02}")).await;
            untracked += usize::from(tracked(&doc).is_none());
        }
        if untracked == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the load's backfill did not track every thread within 5 s");
}

/// After the backfill, the original function appends to a tracked thread and creates one: a
/// load that reads the first, and every load after the second, reads the namespace whole and
/// shows them newest first; the next backfill tracks them.
#[tokio::test]
async fn the_originals_saves_after_the_backfill_still_load_first() {
    let Some(store) = connect().await else {
        return;
    };
    let db = raw_db().await;
    let (ns, _) = originals(&db).await;
    store
        .save(
            &ns,
            &ThreadId::parse("k").unwrap(),
            &entry("kioku's", &at(40)),
            None,
            &KEEP_ALL,
        )
        .await
        .unwrap();
    store.migrate().await.unwrap();
    append_as_original(&db, &ns, "o05", &entry("appended later", &at(50))).await;
    // A load that reads the thread sees its fields no longer hold, and reads the whole
    // namespace instead (a load that stops before it does not see it: docs/deploy.md).
    let whole = store
        .page(&ns, &Filter::default(), PageBuilder::new(usize::MAX))
        .await
        .unwrap();
    assert_eq!(
        whole.threads[0].id, "o05",
        "the appended thread comes first"
    );
    assert_eq!(
        whole.threads[0].entries.last().unwrap().summary,
        "appended later"
    );
    write_as_original(&db, &ns, "new", &[entry("created later", &at(45))]).await;

    let first = &every_page(&store, &ns).await[0];
    let ids: Vec<&str> = first.threads.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids[..3], ["o05", "new", "k"]);

    store.migrate().await.unwrap();
    let appended = read_raw(&db, &ns, "o05").await;
    let newest = kioku::domain::entry_micros(&at(50));
    assert_eq!(tracked(&appended), Some((newest, 3)));
    let created = read_raw(&db, &ns, "new").await;
    assert!(tracked(&created).is_some());
    let again = &every_page(&store, &ns).await[0];
    assert_eq!(
        shown(std::slice::from_ref(again)),
        shown(std::slice::from_ref(first))
    );
}

/// An operator's figures for a namespace are the same whether they come from reading its
/// threads (before the backfill) or from the tracked fields (after it).
#[tokio::test]
async fn namespace_figures_are_the_same_before_and_after_migrate() {
    let Some(store) = connect().await else {
        return;
    };
    let db = raw_db().await;
    let (ns, all) = originals(&db).await;
    let figures = |listed: Vec<kioku::store::NamespaceStats>| {
        listed.into_iter().find(|stats| stats.name == ns.name())
    };
    let before = figures(store.namespaces().await.unwrap()).expect("listed");
    assert_eq!(before.counts.threads, THREADS as u64);
    assert_eq!(before.counts.entries, all.len() as u64);
    let newest = all.iter().map(|e| e.timestamp.clone()).max();
    assert_eq!(before.last_saved, newest);
    store.migrate().await.unwrap();
    let after = figures(store.namespaces().await.unwrap()).expect("listed");
    assert_eq!(after, before);
}

/// A search finds the original's threads before the backfill (reading every thread) and after
/// it (from the index it wrote), the same.
#[tokio::test]
async fn the_originals_threads_are_found_before_and_after_migrate() {
    let Some(store) = connect().await else {
        return;
    };
    let db = raw_db().await;
    let (ns, _) = originals(&db).await;
    let before = found(&store, &ns, "o03 o07").await;
    assert_eq!(before, ["o03 first", "o03 then", "o07 first", "o07 then"]);
    store.migrate().await.unwrap();
    let doc = read_raw(&db, &ns, "o03").await;
    assert_eq!(
        doc.fields["terms_version"].value_type,
        Some(ValueType::IntegerValue(kioku::search::TERMS_VERSION))
    );
    assert_eq!(found(&store, &ns, "o03 o07").await, before);
}

/// A search that reads a thread the original appended to after the backfill indexed it sees
/// its index no longer holds, and starts the backfill again: the appended entry's words find
/// it then, without `migrate`.
#[tokio::test]
async fn a_search_that_reads_a_thread_the_original_appended_to_indexes_it_again() {
    let Some(store) = connect().await else {
        return;
    };
    let db = raw_db().await;
    let (ns, _) = originals(&db).await;
    store.migrate().await.unwrap();
    append_as_original(&db, &ns, "o05", &entry("o05 zucchini", &at(50))).await;
    let (store, ns) = (&store, &ns);
    let finds = |q| async move {
        found(store, ns, q)
            .await
            .contains(&"o05 zucchini".to_owned())
    };
    assert!(!finds("zucchini").await, "not indexed yet");
    assert!(finds("o05").await, "read with the thread its index held");
    let mut waited = Duration::ZERO;
    while !finds("zucchini").await {
        assert!(
            waited < Duration::from_secs(10),
            "the backfill never indexed it"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
        waited += Duration::from_millis(100);
    }
}
