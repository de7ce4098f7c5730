//! A request's scalar values as a door sends them: a query string sends text, JSON and MCP send
//! numbers and booleans. Each is kept as its text, so that the domain reads it with one rule and
//! refuses a bad one with one error, whichever door it came through.

use serde::{Deserialize, Deserializer};

/// A number, a boolean or a text, as its text (`5`, `true`, `"5"` give `5`, `true`, `5`).
pub fn as_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Sent {
        Number(serde_json::Number),
        Bool(bool),
        Text(String),
    }
    Ok(
        Option::<Sent>::deserialize(deserializer)?.map(|sent| match sent {
            Sent::Number(n) => n.to_string(),
            Sent::Bool(b) => b.to_string(),
            Sent::Text(text) => text,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Sent {
        #[serde(default, deserialize_with = "as_text")]
        value: Option<String>,
    }

    fn read(json: &str) -> Option<String> {
        serde_json::from_str::<Sent>(json).unwrap().value
    }

    #[test]
    fn numbers_booleans_and_text_are_kept_as_text() {
        assert_eq!(read(r#"{"value": 5}"#).as_deref(), Some("5"));
        assert_eq!(read(r#"{"value": -1.5}"#).as_deref(), Some("-1.5"));
        assert_eq!(read(r#"{"value": true}"#).as_deref(), Some("true"));
        assert_eq!(read(r#"{"value": "5"}"#).as_deref(), Some("5"));
        assert_eq!(read(r#"{"value": null}"#), None);
        assert_eq!(read("{}"), None);
        let query: Sent = serde_urlencoded::from_str("value=abc").unwrap();
        assert_eq!(query.value.as_deref(), Some("abc"));
    }
}
