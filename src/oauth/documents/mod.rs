//! Clients known by a URL: a client ID metadata document (draft-ietf-oauth-client-id-metadata-
//! document, which MCP 2025-11-25 prefers to registration) is fetched from the `client_id`
//! itself when an authorization request names one, and kept for as long as its HTTP caching
//! headers say, within bounds.
//!
//! The fetch is where a stranger's text makes this server open a connection, so it goes only
//! to public addresses (checked on each address a name resolves to, and connected to as
//! checked), over https, without redirects or proxies, for a few KB, within seconds, a few at
//! a time; the cache holds a bounded number of clients.

mod address;
mod document;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{ACCEPT, CACHE_CONTROL, HeaderMap};
use tokio::sync::Semaphore;
use url::{Host, Url};

pub use document::{document_url, public_client};

use crate::store::Client;

/// Largest document read (the draft suggests 5 KB).
const MAX_BYTES: usize = 5 * 1024;
const TIMEOUT: Duration = Duration::from_secs(5);
/// How long a document is kept when its answer says nothing, and at most.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);
const MAX_LIFETIME: Duration = Duration::from_secs(86_400);
/// Most documents kept, and most fetched at once.
const MAX_KEPT: usize = 512;
const MAX_FETCHES: usize = 4;

/// For tests only, which no flag or variable sets: documents may also come from this host's
/// own addresses, over TLS from this root certificate (PEM).
#[derive(Debug, Clone)]
pub struct LoopbackDocuments {
    pub root_pem: Vec<u8>,
}

/// The documents fetched and kept.
pub struct ClientDocuments {
    http: reqwest::Client,
    loopback: bool,
    kept: Mutex<HashMap<String, Kept>>,
    fetches: Semaphore,
}

struct Kept {
    client: Client,
    until: Instant,
}

impl ClientDocuments {
    pub fn new(loopback: Option<&LoopbackDocuments>) -> Result<Self, reqwest::Error> {
        let mut http = reqwest::Client::builder()
            .https_only(true)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(TIMEOUT)
            .dns_resolver(Arc::new(PublicOnly {
                loopback: loopback.is_some(),
            }));
        if let Some(trust) = loopback {
            http = http.add_root_certificate(reqwest::Certificate::from_pem(&trust.root_pem)?);
        }
        Ok(Self {
            http: http.build()?,
            loopback: loopback.is_some(),
            kept: Mutex::new(HashMap::new()),
            fetches: Semaphore::new(MAX_FETCHES),
        })
    }

    /// The client the document at `url` describes, or why it cannot be used, as the person
    /// is told it.
    pub async fn client(&self, url: &Url) -> Result<Client, String> {
        if let Some(kept) = self.kept(url.as_str()) {
            return Ok(kept);
        }
        let (client, lifetime) = self.fetch(url).await?;
        if !lifetime.is_zero() {
            self.keep(client.clone(), lifetime);
        }
        Ok(client)
    }

    fn kept(&self, url: &str) -> Option<Client> {
        let kept = self
            .kept
            .lock()
            .expect("the document cache is never poisoned");
        kept.get(url)
            .filter(|kept| kept.until > Instant::now())
            .map(|kept| kept.client.clone())
    }

    fn keep(&self, client: Client, lifetime: Duration) {
        let now = Instant::now();
        let mut kept = self
            .kept
            .lock()
            .expect("the document cache is never poisoned");
        if kept.len() >= MAX_KEPT {
            kept.retain(|_, kept| kept.until > now);
        }
        if kept.len() >= MAX_KEPT
            && let Some(soonest) = kept
                .iter()
                .min_by_key(|(_, kept)| kept.until)
                .map(|(url, _)| url.clone())
        {
            kept.remove(&soonest);
        }
        let until = now + lifetime;
        kept.insert(client.id.clone(), Kept { client, until });
    }

