//! What every handler shares.

use std::future::{Ready, ready};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};

use super::error::ApiError;
use super::limits::FORM_BODY_BYTES;
use super::pages::views::Privacy;
use crate::domain::Door;
use crate::gate::Gate;
use crate::memory::Memory;
use crate::oauth::connected::ConnectedApps;
use crate::oauth::{Asker, AuthorizationServer};
use crate::store::{MemoryStore, Readiness, TimeLimit};

/// What every handler shares: the memory, the gate, the OAuth server and the site's settings.
pub struct AppState {
    /// What the GPT's operations and the MCP tools do.
    pub memory: Arc<Memory>,
    /// The store itself, for exports.
    pub store: Arc<dyn MemoryStore>,
    /// How long one request's operation may wait for the store.
    pub limit: TimeLimit,
    /// Whether the store answers, for `/readyz`.
    pub readiness: Readiness,
    /// Who may call, at every door.
    pub gate: Gate,
    /// The OAuth server, when `KIOKU_OAUTH` turns it on.
    pub oauth: Option<Arc<AuthorizationServer>>,
    /// The apps a person connected (whether or not OAuth is on now).
    pub apps: ConnectedApps,
    pub site: Site,
}

/// How this server names itself and whom it serves through.
pub struct Site {
    /// The URL the schema names in `servers`, when the operator set one.
    pub public_url: Option<String>,
    /// Whether the schema lists `POST /`.
    pub schema_post: bool,
    /// What `/privacy` answers with.
    pub privacy: Privacy,
    /// Whether requests come through Cloud Run's front end, which says who the client is in
    /// `X-Forwarded-For`.
    pub behind_cloud_run: bool,
    /// The project that trace ids in the log are linked under.
    pub trace_project: Option<String>,
}

impl AppState {
    /// Who asks for a client metadata document through `req`: anyone may, so each address is
    /// counted, as for a registration, before a fetch starts.
    pub fn document_asker(&self, req: &HttpRequest) -> Asker<'_> {
        let address = self.site.client_address(req);
        Asker {
            address,
            admit: Box::new(move || self.gate.unsigned_write(address, Door::ClientDocument)),
        }
    }

    /// The state of the app serving `req`; `serve` registers it for every route, so a miss is
    /// an internal error rather than a panic.
    pub fn of(req: &HttpRequest) -> Result<web::Data<Self>, actix_web::Error> {
        web::Data::<Self>::extract(req).into_inner()
    }

    /// Largest request body accepted, in bytes: room for the longest summary at four UTF-8
    /// bytes a character, even with every character escaped, plus the other fields.
    pub fn body_limit(&self) -> usize {
        self.memory.rules().max_summary_chars * 12 + 4_096
    }

    /// Largest form a signed-in person's page posts: room for the longest profile at four
    /// UTF-8 bytes a character, each percent-encoded, beside the form's other fields.
    pub fn page_form_limit(&self) -> usize {
        (self.memory.rules().max_profile_chars * 12 + 4_096).max(FORM_BODY_BYTES)
    }

    /// The URL resources are named under: the OAuth issuer's when OAuth is on, so that tokens,
    /// metadata and challenges agree whatever headers a request carries.
    pub fn resource_base(&self, req: &HttpRequest) -> String {
        match &self.oauth {
            Some(oauth) => oauth.issuer().to_owned(),
            None => self.site.base_url(req),
        }
    }
}

impl Site {
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
}

/// The OAuth server, for a handler that runs only when it is on.
pub struct OAuthOn(pub Arc<AuthorizationServer>);

impl FromRequest for OAuthOn {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let oauth = AppState::of(req).and_then(|app| {
            let oauth = app.oauth.clone().ok_or(ApiError::NotFound)?;
            Ok(Self(oauth))
        });
        ready(oauth)
    }
}
