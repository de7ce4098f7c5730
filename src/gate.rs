//! Who may call, for every door: one gate that admits a client address, checks what it
//! presents (an API token, an access token of the OAuth server, an admin token, a token typed
//! on a page, a page session), counts what fails, and holds a namespace to its rate limit. The
//! HTTP extractors and pages only read what the request carries and ask it; the order of the
//! checks is written here once.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::credentials::{AdminTokens, AuthError, Session, Sessions, TokenSignIn, Tokens};
use crate::domain::{Caller, Door, Namespace, Writer};
use crate::oauth::{Access, AuthorizationServer};
use crate::rate_limit::RateLimit;
use crate::throttle::{FailedSignIns, UnsignedWrites};

/// Why the gate did not let a request in.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error(transparent)]
    Credentials(#[from] AuthError),
    /// The door is off (`/admin` with no admin token configured): answered as though it were
    /// not there.
    #[error("this door is off")]
    Off,
    /// The client's address is past its limit at this door (failed sign-ins, or records stored
    /// before sign-in); it may try again after the wait.
    #[error("too many attempts from this address")]
    Throttled(Duration),
    /// The namespace is past its rate limit; it may call again after the wait.
    #[error("too many requests for this namespace")]
    RateLimited(Duration),
    /// What was presented could not be checked: the store did not answer.
    #[error("the credentials could not be checked")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// The one gate every door asks.
pub struct Gate {
    tokens: Arc<Tokens>,
    admins: AdminTokens,
    oauth: Option<Arc<AuthorizationServer>>,
    sessions: Sessions,
    failed_sign_ins: FailedSignIns,
    unsigned_writes: UnsignedWrites,
    rate_limit: RateLimit,
}

impl Gate {
    pub fn new(
        tokens: Arc<Tokens>,
        admins: AdminTokens,
        oauth: Option<Arc<AuthorizationServer>>,
        sessions: Sessions,
        rate_limit: RateLimit,
    ) -> Self {
        let weak_tokens =
            !(tokens.weak_positions().is_empty() && admins.weak_positions().is_empty());
        Self {
            tokens,
            admins,
            oauth,
            sessions,
            failed_sign_ins: FailedSignIns::new(weak_tokens),
            unsigned_writes: UnsignedWrites::default(),
            rate_limit,
        }
    }

    /// `API_TOKENS`, for naming namespaces in admin URLs.
    pub fn tokens(&self) -> &Tokens {
        &self.tokens
    }

    /// The memory page's sessions, to open and close.
    pub fn sessions(&self) -> &Sessions {
        &self.sessions
    }

    /// A call at `door` (the API or MCP) from `client` with `bearer`: the namespace it opens
    /// and who writes there, within that namespace's rate limit. A token presented and not known counts as a failed
    /// sign-in; no token at all is no guess, nor is an access token issued here that expired.
    pub async fn call(
        &self,
        client: IpAddr,
        bearer: Option<&str>,
        door: Door,
    ) -> Result<Caller, Refusal> {
        self.admit(client)?;
        let token = bearer.ok_or(AuthError::MissingCredentials)?;
        let caller = match self.caller(token, door).await {
            Err(Refusal::Credentials(err)) if is_a_guess(&err) => {
                self.failed(client, door)?;
                return Err(err.into());
            }
            found => found?,
        };
        self.within_rate(&caller.namespace)?;
        Ok(caller)
    }

    /// An operator's call from `client` with `bearer`, which must be an admin token.
    pub fn admin(&self, client: IpAddr, bearer: Option<&str>) -> Result<(), Refusal> {
        if self.admins.none() {
            return Err(Refusal::Off);
        }
        self.admit(client)?;
        match bearer {
            None => Err(AuthError::MissingCredentials.into()),
            Some(token) if self.admins.admits(token) => Ok(()),
            Some(_) => {
                self.failed(client, Door::Admin)?;
                Err(AuthError::NotAdmin.into())
            }
        }
    }

    /// A person at `door` (the memory page, or the consent page) typed `token`: the namespace
    /// it opens and the digest a sign-in keeps, or the refusal, counted as a failure.
    pub fn typed(&self, client: IpAddr, token: &str, door: Door) -> Result<TokenSignIn, Refusal> {
        self.admit(client)?;
        match self.tokens.sign_in(token.trim()) {
            Some(signed_in) => Ok(signed_in),
            None => {
                self.failed(client, door)?;
                Err(AuthError::UnknownToken.into())
            }
        }
    }

    /// The memory page's session of the cookie value `presented`, if it is current and still
    /// signed in, within its namespace's rate limit.
    pub async fn session(&self, presented: &str) -> Result<Option<Session>, Refusal> {
        let found = self
            .sessions
            .find(presented)
            .await
            .map_err(|err| Refusal::Unavailable(err.into()))?;
        let Some(session) = found.filter(|s| s.still_signed_in(&self.tokens)) else {
            return Ok(None);
        };
        self.within_rate(&session.namespace)?;
        Ok(Some(session))
    }

    /// Counts a refresh token `client` presented that this server never issued (or has no
    /// record of, of an earlier kioku's shape) as a failed sign-in; past the limit, how long
    /// until it may present one again.
    pub fn guessed_refresh(&self, client: IpAddr) -> Result<(), Duration> {
        self.failed_sign_ins.failed(client, Door::Token)
    }

    /// Admits and counts one record `client` would have stored at `door` before anyone signed
    /// in (a client registration, a sign-in begun at the OpenID Provider).
    /// If refused, how long until `client` may.
    pub fn unsigned_write(&self, client: IpAddr, door: Door) -> Result<(), Duration> {
        self.unsigned_writes.take(client, door)
    }

    /// Whether `client` may present a credential now. Only where weak tokens are carried over
    /// is anyone refused here, before what it presents is looked at.
    fn admit(&self, client: IpAddr) -> Result<(), Refusal> {
        self.failed_sign_ins
            .admit(client)
            .map_err(Refusal::Throttled)
    }

    /// Counts a failure; past the limit, the failure is refused with the wait instead.
    fn failed(&self, client: IpAddr, door: Door) -> Result<(), Refusal> {
        self.failed_sign_ins
            .failed(client, door)
            .map_err(Refusal::Throttled)
    }

    fn within_rate(&self, namespace: &Namespace) -> Result<(), Refusal> {
        self.rate_limit
            .check(namespace)
            .map_err(Refusal::RateLimited)
    }

    /// The namespace `token` opens at `door`, and who it writes as. An API token is checked
    /// first, and costs no store read.
    async fn caller(&self, token: &str, door: Door) -> Result<Caller, Refusal> {
        if let Some(namespace) = self.tokens.authenticate(token) {
            return Ok(Caller {
                writer: Writer::token(namespace),
                namespace: namespace.clone(),
            });
        }
        let Some(oauth) = &self.oauth else {
            return Err(AuthError::UnknownToken.into());
        };
        let refused = |description, issued| AuthError::InvalidAccessToken {
            description,
            issued,
        };
        match oauth.authenticate(token, door).await {
            Ok(Access::Granted(caller)) => Ok(caller),
            Ok(Access::NotOurs) => Err(AuthError::UnknownToken.into()),
            Ok(Access::Unknown) => {
                Err(refused("this access token is unknown or revoked", false).into())
            }
            Ok(Access::Unusable(description)) => Err(refused(description, true).into()),
            Err(err) => Err(Refusal::Unavailable(err.into())),
        }
    }
}

/// Whether a refusal of what was presented counts as a guess: a token presented and not
/// known. An access token issued here that expired, or is for another resource, was once
/// rightly held.
fn is_a_guess(err: &AuthError) -> bool {
    matches!(
        err,
        AuthError::UnknownToken | AuthError::InvalidAccessToken { issued: false, .. }
    )
}