    async fn fetch(&self, url: &Url) -> Result<(Client, Duration), String> {
        // A name is checked as it resolves (see `PublicOnly`); an address is never resolved.
        let literal = match url.host() {
            Some(Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
            _ => None,
        };
        if literal.is_some_and(|ip| !allowed(ip, self.loopback)) {
            return Err(NOT_PUBLIC.into());
        }
        let Ok(_permit) = self.fetches.try_acquire() else {
            return Err("too many apps are being looked up at once: try again in a moment".into());
        };
        let mut response = self
            .http
            .get(url.clone())
            .header(ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| unreachable(&e))?;
        let status = response.status();
        if status.is_redirection() {
            return Err("it redirects elsewhere, and redirects are not followed".into());
        }
        if !status.is_success() {
            return Err(format!("it answered HTTP {}", status.as_u16()));
        }
        let too_big = || format!("it is larger than {MAX_BYTES} bytes");
        if response
            .content_length()
            .is_some_and(|length| length > MAX_BYTES as u64)
        {
            return Err(too_big());
        }
        let lifetime = lifetime(response.headers());
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| unreachable(&e))? {
            if body.len() + chunk.len() > MAX_BYTES {
                return Err(too_big());
            }
            body.extend_from_slice(&chunk);
        }
        let client = document::client(url, &body).map_err(|e| e.to_string())?;
        Ok((client, lifetime))
    }
}

/// Whether a document may come from `ip`.
fn allowed(ip: IpAddr, loopback: bool) -> bool {
    address::is_public(ip) || (loopback && address::is_loopback(ip))
}

const NOT_PUBLIC: &str = "its host is not on a public address";

/// Why a fetch failed, in words that name no address.
fn unreachable(err: &reqwest::Error) -> String {
    let mut source: Option<&dyn std::error::Error> = Some(err);
    while let Some(cause) = source {
        if cause.is::<NotPublic>() {
            return NOT_PUBLIC.into();
        }
        source = cause.source();
    }
    if err.is_timeout() {
        format!("it did not answer within {} seconds", TIMEOUT.as_secs())
    } else {
        "it could not be reached over https".into()
    }
}

/// How long an answer may be kept (RFC 9111, section 5.2.2): `no-store` and `no-cache` not
/// at all, `max-age` up to a day, and by default five minutes.
fn lifetime(headers: &HeaderMap) -> Duration {
    let directives = headers
        .get_all(CACHE_CONTROL)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|directive| directive.trim().to_ascii_lowercase());
    let mut lifetime = DEFAULT_LIFETIME;
    for directive in directives {
        if directive == "no-store" || directive == "no-cache" {
            return Duration::ZERO;
        }
        if let Some(seconds) = directive.strip_prefix("max-age=")
            && let Ok(seconds) = seconds.trim_matches('"').parse::<u64>()
        {
            lifetime = Duration::from_secs(seconds);
        }
    }
    lifetime.min(MAX_LIFETIME)
}

/// Resolves a name to the addresses a document may come from, and fails when none is left:
/// the connection is then made to an address checked here, not to one a second lookup gives.
struct PublicOnly {
    loopback: bool,
}

#[derive(Debug, thiserror::Error)]
#[error("the host resolves to no public address")]
struct NotPublic;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let loopback = self.loopback;
        Box::pin(async move {
            let found = tokio::net::lookup_host((name.as_str(), 0)).await?;
            let allowed: Vec<SocketAddr> = found
                .filter(|found| allowed(found.ip(), loopback))
                .collect();
            if allowed.is_empty() {
                return Err(Box::new(NotPublic) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn a_document_is_kept_as_its_answer_allows_within_a_day() {
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(CACHE_CONTROL, HeaderValue::from_str(value).unwrap());
            lifetime(&headers)
        };
        assert_eq!(lifetime(&HeaderMap::new()), DEFAULT_LIFETIME);
        assert_eq!(with("public, max-age=60"), Duration::from_secs(60));
        assert_eq!(with("max-age=31536000"), MAX_LIFETIME);
        assert_eq!(with("no-store"), Duration::ZERO);
        assert_eq!(with("max-age=600, no-cache"), Duration::ZERO);
    }
}
