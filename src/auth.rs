//! Bearer tokens and the namespaces they unlock.

use std::fs::{self, OpenOptions};
use std::future::{Ready, ready};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use actix_web::{FromRequest, HttpMessage, HttpRequest, dev::Payload, http::header, web};
use sha2::{Digest, Sha256};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

use crate::domain::Namespace;
use crate::error::ApiError;
use crate::limits::RateLimit;

/// Why a request was not let in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("Send `Authorization: Bearer <token>` with a token this server knows.")]
    MissingCredentials,
    #[error("This token is not known here: check the token set in the GPT's authentication.")]
    UnknownToken,
}

/// The configured tokens. Each is held only as a SHA-256 digest, so every comparison is
/// between equal-length values and takes the same time whichever token, if any, matches.
pub struct Tokens {
    entries: Vec<([u8; 32], Namespace)>,
}

impl Tokens {
    /// Parses `API_TOKENS`: `name:token` or bare `token`, comma-separated. Errors never echo
    /// a token.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut entries: Vec<([u8; 32], Namespace)> = Vec::new();
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
            let digest = digest(token);
            if entries.iter().any(|(known, _)| *known == digest) {
                return Err(format!(
                    "API_TOKENS entry {position} repeats an earlier token"
                ));
            }
            entries.push((digest, namespace));
        }
        if entries.is_empty() {
            return Err("API_TOKENS holds no token".into());
        }
        Ok(Self { entries })
    }

    /// Namespaces that use the original's layout, where the token is the document id.
    pub fn bare_token_namespaces(&self) -> impl Iterator<Item = &Namespace> {
        self.entries
            .iter()
            .map(|(_, ns)| ns)
            .filter(|ns| ns.label() != ns.name())
    }

    /// Looks at every configured token whatever the outcome, in constant time.
    pub fn authenticate(&self, presented: &str) -> Option<&Namespace> {
        let index = find(self.entries.iter().map(|(known, _)| known), presented)?;
        Some(&self.entries[index].1)
    }

    /// Whether `token` is one of these, in constant time.
    fn contains(&self, token: &str) -> bool {
        self.authenticate(token).is_some()
    }
}

/// `KIOKU_ADMIN_TOKENS`: tokens for `/admin`, which no API token reaches and which reach
/// nothing else.
pub struct AdminTokens {
    digests: Vec<[u8; 32]>,
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
            if api.contains(token) {
                return Err(format!(
                    "KIOKU_ADMIN_TOKENS entry {position} is also in API_TOKENS; an admin token must be separate"
                ));
            }
            digests.push(digest(token));
        }
        Ok(Self { digests })
    }

    pub fn is_empty(&self) -> bool {
        self.digests.is_empty()
    }

    fn admits(&self, presented: &str) -> bool {
        find(self.digests.iter(), presented).is_some()
    }
}

