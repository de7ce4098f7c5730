//! The secrets the server issues (codes, tokens, client secrets), the digests they are kept
//! as, and the PKCE check (RFC 7636).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::hmac;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::credentials::{self, generate_token};

/// What each kind of secret starts with, so that a leaked one is recognisable (and a secret
/// scanner can find it) and a bearer token that is none of these costs no store read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretKind {
    AuthorizationCode,
    AccessToken,
    RefreshToken,
    ClientSecret,
}

impl SecretKind {
    fn prefix(self) -> &'static str {
        match self {
            Self::AuthorizationCode => "kioku_ac_",
            Self::AccessToken => "kioku_at_",
            Self::RefreshToken => "kioku_rt_",
            Self::ClientSecret => "kioku_cs_",
        }
    }

    /// Whether `value` has this kind's shape.
    pub fn matches(self, value: &str) -> bool {
        value.starts_with(self.prefix())
    }
}

/// A new secret of `kind`: 256 random bits.
pub fn issue(kind: SecretKind) -> String {
    format!("{}{}", kind.prefix(), generate_token())
}

/// A new access token: 256 random bits and this server's signature of them under `key`, so that
/// one whose record is gone (expired and purged, or its grant revoked) is still known for one
/// issued here, and no guess, without a record kept for it.
pub fn issue_access(key: &hmac::Key) -> String {
    let nonce = generate_token();
    let tag = hmac::sign(key, nonce.as_bytes());
    format!(
        "{}{nonce}{}",
        SecretKind::AccessToken.prefix(),
        credentials::hex(tag.as_ref())
    )
}

/// Whether `token` is an access token this server signed under `key` ([`issue_access`]).
pub fn issued_here(token: &str, key: &hmac::Key) -> bool {
    let Some(rest) = token.strip_prefix(SecretKind::AccessToken.prefix()) else {
        return false;
    };
    let (Some(nonce), Some(tag)) = (rest.get(..64), rest.get(64..)) else {
        return false;
    };
    let tag: Option<Vec<u8>> = (tag.len() == 64 && tag.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| {
            (0..64)
                .step_by(2)
                .filter_map(|i| u8::from_str_radix(&tag[i..i + 2], 16).ok())
                .collect()
        });
    tag.is_some_and(|tag| hmac::verify(key, nonce.as_bytes(), &tag).is_ok())
}

/// A new refresh token of the grant `grant_id`: 256 random bits after the grant's id, so that a
/// rotated token presented again after its record is gone still names the grant it leaked
/// from (RFC 9700, section 4.14.2). The id is no secret to whoever holds the token.
pub fn issue_refresh(grant_id: &str) -> String {
    format!(
        "{}{grant_id}.{}",
        SecretKind::RefreshToken.prefix(),
        generate_token()
    )
}

/// The grant a refresh token of [`issue_refresh`]'s shape names; `None` for another shape,
/// such as an earlier kioku's.
pub fn refresh_grant(token: &str) -> Option<&str> {
    let rest = token.strip_prefix(SecretKind::RefreshToken.prefix())?;
    let (grant, _) = rest.split_once('.')?;
    (!grant.is_empty() && grant.len() <= 64 && grant.bytes().all(|b| b.is_ascii_alphanumeric()))
        .then_some(grant)
}

/// The digest a secret is kept and looked up as: hex SHA-256. A digest is not secret.
pub fn digest(value: &str) -> String {
    credentials::hex(&credentials::digest(value))
}

/// Whether `presented` is the secret `digest` was made from, in constant time.
pub fn matches_digest(presented: &str, kept: &str) -> bool {
    digest(presented).as_bytes().ct_eq(kept.as_bytes()).into()
}

/// A `code_challenge` as RFC 7636 section 4.2 makes it with S256: 32 bytes, base64url without
/// padding, so 43 characters.
pub fn is_s256_challenge(challenge: &str) -> bool {
    challenge.len() == 43
        && URL_SAFE_NO_PAD
            .decode(challenge)
            .is_ok_and(|bytes| bytes.len() == 32)
}

/// Whether `verifier` answers `challenge` (RFC 7636, section 4.6), in constant time. A verifier
/// is 43 to 128 unreserved characters (section 4.1).
pub fn verifies_s256(verifier: &str, challenge: &str) -> bool {
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b));
    let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    well_formed && bool::from(computed.as_bytes().ct_eq(challenge.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_access_token_is_known_by_its_signature() {
        let key = hmac::Key::new(hmac::HMAC_SHA256, b"one");
        let token = issue_access(&key);
        assert!(SecretKind::AccessToken.matches(&token) && issued_here(&token, &key));
        let other = hmac::Key::new(hmac::HMAC_SHA256, b"two");
        assert!(!issued_here(&token, &other));
        assert!(!issued_here(&issue(SecretKind::AccessToken), &key));
        let mut forged = token.clone();
        forged.replace_range(9..10, if &token[9..10] == "0" { "1" } else { "0" });
        assert!(!issued_here(&forged, &key));
    }

    #[test]
    fn a_refresh_token_names_its_grant() {
        let token = issue_refresh("0123abcd");
        assert!(SecretKind::RefreshToken.matches(&token));
        assert_eq!(refresh_grant(&token), Some("0123abcd"));
        assert_eq!(refresh_grant(&issue(SecretKind::RefreshToken)), None);
        assert_eq!(refresh_grant("kioku_rt_../x.y"), None);
        assert_eq!(refresh_grant("kioku_at_g.x"), None);
    }

    #[test]
    fn the_rfc_7636_example_verifies() {
        // RFC 7636, appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(is_s256_challenge(challenge));
        assert!(verifies_s256(verifier, challenge));
        assert!(!verifies_s256(&verifier.replace('d', "e"), challenge));
        assert!(!verifies_s256("short", challenge));
    }

    #[test]
    fn secrets_carry_their_kind_and_are_kept_as_digests() {
        let token = issue(SecretKind::AccessToken);
        assert!(SecretKind::AccessToken.matches(&token));
        assert!(!SecretKind::RefreshToken.matches(&token));
        let kept = digest(&token);
        assert!(matches_digest(&token, &kept));
        assert!(!matches_digest(&issue(SecretKind::AccessToken), &kept));
        assert!(!kept.contains(&token));
    }
}
