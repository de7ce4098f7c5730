//! The fields kioku keeps in step with a thread's entries, `newest_micros` and `entry_count`,
//! so that a load can read threads newest first and stop: set exactly by a write that holds the
//! whole thread, and moved by atomic transforms when an append to a tracked thread holds none.

use std::collections::HashMap;

use firestore::gcloud_sdk::google::firestore::v1::{
    Document, Value, document_transform::FieldTransform,
    document_transform::field_transform::TransformType, value::ValueType,
};

use crate::domain::Located;
use crate::store::firestore::document::entries::{integer, readable_micros, thread_entries};
use crate::store::firestore::document::layout::{ENTRY_COUNT, NEWEST_MICROS};

/// What a thread's tracked fields say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tracked {
    /// At or after every entry's time, in [`entry_micros`](crate::domain::entry_micros).
    pub newest: i64,
    pub entries: u64,
}

impl Tracked {
    /// The fields of a thread holding `values`, exactly.
    pub fn of(values: &[Value]) -> Self {
        let times: Vec<i64> = values.iter().filter_map(readable_micros).collect();
        Self {
            newest: times.iter().copied().max().unwrap_or(i64::MIN),
            entries: times.len() as u64,
        }
    }

    /// What `doc` says, when it carries both fields.
    pub fn read(doc: &Document) -> Option<Self> {
        let integer = |field| match doc.fields.get(field)?.value_type.as_ref()? {
            ValueType::IntegerValue(n) => Some(*n),
            _ => None,
        };
        Some(Self {
            newest: integer(NEWEST_MICROS)?,
            entries: u64::try_from(integer(ENTRY_COUNT)?).ok()?,
        })
    }

    /// Whether the fields hold for `entries`, the thread's: once the original function has
    /// appended to a tracked thread, they do not.
    pub fn holds_for(self, entries: &[Located]) -> bool {
        self.entries == entries.len() as u64 && entries.iter().all(|e| e.at <= self.newest)
    }

    /// The fields as a write sets them.
    pub fn fields(self) -> HashMap<String, Value> {
        HashMap::from([
            (NEWEST_MICROS.to_owned(), integer(self.newest)),
            (ENTRY_COUNT.to_owned(), integer(self.entries as i64)),
        ])
    }
}

/// Whether `doc` carries the fields, and they hold for its entries.
pub fn is_tracked(doc: &Document) -> bool {
    tracks(doc, &thread_entries(doc))
}

/// [`is_tracked`] for a caller that has read `doc`'s entries already.
pub fn tracks(doc: &Document, entries: &[Located]) -> bool {
    Tracked::read(doc).is_some_and(|tracked| tracked.holds_for(entries))
}

/// Moves a tracked thread's fields past `values`, appended without reading it: concurrent
/// appends all count, whatever order they land in.
pub fn appended(values: &[Value]) -> Vec<FieldTransform> {
    let added = Tracked::of(values);
    vec![
        FieldTransform {
            field_path: NEWEST_MICROS.into(),
            transform_type: Some(TransformType::Maximum(integer(added.newest))),
        },
        FieldTransform {
            field_path: ENTRY_COUNT.into(),
            transform_type: Some(TransformType::Increment(integer(added.entries as i64))),
        },
    ]
}
