//! A vector document, built and read: its id (the entry's identity), its fields, and the mark
//! on a thread document that says which model every entry of it has a vector of.

use std::collections::HashMap;

use firestore::gcloud_sdk::google::firestore::v1::value::ValueType;
use firestore::gcloud_sdk::google::firestore::v1::{ArrayValue, Document, MapValue, Value, Write};
use firestore::gcloud_sdk::prost_types::Timestamp;
use sha2::{Digest, Sha256};

use crate::domain::{Embedded, Vector};
use crate::store::firestore::document::entries::{integer, string_value};
use crate::store::firestore::document::layout::{
    AT_MICROS, EMBEDDED_BY, EMBEDDING, MODEL, THREAD, THREADS, VECTORS,
};
use crate::store::firestore::document::writes::{expire_at_field, set_write};

/// The id of the vector document of the entry saved to `thread` at `at` with `summary`: its
/// identity, as the thread holds it (two entries alike in all three are one).
pub fn vector_id(thread: &str, at: i64, summary: &str) -> String {
    let digest = Sha256::new()
        .chain_update(thread)
        .chain_update([0])
        .chain_update(at.to_be_bytes())
        .chain_update(summary)
        .finalize();
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// Which entry a vector document is of: the thread document's name, and the entry's time and
/// [`vector_id`].
pub struct VectorOf<'a> {
    pub thread: &'a str,
    pub at: i64,
    pub id: &'a str,
}

/// The vector document of `entry`, replacing any other; it expires with the thread as the
/// thread is when written.
pub fn vector_write(entry: &VectorOf, embedded: &Embedded, expire_at: Option<Timestamp>) -> Write {
    let (namespace, thread_id) = split_thread_name(entry.thread);
    let name = format!("{namespace}/{VECTORS}/{}", entry.id);
    let mut fields = HashMap::from([
        (THREAD.to_owned(), string_value(thread_id)),
        (AT_MICROS.to_owned(), integer(entry.at)),
        (MODEL.to_owned(), string_value(embedded.model.as_str())),
        (EMBEDDING.to_owned(), vector_value(&embedded.vector)),
    ]);
    fields.extend(expire_at_field(expire_at));
    set_write(&name, fields)
}

/// The namespace document's name and the thread's id, from a thread document's name.
pub fn split_thread_name(name: &str) -> (&str, &str) {
    name.rsplit_once(&format!("/{THREADS}/"))
        .unwrap_or((name, ""))
}

/// The value `embedded_by` takes on a thread written whole (its read being `current`) with an
/// entry whose vector is `vector`: the model, if every entry then has a vector of it.
pub fn embedded_by(current: Option<&Document>, vector: Option<&Embedded>) -> Value {
    let model = vector.map(|v| v.model.as_str());
    let whole = match current {
        None => model,
        Some(doc) => model.filter(|m| marked(doc) == *m),
    };
    string_value(whole.unwrap_or_default())
}

/// The model `doc` says every entry has a vector of; `""` when none.
pub fn marked(doc: &Document) -> &str {
    match doc
        .fields
        .get(EMBEDDED_BY)
        .and_then(|v| v.value_type.as_ref())
    {
        Some(ValueType::StringValue(model)) => model,
        _ => "",
    }
}

/// A vector as the client libraries write `FieldValue.vector()`: a map of `__type__` and
/// `value` (`findNearest` compares these).
fn vector_value(vector: &Vector) -> Value {
    let values = vector
        .values()
        .iter()
        .map(|v| Value {
            value_type: Some(ValueType::DoubleValue(f64::from(*v))),
        })
        .collect();
    let fields = HashMap::from([
        ("__type__".to_owned(), string_value("__vector__")),
        (
            "value".to_owned(),
            Value {
                value_type: Some(ValueType::ArrayValue(ArrayValue { values })),
            },
        ),
    ]);
    Value {
        value_type: Some(ValueType::MapValue(MapValue { fields })),
    }
}

/// The vector of a vector document; `None` for anything else.
pub fn stored_vector(doc: &Document) -> Option<Vector> {
    let Some(ValueType::MapValue(map)) = doc.fields.get(EMBEDDING)?.value_type.as_ref() else {
        return None;
    };
    let Some(ValueType::ArrayValue(array)) = map.fields.get("value")?.value_type.as_ref() else {
        return None;
    };
    let values = array.values.iter().map(|v| match v.value_type {
        Some(ValueType::DoubleValue(d)) => Some(d as f32),
        _ => None,
    });
    Vector::unit(values.collect::<Option<_>>()?)
}

pub fn thread_of(doc: &Document) -> Option<&str> {
    match doc.fields.get(THREAD)?.value_type.as_ref()? {
        ValueType::StringValue(thread) => Some(thread),
        _ => None,
    }
}
