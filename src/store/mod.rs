//! Where memories live, and the OAuth server's records. Every backend implements
//! [`MemoryStore`] (what requests call), [`Maintenance`] (whole-store work) and [`GrantStore`];
//! the conformance suites in `tests/store` hold each to the same behaviour. A backend stores
//! and retrieves; what an answer holds (budget, paging, ranking) is decided above it, in
//! `domain`.

mod blocking;
mod error;
mod firestore;
mod grant_store;
mod grants;
mod maintenance;
mod memory_store;
mod outcome;
mod readiness;
mod sqlite;
mod time_limit;
mod usage;

pub use blocking::{GivenUp, off_workers};
pub use error::StoreError;
pub use firestore::FirestoreStore;
pub use grant_store::GrantStore;
pub use grants::{Client, Credential, CredentialKind, Grant, Redeemed};
pub use maintenance::Maintenance;
pub use memory_store::MemoryStore;
pub use outcome::{Dropped, EntryKey, NamespaceStats, SaveOutcome, Unembedded};
pub use readiness::Readiness;
pub use sqlite::SqliteStore;
pub use time_limit::TimeLimit;
pub use usage::{Billed, Usage};
