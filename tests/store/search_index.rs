//! What every store's search index does: counts of the question's terms, and an index that
//! every write keeps exact (its counts are read through
//! [`MemoryStore::term_counts`], which a stale index would answer wrongly even where the
//! ranking, which reads the summaries, hides it).

use std::num::NonZeroU32;

use kioku::domain::{Filter, Namespace, Retention};
use kioku::search::Query;

use crate::conformance::{KEEP_ALL, entry, namespace, thread};
use crate::search::search_for;

fn at(second: usize) -> String {
    format!("2025-04-01T10:00:{second:02}.000000+09:00")
}

fn query(raw: &str) -> Query {
    Query::parse(raw).unwrap()
}

/// The threads and summaries a search finds, best first.
async fn found(store: &impl crate::Backend, ns: &Namespace, q: &str) -> Vec<(String, String)> {
    search_for(store, ns, &Filter::default(), q).await
}

/// How many of the namespace's documents hold each of the question's terms.
async fn holding(store: &impl crate::Backend, ns: &Namespace, q: &str) -> Vec<u64> {
    store.term_counts(ns, &query(q)).await.unwrap().counts
}

/// One entry a thread, so that the stores' documents (entries on SQLite, threads on Firestore)
/// count alike.
async fn one_each(store: &impl crate::Backend, ns: &Namespace, threads: &[(&str, &str)]) {
    for (second, (id, summary)) in threads.iter().enumerate() {
        store
            .save(
                ns,
                &thread(id),
                &entry(summary, &at(second)),
                None,
                &KEEP_ALL,
            )
            .await
            .unwrap();
    }
}

/// Any term finds an entry; a rarer term outweighs a common one, and a short entry a long one
/// holding the same terms.
pub async fn search_ranks_any_of_the_terms_rarest_first(store: &impl crate::Backend) {
    let ns = namespace();
    one_each(
        store,
        &ns,
        &[
            ("long", "rust and sqlite and more words"),
            ("short", "rust sqlite"),
            ("rare", "firestore only"),
            ("common1", "rust"),
            ("common2", "rust again"),
            ("neither", "nothing to see"),
        ],
    )
    .await;
    assert_eq!(
        holding(store, &ns, "firestore rust absent").await,
        [1, 4, 0]
    );
    let ids: Vec<String> = found(store, &ns, "firestore sqlite")
        .await
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(ids, ["rare", "short", "long"]);
    let rust: Vec<String> = found(store, &ns, "absent rust")
        .await
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(rust.len(), 4, "every entry holding rust: {rust:?}");
    assert!(!rust.contains(&"neither".to_owned()) && !rust.contains(&"rare".to_owned()));
    assert!(found(store, &ns, "absent").await.is_empty());
}

/// Saves to a thread (the first, then appends), an import, and forgetting one entry or a whole
/// thread leave the counts exact: a forgotten entry's own term no longer finds its thread.
pub async fn saves_imports_and_forgets_keep_the_index_exact(store: &impl crate::Backend) {
    let ns = namespace();
    let id = thread("t");
    let first = entry("alpha gone", &at(1));
    store.save(&ns, &id, &first, None, &KEEP_ALL).await.unwrap();
    store
        .save(&ns, &id, &entry("alpha beta", &at(2)), None, &KEEP_ALL)
        .await
        .unwrap();
    store
        .import(&ns, &thread("u"), &[entry("imported beta", &at(3))])
        .await
        .unwrap();
    assert_eq!(holding(store, &ns, "gone beta imported").await, [1, 2, 1]);

    let micros = kioku::domain::entry_micros(&first.timestamp);
    store.forget(&ns, &id, Some(micros)).await.unwrap();
    assert_eq!(holding(store, &ns, "gone alpha").await, [0, 1]);
    assert!(found(store, &ns, "gone").await.is_empty());
    store.forget(&ns, &thread("u"), None).await.unwrap();
    assert_eq!(holding(store, &ns, "imported beta").await, [0, 1]);
    assert_eq!(
        found(store, &ns, "beta").await,
        [("t".to_owned(), "alpha beta".to_owned())]
    );
}

/// An entry the thread's cap drops is found no more, nor counted.
pub async fn entries_a_cap_drops_leave_the_index(store: &impl crate::Backend) {
    let ns = namespace();
    let id = thread("capped");
    let one = Retention {
        max_entries_per_thread: NonZeroU32::new(1),
        ..KEEP_ALL
    };
    for (second, summary) in ["oldest words", "newer words"].iter().enumerate() {
        store
            .save(&ns, &id, &entry(summary, &at(second)), None, &one)
            .await
            .unwrap();
    }
    assert_eq!(holding(store, &ns, "oldest newer words").await, [0, 1, 1]);
    assert!(found(store, &ns, "oldest").await.is_empty());
}
