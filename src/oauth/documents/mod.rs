//! Clients known by a URL: a client ID metadata document (draft-ietf-oauth-client-id-metadata-
//! document, which MCP 2025-11-25 prefers to registration) is fetched from the `client_id`
//! itself when an authorization request names one, and kept for as long as its HTTP caching
//! headers say, within bounds. When a refetch fails (the client's host is down, or answers an
//! error), the last good copy serves for up to a day, so that an outage of a client's own
//! site does not sign its users out of kioku too.
//!
//! The fetch is where a stranger's text makes this server open a connection, so it goes only
//! to public addresses (checked on each address a name resolves to, and connected to as
//! checked), over https, without redirects or proxies, for a few KB, within seconds, a few at
//! a time; the cache holds a bounded number of clients. A developer's setting adds plain http
//! from this host's own addresses, and nothing else.

mod address;
mod document;
mod reach;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::header::{ACCEPT, CACHE_CONTROL, HeaderMap};
use tokio::sync::Semaphore;
use url::{Host, Url};

use crate::store::Client;
use reach::Reach;

/// Largest document read (the draft suggests 5 KB).
const MAX_BYTES: usize = 5 * 1024;
const TIMEOUT: Duration = Duration::from_secs(5);
/// How long a document is kept when its answer says nothing, and at most.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);
const MAX_LIFETIME: Duration = Duration::from_secs(86_400);
/// How long after it was fetched a document's last good copy stands in for one that cannot
/// be fetched (RFC 5861's stale-if-error, bounded here).
const MAX_STALE: Duration = Duration::from_secs(86_400);
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
    /// Over https, from public addresses (and in tests this host's, from a test root).
    https: Fetcher,
    /// A developer's setting: over plain http, from this host's own addresses and no other.
    local: Option<Fetcher>,
    kept: Mutex<HashMap<String, Kept>>,
    fetches: Semaphore,
}

/// An HTTP client and the addresses it may reach.
struct Fetcher {
    client: reqwest::Client,
    reach: Reach,
}

impl Fetcher {
    fn new(reach: Reach, https: bool, root_pem: Option<&[u8]>) -> Result<Self, reqwest::Error> {
        let mut client = reqwest::Client::builder()
            .https_only(https)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(TIMEOUT)
            .dns_resolver(Arc::new(reach));
        if let Some(root_pem) = root_pem {
            client = client.add_root_certificate(reqwest::Certificate::from_pem(root_pem)?);
        }
        Ok(Self {
            client: client.build()?,
            reach,
        })
    }
}

struct Kept {
    client: Client,
    /// Fresh until then; after it, the last good copy.
    until: Instant,
    fetched: Instant,
}

/// Why a document could not be used: it could not be had (a last good copy may stand in), or
/// what came back is no document this server can use.
enum Failure {
    Unavailable(String),
    Unusable(String),
}

impl ClientDocuments {
    /// Documents from public addresses over https; with `loopback` (tests) also from this
    /// host's own over TLS from a test root; with `local_http` (a developer's setting) also
    /// from this host's own over plain http, and from nowhere else over plain http.
    pub fn new(
        loopback: Option<&LoopbackDocuments>,
        local_http: bool,
    ) -> Result<Self, reqwest::Error> {
        let https = Reach {
            public: true,
            loopback: loopback.is_some(),
        };
        let local = Reach {
            public: false,
            loopback: true,
        };
        let root_pem = loopback.map(|trust| trust.root_pem.as_slice());
        Ok(Self {
            https: Fetcher::new(https, true, root_pem)?,
            local: local_http
                .then(|| Fetcher::new(local, false, None))
                .transpose()?,
            kept: Mutex::new(HashMap::new()),
            fetches: Semaphore::new(MAX_FETCHES),
        })
    }

    /// The document URL `client_id` is, if it is one (see [`document::document_url`]).
    pub fn url(&self, client_id: &str) -> Option<Url> {
        document::document_url(client_id, self.local.is_some())
    }

    /// The public client a document's URL names at the token endpoint (see
    /// [`document::public_client`]).
    pub fn public_client(&self, client_id: &str) -> Option<Client> {
        document::public_client(client_id, self.local.is_some())
    }

    /// The client the document at `url` describes, or why it cannot be used, as the person
    /// is told it.
    pub async fn client(&self, url: &Url) -> Result<Client, String> {
        if let Some(fresh) = self.kept(url.as_str(), |kept| kept.until) {
            return Ok(fresh);
        }
        match self.fetch(url).await {
            Ok((client, lifetime)) => {
                match lifetime {
                    Some(lifetime) => self.keep(client.clone(), lifetime),
                    // An earlier copy is not to stand in for one its host says not to keep.
                    None => self.forget(url.as_str()),
                }
                Ok(client)
            }
            Err(Failure::Unavailable(why)) => {
                match self.kept(url.as_str(), |kept| kept.fetched + MAX_STALE) {
                    Some(stale) => {
                        tracing::warn!(
                            "a client metadata document could not be fetched again; its last \
                             good copy serves meanwhile"
                        );
                        Ok(stale)
                    }
                    None => Err(why),
                }
            }
            Err(Failure::Unusable(why)) => {
                self.forget(url.as_str());
                Err(why)
            }
        }
    }

