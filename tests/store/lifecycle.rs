//! Conformance, continued: forgetting, retention limits, and what export, import and the
//! admin endpoints rely on. Run for every backend through `conformance_suite!`.

use std::num::NonZeroU32;

use kioku::domain::Counts;
use kioku::domain::{Entry, Namespace, Retention, Thread, ThreadId, entry_micros};
use kioku::store::Dropped;

use crate::conformance::{KEEP_ALL, all_threads, entry, load_all, namespace, thread_count};

fn thread(id: &str) -> ThreadId {
    ThreadId::parse(id).unwrap()
}

/// Saves `summary` at `second` past a fixed minute.
async fn save(
    store: &impl crate::Backend,
    ns: &Namespace,
    id: &str,
    summary: &str,
    second: usize,
    retention: &Retention,
) -> Dropped {
    let saved = entry(summary, &at(second));
    store
        .save(ns, &thread(id), &saved, None, retention)
        .await
        .unwrap()
        .dropped
}

fn at(second: usize) -> String {
    format!("2025-03-01T10:00:{second:02}.000000+09:00")
}

fn summaries(threads: &[Thread]) -> Vec<(String, Vec<String>)> {
    threads
        .iter()
        .map(|t| {
            let texts = t.entries.iter().map(|e| e.summary.clone()).collect();
            (t.id.clone(), texts)
        })
        .collect()
}

fn owned(expected: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    expected
        .iter()
        .map(|(id, texts)| {
            (
                id.to_string(),
                texts.iter().map(|t| t.to_string()).collect(),
            )
        })
        .collect()
}

pub async fn forgetting_a_thread_removes_it_whole(store: &impl crate::Backend) {
    let ns = namespace();
    for (id, summary, second) in [("t1", "a", 1), ("t1", "b", 2), ("t2", "c", 3)] {
        save(store, &ns, id, summary, second, &KEEP_ALL).await;
    }
    let forgotten = store.forget(&ns, &thread("t1"), None).await.unwrap();
    assert_eq!(
        forgotten,
        Counts {
            threads: 1,
            entries: 2
        }
    );
    assert_eq!(
        summaries(&load_all(store, &ns).await),
        owned(&[("t2", &["c"])])
    );
    assert_eq!(thread_count(store, &ns).await, 1);
    let again = store.forget(&ns, &thread("t1"), None).await.unwrap();
    assert_eq!(again, Counts::default());
}

pub async fn forgetting_one_entry_keeps_the_rest(store: &impl crate::Backend) {
    let ns = namespace();
    let id = thread("t");
    for (summary, second) in [("a", 1), ("b", 2), ("c", 3)] {
        save(store, &ns, "t", summary, second, &KEEP_ALL).await;
    }
    let one = store
        .forget(&ns, &id, Some(entry_micros(&at(2))))
        .await
        .unwrap();
    assert_eq!(
        one,
        Counts {
            threads: 0,
            entries: 1
        }
    );
    assert_eq!(
        summaries(&load_all(store, &ns).await),
        owned(&[("t", &["a", "c"])])
    );
    let none = store
        .forget(&ns, &id, Some(entry_micros(&at(9))))
        .await
        .unwrap();
    assert_eq!(none, Counts::default());
    // The same instant written in another zone is the same entry.
    let utc = "2025-03-01T01:00:01Z";
    let first = store
        .forget(&ns, &id, Some(entry_micros(utc)))
        .await
        .unwrap();
    assert_eq!(first.entries, 1);
    let last = store
        .forget(&ns, &id, Some(entry_micros(&at(3))))
        .await
        .unwrap();
    assert_eq!(
        last,
        Counts {
            threads: 1,
            entries: 1
        },
        "the thread went with its last entry"
    );
    assert!(load_all(store, &ns).await.is_empty());
    assert_eq!(thread_count(store, &ns).await, 0);
}

pub async fn a_thread_keeps_at_most_its_entry_limit(store: &impl crate::Backend) {
    let ns = namespace();
    let two = Retention {
        max_entries_per_thread: NonZeroU32::new(2),
        ..KEEP_ALL
    };
    let mut dropped = Vec::new();
    for (summary, second) in [("a", 1), ("b", 2), ("c", 3), ("d", 4)] {
        dropped.push(save(store, &ns, "t", summary, second, &two).await.entries);
    }
    assert_eq!(dropped, [0, 0, 1, 1]);
    assert_eq!(
        summaries(&load_all(store, &ns).await),
        owned(&[("t", &["c", "d"])])
    );
}

