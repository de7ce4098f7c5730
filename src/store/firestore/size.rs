//! Firestore's document size limit: what a thread keeps when an entry is appended, so that
//! its document stays within 1 MiB.

use firestore::gcloud_sdk::google::firestore::v1::{Document, Value, value::ValueType};

use super::layout::{ENTRIES, ENTRY_COUNT, EXPIRE_AT, NEWEST_MICROS, UPDATED_AT};
use super::values::{entry_value, entry_values, value_micros};
use crate::domain::{Entry, Retention};
use crate::store::{Dropped, StoreError};

/// "Maximum size for a document: 1 MiB (1,048,576 bytes)",
/// <https://firebase.google.com/docs/firestore/quotas#collections_documents_and_fields>.
const MAX_DOCUMENT_BYTES: usize = 1_048_576;

/// The entries a thread keeps when `entry` is appended to `current`: those within their age
/// and `retention`'s cap, less the oldest while the document would pass Firestore's size
/// limit, then `entry`; and what the cap and the size limit dropped.
pub fn keep(
    current: Option<&Document>,
    name: &str,
    entry: &Entry,
    retention: &Retention,
    cutoff: Option<i64>,
    expires: bool,
) -> Result<(Vec<Value>, Dropped), StoreError> {
    // Entries past their age go unreported: no load shows them already.
    let mut kept: Vec<Value> = current
        .map(entry_values)
        .unwrap_or_default()
        .into_iter()
        .filter(|v| cutoff.is_none_or(|cutoff| value_micros(v) >= cutoff))
        .collect();
    let mut by_cap = 0;
    if let Some(max) = retention.max_entries_per_thread {
        let room = max.get() as usize - 1;
        by_cap = kept.len().saturating_sub(room);
        kept.drain(..by_cap);
    }
    kept.push(entry_value(entry));

    let rewritten = |field: &String| {
        [ENTRIES, UPDATED_AT, NEWEST_MICROS, ENTRY_COUNT].contains(&field.as_str())
            || (expires && field == EXPIRE_AT)
    };
    let others: usize = current.map_or(0, |doc| {
        doc.fields
            .iter()
            .filter(|(field, _)| !rewritten(field))
            .map(|(field, value)| string_size(field) + value_size(value))
            .sum()
    });
    // Timestamps and integers are 8 bytes each.
    let timestamp_field = |field| string_size(field) + 8;
    let fixed = document_size(name)
        + others
        + string_size(ENTRIES)
        + timestamp_field(UPDATED_AT)
        + timestamp_field(NEWEST_MICROS)
        + timestamp_field(ENTRY_COUNT)
        + if expires {
            timestamp_field(EXPIRE_AT)
        } else {
            0
        };
    let mut size = fixed + kept.iter().map(value_size).sum::<usize>();
    let mut for_size = 0;
    while size > MAX_DOCUMENT_BYTES && for_size + 1 < kept.len() {
        size -= value_size(&kept[for_size]);
        for_size += 1;
    }
    if size > MAX_DOCUMENT_BYTES {
        return Err(StoreError::DocumentTooLarge);
    }
    kept.drain(..for_size);
    let dropped = Dropped {
        entries: (by_cap + for_size) as u64,
        threads: 0,
        for_size: for_size > 0,
    };
    Ok((kept, dropped))
}

/// Storage sizes, as <https://firebase.google.com/docs/firestore/storage-size> defines them.
fn string_size(text: &str) -> usize {
    text.len() + 1
}

/// A document's name (its path's ids, plus 16) and the 32 bytes every document takes.
fn document_size(name: &str) -> usize {
    name_size(name) + 32
}

fn name_size(name: &str) -> usize {
    let path = name
        .split_once("/documents/")
        .map_or(name, |(_, path)| path);
    path.split('/').map(string_size).sum::<usize>() + 16
}

fn value_size(value: &Value) -> usize {
    match &value.value_type {
        None | Some(ValueType::NullValue(_) | ValueType::BooleanValue(_)) => 1,
        Some(ValueType::IntegerValue(_) | ValueType::DoubleValue(_))
        | Some(ValueType::TimestampValue(_)) => 8,
        Some(ValueType::GeoPointValue(_)) => 16,
        Some(ValueType::StringValue(text)) => string_size(text),
        Some(ValueType::BytesValue(bytes)) => bytes.len(),
        Some(ValueType::ReferenceValue(name)) => name_size(name),
        Some(ValueType::ArrayValue(array)) => array.values.iter().map(value_size).sum(),
        Some(ValueType::MapValue(map)) => map
            .fields
            .iter()
            .map(|(key, value)| string_size(key) + value_size(value))
            .sum(),
        // Query expressions, never stored.
        Some(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_sizes_follow_firestores_rules() {
        let name = "projects/p/databases/(default)/documents/memory/ns/threads/t";
        // memory, ns, threads, t: each its bytes plus one; 16 for the name; 32 per document.
        assert_eq!(document_size(name), 7 + 3 + 8 + 2 + 16 + 32);
        let entry = entry_value(&Entry {
            summary: "記".into(),
            timestamp: "ts".into(),
        });
        assert_eq!(value_size(&entry), (8 + 4) + (10 + 3));
    }
}
