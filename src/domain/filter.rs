//! Which entries a load or a search considers, and the order loads take them in.

use std::cmp::Ordering;

use super::{Entry, ThreadId};

/// One entry and where it belongs.
#[derive(Debug, Clone)]
pub struct Located {
    pub thread_id: String,
    pub entry: Entry,
    /// [`entry_micros`](super::entry_micros) of the entry's timestamp.
    pub at: i64,
    /// Its place in the thread, rising with each save; breaks ties in time.
    pub seq: i64,
}

impl Located {
    /// The order loads take entries in: newest first, then by thread id, then newest in the
    /// thread. Every store sorts by it, so every store answers alike.
    pub fn load_order(a: &Self, b: &Self) -> Ordering {
        b.at.cmp(&a.at)
            .then_with(|| a.thread_id.cmp(&b.thread_id))
            .then_with(|| b.seq.cmp(&a.seq))
    }
}

/// Which entries a load or a search considers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    pub thread: Option<ThreadId>,
    /// Saved at or after, in [`entry_micros`](super::entry_micros).
    pub since: Option<i64>,
    /// Saved strictly before, in [`entry_micros`](super::entry_micros): a load's cursor.
    pub before: Option<i64>,
    /// Only the threads saved to most recently (by a load), or the best results (by a search).
    pub limit: Option<usize>,
}

impl Filter {
    /// Whether `item` passes the thread and time filters (`limit` is applied to the whole).
    pub fn admits(&self, item: &Located) -> bool {
        self.thread
            .as_ref()
            .is_none_or(|t| t.as_str() == item.thread_id)
            && self.since.is_none_or(|since| item.at >= since)
            && self.before.is_none_or(|before| item.at < before)
    }

    /// Admits nothing saved before `cutoff`, such as entries past the retention age.
    pub fn not_before(self, cutoff: Option<i64>) -> Self {
        Self {
            since: self.since.max(cutoff),
            ..self
        }
    }

    /// Keeps the entries of the `limit` threads with the newest entries; `items` are in
    /// [`Located::load_order`].
    pub fn limit_threads(&self, items: &mut Vec<Located>) {
        let Some(limit) = self.limit else { return };
        let mut kept: Vec<String> = Vec::new();
        for item in items.iter() {
            if kept.len() == limit {
                break;
            }
            if !kept.contains(&item.thread_id) {
                kept.push(item.thread_id.clone());
            }
        }
        items.retain(|item| kept.contains(&item.thread_id));
    }
}
