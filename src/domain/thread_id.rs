//! The id of one conversation thread, validated.

use std::borrow::Cow;

use sha2::{Digest, Sha256};

use super::ValidationError;
use super::document_id::{MAX_THREAD_ID_CHARS, document_id_problem};

/// Names one conversation thread within a namespace; also its Firestore document id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ThreadId(String);

impl ThreadId {
    /// An absent or empty id asks for a new thread, as in the original function.
    pub fn parse_or_new(raw: Option<&str>) -> Result<Self, ValidationError> {
        match raw {
            None | Some("") => Ok(Self::new()),
            Some(id) => Self::parse(id),
        }
    }

    /// An id that must be sent, to name an existing thread.
    pub fn parse_required(raw: Option<&str>) -> Result<Self, ValidationError> {
        match raw {
            Some(id) if !id.trim().is_empty() => Self::parse(id),
            _ => Err(ValidationError::MissingThreadId),
        }
    }

    pub fn parse(id: &str) -> Result<Self, ValidationError> {
        if id.trim().is_empty() {
            return Err(ValidationError::InvalidThreadId("is blank"));
        }
        if id.chars().count() > MAX_THREAD_ID_CHARS {
            return Err(ValidationError::InvalidThreadId(
                "is longer than 256 characters",
            ));
        }
        match document_id_problem(id) {
            Some(problem) => Err(ValidationError::InvalidThreadId(problem)),
            None => Ok(Self(id.to_owned())),
        }
    }

    /// A fresh random id, formatted as the original issues them.
    pub fn new() -> Self {
        Self(uuid::Uuid::new_v4().to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id as a log line may hold it: an id in the form kioku issues (a UUID) as it is,
    /// any other, which a client chose, by a digest, so that no text a client sent reaches
    /// the log while one thread's lines still match.
    pub fn for_log(&self) -> Cow<'_, str> {
        if uuid::Uuid::try_parse(&self.0).is_ok_and(|id| id.to_string() == self.0) {
            return Cow::Borrowed(&self.0);
        }
        let digest = Sha256::digest(self.0.as_bytes());
        let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        Cow::Owned(format!("sha256:{hex}"))
    }
}

impl Default for ThreadId {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_holds_an_issued_id_as_it_is_and_a_chosen_one_by_its_digest() {
        let issued = ThreadId::new();
        assert_eq!(issued.for_log(), issued.as_str());
        for chosen in [
            "x<b>\"'t",
            "my-thread",
            "35B928B1-0000-4000-8000-000000000000",
        ] {
            let logged = ThreadId::parse(chosen).unwrap().for_log().into_owned();
            assert!(
                logged.starts_with("sha256:") && logged.len() == 23,
                "{logged}"
            );
            assert!(!logged.contains(chosen), "{logged}");
        }
    }

    #[test]
    fn absent_or_empty_means_a_new_uuid() {
        for raw in [None, Some("")] {
            let id = ThreadId::parse_or_new(raw).unwrap();
            assert!(uuid::Uuid::parse_str(id.as_str()).is_ok());
        }
        assert_ne!(ThreadId::new(), ThreadId::new());
    }

    #[test]
    fn accepts_ordinary_ids_up_to_the_limit() {
        for id in [
            "35b928b1-fe99-4467-a646-9f26996727c8",
            "t1",
            "スレッド",
            "a.b",
            "_x_",
        ] {
            assert_eq!(ThreadId::parse(id).unwrap().as_str(), id);
        }
        assert!(ThreadId::parse(&"字".repeat(256)).is_ok());
    }

    #[test]
    fn refuses_what_firestore_or_common_sense_refuses() {
        for id in [
            " ", "a/b", ".", "..", "__x__", "____", "a\0b", "a\nb", "a\u{85}b",
        ] {
            assert!(ThreadId::parse(id).is_err(), "{id:?}");
        }
        assert!(ThreadId::parse(&"字".repeat(257)).is_err());
    }
}
