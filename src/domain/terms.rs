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
