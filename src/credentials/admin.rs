//! `KIOKU_ADMIN_TOKENS`: tokens for `/admin`, which no API token reaches and which reach
//! nothing else.

use super::digest::{TokenDigest, digest, find, well_formed};
use super::tokens::Tokens;

pub struct AdminTokens {
    digests: Vec<TokenDigest>,
}

impl AdminTokens {
    /// Comma-separated tokens; none (unset) turns `/admin` off. A token may not also be an API
    /// token. Errors never echo a token.
    pub fn parse(spec: Option<&str>, api: &Tokens) -> Result<Self, String> {
        let mut digests = Vec::new();
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
            digests.push(digest(token));
        }
        Ok(Self { digests })
    }

    /// Whether `presented` is one of these, in constant time.
    pub fn admits(&self, presented: &str) -> bool {
        find(self.digests.iter(), presented).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admin_tokens_are_separate_from_api_tokens() {
        let api = Tokens::parse("alice:tokA").unwrap();
        let admins = AdminTokens::parse(Some("adm1, adm2"), &api).unwrap();
        assert!(admins.admits("adm2"));
        assert!(!admins.admits("tokA"));
        assert!(api.authenticate("adm1").is_none());
        let err = AdminTokens::parse(Some("adm1,tokA"), &api).err().unwrap();
        assert!(err.contains("entry 2") && !err.contains("tokA"), "{err}");
        let off = AdminTokens::parse(None, &api).unwrap();
        assert!(!off.admits("adm1") && !off.admits(""));
    }
}
