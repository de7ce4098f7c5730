//! `API_TOKENS`: the bearer tokens of the API and the namespace each unlocks.

use crate::domain::Namespace;

use super::digest::{TokenDigest, digest, find, well_formed};

/// The configured tokens, each held as a digest beside its namespace.
pub struct Tokens {
    entries: Vec<(TokenDigest, Namespace)>,
}

impl Tokens {
    /// Parses `API_TOKENS`: `name:token` or bare `token`, comma-separated. Errors never echo
    /// a token.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut entries: Vec<(TokenDigest, Namespace)> = Vec::new();
        for (index, item) in spec.split(',').map(str::trim).enumerate() {
            let position = index + 1;
            if item.is_empty() {
                continue;
            }
            let (token, namespace) = match item.split_once(':') {
                Some((name, token)) => (token, Namespace::named(name)?),
                None => (item, Namespace::bare_token(item, position)?),
            };
            if !well_formed(token) {
                return Err(format!(
                    "API_TOKENS entry {position} has an empty token or one with spaces or control characters"
                ));
            }
            let digest = digest(token);
            if entries.iter().any(|(known, _)| *known == digest) {
                return Err(format!(
                    "API_TOKENS entry {position} repeats an earlier token"
                ));
            }
            entries.push((digest, namespace));
        }
        if entries.is_empty() {
            return Err("API_TOKENS holds no token".into());
        }
        Ok(Self { entries })
    }

    /// Namespaces that use the original's layout, where the token is the document id.
    pub fn bare_token_namespaces(&self) -> impl Iterator<Item = &Namespace> {
        self.entries
            .iter()
            .map(|(_, ns)| ns)
            .filter(|ns| ns.label() != ns.name())
    }

    /// Looks at every configured token whatever the outcome, in constant time.
    pub fn authenticate(&self, presented: &str) -> Option<&Namespace> {
        let index = find(self.entries.iter().map(|(known, _)| known), presented)?;
        Some(&self.entries[index].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_named_and_bare_tokens_to_their_namespaces() {
        let tokens = Tokens::parse("alice:tokA, tokB ,alice:tokC").unwrap();
        assert_eq!(tokens.authenticate("tokA").unwrap().name(), "alice");
        assert_eq!(tokens.authenticate("tokC").unwrap().name(), "alice");
        let bare = tokens.authenticate("tokB").unwrap();
        assert_eq!((bare.name(), bare.label()), ("tokB", "bare-token-2"));
        assert!(tokens.authenticate("tokb").is_none());
        assert!(tokens.authenticate("").is_none());
        assert!(tokens.authenticate("alice:tokA").is_none());
        assert_eq!(tokens.bare_token_namespaces().count(), 1);
    }

    #[test]
    fn refuses_bad_specs_without_echoing_tokens() {
        for spec in ["", " , ", "a:", "a:x y", "x/y", "a:t,b:t"] {
            let err = Tokens::parse(spec)
                .err()
                .unwrap_or_else(|| panic!("{spec:?}"));
            assert!(!err.contains("x y") && !err.contains("x/y"), "{err}");
        }
    }
}
