//! Vectors beside entries, on a store that keeps them: stored with their entry, searched
//! nearest first within the filter and the model, forgotten with the entry, and filled in by
//! the backfill's calls, resumably. The vectors are made up here: what the store does with a
//! vector does not depend on the model (tests/embedding.rs runs the model). Every store runs
//! the suite.

use std::num::NonZeroU32;

use kioku::domain::{
    Embedded, Filter, Located, ModelId, Namespace, Retention, ThreadId, Vector, entry_micros,
};
use kioku::store::{EntryKey, Unembedded};

use crate::conformance::{KEEP_ALL, entry, namespace};

fn model() -> ModelId {
    ModelId::new("00112233445566778899", 3)
}

fn embedded(values: [f32; 3]) -> Embedded {
    Embedded {
        model: model(),
        vector: Vector::unit(values.to_vec()).unwrap(),
    }
}

fn thread(id: &str) -> ThreadId {
    ThreadId::parse(id).unwrap()
}

/// Saves to the thread `id` an entry whose summary is `id` and the namespace's name: the
/// backfill's calls answer entries of every namespace, and tests share a database.
async fn save(store: &impl crate::Backend, ns: &Namespace, id: &str, at: &str, v: [f32; 3]) {
    let e = entry(&mine(ns, id), &format!("2025-01-01T00:00:{at}Z"));
    store
        .save(ns, &thread(id), &e, Some(&embedded(v)), &KEEP_ALL)
        .await
        .unwrap();
}

async fn nearest(store: &impl crate::Backend, ns: &Namespace, filter: &Filter) -> Vec<String> {
    let query = embedded([1.0, 0.0, 0.0]);
    let found = store.nearest(ns, filter, &query).await.unwrap();
    found.into_iter().map(|l| l.thread_id).collect()
}

fn mine(ns: &Namespace, summary: &str) -> String {
    format!("{summary} {}", ns.name())
}

/// Every entry the store holds without a vector of `model`, after `after`, batch by batch.
async fn unembedded(
    store: &impl crate::Backend,
    model: &ModelId,
    after: Option<&EntryKey>,
) -> Vec<Unembedded> {
    let (mut all, mut after) = (Vec::new(), after.cloned());
    loop {
        let batch = store.unembedded(model, after.as_ref(), 100).await.unwrap();
        let Some(last) = batch.last() else {
            return all;
        };
        after = Some(last.key.clone());
        all.extend(batch);
    }
}

pub async fn vectors_are_searched_nearest_first_and_forgotten_with_their_entries(
    store: &impl crate::Backend,
) {
    let (ns, other) = (namespace(), namespace());
    save(store, &ns, "far", "01", [0.0, 1.0, 0.0]).await;
    save(store, &ns, "near", "02", [1.0, 0.1, 0.0]).await;
    save(store, &ns, "between", "03", [1.0, 1.0, 0.0]).await;
    save(store, &other, "elsewhere", "04", [1.0, 0.0, 0.0]).await;
    assert_eq!(
        nearest(store, &ns, &Filter::default()).await,
        ["near", "between", "far"]
    );
    let only = Filter {
        thread: Some(thread("far")),
        ..Filter::default()
    };
    assert_eq!(nearest(store, &ns, &only).await, ["far"]);

    // Another model's question compares with none of them.
    let other_model = Embedded {
        model: ModelId::new("ffeeddccbbaa", 3),
        ..embedded([1.0, 0.0, 0.0])
    };
    let found = store.nearest(&ns, &Filter::default(), &other_model).await;
    assert!(found.unwrap().is_empty());

    store.forget(&ns, &thread("near"), None).await.unwrap();
    assert_eq!(
        nearest(store, &ns, &Filter::default()).await,
        ["between", "far"]
    );
    store.delete_namespace(&ns).await.unwrap();
    assert!(nearest(store, &ns, &Filter::default()).await.is_empty());
    assert_eq!(
        nearest(store, &other, &Filter::default()).await,
        ["elsewhere"]
    );
}

