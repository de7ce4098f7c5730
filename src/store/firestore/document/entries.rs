//! The original function's document layout, read and written: a thread document's `entries`
//! array of `{summary, timestamp}` maps (and kioku's `writer`), and timestamps.

use chrono::{TimeDelta, Utc};
use firestore::gcloud_sdk::google::firestore::v1::{Document, MapValue, Value, value::ValueType};
use firestore::gcloud_sdk::prost_types::Timestamp;

use crate::domain::{Entry, Located, Retention, Writer, entry_micros};
use crate::store::firestore::document::layout::{ENTRIES, UPDATED_AT, WRITER};

pub fn timestamp(at: chrono::DateTime<Utc>) -> Timestamp {
    Timestamp {
        seconds: at.timestamp(),
        nanos: at.timestamp_subsec_micros() as i32 * 1_000,
    }
}

/// With `retention`'s age limit, when what is written now is past its age: the `expire_at` of a
/// TTL policy.
pub fn expiry(retention: &Retention) -> Option<Timestamp> {
    retention
        .max_age_days
        .map(|days| timestamp(Utc::now() + TimeDelta::days(days.get().into())))
}

/// When kioku last saved to the thread; `None` (first in order) when it never did.
pub fn saved_at(doc: &Document) -> Option<(i64, i32)> {
    match doc.fields.get(UPDATED_AT)?.value_type.as_ref()? {
        ValueType::TimestampValue(t) => Some((t.seconds, t.nanos)),
        _ => None,
    }
}

/// The id of `doc`: the last part of its name.
pub fn document_id(doc: &Document) -> String {
    doc.name.rsplit('/').next().unwrap_or_default().to_owned()
}

pub fn string_value(text: &str) -> Value {
    Value {
        value_type: Some(ValueType::StringValue(text.to_owned())),
    }
}

pub fn integer(n: i64) -> Value {
    Value {
        value_type: Some(ValueType::IntegerValue(n)),
    }
}

pub fn entry_value(entry: &Entry) -> Value {
    let fields = [
        ("summary".to_owned(), string_value(&entry.summary)),
        ("timestamp".to_owned(), string_value(&entry.timestamp)),
    ];
    map_value(
        fields
            .into_iter()
            .chain(writer_field(entry.writer.as_ref())),
    )
}

/// The `writer` field of an entry or a profile version, if it has one: its JSON's strings as a
/// map.
pub fn writer_field(writer: Option<&Writer>) -> Option<(String, Value)> {
    let serde_json::Value::Object(json) = serde_json::to_value(writer?).ok()? else {
        return None;
    };
    let strings = json
        .into_iter()
        .filter_map(|(key, value)| Some((key, string_value(value.as_str()?))));
    Some((WRITER.to_owned(), map_value(strings)))
}

/// The writer in `fields`; none when absent, or not one this version knows.
pub fn writer_in(fields: &std::collections::HashMap<String, Value>) -> Option<Writer> {
    let Some(ValueType::MapValue(map)) = &fields.get(WRITER)?.value_type else {
        return None;
    };
    let json: serde_json::Map<String, serde_json::Value> = map
        .fields
        .iter()
        .filter_map(|(key, value)| match &value.value_type {
            Some(ValueType::StringValue(s)) => Some((key.clone(), s.clone().into())),
            _ => None,
        })
        .collect();
    serde_json::from_value(json.into()).ok()
}

fn map_value(fields: impl IntoIterator<Item = (String, Value)>) -> Value {
    Value {
        value_type: Some(ValueType::MapValue(MapValue {
            fields: fields.into_iter().collect(),
        })),
    }
}

/// The stored values of the thread's `entries` array, whatever their shape.
pub fn entry_values(doc: &Document) -> Vec<Value> {
    match doc.fields.get(ENTRIES).and_then(|v| v.value_type.as_ref()) {
        Some(ValueType::ArrayValue(array)) => array.values.clone(),
        _ => Vec::new(),
    }
}

/// The time of a stored entry, in [`entry_micros`]; unreadable ones sort oldest.
pub fn value_micros(value: &Value) -> i64 {
    readable_micros(value).unwrap_or(i64::MIN)
}

/// The time of a stored entry that loads read (see [`thread_entries`]); `None` for one they skip.
pub fn readable_micros(value: &Value) -> Option<i64> {
    entry(value).map(|e| entry_micros(&e.timestamp))
}

/// A stored thread's entries, read leniently: the original wrote them, or someone by hand.
pub fn thread_entries(doc: &Document) -> Vec<Located> {
    let thread_id = doc.name.rsplit('/').next().unwrap_or_default();
    let values = match doc.fields.get(ENTRIES).and_then(|v| v.value_type.as_ref()) {
        Some(ValueType::ArrayValue(array)) => array.values.as_slice(),
        _ => &[],
    };
    values
        .iter()
        .filter_map(entry)
        .zip(0..)
        .map(|(entry, seq)| Located {
            thread_id: thread_id.to_owned(),
            at: entry_micros(&entry.timestamp),
            entry,
            seq,
        })
        .collect()
}

/// The entry saved to the thread last: the array's last readable element, read alone.
pub fn newest_entry(doc: &Document) -> Option<Entry> {
    match doc.fields.get(ENTRIES)?.value_type.as_ref()? {
        ValueType::ArrayValue(array) => array.values.iter().rev().find_map(entry),
        _ => None,
    }
}

/// A stored entry, read leniently; `None` for a value that is not a map.
pub fn entry(value: &Value) -> Option<Entry> {
    let Some(ValueType::MapValue(map)) = &value.value_type else {
        return None;
    };
    let text = |key: &str| match map.fields.get(key).and_then(|v| v.value_type.as_ref()) {
        Some(ValueType::StringValue(s)) => s.clone(),
        _ => String::new(),
    };
    Some(Entry {
        summary: text("summary"),
        timestamp: text("timestamp"),
        writer: writer_in(&map.fields),
    })
}
