//! `API_TOKENS`: the bearer tokens of the API and the namespace each unlocks.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::digest::{TokenDigest, WeakTokens, check_strength, digest, find, hex, well_formed};
use crate::domain::Namespace;

/// The configured tokens, each held as a digest beside its namespace.
pub struct Tokens {
    entries: Vec<(TokenDigest, Namespace)>,
    /// Positions of the entries carried over although shorter than the minimum.
    weak: Vec<usize>,
}

/// How an operator named a bare token's namespace.
pub enum BareNamed<'a> {
    /// By its label, `bare-token-N`, which is no secret.
    Label(&'a Namespace),
    /// By its name, which is the token itself.
    Token(&'a Namespace),
}

impl Tokens {
    /// Parses `API_TOKENS`: `name:token` or bare `token`, comma-separated. Errors never echo
    /// a token.
    pub fn parse(spec: &str, weak: WeakTokens) -> Result<Self, String> {
        let mut tokens = Self {
            entries: Vec::new(),
            weak: Vec::new(),
        };
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
            if Namespace::is_bare_token_label(namespace.name()) {
                return Err(format!(
                    "API_TOKENS entry {position} names its namespace like a bare token's label \
                     (bare-token-N), which names another namespace in /admin: choose another name"
                ));
            }
            if check_strength("API_TOKENS", position, token, weak)? {
                tokens.weak.push(position);
            }
            let digest = digest(token);
            if tokens.entries.iter().any(|(known, _)| *known == digest) {
                return Err(format!(
                    "API_TOKENS entry {position} repeats an earlier token"
                ));
            }
            tokens.entries.push((digest, namespace));
        }
        if tokens.entries.is_empty() {
            return Err("API_TOKENS holds no token".into());
        }
        Ok(tokens)
    }

    /// A key for `purpose` that only this configuration yields: derived from every token's
    /// digest, so that every instance derives the same one and changing the tokens changes it.
    pub fn derived_key(&self, purpose: &str) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(purpose.as_bytes());
        for (digest, _) in &self.entries {
            hasher.update(digest);
        }
        hasher.finalize().into()
    }

    /// Positions of the weak tokens carried over, for the warning at start.
    pub fn weak_positions(&self) -> &[usize] {
        &self.weak
    }

    /// Namespaces that use the original's layout, where the token is the document id.
    pub fn bare_token_namespaces(&self) -> impl Iterator<Item = &Namespace> {
        self.entries
            .iter()
            .map(|(_, ns)| ns)
            .filter(|ns| ns.label() != ns.name())
    }

    /// The bare token's namespace `requested` names, by label or by the token itself (found in
    /// constant time, as every token is); `None` when it names no bare token's namespace.
    pub fn bare_named(&self, requested: &str) -> Option<BareNamed<'_>> {
        if let Some(ns) = self
            .bare_token_namespaces()
            .find(|ns| ns.label() == requested)
        {
            return Some(BareNamed::Label(ns));
        }
        self.authenticate(requested)
            .filter(|ns| ns.label() != ns.name())
            .map(BareNamed::Token)
    }

    /// The namespace `presented` opens. Looks at every configured token whatever the outcome,
    /// in constant time.
    pub fn authenticate(&self, presented: &str) -> Option<&Namespace> {
        let index = find(self.entries.iter().map(|(known, _)| known), presented)?;
        Some(&self.entries[index].1)
    }

    /// What a grant or page session signed in with `presented` keeps, to end with that token.
    pub fn sign_in(&self, presented: &str) -> Option<TokenSignIn> {
        let index = find(self.entries.iter().map(|(known, _)| known), presented)?;
        let (digest, namespace) = &self.entries[index];
        Some(TokenSignIn {
            namespace: namespace.clone(),
            digest: hex(digest),
        })
    }

    /// Whether a sign-in made with an API token still stands: the token whose digest it kept is
    /// configured. One kept by an earlier kioku has no digest, only its namespace: it stands
    /// while some token of that namespace is configured.
    pub fn still_configured(&self, kept_digest: Option<&str>, namespace: &str) -> bool {
        match kept_digest {
            Some(kept) => self.entries.iter().fold(false, |found, (known, _)| {
                found | bool::from(hex(known).as_bytes().ct_eq(kept.as_bytes()))
            }),
            None => self
                .entries
                .iter()
                .any(|(_, known)| known.name() == namespace),
        }
    }
}

