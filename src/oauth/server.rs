//! The authorization server: its URL, its store, how long what it issues lasts, and the ways a
//! person may sign in. The protocol's endpoints are methods on it, one module each.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::documents::ClientDocuments;
use super::oidc::Upstream;
use super::pace::Pace;
use crate::credentials::Tokens;
use crate::store::{Grant, GrantStore, TimeLimit};
use ring::hmac;

/// How long what the server issues lasts.
#[derive(Debug, Clone, Copy)]
pub struct Lifetimes {
    /// RFC 6749, section 4.1.2: short; ten minutes at most.
    pub code: Duration,
    pub access_token: Duration,
    /// Each use issues a new one, lasting this long again; so does the grant.
    pub refresh_token: Duration,
    /// How long a rotated refresh token, presented again, gets the pair its rotation issued
    /// (a client's race) rather than revoking the grant; zero: never.
    pub refresh_race: Duration,
}

/// How long a person has to sign in at the OpenID Provider and come back.
pub(super) const SIGN_IN_LIFETIME: Duration = Duration::from_secs(600);

/// What a grant's `signed_in_with` says when the person typed an API token.
pub(super) const SIGNED_IN_WITH_TOKEN: &str = "token";

/// What the access tokens' key is derived for.
const ACCESS_KEY_PURPOSE: &str = "kioku access token v1";

/// Why a grant whose API token was taken away is refused.
pub(super) const SIGNED_OUT: &str =
    "the API token this grant was signed in with is no longer configured: authorize again";

/// How a person proves whose memory they are granting.
pub struct SignIn {
    /// By typing an API token: the grant gets that token's namespace, and lasts while the
    /// token is configured.
    pub by_token: bool,
    /// At an OpenID Provider: each person gets a namespace of their own.
    pub upstream: Option<Upstream>,
}

pub struct AuthorizationServer {
    pub(super) store: Arc<dyn GrantStore>,
    /// This server's URL, without a trailing slash: the issuer (RFC 8414) and the resource.
    pub(super) issuer: String,
    pub(super) lifetimes: Lifetimes,
    pub(super) sign_in: SignIn,
    /// `API_TOKENS`, which a grant signed in with one of them is checked against at each use.
    pub(super) tokens: Arc<Tokens>,
    /// Clients known by their metadata document's URL.
    pub(super) documents: ClientDocuments,
    pub(super) pace: Pace,
    /// What access tokens are signed with ([`issue_access`](super::secret::issue_access)): derived from the
    /// configured API tokens, so every instance has it.
    pub(super) access_key: hmac::Key,
    /// How long each endpoint's work may take, every store call and every fetch included.
    pub(super) limit: TimeLimit,
}

impl AuthorizationServer {
    pub fn new(
        store: Arc<dyn GrantStore>,
        issuer: &str,
        lifetimes: Lifetimes,
        sign_in: SignIn,
        tokens: Arc<Tokens>,
        documents: ClientDocuments,
        limit: TimeLimit,
    ) -> Self {
        let access_key = tokens.derived_key(ACCESS_KEY_PURPOSE);
        Self {
            store,
            issuer: issuer.trim_end_matches('/').to_owned(),
            lifetimes,
            sign_in,
            tokens,
            documents,
            pace: Pace::default(),
            access_key: hmac::Key::new(hmac::HMAC_SHA256, &access_key),
            limit,
        }
    }

    /// Forgets the rate buckets of grants and namespaces long idle.
    pub fn forget_idle(&self) {
        self.pace.forget_idle();
    }

    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Whether a person may sign in by typing an API token.
    pub fn token_sign_in(&self) -> bool {
        self.sign_in.by_token
    }

    /// Whether `grant` still stands as far as sign-in goes: one signed in with an API token
    /// ends when that token is no longer configured, as a page session does.
    pub(super) fn still_signed_in(&self, grant: &Grant) -> bool {
        grant.signed_in_with != SIGNED_IN_WITH_TOKEN
            || self
                .tokens
                .still_configured(grant.token_digest.as_deref(), &grant.namespace)
    }

    /// The OpenID Provider a person may sign in at, if one is configured.
    pub fn upstream_issuer(&self) -> Option<&str> {
        self.sign_in.upstream.as_ref().map(Upstream::issuer)
    }
}

/// `now` plus `lifetime`.
pub(super) fn after(now: DateTime<Utc>, lifetime: Duration) -> DateTime<Utc> {
    // Settings bound every lifetime far below this cap; it keeps the sum from overflowing.
    now + chrono::Duration::seconds(lifetime.as_secs().min(u32::MAX.into()) as i64)
}