    /// The kept copy of `url`'s document, while `now` is before `usable_until` says.
    fn kept(&self, url: &str, usable_until: impl Fn(&Kept) -> Instant) -> Option<Client> {
        let kept = self
            .kept
            .lock()
            .expect("the document cache is never poisoned");
        kept.get(url)
            .filter(|kept| usable_until(kept) > Instant::now())
            .map(|kept| kept.client.clone())
    }

    fn forget(&self, url: &str) {
        self.kept
            .lock()
            .expect("the document cache is never poisoned")
            .remove(url);
    }

    fn keep(&self, client: Client, lifetime: Duration) {
        let now = Instant::now();
        let mut kept = self
            .kept
            .lock()
            .expect("the document cache is never poisoned");
        if kept.len() >= MAX_KEPT {
            kept.retain(|_, kept| kept.fetched + MAX_STALE > now);
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
        kept.insert(
            client.id.clone(),
            Kept {
                client,
                until,
                fetched: now,
            },
        );
    }

    /// The document at `url`, and how long it may be kept (`None`: not at all).
    async fn fetch(&self, url: &Url) -> Result<(Client, Option<Duration>), Failure> {
        let unavailable = |why: String| Failure::Unavailable(why);
        let unusable = |why: String| Failure::Unusable(why);
        // Plain http only from this host, by the developer's setting (`document_url`).
        let fetcher = match (url.scheme(), &self.local) {
            ("http", Some(local)) => local,
            _ => &self.https,
        };
        // A name is checked as it resolves (see `Reach`); an address is never resolved.
        let literal = match url.host() {
            Some(Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
            _ => None,
        };
        if literal.is_some_and(|ip| !fetcher.reach.admits(ip)) {
            return Err(unusable(NOT_PUBLIC.into()));
        }
        let Ok(_permit) = self.fetches.try_acquire() else {
            return Err(unavailable(
                "too many apps are being looked up at once: try again in a moment".into(),
            ));
        };
        let mut response = fetcher
            .client
            .get(url.clone())
            .header(ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| unreachable(&e))?;
        let status = response.status();
        if status.is_redirection() {
            return Err(unusable(
                "it redirects elsewhere, and redirects are not followed".into(),
            ));
        }
        let answered = format!("it answered HTTP {}", status.as_u16());
        // 410: the client withdrew its document, and no copy stands in for it.
        if status == reqwest::StatusCode::GONE {
            return Err(unusable(answered));
        }
        if !status.is_success() {
            return Err(unavailable(answered));
        }
        let too_big = || unusable(format!("it is larger than {MAX_BYTES} bytes"));
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
        let client = document::client(url, &body).map_err(|e| unusable(e.to_string()))?;
        Ok((client, lifetime))
    }
}

const NOT_PUBLIC: &str = "its host is not on a public address";

/// Why a fetch failed, in words that name no address.
fn unreachable(err: &reqwest::Error) -> Failure {
    let mut source: Option<&dyn std::error::Error> = Some(err);
    while let Some(cause) = source {
        if cause.is::<reach::NotPublic>() {
            return Failure::Unusable(NOT_PUBLIC.into());
        }
        source = cause.source();
    }
    Failure::Unavailable(if err.is_timeout() {
        format!("it did not answer within {} seconds", TIMEOUT.as_secs())
    } else {
        "it could not be reached over https".into()
    })
}

/// How long an answer is fresh (RFC 9111, section 5.2.2): `no-cache` not at all (it is kept
/// only as the last good copy), `max-age` up to a day, by default five minutes; `None` for
/// `no-store`, which may not be kept at all.
fn lifetime(headers: &HeaderMap) -> Option<Duration> {
    let directives = headers
        .get_all(CACHE_CONTROL)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|directive| directive.trim().to_ascii_lowercase());
    let mut lifetime = DEFAULT_LIFETIME;
    let mut no_cache = false;
    for directive in directives {
        if directive == "no-store" {
            return None;
        }
        if directive == "no-cache" {
            no_cache = true;
        }
        if let Some(seconds) = directive.strip_prefix("max-age=")
            && let Ok(seconds) = seconds.trim_matches('"').parse::<u64>()
        {
            lifetime = Duration::from_secs(seconds);
        }
    }
    Some(if no_cache {
        Duration::ZERO
    } else {
        lifetime.min(MAX_LIFETIME)
    })
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
        assert_eq!(lifetime(&HeaderMap::new()), Some(DEFAULT_LIFETIME));
        assert_eq!(with("public, max-age=60"), Some(Duration::from_secs(60)));
        assert_eq!(with("max-age=31536000"), Some(MAX_LIFETIME));
        assert_eq!(with("no-store"), None);
        assert_eq!(with("max-age=600, no-store"), None);
        assert_eq!(with("max-age=600, no-cache"), Some(Duration::ZERO));
    }
}
