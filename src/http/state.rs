//! What every handler shares.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use actix_web::HttpRequest;
use actix_web::http::header;

use super::pages::Privacy;
use crate::credentials::Sessions;
use crate::memory::Memory;
use crate::oauth::AuthorizationServer;
use crate::store::{GrantStore, MemoryStore, Readiness};
use crate::throttle::{FailedSignIns, UnsignedWrites};

pub struct AppState {
    /// What the GPT's operations and the MCP tools do.
    pub memory: Arc<Memory>,
    /// The store itself, for the operator's endpoints.
    pub store: Arc<dyn MemoryStore>,
    /// Whether the store answers, for `/readyz`.
    pub readiness: Readiness,
    /// The URL the schema names in `servers`, when the operator set one.
    pub public_url: Option<String>,
    /// Whether the schema lists `POST /`.
    pub schema_post: bool,
    /// What `/privacy` answers with.
    pub privacy: Privacy,
    /// The OAuth server, when `KIOKU_OAUTH` turns it on.
    pub oauth: Option<Arc<AuthorizationServer>>,
    /// The memory page's sign-ins.
    pub sessions: Sessions,
    /// The OAuth server's records, for the apps a person connected (whether or not OAuth is
    /// on now).
    pub grants: Arc<dyn GrantStore>,
    /// Failed sign-ins per client address.
    pub failed_sign_ins: FailedSignIns,
    /// Records stored before sign-in per client address: client registrations, and sign-ins
    /// begun at the OpenID Provider.
    pub unsigned_writes: UnsignedWrites,
    /// Whether requests come through Cloud Run's front end, which says who the client is in
    /// `X-Forwarded-For`.
    pub behind_cloud_run: bool,
}

impl AppState {
    /// Largest request body accepted, in bytes: room for the longest summary at four UTF-8
    /// bytes a character, even with every character escaped, plus the other fields.
    pub fn body_limit(&self) -> usize {
        self.memory.rules().max_summary_chars * 12 + 4_096
    }

    /// This server's URL as clients reach it: the operator's, or the request's scheme and host
    /// (Cloud Run forwards the client's; actix reads them).
    pub fn base_url(&self, req: &HttpRequest) -> String {
        match &self.public_url {
            Some(url) => url.trim_end_matches('/').to_owned(),
            None => {
                let info = req.connection_info();
                format!("{}://{}", info.scheme(), info.host())
            }
        }
    }

    /// The address the request came from. On Cloud Run, the last entry of `X-Forwarded-For`,
    /// the one Google's front end appends, which a client cannot forge; what precedes it came
    /// from the client and is passed on unverified (the documented format is
    /// `[<supplied-value>,]<client-ip>,<load-balancer-ip>`:
    /// <https://cloud.google.com/load-balancing/docs/https#x-forwarded-for_header>; a `run.app`
    /// URL has no load balancer, and Cloud Run appends the client's address last:
    /// <https://github.com/kubernetes/registry.k8s.io/pull/64>). Elsewhere, or if that entry is
    /// no address, the connection's peer.
    pub fn client_address(&self, req: &HttpRequest) -> IpAddr {
        let forwarded = || {
            let last = req.headers().get_all(header::X_FORWARDED_FOR).last()?;
            last.to_str().ok()?.rsplit(',').next()?.trim().parse().ok()
        };
        self.behind_cloud_run
            .then(forwarded)
            .flatten()
            .or_else(|| req.peer_addr().map(|peer| peer.ip()))
            .unwrap_or(Ipv4Addr::UNSPECIFIED.into())
    }

    /// The URL resources are named under: the OAuth issuer's when OAuth is on, so that tokens,
    /// metadata and challenges agree whatever headers a request carries.
    pub fn resource_base(&self, req: &HttpRequest) -> String {
        match &self.oauth {
            Some(oauth) => oauth.issuer().to_owned(),
            None => self.base_url(req),
        }
    }
}
