//! A refresh token's rotation, kept for a few seconds: a client that sends two refreshes at
//! once with one refresh token (its own race) gets the one pair the rotation gave to both,
//! while a replay after that still revokes the grant (RFC 9700, section 4.14.2).
//!
//! Issued tokens are otherwise kept only as digests, so the pair is kept sealed, with a key
//! that only the rotated refresh token gives: whoever reads the store without that token
//! learns nothing from it, and whoever holds it could have refreshed with it anyway.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, Nonce, UnboundKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::secret;
use crate::store::{Credential, CredentialKind, GrantStore, StoreError};

/// How long a request that lost the race waits for the winner's rotation to be stored: the
/// winner redeemed the refresh token and is writing its pair.
const WINNER_WAIT: Duration = Duration::from_secs(2);
const POLL: Duration = Duration::from_millis(100);

/// The pair a rotation issued.
#[derive(Serialize, Deserialize)]
pub(super) struct Pair {
    pub access_token: String,
    pub refresh_token: String,
    pub access_expires_at: DateTime<Utc>,
}

/// What keeps `pair`, issued for `rotated`, until `until`.
pub(super) fn record(rotated: &str, pair: &Pair, until: DateTime<Utc>) -> Credential {
    let digest = record_digest(rotated);
    let mut sealed = serde_json::to_vec(pair).expect("a pair serializes");
    key(rotated)
        .seal_in_place_append_tag(nonce(), Aad::from(digest.as_bytes()), &mut sealed)
        .expect("a pair is far smaller than ChaCha20-Poly1305's limit");
    Credential {
        digest,
        kind: CredentialKind::RotatedPair,
        // The grant's, set by the store as it issues.
        grant_id: None,
        expires_at: until,
        used: false,
        body: serde_json::to_string(&Sealed {
            sealed: URL_SAFE_NO_PAD.encode(sealed),
        })
        .expect("a sealed pair serializes"),
    }
}

/// The pair `rotated` was exchanged for, while it is kept. Waits a moment for one that is
/// still being stored, since the two requests of a race arrive together.
pub(super) async fn kept(
    store: &dyn GrantStore,
    rotated: &str,
) -> Result<Option<Pair>, StoreError> {
    let digest = record_digest(rotated);
    let deadline = tokio::time::Instant::now() + WINNER_WAIT;
    loop {
        if let Some(record) = store.credential(&digest).await? {
            if record.kind != CredentialKind::RotatedPair || record.expires_at < Utc::now() {
                return Ok(None);
            }
            return open(rotated, &record).map(Some);
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(None);
        }
        tokio::time::sleep(POLL).await;
    }
}

#[derive(Serialize, Deserialize)]
struct Sealed {
    sealed: String,
}

fn open(rotated: &str, record: &Credential) -> Result<Pair, StoreError> {
    let unreadable = |why| StoreError::failed("a kept rotation is unreadable", why);
    let sealed: Sealed = serde_json::from_str(&record.body).map_err(unreadable)?;
    let mut bytes = URL_SAFE_NO_PAD
        .decode(sealed.sealed)
        .map_err(|e| StoreError::failed("a kept rotation is unreadable", e))?;
    let plain = key(rotated)
        .open_in_place(nonce(), Aad::from(record.digest.as_bytes()), &mut bytes)
        .map_err(|_| StoreError::failed("a kept rotation is unreadable", Unsealed))?;
    serde_json::from_slice(plain).map_err(unreadable)
}

#[derive(Debug, thiserror::Error)]
#[error("it does not open with the refresh token's key")]
struct Unsealed;

/// The key the record is found by: from the rotated token's digest, so not secret.
fn record_digest(rotated: &str) -> String {
    secret::digest(&format!("rotation of {}", secret::digest(rotated)))
}

/// The sealing key: from the rotated token itself (256 random bits), which no store keeps.
fn key(rotated: &str) -> LessSafeKey {
    let bytes = Sha256::new()
        .chain_update(b"kioku rotation key\0")
        .chain_update(rotated.as_bytes())
        .finalize();
    LessSafeKey::new(
        UnboundKey::new(&CHACHA20_POLY1305, &bytes).expect("SHA-256 gives a 256-bit key"),
    )
}

/// Each key seals exactly one message (a refresh token rotates once), so one fixed nonce
/// never repeats under a key.
fn nonce() -> Nonce {
    Nonce::assume_unique_for_key([0; 12])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_pair_opens_only_with_the_rotated_token() {
        let pair = Pair {
            access_token: "kioku_at_a".into(),
            refresh_token: "kioku_rt_b".into(),
            access_expires_at: Utc::now(),
        };
        let record = record("kioku_rt_old", &pair, Utc::now());
        assert!(!record.body.contains("kioku_at_a") && !record.body.contains("kioku_rt_b"));
        let opened = open("kioku_rt_old", &record).unwrap();
        assert_eq!(opened.refresh_token, "kioku_rt_b");
        assert!(open("kioku_rt_other", &record).is_err());
    }
}
