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
mod cache;
mod document;
mod reach;
mod slots;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{ACCEPT, CACHE_CONTROL, HeaderMap};
use url::{Host, Url};

use crate::store::Client;
use cache::Cache;
use reach::Reach;
use slots::Slots;

/// Largest document read (the draft suggests 5 KB).
const MAX_BYTES: usize = 5 * 1024;
const TIMEOUT: Duration = Duration::from_secs(5);
/// How long a document is kept when its answer says nothing, and at most.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);
const MAX_LIFETIME: Duration = Duration::from_secs(86_400);

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
    cache: Cache,
    slots: Slots,
}

/// Who asks for a document: the client's address, and the count of the fetches it starts.
pub struct Asker<'a> {
    pub address: IpAddr,
    /// Counts one fetch for the address; if it may not start one, how long until it may.
    pub admit: Box<dyn Fn() -> Result<(), Duration> + Sync + 'a>,
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
            cache: Cache::default(),
            slots: Slots::default(),
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
    /// is told it. A fetch is counted against `asker`'s address before it starts, and one that
    /// failed is not tried again for a minute.
    pub async fn client(&self, url: &Url, asker: &Asker<'_>) -> Result<Client, String> {
        let key = url.as_str();
        if let Some(fresh) = self.cache.fresh(key) {
            return Ok(fresh);
        }
        if let Some(why) = self.cache.refusal(key) {
            return Err(why);
        }
        if let Err(wait) = (asker.admit)() {
            return Err(format!(
                "too many apps were looked up from your address of late: try again in {} \
                 seconds",
                wait.as_secs().max(1)
            ));
        }
        let host = url.host_str().unwrap_or_default();
        let Some(_slot) = self.slots.take(asker.address, host) else {
            return Err("too many apps are being looked up at once: try again in a moment".into());
        };
        let why = match self.fetch(url).await {
            Ok((client, lifetime)) => {
                match lifetime {
                    Some(lifetime) => self.cache.keep(client.clone(), lifetime),
                    // An earlier copy is not to stand in for one its host says not to keep.
                    None => self.cache.forget(key),
                }
                return Ok(client);
            }
            Err(Failure::Unavailable(why)) => match self.cache.last_good(key) {
                Some(stale) => {
                    tracing::warn!(
                        "a client metadata document could not be fetched again; its last good \
                         copy serves meanwhile"
                    );
                    return Ok(stale);
                }
                None => why,
            },
            Err(Failure::Unusable(why)) => {
                self.cache.forget(key);
                why
            }
        };
        self.cache.refuse(key, &why);
        Err(why)
    }

    /// The document at `url`, and how long it may be kept (`None`: not at all).
    async fn fetch(&self, url: &Url) -> Result<(Client, Option<Duration>), Failure> {
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
            return Err(Failure::Unusable(NOT_PUBLIC.into()));
        }
        let mut response = fetcher
            .client
            .get(url.clone())
            .header(ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| unreachable(&e))?;
        let status = response.status();
        if status.is_redirection() {
            return Err(Failure::Unusable(
                "it redirects elsewhere, and redirects are not followed".into(),
            ));
        }
        let answered = format!("it answered HTTP {}", status.as_u16());
        // 410: the client withdrew its document, and no copy stands in for it.
        if status == reqwest::StatusCode::GONE {
            return Err(Failure::Unusable(answered));
        }
        if !status.is_success() {
            return Err(Failure::Unavailable(answered));
        }
        let too_big = || Failure::Unusable(format!("it is larger than {MAX_BYTES} bytes"));
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
        let client = document::client(url, &body).map_err(|e| Failure::Unusable(e.to_string()))?;
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
