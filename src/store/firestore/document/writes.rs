//! The writes kioku commits: an atomic append as the original sends it and a rewrite of the
//! entries (each keeping the tracked fields and the search index in step), a whole document, a
//! delete, and the preconditions that make a write safe.

use std::collections::{BTreeSet, HashMap};

use firestore::gcloud_sdk::google::firestore::v1::{
    ArrayValue, Document, DocumentMask, Precondition, Value, Write,
    document_transform::FieldTransform,
    document_transform::field_transform::{ServerValue, TransformType},
    precondition::ConditionType,
    value::ValueType,
    write::Operation,
};
use firestore::gcloud_sdk::prost_types::Timestamp;

use crate::store::firestore::document::index;
use crate::store::firestore::document::layout::{ENTRIES, EXPIRE_AT, UPDATED_AT};
use crate::store::firestore::document::tracked::{Tracked, appended};

/// The document must be as read: last updated then, or still missing.
pub fn unchanged(document: Option<&Document>) -> Precondition {
    match document {
        Some(doc) => Precondition {
            condition_type: Some(ConditionType::UpdateTime(
                doc.update_time.unwrap_or_default(),
            )),
        },
        None => exists(false),
    }
}

/// The document must exist, or must not.
pub fn exists(exists: bool) -> Precondition {
    Precondition {
        condition_type: Some(ConditionType::Exists(exists)),
    }
}

/// Sets the thread's document's time of last save to the server's.
pub fn server_time() -> FieldTransform {
    FieldTransform {
        field_path: UPDATED_AT.into(),
        transform_type: Some(TransformType::SetToServerValue(
            ServerValue::RequestTime as i32,
        )),
    }
}

/// One write, as the original's `set({"entries": ArrayUnion([entry])}, merge=True)` sends it:
/// a merge that creates the document if needed, then an atomic array append (so concurrent
/// saves from any number of instances all land), plus the server's time; and the thread's
/// expiry, when given. The tracked fields and the search index are set from `whole`, the
/// thread's values once appended to, when the caller read the whole thread (`terms` being the
/// whole thread's); otherwise they are moved atomically past the appended values (`terms` being
/// theirs). The caller segments the entries once, for its checks and this write alike.
pub fn append_write(
    document: &str,
    values: Vec<Value>,
    terms: &BTreeSet<String>,
    expire_at: Option<Timestamp>,
    whole: Option<&[Value]>,
) -> Write {
    let mut fields = expire_at_field(expire_at);
    let mut transforms = Vec::new();
    match whole {
        Some(whole) => {
            fields.extend(Tracked::of(whole).fields());
            fields.extend(index::fields(terms));
        }
        None => {
            transforms = appended(&values);
            transforms.push(index::appended(terms));
        }
    }
    let append = FieldTransform {
        field_path: ENTRIES.into(),
        transform_type: Some(TransformType::AppendMissingElements(ArrayValue { values })),
    };
    transforms.splice(0..0, [append, server_time()]);
    update(document, fields, transforms)
}

/// Replaces the thread's whole `entries` array and sets its tracked fields and search index,
/// `terms` being those of `values` (and its expiry, when given); other fields stay.
pub fn entries_write(
    document: &str,
    values: Vec<Value>,
    terms: &BTreeSet<String>,
    expire_at: Option<Timestamp>,
    transforms: Vec<FieldTransform>,
) -> Write {
    let mut fields = expire_at_field(expire_at);
    fields.extend(Tracked::of(&values).fields());
    fields.extend(index::fields(terms));
    let array = Value {
        value_type: Some(ValueType::ArrayValue(ArrayValue { values })),
    };
    fields.insert(ENTRIES.to_owned(), array);
    update(document, fields, transforms)
}

/// The `expire_at` field, when the document has an expiry.
pub fn expire_at_field(expire_at: Option<Timestamp>) -> HashMap<String, Value> {
    expire_at
        .map(|at| {
            let at = Value {
                value_type: Some(ValueType::TimestampValue(at)),
            };
            (EXPIRE_AT.to_owned(), at)
        })
        .into_iter()
        .collect()
}

/// Sets `fields` of the document, leaving its other fields as they are, then applies
/// `transforms`.
pub fn update(
    document: &str,
    fields: HashMap<String, Value>,
    transforms: Vec<FieldTransform>,
) -> Write {
    let field_paths = fields.keys().cloned().collect();
    Write {
        operation: Some(Operation::Update(Document {
            name: document.to_owned(),
            fields,
            ..Document::default()
        })),
        update_mask: Some(DocumentMask { field_paths }),
        update_transforms: transforms,
        current_document: None,
    }
}

/// `write`, an update, setting `field` to `value` as well.
pub fn with_field(mut write: Write, field: &str, value: Value) -> Write {
    if let Some(Operation::Update(doc)) = &mut write.operation {
        doc.fields.insert(field.to_owned(), value);
        if let Some(mask) = &mut write.update_mask {
            mask.field_paths.push(field.to_owned());
        }
    }
    write
}

/// Replaces the whole document with `fields`, or creates it.
pub fn set_write(document: &str, fields: HashMap<String, Value>) -> Write {
    Write {
        operation: Some(Operation::Update(Document {
            name: document.to_owned(),
            fields,
            ..Document::default()
        })),
        ..Write::default()
    }
}

/// Creates the document with `fields`; fails if it exists, so a record is never replaced.
pub fn create_write(document: &str, fields: HashMap<String, Value>) -> Write {
    Write {
        current_document: Some(exists(false)),
        ..set_write(document, fields)
    }
}

pub fn delete_write(document: &str) -> Write {
    Write {
        operation: Some(Operation::Delete(document.to_owned())),
        ..Write::default()
    }
}
