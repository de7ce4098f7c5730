//! One token's private space of memories.

use std::fmt;

use super::ValidationError;
use super::document_id::document_id_problem;

/// How a bare token's label begins; its position in `API_TOKENS` follows.
const BARE_TOKEN_LABEL: &str = "bare-token-";

/// One token's private space of memories. `name` is the Firestore document id under
/// `memory/`; `label` is what logs may show, since a bare token's name is the token itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    name: String,
    label: String,
}

impl Namespace {
    /// A namespace named by the operator, e.g. `alice` in `alice:token`.
    pub fn named(name: &str) -> Result<Self, String> {
        Self::parse(name, name.to_owned())
    }

    /// The original function's layout: the token is the namespace. `position` (1-based, in
    /// `API_TOKENS`) labels it in logs without revealing it.
    pub fn bare_token(token: &str, position: usize) -> Result<Self, String> {
        Self::parse(token, format!("{BARE_TOKEN_LABEL}{position}"))
    }

    /// Whether `name` has the shape of a bare token's label, `bare-token-N`.
    pub fn is_bare_token_label(name: &str) -> bool {
        name.strip_prefix(BARE_TOKEN_LABEL)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    }

    /// A namespace as a grant recorded it, with the label it was shown under.
    pub fn labelled(name: &str, label: &str) -> Result<Self, String> {
        Self::parse(name, label.to_owned())
    }

    /// A namespace a request names, such as an operator's export or delete.
    pub fn requested(name: &str) -> Result<Self, ValidationError> {
        Self::named(name).map_err(|_| ValidationError::InvalidFilter {
            name: "namespace",
            expected: "a namespace name as GET /admin/namespaces lists it",
        })
    }

    fn parse(name: &str, label: String) -> Result<Self, String> {
        match document_id_problem(name) {
            Some(problem) => Err(format!("namespace {label} {problem}")),
            None => Ok(Self {
                name: name.to_owned(),
                label,
            }),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn label(&self) -> &str {
        &self.label
    }
}

impl fmt::Display for Namespace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_token_is_its_own_name_but_never_its_label() {
        let ns = Namespace::bare_token("s3cret", 2).unwrap();
        assert_eq!(ns.name(), "s3cret");
        assert_eq!(ns.to_string(), "bare-token-2");
        assert!(!format!("{ns}").contains("s3cret"));
        assert!(Namespace::is_bare_token_label(ns.label()));
        for name in ["bare-token-", "bare-token-x", "bare-token-2a", "alice"] {
            assert!(!Namespace::is_bare_token_label(name), "{name}");
        }
    }

    #[test]
    fn names_must_be_document_ids() {
        assert!(Namespace::named("alice").is_ok());
        assert!(Namespace::named("a/b").is_err());
        assert!(Namespace::named("__x__").is_err());
        let err = Namespace::bare_token("a/b", 1).unwrap_err();
        assert!(!err.contains("a/b"), "{err}");
    }
}
