//! Direct access to the Firestore emulator that `scripts/test` starts, as the original function
//! (or a person with the Firestore API) would have it. Shared by the test crates.
#![allow(dead_code)] // each test crate uses part of it

use std::collections::HashMap;

use firestore::gcloud_sdk::google::firestore::v1::{
    ArrayValue, CommitRequest, Document, MapValue, Value, Write, value::ValueType, write::Operation,
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
    let values = entries.iter().map(|e| Value {
        value_type: Some(ValueType::MapValue(MapValue {
            fields: HashMap::from([
                ("summary".into(), string(&e.summary)),
                ("timestamp".into(), string(&e.timestamp)),
            ]),
        })),
    });
    let fields = HashMap::from([(
        "entries".to_owned(),
        Value {
            value_type: Some(ValueType::ArrayValue(ArrayValue {
                values: values.collect(),
            })),
        },
    )]);
    let write = Write {
        operation: Some(Operation::Update(Document {
            name: document_name(db, ns, thread),
            fields,
            ..Document::default()
        })),
        ..Write::default()
    };
    let request = CommitRequest {
        database: db.get_database_path().clone(),
        writes: vec![write],
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
