//! The search terms of a text (interim: folded words split at anything not alphanumeric).

use super::fold;

/// The search terms of `text`, in text order, repeats kept (a term's count is its frequency).
pub fn terms(text: &str) -> Vec<String> {
    fold(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The version of what [`terms`] answers. Bump it with any change to [`terms`]: Firestore keeps
/// each thread's terms with the version that wrote them, and re-indexes the other versions'
/// threads (SQLite rebuilds its index in a migration instead).
pub const TERMS_VERSION: i64 = 1;
