//! What every `MemoryStore` must do. Each backend runs this whole suite through
//! [`conformance_suite!`]. Tests use fresh namespaces, so backends may share one database.

use std::collections::HashSet;

use futures::future::try_join_all;
use kioku::domain::{Entry, Namespace, ThreadId};
use kioku::store::MemoryStore;

pub fn namespace() -> Namespace {
    Namespace::named(&format!("ns-{}", uuid::Uuid::new_v4())).unwrap()
}

pub fn entry(summary: &str, timestamp: &str) -> Entry {
    Entry {
        summary: summary.to_owned(),
        timestamp: timestamp.to_owned(),
    }
}

fn thread(id: &str) -> ThreadId {
    ThreadId::parse(id).unwrap()
}

pub async fn an_unknown_namespace_is_empty(store: &impl MemoryStore) {
    let ns = namespace();
    assert_eq!(store.count(&ns).await.unwrap(), 0);
    assert!(store.load(&ns).await.unwrap().is_empty());
}

pub async fn a_saved_entry_loads_back_exactly(store: &impl MemoryStore) {
    let ns = namespace();
    let saved = entry(
        "要約: 🎌 \u{200f}עברית\u{200b} \"quotes\" \\ tab\there\r\nnext line",
        "2025-08-19T08:39:27.174624+09:00",
    );
    store.save(&ns, &thread("t1"), &saved).await.unwrap();
    assert_eq!(store.count(&ns).await.unwrap(), 1);
    let threads = store.load(&ns).await.unwrap();
    assert_eq!(threads.len(), 1);
    assert_eq!(threads[0].id, "t1");
    assert_eq!(threads[0].entries, vec![saved]);
}

pub async fn entries_come_oldest_first_and_threads_most_recent_first(store: &impl MemoryStore) {
    let ns = namespace();
    let saves = [
        ("a", "a1"),
        ("b", "b1"),
        ("c", "c1"),
        ("a", "a2"),
        ("b", "b2"),
    ];
    for (i, (id, summary)) in saves.into_iter().enumerate() {
        let ts = format!("2025-01-01T00:00:0{i}.000000+09:00");
        store
            .save(&ns, &thread(id), &entry(summary, &ts))
            .await
            .unwrap();
    }
    let threads = store.load(&ns).await.unwrap();
    let order: Vec<_> = threads.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(order, ["b", "a", "c"]);
    let summaries: Vec<_> = threads[0]
        .entries
        .iter()
        .map(|e| e.summary.as_str())
        .collect();
    assert_eq!(summaries, ["b1", "b2"]);
    assert_eq!(store.count(&ns).await.unwrap(), 3);
}

pub async fn namespaces_never_see_each_other(store: &impl MemoryStore) {
    let (alice, bob) = (namespace(), namespace());
    let prefix = Namespace::named(&alice.name()[..alice.name().len() - 1]).unwrap();
    store
        .save(&alice, &thread("shared-id"), &entry("alice's", "t"))
        .await
        .unwrap();
    store
        .save(&bob, &thread("shared-id"), &entry("bob's", "t"))
        .await
        .unwrap();
    store
        .save(&bob, &thread("other"), &entry("bob's other", "t"))
        .await
        .unwrap();

    let alice_threads = store.load(&alice).await.unwrap();
    assert_eq!(alice_threads.len(), 1);
    assert_eq!(alice_threads[0].entries, vec![entry("alice's", "t")]);
    assert_eq!(store.count(&alice).await.unwrap(), 1);
    assert_eq!(store.count(&bob).await.unwrap(), 2);
    assert_eq!(store.count(&prefix).await.unwrap(), 0);
    assert!(store.load(&prefix).await.unwrap().is_empty());
}

/// Concurrent appends to one thread all land: none overwrites another.
pub async fn parallel_saves_to_one_thread_all_land(store: &impl MemoryStore) {
    let ns = namespace();
    let id = thread("busy");
    let expected: HashSet<String> = (0..200).map(|i| format!("entry {i}")).collect();
    let entries: Vec<Entry> = expected.iter().map(|s| entry(s, "t")).collect();
    try_join_all(entries.iter().map(|e| store.save(&ns, &id, e)))
        .await
        .unwrap();
    let threads = store.load(&ns).await.unwrap();
    let loaded: HashSet<String> = threads[0]
        .entries
        .iter()
        .map(|e| e.summary.clone())
        .collect();
    assert_eq!(threads[0].entries.len(), 200);
    assert_eq!(loaded, expected);
}

pub async fn parallel_saves_across_threads_are_all_counted(store: &impl MemoryStore) {
    let ns = namespace();
    let saves = (0..100).map(|i| (thread(&format!("t{}", i % 5)), entry(&format!("e{i}"), "t")));
    let saves: Vec<_> = saves.collect();
    try_join_all(saves.iter().map(|(id, e)| store.save(&ns, id, e)))
        .await
        .unwrap();
    assert_eq!(store.count(&ns).await.unwrap(), 5);
    let threads = store.load(&ns).await.unwrap();
    assert_eq!(threads.iter().map(|t| t.entries.len()).sum::<usize>(), 100);
}

pub async fn a_ready_store_answers_ping(store: &impl MemoryStore) {
    store.ping().await.unwrap();
}

/// Instantiates every conformance test for one backend. `$make` is an async expression giving
/// `(store, guard)`; the guard keeps whatever the store needs alive until the test ends.
#[macro_export]
macro_rules! conformance_suite {
    ($make:expr; $($case:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let (store, _guard) = $make.await;
                $crate::conformance::$case(&store).await;
            }
        )+
    };
    ($make:expr) => {
        $crate::conformance_suite!($make;
            an_unknown_namespace_is_empty,
            a_saved_entry_loads_back_exactly,
            entries_come_oldest_first_and_threads_most_recent_first,
            namespaces_never_see_each_other,
            parallel_saves_to_one_thread_all_land,
            parallel_saves_across_threads_are_all_counted,
            a_ready_store_answers_ping,
        );
    };
}
