//! The backfill's calls on Firestore: the threads whose `embedded_by` is not the model, a
//! namespace at a time, each with the entries it holds without a vector of the model; and the
//! vectors stored back, with the thread marked once it has them all, if it is still as read.
//! A thread whose entries all have one is marked as it is found.

use std::collections::HashSet;

use firestore::gcloud_sdk::google::firestore::v1::value::ValueType;
use firestore::gcloud_sdk::google::firestore::v1::{Document, Value, Write};
use firestore::gcloud_sdk::prost_types::Timestamp;
use firestore::{FirestoreQueryCursor, FirestoreValue};

use crate::domain::{Embedded, Located, ModelId, Namespace};
use crate::store::firestore::FirestoreStore;
use crate::store::firestore::db::counted;
use crate::store::firestore::db::{commit_error, lost_race, unavailable};
use crate::store::firestore::document::entries::{document_id, string_value, thread_entries};
use crate::store::firestore::document::layout::{
    EMBEDDED_BY, EXPIRE_AT, MAX_WRITES_PER_COMMIT, THREADS,
};
use crate::store::firestore::document::writes::{unchanged, update};
use crate::store::firestore::vectors::document::{VectorOf, marked, vector_id, vector_write};
use crate::store::{EntryKey, StoreError, Unembedded};

/// An entry's key here: the thread as read (its name, update time and expiry, its mark, how
/// many of its entries lack a vector) and the entry (its time, and its vector's id).
#[derive(Debug, Clone, PartialEq)]
struct Key {
    read: Timestamp,
    expire_at: Option<Timestamp>,
    missing: usize,
    at: i64,
    id: String,
    mark: String,
    thread: String,
}

impl Key {
    fn encode(&self) -> EntryKey {
        let expire = self
            .expire_at
            .map_or("-".to_owned(), |t| format!("{}.{}", t.seconds, t.nanos));
        EntryKey::new(format!(
            "{}.{}\n{expire}\n{}\n{}\n{}\n{}\n{}",
            self.read.seconds,
            self.read.nanos,
            self.missing,
            self.at,
            self.id,
            self.mark,
            self.thread
        ))
    }

    fn decode(key: &EntryKey) -> Result<Self, StoreError> {
        let unreadable = || StoreError::Misconfigured("an entry key Firestore did not answer");
        let time = |text: &str| -> Option<Timestamp> {
            let (seconds, nanos) = text.split_once('.')?;
            Some(Timestamp {
                seconds: seconds.parse().ok()?,
                nanos: nanos.parse().ok()?,
            })
        };
        let mut parts = key.as_str().splitn(7, '\n');
        let mut next = || parts.next().ok_or_else(unreadable);
        let read = time(next()?).ok_or_else(unreadable)?;
        let expire = next()?;
        let expire_at = if expire == "-" {
            None
        } else {
            Some(time(expire).ok_or_else(unreadable)?)
        };
        let missing = next()?.parse().map_err(|_| unreadable())?;
        let at = next()?.parse().map_err(|_| unreadable())?;
        let id = next()?.to_owned();
        let (mark, thread) = (next()?.to_owned(), next()?.to_owned());
        Ok(Self {
            read,
            expire_at,
            missing,
            at,
            id,
            mark,
            thread,
        })
    }

    /// The namespace of the thread, from its name.
    fn namespace(&self) -> Option<&str> {
        let (namespace, _) = self.thread.rsplit_once(&format!("/{THREADS}/"))?;
        namespace.rsplit('/').next()
    }
}

impl FirestoreStore {
    pub(in crate::store::firestore) async fn unembedded_entries(
        &self,
        model: &ModelId,
        after: Option<&EntryKey>,
        limit: u32,
    ) -> Result<Vec<Unembedded>, StoreError> {
        let after = after.map(Key::decode).transpose()?;
        let mut names = self.db.namespace_names().await?;
        names.sort();
        let start = after
            .as_ref()
            .and_then(Key::namespace)
            .unwrap_or_default()
            .to_owned();
        let mut cursor = after.map(|key| (key.mark, key.thread));
        let mut found = Vec::new();
        for name in names.iter().filter(|name| **name >= start) {
            let Ok(ns) = Namespace::named(name) else {
                continue;
            };
            if cursor
                .as_ref()
                .is_some_and(|(_, thread)| !thread.contains(&format!("/{name}/")))
            {
                cursor = None;
            }
            loop {
                let page = self.unmarked(&ns, model, cursor.as_ref(), limit).await?;
                for doc in &page {
                    let missing = self.missing_vectors(&ns, doc, model).await?;
                    if missing.is_empty() {
                        self.mark(doc, model).await?;
                    }
                    found.extend(missing);
                }
                let Some(last) = page.last() else { break };
                cursor = Some((marked(last).to_owned(), last.name.clone()));
                if found.len() >= limit as usize {
                    return Ok(found);
                }
                if page.len() < limit as usize {
                    break;
                }
            }
            cursor = None;
        }
        Ok(found)
    }

