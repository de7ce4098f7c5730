//! Firestore's document size limit: what a thread keeps when an entry is appended, so that
//! its document, search index included, stays within 1 MiB (and the index within
//! [`MAX_TERMS`]).

use std::collections::{BTreeSet, HashMap};

use firestore::gcloud_sdk::google::firestore::v1::{Document, Value, value::ValueType};

use crate::domain::{Entry, Retention};
use crate::store::firestore::document::entries::{entry_value, entry_values, value_micros};
use crate::store::firestore::document::index::{MAX_TERMS, Tally};
use crate::store::firestore::document::layout::{
    ENTRIES, ENTRY_COUNT, EXPIRE_AT, NEWEST_MICROS, SEARCH_TERMS, TERMS_VERSION, UPDATED_AT,
};
use crate::store::{Dropped, StoreError};

/// "Maximum size for a document: 1 MiB (1,048,576 bytes)",
/// <https://firebase.google.com/docs/firestore/quotas#collections_documents_and_fields>.
const MAX_DOCUMENT_BYTES: usize = 1_048_576;

/// The entries a thread keeps when `entry` is appended to `current`: those within their age
/// and `retention`'s cap, less the oldest while the document (with the terms of the entries
/// kept) would pass Firestore's size limit or [`MAX_TERMS`], then `entry`; the terms of what it
/// keeps; and what the cap and the size limit dropped.
pub fn keep(
    current: Option<&Document>,
    name: &str,
    entry: &Entry,
    retention: &Retention,
    cutoff: Option<i64>,
    expires: bool,
) -> Result<(Vec<Value>, BTreeSet<String>, Dropped), StoreError> {
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
        [
            ENTRIES,
            UPDATED_AT,
            NEWEST_MICROS,
            ENTRY_COUNT,
            SEARCH_TERMS,
            TERMS_VERSION,
        ]
        .contains(&field.as_str())
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
        + string_size(SEARCH_TERMS)
        + timestamp_field(TERMS_VERSION)
        + if expires {
            timestamp_field(EXPIRE_AT)
        } else {
            0
        };
    let mut size = fixed + kept.iter().map(value_size).sum::<usize>();
    let mut terms = Tally::of(&kept);
    let over = |size: usize, terms: &Tally| {
        size + terms.bytes > MAX_DOCUMENT_BYTES || terms.terms() > MAX_TERMS
    };
    let mut for_size = 0;
    while over(size, &terms) && for_size + 1 < kept.len() {
        size -= value_size(&kept[for_size]);
        terms.drop_oldest();
        for_size += 1;
    }
    if over(size, &terms) {
        return Err(StoreError::DocumentTooLarge);
    }
    kept.drain(..for_size);
    let dropped = Dropped {
        entries: (by_cap + for_size) as u64,
        threads: 0,
        for_size: for_size > 0,
    };
    Ok((kept, terms.into_terms(), dropped))
}

/// Whether a document named `name` holding `fields` is within Firestore's size limit.
pub fn fits(name: &str, fields: &HashMap<String, Value>) -> bool {
    let held: usize = fields
        .iter()
        .map(|(field, value)| string_size(field) + value_size(value))
        .sum();
    document_size(name) + held <= MAX_DOCUMENT_BYTES
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
            writer: None,
        });
        assert_eq!(value_size(&entry), (8 + 4) + (10 + 3));
    }

    /// A thread of `count` entries, each one word of `chars` characters that no other holds.
    fn thread_of(count: usize, words: usize, chars: usize) -> Document {
        let values = (0..count)
            .map(|i| {
                let summary: Vec<String> = (0..words)
                    .map(|j| format!("{:0>chars$}", format!("w{i}x{j}")))
                    .collect();
                entry_value(&Entry {
                    summary: summary.join(" "),
                    timestamp: format!("2025-01-01T00:00:00.{i:06}+09:00"),
                    writer: None,
                })
            })
            .collect();
        let array = Value {
            value_type: Some(ValueType::ArrayValue(
                firestore::gcloud_sdk::google::firestore::v1::ArrayValue { values },
            )),
        };
        Document {
            name: "projects/p/databases/(default)/documents/memory/ns/threads/t".into(),
            fields: HashMap::from([(ENTRIES.to_owned(), array)]),
            ..Document::default()
        }
    }

    fn dropped_by(current: &Document) -> u64 {
        let new = Entry {
            summary: "new".into(),
            timestamp: "2025-02-01T00:00:00+09:00".into(),
            writer: None,
        };
        let retention = Retention {
            max_entries_per_thread: None,
            max_threads: None,
            max_age_days: None,
        };
        let (_, _, dropped) =
            keep(Some(current), &current.name, &new, &retention, None, false).unwrap();
        dropped.entries
    }

    /// 2,000 entries of 400 characters fit in 1 MiB, but not with their terms beside them.
    #[test]
    fn the_terms_count_toward_the_size_limit() {
        let dropped = dropped_by(&thread_of(2_000, 1, 400));
        assert!((700..1_000).contains(&dropped), "{dropped}");
    }

    /// 30 entries of 800 words each hold 24,000 terms, and the new one a term more: six of
    /// the oldest go, leaving 20,000 or fewer.
    #[test]
    fn a_thread_keeps_at_most_max_terms() {
        assert_eq!(dropped_by(&thread_of(30, 800, 1)), 6);
    }
}
