//! The Firestore store against the emulator `scripts/test` starts: the conformance suites, and
//! compatibility with the documents the original function writes.

use std::collections::HashMap;
use std::time::Duration;

use firestore::gcloud_sdk::google::firestore::v1::value::ValueType;
use firestore::gcloud_sdk::google::firestore::v1::{MapValue, Value};
use std::num::NonZeroU32;

use chrono::{SecondsFormat, TimeDelta, Utc};
use kioku::domain::{Entry, Filter, PageBuilder, Retention, ThreadId};
use kioku::store::{Dropped, FirestoreStore, Maintenance, MemoryStore, StoreError};

use crate::conformance::{KEEP_ALL, entry, load_all, namespace, thread_count};
use crate::needs;
use crate::original::{PROJECT, raw_db, read_raw, string, write_as_original};

/// The store on the emulator `scripts/test` started; `None` once the test is skipped for want
/// of it.
pub async fn connect() -> Option<FirestoreStore> {
    needs::firestore()?;
    let store = FirestoreStore::connect(Some(PROJECT.into()), "(default)", Duration::from_secs(5))
        .await
        .unwrap();
    Some(store)
}

crate::conformance_suite!(async { Some((connect().await?, ())) });
crate::grant_store_suite!(async { Some((connect().await?, ())) });
crate::vector_suite!(async { Some((connect().await?, ())) });

#[tokio::test]
async fn threads_written_by_the_original_load_unchanged_and_newest_first() {
    let Some(store) = connect().await else {
        return;
    };
    let db = raw_db().await;
    let ns = namespace();
    // The original records no writer.
    let original = |summary, timestamp| Entry {
        writer: None,
        ..entry(summary, timestamp)
    };
    let older = [
        original(
            "PHPでAPIダンプツールを作成する相談",
            "2025-08-19T08:39:27.174624+09:00",
        ),
        original("続き", "2025-08-19T09:00:00.000001+09:00"),
    ];
    let newer = [original(
        "Qiita第3弾の記事公開",
        "2025-08-21T12:28:00+09:00",
    )];
    write_as_original(&db, &ns, "b-older", &older).await;
    write_as_original(&db, &ns, "a-newer", &newer).await;

    let threads = load_all(&store, &ns).await;
    let ids: Vec<_> = threads.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["a-newer", "b-older"]);
    assert_eq!(threads[0].entries, newer);
    assert_eq!(threads[1].entries, older);
    assert_eq!(thread_count(&store, &ns).await, 2);

    // A kioku save into the original's thread appends and moves it to the front.
    let added = entry("kioku から追記", "2025-09-01T10:00:00.000000+09:00");
    store
        .save(
            &ns,
            &ThreadId::parse("b-older").unwrap(),
            &added,
            None,
            &KEEP_ALL,
        )
        .await
        .unwrap();
    let threads = load_all(&store, &ns).await;
    assert_eq!(threads[0].id, "b-older");
    assert_eq!(
        threads[0].entries,
        [older[0].clone(), older[1].clone(), added]
    );
}

/// What kioku writes, the original reads: `entries` holds maps of exactly `summary` and
/// `timestamp`, both strings; kioku adds only `updated_at`, a timestamp, the tracked fields (the
/// newest entry's time in microseconds and the number of entries, both integers), the search
/// index (the entries' distinct terms, and the version of the terms that wrote them), and
/// `embedded_by`, a string: the model every entry has a vector of, if any.
#[tokio::test]
async fn documents_kioku_writes_have_the_original_shape() {
    let Some(store) = connect().await else {
        return;
    };
    let db = raw_db().await;
    let ns = namespace();
    let id = ThreadId::parse("t").unwrap();
    store
        .save(
            &ns,
            &id,
            &entry("one", "2025-08-19T08:39:27.174624+09:00"),
            None,
            &KEEP_ALL,
        )
        .await
        .unwrap();
    store
        .save(
            &ns,
            &id,
            &entry("two", "2025-08-19T08:40:00.000000+09:00"),
            None,
            &KEEP_ALL,
        )
        .await
        .unwrap();

    let doc = read_raw(&db, &ns, "t").await;
    let mut fields: Vec<_> = doc.fields.keys().cloned().collect();
    fields.sort();
    assert_eq!(
        fields,
        [
            "embedded_by",
            "entries",
            "entry_count",
            "newest_micros",
            "search_terms",
            "terms_version",
            "updated_at"
        ]
    );
    let Some(ValueType::ArrayValue(terms)) = &doc.fields["search_terms"].value_type else {
        panic!("search_terms is an array: {doc:?}");
    };
    let mut terms = terms.values.clone();
    terms.sort_by_key(|v| format!("{v:?}"));
    assert_eq!(terms, [string("one"), string("two")]);
    assert!(matches!(
        doc.fields["updated_at"].value_type,
        Some(ValueType::TimestampValue(_))
    ));
    assert_eq!(
        doc.fields["newest_micros"].value_type,
        Some(ValueType::IntegerValue(1_755_560_400_000_000))
    );
    assert_eq!(
        doc.fields["entry_count"].value_type,
        Some(ValueType::IntegerValue(2))
    );
    let Some(ValueType::ArrayValue(entries)) = &doc.fields["entries"].value_type else {
        panic!("entries is an array: {doc:?}");
    };
    let expected = [
        ("one", "2025-08-19T08:39:27.174624+09:00"),
        ("two", "2025-08-19T08:40:00.000000+09:00"),
    ];
    assert_eq!(entries.values.len(), 2);
    for (value, (summary, timestamp)) in entries.values.iter().zip(expected) {
        let Some(ValueType::MapValue(map)) = &value.value_type else {
            panic!("a map: {value:?}")
        };
        assert_eq!(
            map.fields,
            HashMap::from([
                ("summary".into(), string(summary)),
                ("timestamp".into(), string(timestamp)),
                // kioku's, beside the original's two.
                (
                    "writer".into(),
                    Value {
                        value_type: Some(ValueType::MapValue(MapValue {
                            fields: HashMap::from([
                                ("by".into(), string("token")),
                                ("label".into(), string("conformance")),
                            ]),
                        })),
                    }
                ),
            ])
        );
    }
}

