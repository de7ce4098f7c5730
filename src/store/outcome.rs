//! What store calls answer besides memories: what a save did and dropped, and counts.

use crate::domain::{Counts, Entry};

/// What a save dropped to keep within the [`Retention`](crate::domain::Retention) limits and the
/// store's size limit. Entries past their age are not counted: the save did not drop them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dropped {
    /// The saved thread's oldest entries.
    pub entries: u64,
    /// Least recently saved threads, whole.
    pub threads: u64,
    /// Whether entries went because the thread would have passed the store's size limit.
    pub for_size: bool,
}

/// What a save did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SaveOutcome {
    pub dropped: Dropped,
    /// Threads the namespace holds once the save is in, as the save's answer reports them.
    pub thread_count: u64,
    /// The thread did not exist before this save.
    pub new_thread: bool,
    /// The thread's newest entry, when the save [repeated](crate::domain::Entry::repeats) it
    /// and so stored nothing.
    pub repeat_of: Option<Entry>,
}

/// A namespace as an administrator sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceStats {
    pub name: String,
    pub counts: Counts,
    /// The timestamp of its newest entry.
    pub last_saved: Option<String>,
}

/// An entry stored without a vector of some model (saved before the model was set, under
/// another, or when embedding it failed): what the backfill embeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unembedded {
    pub key: EntryKey,
    pub summary: String,
}

/// Where a store finds an entry again, in its own terms (SQLite: the entry's row; Firestore:
/// its thread as read, and the entry in it): what the backfill hands back with the entry's
/// vector, and resumes after. Only the store that answered a key reads it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EntryKey(String);

impl EntryKey {
    pub fn new(key: String) -> Self {
        Self(key)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}
