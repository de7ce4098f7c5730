//! Vectors beside entries, on a store that keeps them: stored with their entry, searched
//! nearest first within the filter and the model, forgotten with the entry, and filled in by
//! the backfill's calls, resumably. The vectors are made up here: what the store does with a
//! vector does not depend on the model (tests/embedding.rs runs the model). SQLite runs the
//! suite; Firestore joins once it stores vectors.

use kioku::domain::{Embedded, Filter, ModelId, Namespace, ThreadId, Vector};
use kioku::store::MemoryStore;

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

async fn save(store: &impl MemoryStore, ns: &Namespace, id: &str, at: &str, v: [f32; 3]) {
    let e = entry(id, &format!("2025-01-01T00:00:{at}Z"));
    store
        .save(ns, &thread(id), &e, Some(&embedded(v)), &KEEP_ALL)
        .await
        .unwrap();
}

async fn nearest(store: &impl MemoryStore, ns: &Namespace, filter: &Filter) -> Vec<String> {
    let query = embedded([1.0, 0.0, 0.0]);
    let found = store.nearest(ns, filter, &query).await.unwrap();
    found.into_iter().map(|l| l.thread_id).collect()
}

pub async fn vectors_are_searched_nearest_first_and_forgotten_with_their_entries(
    store: &impl MemoryStore,
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
    store: &impl MemoryStore,
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
        .map(|(s, t)| entry(s, t))
        .collect();
    store.import(&ns, &thread("old"), &imported).await.unwrap();
    save(store, &ns, "embedded", "04", [0.0, 0.0, 1.0]).await;

    let all = store.unembedded(&model(), None, 100).await.unwrap();
    let mine: Vec<&str> = all
        .iter()
        .map(|u| u.summary.as_str())
        .filter(|s| ["one", "two", "three", "embedded"].contains(s))
        .collect();
    assert_eq!(mine, ["three", "two", "one"], "newest stored first");

    // Two at a time: the second batch starts below the first.
    let first = store.unembedded(&model(), None, 2).await.unwrap();
    let rest = store
        .unembedded(&model(), Some(first[1].seq), 100)
        .await
        .unwrap();
    assert!(rest.iter().all(|u| u.seq < first[1].seq));

    let theirs: Vec<(i64, Embedded)> = all
        .iter()
        .filter(|u| ["one", "two", "three"].contains(&u.summary.as_str()))
        .map(|u| (u.seq, embedded([1.0, 0.0, 0.0])))
        .collect();
    assert_eq!(store.put_vectors(&theirs).await.unwrap(), 3);
    let left = store.unembedded(&model(), None, 100).await.unwrap();
    assert!(
        left.iter()
            .all(|u| !["one", "two", "three"].contains(&u.summary.as_str()))
    );
    assert_eq!(nearest(store, &ns, &Filter::default()).await.len(), 4);

    // A vector of another model leaves the entry unembedded for this one.
    let other = ModelId::new("ffeeddccbbaa", 3);
    let missing = store.unembedded(&other, None, 100).await.unwrap();
    assert!(missing.iter().any(|u| u.summary == "embedded"));

    // An entry forgotten before its vector came gets none.
    store.forget(&ns, &thread("old"), None).await.unwrap();
    assert_eq!(store.put_vectors(&theirs).await.unwrap(), 0);
}

#[macro_export]
macro_rules! vector_suite {
    ($make:expr; $($case:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let (store, _guard) = $make.await;
                $crate::vectors::$case(&store).await;
            }
        )+
    };
    ($make:expr) => {
        $crate::vector_suite!($make;
            vectors_are_searched_nearest_first_and_forgotten_with_their_entries,
            the_backfill_finds_entries_without_a_vector_newest_first_and_resumes,
        );
    };
}