/// A token can be sent in an `Authorization` header as it is: not empty, no spaces or
/// control characters.
fn well_formed(token: &str) -> bool {
    !token.is_empty() && !token.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// The position of `presented` among `known` digests, comparing with every one whatever the
/// outcome, in constant time.
fn find<'a>(known: impl Iterator<Item = &'a [u8; 32]>, presented: &str) -> Option<usize> {
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

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// A new token: 256 random bits, hex-encoded.
pub fn generate_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random source is available");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The namespace a generated local token stores under.
pub const LOCAL_NAMESPACE: &str = "local";

/// The token of a local run without `API_TOKENS`: read from `path`, or generated and written
/// there (owner-only) on first use. Returns the token and whether it was just created.
pub fn local_token(path: &Path) -> io::Result<(String, bool)> {
    match fs::read_to_string(path) {
        Ok(token) => return Ok((token.trim().to_owned(), false)),
        Err(err) if err.kind() != io::ErrorKind::NotFound => return Err(err),
        Err(_) => {}
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let token = generate_token();
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    writeln!(file, "{token}")?;
    file.sync_all()?;
    Ok((token, true))
}

/// The namespace of an authenticated request, within its rate limit. Extracting it is what
/// authenticates.
#[derive(Debug, Clone)]
pub struct Authenticated(pub Namespace);

impl FromRequest for Authenticated {
    type Error = ApiError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let tokens = req
            .app_data::<web::Data<Tokens>>()
            .expect("Tokens are registered as app data");
        let rate_limit = req
            .app_data::<web::Data<RateLimit>>()
            .expect("the rate limit is registered as app data");
        let result = bearer_token(req)
            .ok_or(AuthError::MissingCredentials)
            .and_then(|token| tokens.authenticate(token).ok_or(AuthError::UnknownToken))
            .map_err(ApiError::from)
            .and_then(|ns| {
                // The request log reads it back.
                req.extensions_mut().insert(ns.clone());
                // Every authenticated request counts against its namespace.
                rate_limit
                    .check(ns)
                    .map_err(|wait| ApiError::RateLimited(wait.as_secs() + 1))?;
                Ok(Self(ns.clone()))
            });
        ready(result)
    }
}

/// A request that presented an admin token. Extracting it is what authenticates.
pub struct Admin;

impl FromRequest for Admin {
    type Error = ApiError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let admins = req
            .app_data::<web::Data<AdminTokens>>()
            .expect("AdminTokens are registered as app data");
        let result = match bearer_token(req) {
            None => Err(AuthError::MissingCredentials.into()),
            Some(token) if admins.admits(token) => Ok(Self),
            Some(_) => Err(ApiError::NotAdmin),
        };
        ready(result)
    }
}

/// The credentials of `Authorization: Bearer <token>`; the scheme is case-insensitive
/// (RFC 9110, section 11.1).
fn bearer_token(req: &HttpRequest) -> Option<&str> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_named_and_bare_tokens_to_their_namespaces() {
        let tokens = Tokens::parse("alice:tokA, tokB ,alice:tokC").unwrap();
        assert_eq!(tokens.authenticate("tokA").unwrap().name(), "alice");
        assert_eq!(tokens.authenticate("tokC").unwrap().name(), "alice");
        let bare = tokens.authenticate("tokB").unwrap();
        assert_eq!((bare.name(), bare.label()), ("tokB", "bare-token-2"));
        assert!(tokens.authenticate("tokb").is_none());
        assert!(tokens.authenticate("").is_none());
        assert!(tokens.authenticate("alice:tokA").is_none());
        assert_eq!(tokens.bare_token_namespaces().count(), 1);
    }

    #[test]
    fn refuses_bad_specs_without_echoing_tokens() {
        for spec in ["", " , ", "a:", "a:x y", "x/y", "a:t,b:t"] {
            let err = Tokens::parse(spec)
                .err()
                .unwrap_or_else(|| panic!("{spec:?}"));
            assert!(!err.contains("x y") && !err.contains("x/y"), "{err}");
        }
    }

    #[test]
    fn admin_tokens_are_separate_from_api_tokens() {
        let api = Tokens::parse("alice:tokA").unwrap();
        let admins = AdminTokens::parse(Some("adm1, adm2"), &api).unwrap();
        assert!(admins.admits("adm2"));
        assert!(!admins.admits("tokA"));
        assert!(api.authenticate("adm1").is_none());
        let err = AdminTokens::parse(Some("adm1,tokA"), &api).err().unwrap();
        assert!(err.contains("entry 2") && !err.contains("tokA"), "{err}");
        assert!(AdminTokens::parse(None, &api).unwrap().is_empty());
    }

    #[test]
    fn generated_tokens_are_long_and_distinct() {
        let (a, b) = (generate_token(), generate_token());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
    }

    #[test]
    fn the_local_token_is_created_once_and_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/api_token");
        let (first, created) = local_token(&path).unwrap();
        assert!(created);
        let (again, created) = local_token(&path).unwrap();
        assert_eq!((again, created), (first, false));
        let mode = fs::metadata(&path).unwrap().permissions();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
            0o600
        );
    }
}
