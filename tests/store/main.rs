//! The conformance suites, run against every backend: `MemoryStore`'s and `GrantStore`'s.

use kioku::store::{Maintenance, MemoryStore};

/// What the suites hold a backend to: the calls of a request, and whole-store work.
pub trait Backend: MemoryStore + Maintenance {}

impl<S: MemoryStore + Maintenance> Backend for S {}

mod backfill;
mod conformance;
mod export;
mod firestore;
mod firestore_instances;
mod firestore_vectors;
mod grants;
mod lifecycle;
#[path = "../common/needs.rs"]
mod needs;
#[path = "../common/original.rs"]
mod original;
mod paging;
mod profile;
mod retention;
mod search;
mod search_index;
mod vectors;
mod writers;

mod sqlite {
    use std::time::Duration;

    use kioku::store::SqliteStore;
    use tempfile::TempDir;

    async fn open() -> (SqliteStore, TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let store =
            SqliteStore::open(&dir.path().join("kioku.sqlite3"), Duration::from_secs(5)).unwrap();
        (store, dir)
    }

    crate::conformance_suite!(async { Some(open().await) });
    crate::grant_store_suite!(async { Some(open().await) });
    crate::vector_suite!(async { Some(open().await) });

    /// What was saved is still there when the file is opened again.
    #[tokio::test]
    async fn saves_outlive_the_connection() {
        let (store, dir) = open().await;
        let ns = crate::conformance::namespace();
        let id = kioku::domain::ThreadId::parse("t").unwrap();
        store
            .save(
                &ns,
                &id,
                &crate::conformance::entry("kept", "ts"),
                None,
                &crate::conformance::KEEP_ALL,
            )
            .await
            .unwrap();
        drop(store);
        let reopened =
            SqliteStore::open(&dir.path().join("kioku.sqlite3"), Duration::from_secs(5)).unwrap();
        assert_eq!(
            crate::conformance::load_all(&reopened, &ns).await[0].entries[0].summary,
            "kept"
        );
    }

    /// The purge behind `KIOKU_RETENTION_DAYS` forgets every namespace's older entries, and
    /// the threads left empty.
    #[tokio::test]
    async fn the_purge_forgets_entries_before_the_cutoff() {
        let (store, _dir) = open().await;
        let (one, two) = (
            crate::conformance::namespace(),
            crate::conformance::namespace(),
        );
        let entry = crate::conformance::entry;
        let (old, new) = ("2025-01-01T00:00:00Z", "2025-06-01T00:00:00Z");
        let id = |name: &str| kioku::domain::ThreadId::parse(name).unwrap();
        store
            .import(&one, &id("mixed"), &[entry("o", old), entry("n", new)])
            .await
            .unwrap();
        store
            .import(&two, &id("stale"), &[entry("o", old)])
            .await
            .unwrap();
        let cutoff = kioku::domain::entry_micros("2025-03-01T00:00:00Z");
        assert_eq!(store.purge_before(cutoff).await.unwrap(), 2);
        let kept = crate::conformance::load_all(&store, &one).await;
        assert_eq!(kept[0].entries, [entry("n", new)]);
        assert_eq!(crate::conformance::thread_count(&store, &two).await, 0);
        assert_eq!(store.purge_before(cutoff).await.unwrap(), 0);
    }

    use kioku::store::{Maintenance, MemoryStore};
}
