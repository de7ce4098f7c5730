//! Direct access to the Firestore emulator that `scripts/test` starts, as the original function
//! (or a person with the Firestore API) would have it. Shared by the test crates.
#![allow(dead_code)] // each test crate uses part of it

use std::collections::HashMap;

use firestore::gcloud_sdk::google::firestore::v1::{
    ArrayValue, CommitRequest, Document, DocumentMask, MapValue, Value, Write,
    document_transform::FieldTransform, document_transform::field_transform::TransformType,
    value::ValueType, write::Operation,
};
use firestore::{FirestoreDb, FirestoreDbOptions};
use kioku::domain::{Entry, Namespace};

pub const PROJECT: &str = "demo-kioku";

pub fn emulator_host() -> String {
    std::env::var("FIRESTORE_EMULATOR_HOST")
        .expect("FIRESTORE_EMULATOR_HOST is set: run the tests with scripts/test")
}

pub async fn raw_db() -> FirestoreDb {
    emulator_host();
    FirestoreDb::with_options(FirestoreDbOptions::new(PROJECT.into()))
        .await
        .unwrap()
}

/// The emulator at `host`, not the one `scripts/test` started (whose variable must still be set,
/// so that the client sends the emulator's stub credentials).
pub async fn raw_db_at(host: &str) -> FirestoreDb {
    emulator_host();
    let options =
        FirestoreDbOptions::new(PROJECT.into()).with_firebase_api_url(format!("http://{host}"));
    FirestoreDb::with_options(options).await.unwrap()
}

fn document_name(db: &FirestoreDb, ns: &Namespace, thread: &str) -> String {
    format!(
        "{}/memory/{}/threads/{thread}",
        db.get_documents_path(),
        ns.name()
    )
}

pub fn string(text: &str) -> Value {
    Value {
        value_type: Some(ValueType::StringValue(text.into())),
    }
}

/// Writes a thread exactly as the original function leaves it: only `entries`, an array of
/// `{summary, timestamp}` maps with string timestamps.
pub async fn write_as_original(db: &FirestoreDb, ns: &Namespace, thread: &str, entries: &[Entry]) {
    commit(db, as_original(db, ns, thread, entries)).await;
}

/// Writes `threads` as [`write_as_original`] does, as many to a commit as Firestore takes.
pub async fn write_many_as_original(
    db: &FirestoreDb,
    ns: &Namespace,
    threads: &[(String, Vec<Entry>)],
) {
    for chunk in threads.chunks(500) {
        let writes = chunk
            .iter()
            .map(|(thread, entries)| as_original(db, ns, thread, entries))
            .collect();
        commit_all(db, writes).await;
    }
}

fn as_original(db: &FirestoreDb, ns: &Namespace, thread: &str, entries: &[Entry]) -> Write {
    let fields = HashMap::from([(
        "entries".to_owned(),
        Value {
            value_type: Some(ValueType::ArrayValue(ArrayValue {
                values: entries.iter().map(entry_value).collect(),
            })),
        },
    )]);
    Write {
        operation: Some(Operation::Update(Document {
            name: document_name(db, ns, thread),
            fields,
            ..Document::default()
        })),
        ..Write::default()
    }
}

/// Saves `entry` as the original function does:
/// `set({"entries": firestore.ArrayUnion([entry])}, merge=True)`, which touches no other field.
pub async fn append_as_original(db: &FirestoreDb, ns: &Namespace, thread: &str, entry: &Entry) {
    let append = FieldTransform {
        field_path: "entries".into(),
        transform_type: Some(TransformType::AppendMissingElements(ArrayValue {
            values: vec![entry_value(entry)],
        })),
    };
    let write = Write {
        operation: Some(Operation::Update(Document {
            name: document_name(db, ns, thread),
            ..Document::default()
        })),
        update_mask: Some(DocumentMask::default()),
        update_transforms: vec![append],
        ..Write::default()
    };
    commit(db, write).await;
}

fn entry_value(entry: &Entry) -> Value {
    Value {
        value_type: Some(ValueType::MapValue(MapValue {
            fields: HashMap::from([
                ("summary".into(), string(&entry.summary)),
                ("timestamp".into(), string(&entry.timestamp)),
            ]),
        })),
    }
}

async fn commit(db: &FirestoreDb, write: Write) {
    commit_all(db, vec![write]).await;
}

async fn commit_all(db: &FirestoreDb, writes: Vec<Write>) {
    let request = CommitRequest {
        database: db.get_database_path().clone(),
        writes,
        ..CommitRequest::default()
    };
    db.client().get().commit(request).await.unwrap();
}

pub async fn read_raw(db: &FirestoreDb, ns: &Namespace, thread: &str) -> Document {
    let parent = format!("{}/memory/{}", db.get_documents_path(), ns.name());
    db.fluent()
        .select()
        .by_id_in("threads")
        .parent(parent)
        .one(thread)
        .await
        .unwrap()
        .expect("the document exists")
}
