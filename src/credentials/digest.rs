//! Token digests, constant-time lookup among them, and new random tokens.

use std::fmt::Write;

use sha2::{Digest, Sha256};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

/// A token as it is held: its SHA-256 digest, so every comparison is between equal-length
/// values.
pub type TokenDigest = [u8; 32];

pub fn digest(token: &str) -> TokenDigest {
    Sha256::digest(token.as_bytes()).into()
}

/// A token can be sent in an `Authorization` header as it is: not empty, no spaces or
/// control characters.
pub fn well_formed(token: &str) -> bool {
    !token.is_empty() && !token.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Fewest characters a configured token may have. `kioku token` makes 64 hex digits; 32
/// random characters are far beyond guessing, throttled or not.
pub const MIN_TOKEN_CHARS: usize = 32;

/// Whether a token shorter than [`MIN_TOKEN_CHARS`] is refused at start, or carried over (an
/// old token a deployment cannot change at once), with a warning at every start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeakTokens {
    Refuse,
    Allow,
}

/// Entry `position` of `setting` is strong enough, or carried over as weak (`Ok(true)`). The
/// error names the fix and never the token.
pub fn check_strength(
    setting: &str,
    position: usize,
    token: &str,
    weak: WeakTokens,
) -> Result<bool, String> {
    if token.chars().count() >= MIN_TOKEN_CHARS {
        return Ok(false);
    }
    match weak {
        WeakTokens::Allow => Ok(true),
        WeakTokens::Refuse => Err(format!(
            "{setting} entry {position} is shorter than {MIN_TOKEN_CHARS} characters and could \
             be guessed: replace it with one `kioku token` prints (to carry over an old token \
             meanwhile, set KIOKU_ALLOW_WEAK_TOKENS=true)"
        )),
    }
}

/// The position of `presented` among `known` digests, comparing with every one whatever the
/// outcome, in constant time.
pub fn find<'a>(known: impl Iterator<Item = &'a TokenDigest>, presented: &str) -> Option<usize> {
    let presented = digest(presented);
    let mut found = Choice::from(0);
    let mut index = 0u64;
    for (i, known) in known.enumerate() {
        let hit = known.ct_eq(&presented);
        index.conditional_assign(&(i as u64), hit);
        found |= hit;
    }
    bool::from(found).then_some(index as usize)
}

/// A new token: 256 random bits, hex-encoded.
pub fn generate_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random source is available");
    hex(&bytes)
}

/// `bytes` as lowercase hex digits.
pub fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        // Writing to a String cannot fail.
        let _ = write!(text, "{byte:02x}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tokens_are_long_and_distinct() {
        let (a, b) = (generate_token(), generate_token());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
    }

    #[test]
    fn short_tokens_are_refused_unless_carried_over() {
        let long = "x".repeat(MIN_TOKEN_CHARS);
        assert_eq!(check_strength("T", 1, &long, WeakTokens::Refuse), Ok(false));
        let short = "s3cret-but-short";
        let err = check_strength("T", 2, short, WeakTokens::Refuse).unwrap_err();
        assert!(
            err.contains("T entry 2") && err.contains("kioku token"),
            "{err}"
        );
        assert!(!err.contains(short), "{err}");
        assert_eq!(check_strength("T", 2, short, WeakTokens::Allow), Ok(true));
        // Characters, not bytes: 31 three-byte characters are still short.
        let wide = "記".repeat(MIN_TOKEN_CHARS - 1);
        assert!(check_strength("T", 1, &wide, WeakTokens::Refuse).is_err());
    }

    #[test]
    fn finds_the_position_of_a_known_token_only() {
        let known = [digest("a"), digest("b")];
        assert_eq!(find(known.iter(), "b"), Some(1));
        assert_eq!(find(known.iter(), "c"), None);
    }
}
