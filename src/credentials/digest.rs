//! Token digests, constant-time lookup among them, and new random tokens.

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
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
    fn finds_the_position_of_a_known_token_only() {
        let known = [digest("a"), digest("b")];
        assert_eq!(find(known.iter(), "b"), Some(1));
        assert_eq!(find(known.iter(), "c"), None);
    }
}
