//! Firestore's vector documents, read as they are stored: a save writes one beside its thread,
//! and every way an entry goes (a forget, a cap, the thread or the namespace deleted) deletes
//! its vector document, not only hides it.

use std::num::NonZeroU32;

use kioku::domain::{Embedded, ModelId, Namespace, Retention, ThreadId, Vector};
use kioku::store::{FirestoreStore, MemoryStore};

use crate::conformance::{KEEP_ALL, entry, namespace};
use crate::firestore::connect;
use crate::original::raw_db;

/// The ids of the threads whose entries have vector documents in `ns`, one per document.
async fn stored_vectors(ns: &Namespace) -> Vec<String> {
    let db = raw_db().await;
    let parent = format!("{}/memory/{}", db.get_documents_path(), ns.name());
    let docs = db
        .fluent()
        .select()
        .from("vectors")
        .parent(parent)
        .query()
        .await
        .unwrap();
    let mut threads: Vec<String> = docs
        .iter()
        .map(|doc| match doc.fields["thread"].value_type.as_ref() {
            Some(firestore::gcloud_sdk::google::firestore::v1::value::ValueType::StringValue(
                s,
            )) => s.clone(),
            other => panic!("a vector document without its thread: {other:?}"),
        })
        .collect();
    threads.sort();
    threads
}

async fn save(store: &FirestoreStore, ns: &Namespace, thread: &str, i: u32, keep: &Retention) {
    let vector = Embedded {
        model: ModelId::new("0011223344556677", 2),
        vector: Vector::unit(vec![1.0, i as f32]).unwrap(),
    };
    let e = entry(&format!("{thread} {i}"), &format!("2025-01-01T00:00:0{i}Z"));
    let id = ThreadId::parse(thread).unwrap();
    store.save(ns, &id, &e, Some(&vector), keep).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_way_an_entry_goes_deletes_its_vector_document() {
    let Some(store) = connect().await else {
        return;
    };
    let ns = namespace();
    let capped = Retention {
        max_entries_per_thread: NonZeroU32::new(2),
        max_threads: NonZeroU32::new(2),
        ..KEEP_ALL
    };
    for i in 1..=3 {
        save(&store, &ns, "a", i, &capped).await;
    }
    assert_eq!(
        stored_vectors(&ns).await,
        ["a", "a"],
        "the capped entry's went"
    );

    save(&store, &ns, "b", 4, &capped).await;
    save(&store, &ns, "c", 5, &capped).await;
    assert_eq!(
        stored_vectors(&ns).await,
        ["b", "c"],
        "the dropped thread's went"
    );

    let at = kioku::domain::entry_micros("2025-01-01T00:00:04Z");
    let b = ThreadId::parse("b").unwrap();
    store.forget(&ns, &b, Some(at)).await.unwrap();
    assert_eq!(
        stored_vectors(&ns).await,
        ["c"],
        "the forgotten entry's went"
    );

    store.delete_namespace(&ns).await.unwrap();
    assert!(stored_vectors(&ns).await.is_empty());
}

/// Firestore refuses a nearest-neighbour query it cannot answer (here a vector of more
/// dimensions than it takes; in production, one before its vector index exists): the search
/// still answers, by words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_whose_vectors_fail_ranks_by_words_alone() {
    let Some(store) = connect().await else {
        return;
    };
    let ns = namespace();
    save(&store, &ns, "knee", 1, &KEEP_ALL).await;
    let too_long = Embedded {
        model: ModelId::new("0011223344556677", 3000),
        vector: Vector::unit(vec![1.0; 3000]).unwrap(),
    };
    let refused = store
        .nearest(&ns, &kioku::domain::Filter::default(), &too_long)
        .await;
    assert!(
        refused.is_err(),
        "the emulator refuses it, as Firestore does"
    );
    let query = kioku::search::Query::parse("knee").unwrap();
    let found = kioku::memory::search(
        &store,
        &ns,
        &Default::default(),
        &query,
        Some(&too_long),
        None,
        usize::MAX,
    )
    .await
    .unwrap()
    .found;
    let summaries: Vec<String> = found.into_iter().map(|f| f.summary).collect();
    assert_eq!(summaries, ["knee 1"]);
}
