//! The memory page's sign-ins: a session is a random value in the person's cookie, kept in the
//! store only as its digest (so any instance serves it), naming the namespace it opens. Signing
//! out marks it used, which ends it at once on every instance. Like an OAuth grant, the record
//! holds the namespace's name, which for a bare token (the original function's layout) is the
//! token itself: the store already keys that namespace's memories by it.

use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use super::{Tokens, digest, generate_token, hex};
use crate::domain::{Caller, Namespace, Writer};
use crate::store::{Credential, CredentialKind, GrantStore, Redeemed, StoreError, TimeLimit};

/// How long a sign-in to the memory page lasts: a working day, then the person signs in again.
pub const SESSION_LIFETIME: TimeDelta = TimeDelta::hours(12);

/// What a session value starts with, so that a leaked one is recognisable.
const PREFIX: &str = "kioku_ps_";

/// The sessions of the memory page, in the store; each call within the store's time limit.
pub struct Sessions {
    store: Arc<dyn GrantStore>,
    lifetime: TimeDelta,
    limit: TimeLimit,
}

/// A current session. Not `Debug`: it holds the CSRF token.
#[derive(Clone)]
pub struct Session {
    pub namespace: Namespace,
    /// The token every form of the page carries: derived from the session's value, so it is
    /// never stored and no other browser can know it.
    pub csrf: String,
    pub expires_at: DateTime<Utc>,
    /// Signed in with an API token (not at the OpenID Provider): it lasts only while that
    /// token is configured ([`Session::still_signed_in`]).
    by_token: bool,
    /// That token's digest; a session opened by an earlier kioku has none.
    token_digest: Option<String>,
}

impl Session {
    /// The person, writing on the memory page.
    pub fn caller(&self) -> Caller {
        Caller {
            namespace: self.namespace.clone(),
            writer: Writer::Page,
        }
    }

    /// Whether the session still stands as far as sign-in goes: one signed in with an API token
    /// ends when that token is no longer configured.
    pub fn still_signed_in(&self, tokens: &Tokens) -> bool {
        !self.by_token
            || tokens.still_configured(self.token_digest.as_deref(), self.namespace.name())
    }

    /// Whether a form's `presented` token is this session's, in constant time.
    pub fn csrf_matches(&self, presented: &str) -> bool {
        !presented.is_empty() && bool::from(self.csrf.as_bytes().ct_eq(presented.as_bytes()))
    }
}

/// What the store keeps beside the digest.
#[derive(Serialize, Deserialize)]
struct Body {
    namespace: String,
    namespace_label: String,
    by_token: bool,
    #[serde(default)]
    token_digest: Option<String>,
}

impl Sessions {
    pub fn new(store: Arc<dyn GrantStore>, lifetime: TimeDelta, limit: TimeLimit) -> Self {
        Self {
            store,
            lifetime,
            limit,
        }
    }

    /// A new session for `namespace`, signed in with the API token of `token_digest` or at the
    /// OpenID Provider: the cookie's value, and the session.
    pub async fn open(
        &self,
        namespace: &Namespace,
        token_digest: Option<&str>,
    ) -> Result<(String, Session), StoreError> {
        let by_token = token_digest.is_some();
        let token_digest = token_digest.map(str::to_owned);
        let value = format!("{PREFIX}{}", generate_token());
        let expires_at = Utc::now() + self.lifetime;
        let body = Body {
            namespace: namespace.name().to_owned(),
            namespace_label: namespace.label().to_owned(),
            by_token,
            token_digest: token_digest.clone(),
        };
        let credential = Credential {
            digest: key(&value),
            kind: CredentialKind::PageSession,
            grant_id: None,
            expires_at,
            used: false,
            body: serde_json::to_string(&body).expect("a session's body serializes"),
        };
        (self.limit)
            .within(self.store.put_credential(&credential))
            .await?;
        let session = Session {
            namespace: namespace.clone(),
            csrf: csrf_of(&value),
            expires_at,
            by_token,
            token_digest,
        };
        Ok((value, session))
    }

    /// The session `value` names, if it is current: not signed out, not expired. A value of
    /// another shape costs no store read.
    pub async fn find(&self, value: &str) -> Result<Option<Session>, StoreError> {
        if !well_formed(value) {
            return Ok(None);
        }
        let digest = key(value);
        let Some(credential) = self.limit.within(self.store.credential(&digest)).await? else {
            return Ok(None);
        };
        let current = credential.kind == CredentialKind::PageSession
            && !credential.used
            && credential.expires_at > Utc::now();
        if !current {
            return Ok(None);
        }
        let body: Body = serde_json::from_str(&credential.body)
            .map_err(|e| StoreError::failed("a session's body is unreadable", e))?;
        let namespace = Namespace::labelled(&body.namespace, &body.namespace_label)
            .map_err(|e| StoreError::failed("a session's namespace is invalid", e))?;
        Ok(Some(Session {
            namespace,
            csrf: csrf_of(value),
            expires_at: credential.expires_at,
            by_token: body.by_token,
            token_digest: body.token_digest,
        }))
    }

    /// Ends the session `value` names, wherever it is served; the store purges it once it
    /// expires.
    pub async fn close(&self, value: &str) -> Result<(), StoreError> {
        if well_formed(value) {
            let digest = key(value);
            let _: Redeemed = self.limit.within(self.store.redeem(&digest, None)).await?;
        }
        Ok(())
    }
}

/// Whether `value` has a session's shape: the prefix and 64 hex digits.
fn well_formed(value: &str) -> bool {
    value
        .strip_prefix(PREFIX)
        .is_some_and(|random| random.len() == 64 && random.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The digest a session is kept under.
fn key(value: &str) -> String {
    hex(&digest(value))
}

fn csrf_of(value: &str) -> String {
    hex(&digest(&format!("csrf:{value}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_csrf_token_is_neither_the_value_nor_its_key() {
        let value = format!("{PREFIX}{}", generate_token());
        let csrf = csrf_of(&value);
        assert_ne!(csrf, key(&value));
        assert!(!csrf.contains(&value));
        assert_eq!(csrf, csrf_of(&value));
        assert_ne!(csrf, csrf_of(&format!("{PREFIX}{}", generate_token())));
        assert!(well_formed(&value));
        assert!(!well_formed(&format!("{value}0")) && !well_formed(&value[1..]));
    }
}
