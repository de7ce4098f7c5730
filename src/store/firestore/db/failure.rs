//! How Firestore failures become store errors, with document paths left out of them.

use firestore::gcloud_sdk::tonic::{Code, Status};

use crate::store::StoreError;
use crate::store::firestore::document::layout::ROOT;

/// The failure, for the operator's log, with document paths left out: a bare token's
/// namespace is named by the token, and Firestore's messages quote paths.
pub fn unavailable(context: &'static str, err: impl std::fmt::Display) -> StoreError {
    StoreError::failed(context, Redacted::of(err))
}

/// A Firestore error's text with every document path replaced by `<document>`.
#[derive(Debug)]
pub struct Redacted(String);

impl Redacted {
    fn of(err: impl std::fmt::Display) -> Self {
        let text = err.to_string();
        let message: Vec<&str> = text
            .split(' ')
            .map(|word| {
                if word.contains("/documents/") || word.contains(&format!("{ROOT}/")) {
                    "<document>"
                } else {
                    word
                }
            })
            .collect();
        Self(message.join(" "))
    }
}

impl std::fmt::Display for Redacted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Redacted {}

/// Firestore refuses documents over 1 MiB with INVALID_ARGUMENT and a message saying the
/// document "exceeds the maximum" size; any other failure is the store being unavailable.
pub fn commit_error(status: Status) -> StoreError {
    let too_large =
        status.code() == Code::InvalidArgument && status.message().contains("exceeds the maximum");
    if too_large {
        StoreError::DocumentTooLarge
    } else {
        unavailable("a Firestore commit failed", status)
    }
}

/// Whether a conditional write failed because the document changed after it was read.
pub fn lost_race(status: &Status) -> bool {
    matches!(
        status.code(),
        Code::FailedPrecondition | Code::AlreadyExists | Code::NotFound | Code::Aborted
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_never_quote_a_document_path() {
        let status = Status::not_found(
            "Document \"projects/p/databases/(default)/documents/memory/s3cret/threads/t\" not found.",
        );
        let message = Redacted::of(status).to_string();
        assert!(!message.contains("s3cret"), "{message}");
        assert!(message.contains("<document> not found."), "{message}");
    }
}