/// A sign-in with an API token: the namespace it opens, and the digest (hex SHA-256) of the
/// token, kept with the grant or session so that it ends when the token is taken away.
#[derive(Debug, Clone)]
pub struct TokenSignIn {
    pub namespace: Namespace,
    pub digest: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "tokA-0123456789abcdef0123456789abcdef";
    const B: &str = "tokB-0123456789abcdef0123456789abcdef";
    const C: &str = "tokC-0123456789abcdef0123456789abcdef";

    #[test]
    fn maps_named_and_bare_tokens_to_their_namespaces() {
        let tokens =
            Tokens::parse(&format!("alice:{A}, {B} ,alice:{C}"), WeakTokens::Refuse).unwrap();
        assert_eq!(tokens.authenticate(A).unwrap().name(), "alice");
        assert_eq!(tokens.authenticate(C).unwrap().name(), "alice");
        let bare = tokens.authenticate(B).unwrap();
        assert_eq!((bare.name(), bare.label()), (B, "bare-token-2"));
        assert!(tokens.authenticate(&A.to_lowercase()).is_none());
        assert!(tokens.authenticate("").is_none());
        assert!(tokens.authenticate(&format!("alice:{A}")).is_none());
        assert_eq!(tokens.bare_token_namespaces().count(), 1);
        assert!(tokens.weak_positions().is_empty());
    }

    #[test]
    fn a_sign_in_stands_while_its_own_token_is_configured() {
        let before = Tokens::parse(&format!("alice:{A},bob:{B}"), WeakTokens::Refuse).unwrap();
        let kept = before.sign_in(A).unwrap();
        assert_eq!(kept.namespace.name(), "alice");
        assert!(before.still_configured(Some(&kept.digest), "alice"));
        let rotated = Tokens::parse(&format!("alice:{C},bob:{B}"), WeakTokens::Refuse).unwrap();
        assert!(!rotated.still_configured(Some(&kept.digest), "alice"));
        // Kept by an earlier kioku, without the digest: while its namespace has a token.
        assert!(rotated.still_configured(None, "alice"));
        assert!(!rotated.still_configured(None, "carol"));
        assert!(before.sign_in(C).is_none());
    }

    #[test]
    fn a_bare_token_namespace_is_named_by_label_or_token() {
        let tokens = Tokens::parse(&format!("alice:{A},{B}"), WeakTokens::Refuse).unwrap();
        assert!(
            matches!(tokens.bare_named("bare-token-2"), Some(BareNamed::Label(ns)) if ns.name() == B)
        );
        assert!(
            matches!(tokens.bare_named(B), Some(BareNamed::Token(ns)) if ns.label() == "bare-token-2")
        );
        for other in ["bare-token-1", "alice", A] {
            assert!(tokens.bare_named(other).is_none(), "{other}");
        }
    }

    #[test]
    fn weak_tokens_are_refused_unless_carried_over() {
        let spec = format!("alice:{A},bob:weakling,weak-bare");
        let err = Tokens::parse(&spec, WeakTokens::Refuse).err().unwrap();
        assert!(
            err.contains("entry 2") && err.contains("kioku token"),
            "{err}"
        );
        assert!(!err.contains("weakling"), "{err}");
        let carried = Tokens::parse(&spec, WeakTokens::Allow).unwrap();
        assert_eq!(carried.weak_positions(), [2, 3]);
        assert_eq!(carried.authenticate("weakling").unwrap().name(), "bob");
    }

    #[test]
    fn refuses_bad_specs_without_echoing_tokens() {
        let specs = [
            String::new(),
            " , ".into(),
            "a:".into(),
            "a:x y".into(),
            "x/y".into(),
            format!("a:{A},b:{A}"),
            format!("bare-token-2:{A}"),
        ];
        for spec in specs {
            let err = Tokens::parse(&spec, WeakTokens::Allow)
                .err()
                .unwrap_or_else(|| panic!("{spec:?}"));
            assert!(
                !err.contains("x y") && !err.contains("x/y") && !err.contains(A),
                "{err}"
            );
        }
    }
}