pub async fn a_namespace_keeps_at_most_its_thread_limit(store: &impl crate::Backend) {
    let ns = namespace();
    let two = Retention {
        max_threads: NonZeroU32::new(2),
        ..KEEP_ALL
    };
    // Saved in name order, so a backend that orders equal save times by name agrees.
    let mut trims = Vec::new();
    for (id, second) in [("t1", 1), ("t2", 2), ("t3", 3)] {
        trims.push(save(store, &ns, id, id, second, &two).await);
    }
    let dropped_one = Dropped {
        threads: 1,
        ..Dropped::default()
    };
    assert_eq!(trims, [Dropped::default(), Dropped::default(), dropped_one]);
    let ids: Vec<String> = load_all(store, &ns)
        .await
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(ids, ["t3", "t2"]);
    assert_eq!(thread_count(store, &ns).await, 2);
}

pub async fn import_appends_only_what_is_missing(store: &impl crate::Backend) {
    let ns = namespace();
    let id = thread("imported");
    let (a, b, c) = (entry("a", &at(1)), entry("b", &at(2)), entry("c", &at(3)));
    let first = [a.clone(), b.clone()];
    assert_eq!(store.import(&ns, &id, &first).await.unwrap(), 2);
    assert_eq!(
        store.import(&ns, &id, &first).await.unwrap(),
        0,
        "idempotent"
    );
    let all = [a.clone(), b.clone(), c.clone()];
    assert_eq!(store.import(&ns, &id, &all).await.unwrap(), 1);
    let expected = Thread {
        id: "imported".into(),
        entries: vec![a, b, c],
    };
    assert_eq!(all_threads(store, &ns).await, [expected]);
}

pub async fn threads_and_namespaces_list_what_is_held(store: &impl crate::Backend) {
    let (one, two) = (namespace(), namespace());
    let saves: [(&_, &str, Entry); 3] = [
        (&one, "b", entry("b1", &at(1))),
        (&one, "a", entry("a1", &at(5))),
        (&two, "x", entry("x1", &at(3))),
    ];
    for (ns, id, saved) in &saves {
        store
            .save(ns, &thread(id), saved, None, &KEEP_ALL)
            .await
            .unwrap();
    }
    store
        .save(&one, &thread("b"), &entry("b2", &at(2)), None, &KEEP_ALL)
        .await
        .unwrap();
    let threads = all_threads(store, &one).await;
    assert_eq!(
        summaries(&threads),
        owned(&[("a", &["a1"]), ("b", &["b1", "b2"])]),
        "by thread id, entries in save order"
    );
    let listed = store.namespaces().await.unwrap();
    let find = |name: &str| listed.iter().find(|s| s.name == name).cloned().unwrap();
    let stats = find(one.name());
    assert_eq!(
        stats.counts,
        Counts {
            threads: 2,
            entries: 3
        }
    );
    assert_eq!(stats.last_saved.as_deref(), Some(at(5).as_str()));
    assert_eq!(
        find(two.name()).counts,
        Counts {
            threads: 1,
            entries: 1
        }
    );
    let names: Vec<&str> = listed.iter().map(|s| s.name.as_str()).collect();
    assert!(names.is_sorted(), "{names:?}");
}

pub async fn deleting_a_namespace_removes_only_it(store: &impl crate::Backend) {
    let (gone, kept) = (namespace(), namespace());
    for (ns, id) in [(&gone, "a"), (&gone, "b"), (&kept, "a")] {
        store
            .save(ns, &thread(id), &entry(id, &at(1)), None, &KEEP_ALL)
            .await
            .unwrap();
    }
    let deleted = store.delete_namespace(&gone).await.unwrap();
    assert_eq!(
        deleted,
        Counts {
            threads: 2,
            entries: 2
        }
    );
    assert!(load_all(store, &gone).await.is_empty());
    assert_eq!(thread_count(store, &gone).await, 0);
    assert_eq!(load_all(store, &kept).await.len(), 1);
    let listed = store.namespaces().await.unwrap();
    assert!(listed.iter().all(|s| s.name != gone.name()));
    assert_eq!(
        store.delete_namespace(&gone).await.unwrap(),
        Counts::default()
    );
}