pub async fn the_backfill_finds_entries_without_a_vector_newest_first_and_resumes(
    store: &impl crate::Backend,
) {
    let ns = namespace();
    let times = [
        "2025-01-01T00:00:01Z",
        "2025-01-01T00:00:02Z",
        "2025-01-01T00:00:03Z",
    ];
    let imported: Vec<_> = ["one", "two", "three"]
        .iter()
        .zip(times)
        .map(|(s, t)| entry(&mine(&ns, s), t))
        .collect();
    store.import(&ns, &thread("old"), &imported).await.unwrap();
    save(store, &ns, "embedded", "04", [0.0, 0.0, 1.0]).await;
    let of_ns = |batch: &[Unembedded]| -> Vec<String> {
        let mut summaries: Vec<String> = batch
            .iter()
            .filter_map(|u| u.summary.strip_suffix(&format!(" {}", ns.name())))
            .map(str::to_owned)
            .collect();
        summaries.sort_unstable();
        summaries
    };

    let all = unembedded(store, &model(), None).await;
    assert_eq!(
        of_ns(&all),
        ["one", "three", "two"],
        "only those without a vector"
    );

    // A batch at a time: the next starts after the last, and together they find every one.
    let first = store.unembedded(&model(), None, 2).await.unwrap();
    assert!(!first.is_empty());
    let rest = unembedded(store, &model(), first.last().map(|u| &u.key)).await;
    assert!(rest.iter().all(|u| !first.contains(u)), "no entry twice");
    assert_eq!(of_ns(&[first, rest].concat()), ["one", "three", "two"]);

    let theirs: Vec<(EntryKey, Embedded)> = all
        .iter()
        .filter(|u| u.summary.ends_with(ns.name()))
        .map(|u| (u.key.clone(), embedded([1.0, 0.0, 0.0])))
        .collect();
    assert_eq!(store.put_vectors(&theirs).await.unwrap(), 3);
    let left = unembedded(store, &model(), None).await;
    assert!(of_ns(&left).is_empty(), "{:?}", of_ns(&left));
    assert_eq!(nearest(store, &ns, &Filter::default()).await.len(), 4);

    // A vector of another model leaves the entry unembedded for this one.
    let other = ModelId::new("ffeeddccbbaa", 3);
    let missing = unembedded(store, &other, None).await;
    assert_eq!(of_ns(&missing), ["embedded", "one", "three", "two"]);

    // An entry forgotten before its vector came gets none.
    store.forget(&ns, &thread("old"), None).await.unwrap();
    assert_eq!(store.put_vectors(&theirs).await.unwrap(), 0);
}

pub async fn vectors_go_with_entries_dropped_by_a_cap_or_forgotten_one_by_one(
    store: &impl crate::Backend,
) {
    let ns = namespace();
    let two = Retention {
        max_entries_per_thread: NonZeroU32::new(2),
        ..KEEP_ALL
    };
    for (i, v) in [[1.0, 0.0, 0.0], [1.0, 0.5, 0.0], [1.0, 1.0, 0.0]]
        .iter()
        .enumerate()
    {
        let e = entry(&format!("entry {i}"), &format!("2025-01-01T00:00:0{i}Z"));
        store
            .save(&ns, &thread("t"), &e, Some(&embedded(*v)), &two)
            .await
            .unwrap();
    }
    let summaries = |found: Vec<Located>| -> Vec<String> {
        found.into_iter().map(|l| l.entry.summary).collect()
    };
    let query = embedded([1.0, 0.0, 0.0]);
    let found = store
        .nearest(&ns, &Filter::default(), &query)
        .await
        .unwrap();
    assert_eq!(
        summaries(found),
        ["entry 1", "entry 2"],
        "the oldest went with its vector"
    );

    let at = entry_micros("2025-01-01T00:00:01Z");
    store.forget(&ns, &thread("t"), Some(at)).await.unwrap();
    let found = store
        .nearest(&ns, &Filter::default(), &query)
        .await
        .unwrap();
    assert_eq!(summaries(found), ["entry 2"]);
}

#[macro_export]
macro_rules! vector_suite {
    ($make:expr; $($case:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let Some((store, _guard)) = $make.await else {
                    return;
                };
                $crate::vectors::$case(&store).await;
            }
        )+
    };
    ($make:expr) => {
        $crate::vector_suite!($make;
            vectors_are_searched_nearest_first_and_forgotten_with_their_entries,
            the_backfill_finds_entries_without_a_vector_newest_first_and_resumes,
            vectors_go_with_entries_dropped_by_a_cap_or_forgotten_one_by_one,
        );
    };
}
