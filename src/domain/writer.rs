//! Who wrote a memory, and who calls: with one namespace shared by several apps, each summary
//! and profile version records the app, token or import it came from.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Namespace;

/// The longest text a writer holds: a CIMD client's id is a URL.
const MAX_TEXT_BYTES: usize = 2048;

/// What wrote an entry or a profile version. Memories the original function or an earlier
/// kioku stored have none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Writer {
    /// An app the person connected by signing in: its OAuth `client_id`, and its name as the
    /// consent page showed it.
    App { client_id: String, name: String },
    /// A caller with an API token, by the token's label: the name of the memory it opens, or
    /// `bare-token-N` for a bare token.
    Token { label: String },
    /// The person, on the memory page.
    Page,
    /// An operator's import of memories that did not say who wrote them.
    Import,
}

impl Writer {
    /// The API token of `namespace` (a token opens exactly one namespace).
    pub fn token(namespace: &Namespace) -> Self {
        Self::Token {
            label: namespace.label().to_owned(),
        }
    }

    /// Whether its texts could have been recorded here: each non-empty, without control
    /// characters, and no longer than a redirect URI may be.
    pub fn is_plausible(&self) -> bool {
        let fine = |text: &str| {
            !text.is_empty() && text.len() <= MAX_TEXT_BYTES && !text.chars().any(char::is_control)
        };
        match self {
            Self::App { client_id, name } => fine(client_id) && fine(name),
            Self::Token { label } => fine(label),
            Self::Page | Self::Import => true,
        }
    }

    /// Whether the app `client_id` wrote it.
    pub fn is_app(&self, client_id: &str) -> bool {
        matches!(self, Self::App { client_id: id, .. } if id == client_id)
    }
}

/// How the memory page names a writer (in English; the page translates the kinds).
impl fmt::Display for Writer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::App { name, .. } => f.write_str(name),
            Self::Token { label } => write!(f, "token {label}"),
            Self::Page => f.write_str("memory page"),
            Self::Import => f.write_str("import"),
        }
    }
}

/// A call the gate let in: the namespace it opens, and who is writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub namespace: Namespace,
    pub writer: Writer,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writers_are_tagged_by_kind_in_json() {
        let app = Writer::App {
            client_id: "https://app.example/client.json".into(),
            name: "App".into(),
        };
        assert_eq!(
            serde_json::to_value(&app).unwrap(),
            serde_json::json!({"by": "app", "client_id": "https://app.example/client.json", "name": "App"})
        );
        assert_eq!(
            serde_json::to_string(&Writer::Import).unwrap(),
            r#"{"by":"import"}"#
        );
        let token: Writer = serde_json::from_str(r#"{"by":"token","label":"alice"}"#).unwrap();
        assert_eq!(token, Writer::token(&Namespace::named("alice").unwrap()));
        assert!(app.is_app("https://app.example/client.json"));
        assert!(!token.is_app("alice"));
    }
}
