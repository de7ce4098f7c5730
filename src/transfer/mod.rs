//! Memories as JSON Lines, one thread per line with the original's field names, and a line for
//! a namespace's profile: what `kioku export`, `kioku import` and `/admin/export` read and
//! write. A backup, and the way between stores or from a bare-token namespace to a named one.

mod export;
mod import;

use std::io;

use serde::{Deserialize, Serialize};

use crate::domain::{Entry, Profile, ValidationError};
use crate::store::StoreError;

pub use export::{Export, Exported, export, namespaces};
pub use import::{ImportReport, Renames, TextLimits, import};

/// `n` and its noun, singular or plural as `n` asks: how the commands report what they did.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One line: a thread, its namespace, and its entries in the order they were saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadRecord {
    pub namespace: String,
    pub thread_id: String,
    pub entries: Vec<Entry>,
}

/// One line: a namespace's profile, every version kept, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileRecord {
    pub namespace: String,
    pub profile_versions: Vec<Profile>,
}

#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("reading or writing memories failed")]
    Io(#[from] io::Error),
    /// The namespace asked for cannot be one.
    #[error(transparent)]
    Invalid(#[from] ValidationError),
    /// The store holds a namespace kioku cannot name.
    #[error("{0}")]
    StoredName(String),
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(counted(1, "summary", "summaries"), "1 summary");
        assert_eq!(counted(0, "summary", "summaries"), "0 summaries");
        assert_eq!(counted(2, "thread", "threads"), "2 threads");
    }
}
