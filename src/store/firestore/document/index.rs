//! The search index kioku keeps on each thread document, `search_terms` and `terms_version`
//! (layout.rs), so that a search reads the threads holding its terms and no others: set whole by
//! a write that holds the whole thread, and grown by an atomic `appendMissingElements` when a
//! save appends to an indexed thread without reading it.

use std::collections::{BTreeSet, HashMap, VecDeque};

use firestore::gcloud_sdk::google::firestore::v1::{
    ArrayValue, Document, Value, document_transform::FieldTransform,
    document_transform::field_transform::TransformType, value::ValueType,
};

use crate::search::terms;
use crate::store::firestore::document::entries::{entry, integer, string_value};
use crate::store::firestore::document::layout::{SEARCH_TERMS, TERMS_VERSION};

/// Most terms a thread document holds. Each is an index entry, and Firestore keeps at most
/// 40,000 for a document
/// (<https://firebase.google.com/docs/firestore/quotas#indexes>), which `entries` (one for each
/// entry) and the other fields share.
pub const MAX_TERMS: usize = 20_000;

/// Longest term indexed: each is an index entry, which Firestore keeps to 7.5 KiB
/// (<https://firebase.google.com/docs/firestore/quotas#indexes>); 400 characters are at most
/// 1,600 bytes, and a longer run without a break (a pasted key, a hash) is no word anyone
/// searches for.
const MAX_TERM_CHARS: usize = 400;

/// The distinct terms of one stored entry that a search can ask for (see [`MAX_TERM_CHARS`]).
pub fn value_terms(value: &Value) -> BTreeSet<String> {
    entry(value)
        .map(|e| terms(&e.summary))
        .unwrap_or_default()
        .into_iter()
        .filter(|term| term.chars().count() <= MAX_TERM_CHARS)
        .collect()
}

/// The distinct terms of a thread holding `values`.
pub fn thread_terms(values: &[Value]) -> BTreeSet<String> {
    values.iter().flat_map(value_terms).collect()
}

/// The index of a thread whose entries hold `terms`, as a write sets it.
pub fn fields(terms: &BTreeSet<String>) -> HashMap<String, Value> {
    let terms = terms.iter().map(|t| string_value(t)).collect();
    HashMap::from([
        (SEARCH_TERMS.to_owned(), array(terms)),
        (
            TERMS_VERSION.to_owned(),
            integer(crate::search::TERMS_VERSION),
        ),
    ])
}

/// Adds `terms` (those of the entries appended, without reading the thread) to an indexed
/// thread's: concurrent appends all land, whatever order they land in.
pub fn appended(terms: &BTreeSet<String>) -> FieldTransform {
    let terms = terms.iter().map(|t| string_value(t)).collect();
    FieldTransform {
        field_path: SEARCH_TERMS.into(),
        transform_type: Some(TransformType::AppendMissingElements(ArrayValue {
            values: terms,
        })),
    }
}

/// Whether `doc`'s terms were written by this version's [`terms`]: a thread without them (the
/// original function's, or one kioku saved before it kept them) is found by no term.
pub fn is_indexed(doc: &Document) -> bool {
    matches!(
        doc.fields.get(TERMS_VERSION).and_then(|v| v.value_type.as_ref()),
        Some(ValueType::IntegerValue(version)) if *version == crate::search::TERMS_VERSION
    )
}

/// How many terms `doc` holds.
pub fn held_terms(doc: &Document) -> usize {
    match doc
        .fields
        .get(SEARCH_TERMS)
        .and_then(|v| v.value_type.as_ref())
    {
        Some(ValueType::ArrayValue(array)) => array.values.len(),
        _ => 0,
    }
}

/// The terms of a thread's entries as its oldest are dropped, for the size limit: how many
/// entries hold each, and the storage size of the `search_terms` they make. Each entry is
/// segmented once, here, however many entries the limit drops, and the write takes the terms
/// left.
pub struct Tally {
    /// Each entry's terms, oldest first, of the entries still held.
    entries: VecDeque<BTreeSet<String>>,
    holders: HashMap<String, usize>,
    /// Each term's storage size: its bytes and one.
    pub bytes: usize,
}

impl Tally {
    pub fn of(values: &[Value]) -> Self {
        let entries: VecDeque<BTreeSet<String>> = values.iter().map(value_terms).collect();
        let mut holders: HashMap<String, usize> = HashMap::new();
        for term in entries.iter().flatten() {
            *holders.entry(term.clone()).or_default() += 1;
        }
        let bytes = holders.keys().map(|term| term.len() + 1).sum();
        Self {
            entries,
            holders,
            bytes,
        }
    }

    /// How many distinct terms are held.
    pub fn terms(&self) -> usize {
        self.holders.len()
    }

    /// Takes away the terms of the oldest entry still held.
    pub fn drop_oldest(&mut self) {
        for term in self.entries.pop_front().unwrap_or_default() {
            if let Some(held) = self.holders.get_mut(&term) {
                *held -= 1;
                if *held == 0 {
                    self.holders.remove(&term);
                    self.bytes -= term.len() + 1;
                }
            }
        }
    }

    /// The distinct terms of the entries still held.
    pub fn into_terms(self) -> BTreeSet<String> {
        self.holders.into_keys().collect()
    }
}

fn array(values: Vec<Value>) -> Value {
    Value {
        value_type: Some(ValueType::ArrayValue(ArrayValue { values })),
    }
}
