//! `KIOKU_ADMIN_TOKENS`: tokens for `/admin`, which no API token reaches and which reach
//! nothing else.

use super::digest::{TokenDigest, WeakTokens, check_strength, digest, find, well_formed};
use super::tokens::Tokens;

pub struct AdminTokens {
    digests: Vec<TokenDigest>,
    /// Positions of the entries carried over although shorter than the minimum.
    weak: Vec<usize>,
}

impl AdminTokens {
    /// Comma-separated tokens; none (unset) turns `/admin` off. A token may not also be an API
    /// token. Errors never echo a token.
    pub fn parse(spec: Option<&str>, api: &Tokens, weak: WeakTokens) -> Result<Self, String> {
        let mut admins = Self {
            digests: Vec::new(),
            weak: Vec::new(),
        };
        let items = spec.into_iter().flat_map(|s| s.split(',')).map(str::trim);
        for (index, token) in items.enumerate().filter(|(_, t)| !t.is_empty()) {
            let position = index + 1;
            if !well_formed(token) {
                return Err(format!(
                    "KIOKU_ADMIN_TOKENS entry {position} has spaces or control characters"
                ));
            }
            if api.authenticate(token).is_some() {
                return Err(format!(
                    "KIOKU_ADMIN_TOKENS entry {position} is also in API_TOKENS; an admin token must be separate"
                ));
            }
            if check_strength("KIOKU_ADMIN_TOKENS", position, token, weak)? {
                admins.weak.push(position);
            }
            admins.digests.push(digest(token));
        }
        Ok(admins)
    }

    /// Positions of the weak tokens carried over, for the warning at start.
    pub fn weak_positions(&self) -> &[usize] {
        &self.weak
    }

    /// Whether `presented` is one of these, in constant time.
    /// Whether none is configured: `/admin` is off.
    pub fn none(&self) -> bool {
        self.digests.is_empty()
    }

    pub fn admits(&self, presented: &str) -> bool {
        find(self.digests.iter(), presented).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const API: &str = "tokA-0123456789abcdef0123456789abcdef";
    const ADM1: &str = "adm1-0123456789abcdef0123456789abcdef";
    const ADM2: &str = "adm2-0123456789abcdef0123456789abcdef";

    #[test]
    fn admin_tokens_are_separate_from_api_tokens() {
        let api = Tokens::parse(&format!("alice:{API}"), WeakTokens::Refuse).unwrap();
        let spec = format!("{ADM1}, {ADM2}");
        let admins = AdminTokens::parse(Some(&spec), &api, WeakTokens::Refuse).unwrap();
        assert!(admins.admits(ADM2));
        assert!(!admins.admits(API));
        assert!(api.authenticate(ADM1).is_none());
        let both = format!("{ADM1},{API}");
        let err = AdminTokens::parse(Some(&both), &api, WeakTokens::Refuse)
            .err()
            .unwrap();
        assert!(err.contains("entry 2") && !err.contains(API), "{err}");
        let off = AdminTokens::parse(None, &api, WeakTokens::Refuse).unwrap();
        assert!(!off.admits(ADM1) && !off.admits(""));
    }

    #[test]
    fn weak_admin_tokens_are_refused_unless_carried_over() {
        let api = Tokens::parse(&format!("alice:{API}"), WeakTokens::Refuse).unwrap();
        let spec = format!("{ADM1},adm-short");
        let err = AdminTokens::parse(Some(&spec), &api, WeakTokens::Refuse)
            .err()
            .unwrap();
        assert!(err.contains("KIOKU_ADMIN_TOKENS entry 2"), "{err}");
        assert!(
            err.contains("kioku token") && !err.contains("adm-short"),
            "{err}"
        );
        let carried = AdminTokens::parse(Some(&spec), &api, WeakTokens::Allow).unwrap();
        assert_eq!(carried.weak_positions(), [2]);
        assert!(carried.admits("adm-short"));
    }
}
