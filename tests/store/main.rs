//! The conformance suite, run against every `MemoryStore` backend.

mod conformance;
mod firestore;
#[path = "../common/original.rs"]
mod original;

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

    crate::conformance_suite!(open());

    /// What was saved is still there when the file is opened again.
    #[tokio::test]
    async fn saves_outlive_the_connection() {
        let (store, dir) = open().await;
        let ns = crate::conformance::namespace();
        let id = kioku::domain::ThreadId::parse("t").unwrap();
        store
            .save(&ns, &id, &crate::conformance::entry("kept", "ts"))
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

    use kioku::store::MemoryStore;
}