    /// Up to `limit` threads of `ns` not marked with `model`, after `cursor` in the query's
    /// order (by the mark, then by name).
    async fn unmarked(
        &self,
        ns: &Namespace,
        model: &ModelId,
        cursor: Option<&(String, String)>,
        limit: u32,
    ) -> Result<Vec<Document>, StoreError> {
        let db = self.db.current();
        let query = db
            .fluent()
            .select()
            .from(THREADS)
            .parent(self.db.namespace_path(ns))
            .filter(|q| q.field(EMBEDDED_BY).not_equal(model.as_str()))
            .order(|o| {
                o.fields([
                    o.field(EMBEDDED_BY).ascending(),
                    o.field("__name__").ascending(),
                ])
            })
            .limit(limit);
        let query = match cursor {
            Some((mark, name)) => {
                let name = FirestoreValue::from(Value {
                    value_type: Some(ValueType::ReferenceValue(name.clone())),
                });
                query.start_at(FirestoreQueryCursor::AfterValue(vec![
                    mark.as_str().into(),
                    name,
                ]))
            }
            None => query,
        };
        query
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("reading the threads lacking vectors failed", e))
    }

    /// The entries of `doc` without a vector of `model`, each keyed.
    async fn missing_vectors(
        &self,
        ns: &Namespace,
        doc: &Document,
        model: &ModelId,
    ) -> Result<Vec<Unembedded>, StoreError> {
        let held: HashSet<String> = self
            .thread_vectors(
                &self.db.namespace_path(ns),
                &document_id(doc),
                Some(model),
                false,
            )
            .await?
            .iter()
            .map(document_id)
            .collect();
        let missing: Vec<Located> = thread_entries(doc)
            .into_iter()
            .filter(|item| {
                !held.contains(&vector_id(&item.thread_id, item.at, &item.entry.summary))
            })
            .collect();
        let expire_at = match doc
            .fields
            .get(EXPIRE_AT)
            .and_then(|v| v.value_type.as_ref())
        {
            Some(ValueType::TimestampValue(at)) => Some(*at),
            _ => None,
        };
        let count = missing.len();
        Ok(missing
            .into_iter()
            .map(|item| Unembedded {
                key: Key {
                    read: doc.update_time.unwrap_or_default(),
                    expire_at,
                    missing: count,
                    at: item.at,
                    id: vector_id(&item.thread_id, item.at, &item.entry.summary),
                    mark: marked(doc).to_owned(),
                    thread: doc.name.clone(),
                }
                .encode(),
                summary: item.entry.summary,
            })
            .collect())
    }

    /// Marks `doc` as holding a vector of `model` for every entry, if it is still as read.
    async fn mark(&self, doc: &Document, model: &ModelId) -> Result<(), StoreError> {
        let write = mark_write(&doc.name, doc.update_time, model.as_str());
        self.db
            .commit_unless_lost(vec![write], ())
            .await
            .map(|_| ())
    }

    /// Stores the vectors a thread at a time, if the thread is still as read, and marks it when
    /// they are all it lacked; else (a save or a forget came between) its commit is let go, for
    /// the next run to find again. Answers how many it stored.
    pub(in crate::store::firestore) async fn put_entry_vectors(
        &self,
        vectors: &[(EntryKey, Embedded)],
    ) -> Result<u64, StoreError> {
        let mut keyed = Vec::with_capacity(vectors.len());
        for (key, vector) in vectors {
            keyed.push((Key::decode(key)?, vector));
        }
        let mut stored = 0;
        for thread in keyed.chunk_by(|a, b| a.0.thread == b.0.thread) {
            let key = &thread[0].0;
            let mut writes: Vec<Write> = thread
                .iter()
                .map(|(key, vector)| {
                    let entry = VectorOf {
                        thread: &key.thread,
                        at: key.at,
                        id: &key.id,
                    };
                    vector_write(&entry, vector, key.expire_at)
                })
                .collect();
            // The mark, conditional on the thread being as read: the model once the thread has
            // a vector for every entry, else the mark it had. Only the last of a thread's
            // commits carries it (the earlier ones, of a thread lacking more than a commit
            // holds, are let through: a vector without its entry is never answered, and the
            // entry's next forget deletes it).
            let mark = if thread.len() == key.missing {
                thread[0].1.model.as_str()
            } else {
                key.mark.as_str()
            };
            writes.push(mark_write(&key.thread, Some(key.read), mark));
            let chunks: Vec<&[Write]> = writes.chunks(MAX_WRITES_PER_COMMIT).collect();
            for (i, chunk) in chunks.iter().enumerate() {
                let vectors = chunk.len() - usize::from(i + 1 == chunks.len());
                match self.db.commit(chunk.to_vec()).await {
                    Ok(()) => stored += vectors as u64,
                    Err(status) if lost_race(&status) => {}
                    Err(status) => return Err(commit_error(status)),
                }
            }
        }
        Ok(stored)
    }
}

/// Sets `embedded_by` to `mark` on the thread `name`, on condition that it was last updated
/// at `read`.
fn mark_write(name: &str, read: Option<Timestamp>, mark: &str) -> Write {
    let fields = [(EMBEDDED_BY.to_owned(), string_value(mark))];
    let doc = Document {
        name: name.to_owned(),
        update_time: read,
        ..Document::default()
    };
    Write {
        current_document: Some(unchanged(Some(&doc))),
        ..update(name, fields.into_iter().collect(), Vec::new())
    }
}