/// Firestore caps a document at 1 MiB: a save past it drops the thread's oldest entries and
/// says so; an entry too large on its own is refused and changes nothing.
#[tokio::test]
async fn a_save_past_the_document_limit_drops_the_oldest_entries() {
    let Some(store) = connect().await else {
        return;
    };
    let ns = namespace();
    let id = ThreadId::parse("big").unwrap();
    let big = |i: usize| {
        entry(
            &format!("{i}{}", "記".repeat(100_000)),
            &format!("2025-01-01T00:00:0{i}.000000+09:00"),
        )
    };
    for i in 0..3 {
        let trimmed = store
            .save(&ns, &id, &big(i), None, &KEEP_ALL)
            .await
            .unwrap()
            .dropped;
        assert_eq!(trimmed, Dropped::default());
    }
    let trimmed = store
        .save(&ns, &id, &big(3), None, &KEEP_ALL)
        .await
        .unwrap()
        .dropped;
    let expected = Dropped {
        entries: 1,
        threads: 0,
        for_size: true,
    };
    assert_eq!(trimmed, expected);
    let threads = load_all(&store, &ns).await;
    assert_eq!(threads[0].entries, [big(1), big(2), big(3)]);

    let huge = entry(&"記".repeat(400_000), "2025-01-01T00:00:09.000000+09:00");
    let err = store
        .save(&ns, &id, &huge, None, &KEEP_ALL)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::DocumentTooLarge), "{err:?}");
    assert_eq!(load_all(&store, &ns).await, threads);
}

/// With a retention age alone, a save is one append that sets `expire_at`, the field of the
/// TTL policy that deletes threads nobody saved to within the age; the entries past their age
/// stay until then, and loads hide them.
#[tokio::test]
async fn a_retention_age_sets_the_ttl_field_in_the_append() {
    let Some(store) = connect().await else {
        return;
    };
    let db = raw_db().await;
    let ns = namespace();
    let id = ThreadId::parse("t").unwrap();
    let week = Retention {
        max_age_days: NonZeroU32::new(7),
        ..KEEP_ALL
    };
    let now = Utc::now();
    let days_ago =
        |days: i64| (now - TimeDelta::days(days)).to_rfc3339_opts(SecondsFormat::Micros, false);
    let (old, recent) = (entry("old", &days_ago(30)), entry("recent", &days_ago(1)));
    store
        .import(&ns, &id, &[old, recent.clone()])
        .await
        .unwrap();
    let new = entry("new", &days_ago(0));
    let dropped = store
        .save(&ns, &id, &new, None, &week)
        .await
        .unwrap()
        .dropped;
    assert_eq!(dropped, Dropped::default());
    let within_age = Filter {
        since: week.cutoff(),
        ..Filter::default()
    };
    let page = store.page(&ns, &within_age, PageBuilder::new(usize::MAX));
    assert_eq!(page.await.unwrap().threads[0].entries, [recent, new]);

    let doc = read_raw(&db, &ns, "t").await;
    let Some(ValueType::TimestampValue(expire_at)) = &doc.fields["expire_at"].value_type else {
        panic!("expire_at is a timestamp: {doc:?}");
    };
    let in_a_week = (now + TimeDelta::days(7)).timestamp();
    assert!((expire_at.seconds - in_a_week).abs() < 60, "{expire_at:?}");
}

/// Each runtime calls Firestore through a client of its own, whose connection runs on it: once
/// a runtime has ended, the same thread's next runtime opens another, and no call goes to the
/// ended one's.
#[test]
fn a_thread_calls_on_after_the_runtime_that_opened_its_client_ends() {
    // The store's first client, on a runtime that lasts the whole test, as the main one does.
    let lasting = tokio::runtime::Runtime::new().unwrap();
    let Some(store) = lasting.block_on(connect()) else {
        return;
    };
    let ns = namespace();
    let id = ThreadId::parse("runtimes").unwrap();
    let on_this_thread = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    };
    let saves = [
        entry("一つ目", "2025-01-01T00:00:01.000000+09:00"),
        entry("二つ目", "2025-01-01T00:00:02.000000+09:00"),
        entry("三つ目", "2025-01-01T00:00:03.000000+09:00"),
    ];
    let first = on_this_thread();
    first.block_on(async {
        store
            .save(&ns, &id, &saves[0], None, &KEEP_ALL)
            .await
            .unwrap();
        // Time for this runtime's own client to open; the next save goes through it.
        tokio::time::sleep(Duration::from_millis(500)).await;
        store
            .save(&ns, &id, &saves[1], None, &KEEP_ALL)
            .await
            .unwrap();
    });
    drop(first);
    let second = on_this_thread();
    second.block_on(async {
        store
            .save(&ns, &id, &saves[2], None, &KEEP_ALL)
            .await
            .unwrap();
        let threads = load_all(&store, &ns).await;
        assert_eq!(threads[0].entries, saves);
    });
}
