//! Wires the application from settings: the store, the credentials, then the HTTP server.
//! `main` and the tests start it the same way.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;

mod jobs;

use jobs::{keep_backfilling, keep_purging, keep_purging_grants};

use crate::config::{OAuthSettings, Secret, Settings, SignInMode, StoreKind};
use crate::credentials::{self, AdminTokens, MIN_TOKEN_CHARS, SESSION_LIFETIME, Sessions, Tokens};
use crate::embedding::{Embeddings, Model};
use crate::gate::Gate;
use crate::http::{self, AppState, Privacy, Site};
use crate::memory::{Memory, Rules};
use crate::oauth::connected::ConnectedApps;
use crate::oauth::metadata::CALLBACK_PATH;
use crate::oauth::oidc::{OidcSettings, Upstream};
use crate::oauth::{AuthorizationServer, ClientDocuments, SignIn};
use crate::rate_limit::RateLimit;
use crate::store::{
    FirestoreStore, GrantStore, Maintenance, MemoryStore, Readiness, SqliteStore, TimeLimit,
};

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("{0}")]
    Config(String),
    #[error("the store could not be opened")]
    Store(#[from] crate::store::StoreError),
    #[error("the local token file could not be read or written")]
    LocalToken(#[source] std::io::Error),
    #[error(
        "KIOKU_PRIVACY_FILE names {}, which could not be read as UTF-8 HTML (name a readable \
         file, or unset it for the page kioku writes)",
        .0.display()
    )]
    PrivacyFile(PathBuf, #[source] std::io::Error),
    #[error("KIOKU_EMBEDDING_MODEL could not be loaded")]
    Embedding(#[from] crate::embedding::EmbeddingError),
    #[error("the HTTP client for client metadata documents could not be built")]
    Documents(#[source] reqwest::Error),
    #[error("the server could not listen")]
    Listen(#[source] std::io::Error),
    #[error(
        "the server could not listen on {address}: set PORT (or --port) to a free port, or \
         KIOKU_HOST (or --host) to an address of this machine"
    )]
    Bind {
        address: String,
        #[source]
        source: std::io::Error,
    },
}

/// A token generated for a local run, to show the user once.
pub struct LocalToken {
    pub token: String,
    pub path: std::path::PathBuf,
    pub created: bool,
}

pub struct Application {
    server: Server,
    address: SocketAddr,
    local_token: Option<LocalToken>,
}

/// The store, as memories, as the OAuth server's records and as whole-store work: one backend
/// behind all three; and how long one request's operation may wait for it.
pub struct Stores {
    pub memory: Arc<dyn MemoryStore>,
    pub grants: Arc<dyn GrantStore>,
    pub maintenance: Arc<dyn Maintenance>,
    pub limit: TimeLimit,
}

impl Application {
    /// Listens where `settings` say, then builds.
    pub async fn build(settings: Settings) -> Result<Self, StartupError> {
        let listener = TcpListener::bind((settings.host(), settings.port)).map_err(|source| {
            StartupError::Bind {
                address: SocketAddr::new(settings.host(), settings.port).to_string(),
                source,
            }
        })?;
        Self::build_on(settings, listener).await
    }

    /// Serves on `listener`, already bound: its address is known before the server starts
    /// (an OpenID Provider is told kioku's callback URL first).
    pub async fn build_on(settings: Settings, listener: TcpListener) -> Result<Self, StartupError> {
        let address = listener.local_addr().map_err(StartupError::Listen)?;
        let privacy = privacy(&settings)?;
        let (tokens, local_token) = tokens(&settings)?;
        if settings.on_cloud_run() && settings.public_url.is_none() {
            // Else the schema's `servers` would follow a request's X-Forwarded-Host, and a
            // cached schema could send a GPT, with its token, elsewhere.
            return Err(StartupError::Config(
                "KIOKU_PUBLIC_URL is not set. On Cloud Run kioku names its URL only from it: \
                 set it to the service's URL (cloudbuild.yaml's _PUBLIC_URL does)."
                    .into(),
            ));
        }
        if settings.on_cloud_run() && settings.oauth.dev_insecure_local_client_documents {
            return Err(StartupError::Config(
                "KIOKU_DEV_INSECURE_LOCAL_CLIENT_DOCUMENTS is set. It lets a client_id make \
                 kioku fetch plain http from its own host, for trying a metadata document on a \
                 developer's machine: unset it on Cloud Run."
                    .into(),
            ));
        }
        let tokens = Arc::new(tokens);
        for ns in tokens.bare_token_namespaces() {
            tracing::warn!(
                namespace = %ns,
                "a bare API token is its own namespace name, as in the original function; \
                 prefer `name:token` so the token can be rotated without losing memories"
            );
        }
        let admin_tokens = AdminTokens::parse(
            settings.admin_tokens.as_ref().map(Secret::expose),
            &tokens,
            settings.weak_tokens(),
        )
        .map_err(StartupError::Config)?;
        warn_of_weak_tokens("API_TOKENS", tokens.weak_positions());
        warn_of_weak_tokens("KIOKU_ADMIN_TOKENS", admin_tokens.weak_positions());
        let embeddings = embeddings(&settings).await?;
        let stores = open_store(&settings).await?;
        if let (StoreKind::Sqlite, Some(_)) = (settings.store(), settings.retention_days) {
            keep_purging(&settings).await?;
        }
        let oauth = authorization_server(&settings, address, &stores, &tokens)?;
        // Grants and the memory page's sessions both expire in the store.
        keep_purging_grants(Arc::clone(&stores.grants), oauth.clone());
        let sessions = Sessions::new(Arc::clone(&stores.grants), SESSION_LIFETIME, stores.limit);
        if let Some(embeddings) = &embeddings {
            keep_backfilling(Arc::clone(&stores.maintenance), embeddings.clone());
        }
        let rules = Rules {
            timezone: settings.timezone,
            max_summary_chars: settings.max_summary_chars as usize,
            max_profile_chars: settings.max_profile_chars as usize,
            load_budget_chars: settings.load_budget_chars as usize,
            retention: settings.retention(),
        };
        let gate = Gate::new(
            tokens,
            admin_tokens,
            oauth.clone(),
            sessions,
            RateLimit::per_minute(settings.rate_limit),
        );
        let state = AppState {
            memory: Arc::new(Memory::new(
                Arc::clone(&stores.memory),
                rules,
                embeddings,
                stores.limit,
            )),
            readiness: Readiness::new(Arc::clone(&stores.memory), stores.limit),
            limit: stores.limit,
            store: stores.memory,
            gate,
            oauth,
            apps: ConnectedApps::new(Arc::clone(&stores.grants), stores.limit),
            site: Site {
                public_url: settings.public_url.clone(),
                schema_post: settings.schema_post,
                privacy,
                behind_cloud_run: settings.on_cloud_run(),
                trace_project: settings.google_cloud_project.clone(),
            },
        };
        let server = http::serve(listener, state).map_err(StartupError::Listen)?;
        tracing::info!(address = %address, store = ?settings.store(), "listening");
        Ok(Self {
            server,
            address,
            local_token,
        })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    pub fn local_token(&self) -> Option<&LocalToken> {
        self.local_token.as_ref()
    }

    /// Serves until SIGTERM or SIGINT, then lets in-flight requests finish.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}

/// A warning at every start for each weak token `KIOKU_ALLOW_WEAK_TOKENS` carries over, by its
/// position: never the token.
fn warn_of_weak_tokens(setting: &str, positions: &[usize]) {
    for entry in positions {
        tracing::warn!(
            setting,
            entry,
            "a token shorter than {MIN_TOKEN_CHARS} characters is carried over by \
             KIOKU_ALLOW_WEAK_TOKENS and could be guessed: replace it with one `kioku token` prints"
        );
    }
}

fn tokens(settings: &Settings) -> Result<(Tokens, Option<LocalToken>), StartupError> {
    let weak = settings.weak_tokens();
    if let Some(spec) = &settings.api_tokens {
        return Ok((
            Tokens::parse(spec.expose(), weak).map_err(StartupError::Config)?,
            None,
        ));
    }
    if settings.on_cloud_run() {
        return Err(StartupError::Config(
            "API_TOKENS is not set. On Cloud Run kioku needs at least one token: \
             set API_TOKENS (name:token, comma-separated) from Secret Manager."
                .into(),
        ));
    }
    let path = settings.data_dir.join("api_token");
    let (token, created) = credentials::local_token(&path).map_err(StartupError::LocalToken)?;
    let spec = format!("{}:{token}", credentials::LOCAL_NAMESPACE);
    let tokens = Tokens::parse(&spec, weak).map_err(StartupError::Config)?;
    Ok((
        tokens,
        Some(LocalToken {
            token,
            path,
            created,
        }),
    ))
}

/// What `/privacy` serves: the operator's file, read now so that a missing one stops the start
/// rather than a person reading the policy.
fn privacy(settings: &Settings) -> Result<Privacy, StartupError> {
    match &settings.privacy_file {
        Some(path) => std::fs::read_to_string(path)
            .map(Privacy::File)
            .map_err(|err| StartupError::PrivacyFile(path.clone(), err)),
        None => Ok(Privacy::Written {
            store: settings.store(),
            contact: settings.privacy_contact.clone(),
        }),
    }
}

/// The embedding model `KIOKU_EMBEDDING_MODEL` names, if any, loaded (off the async workers:
/// it reads and hashes some 100 MB); a missing file refuses the start and names it.
pub async fn embeddings(settings: &Settings) -> Result<Option<Embeddings>, StartupError> {
    let Some(dir) = settings.embedding_model.clone() else {
        return Ok(None);
    };
    let model = tokio::task::spawn_blocking(move || Model::load(&dir))
        .await
        .map_err(|e| StartupError::Config(format!("the embedding model did not load: {e}")))??;
    let (id, dimension, precision) = (model.id().clone(), model.dimension(), model.precision());
    let embeddings = Embeddings::new(model, settings.similar_cosine);
    tracing::info!(
        model = %id,
        dimension,
        precision = %precision,
        similar_cosine = embeddings.similar_cosine(),
        "embedding model loaded: search by meaning is on"
    );
    if embeddings.similar_cosine().is_none() {
        tracing::warn!(
            "no near-repeat threshold is known for this model: saves are not checked for near \
             repeats (set KIOKU_SIMILAR_COSINE, measured with scripts/bench-similar)"
        );
    }
    Ok(Some(embeddings))
}

/// The store `settings` name, and the time limit of an operation on it. The CLI's export,
/// import and client commands use it too.
pub async fn open_store(settings: &Settings) -> Result<Stores, StartupError> {
    let limit = settings.store_timeout();
    Ok(match settings.store() {
        // Lock waits end well before the operation's limit (a save's embedding may take a
        // quarter of it first), so a write refused for a lock is refused for certain, and not
        // left to land after the caller was told 503.
        StoreKind::Sqlite => {
            let store = SqliteStore::open(&settings.sqlite_path(), limit / 2)?;
            Stores::of(store, limit)
        }
        // Each attempt gets a share of the limit, so a retry still fits within it.
        StoreKind::Firestore => {
            let project = settings.google_cloud_project.clone();
            let store =
                FirestoreStore::connect(project, &settings.firestore_database, limit / 3).await?;
            Stores::of(store, limit)
        }
    })
}

impl Stores {
    fn of<S: MemoryStore + Maintenance + GrantStore + 'static>(store: S, limit: Duration) -> Self {
        let store = Arc::new(store);
        Self {
            memory: Arc::clone(&store) as Arc<dyn MemoryStore>,
            grants: Arc::clone(&store) as Arc<dyn GrantStore>,
            maintenance: store,
            limit: TimeLimit::new(limit),
        }
    }
}

/// The OAuth server `KIOKU_OAUTH` asks for, if any, at its public URL (on a local run, the
/// address it listens on); and the hourly purge of what it issued that has expired.
fn authorization_server(
    settings: &Settings,
    address: SocketAddr,
    stores: &Stores,
    tokens: &Arc<Tokens>,
) -> Result<Option<Arc<AuthorizationServer>>, StartupError> {
    let oauth = &settings.oauth;
    if !oauth.enabled() {
        return Ok(None);
    }
    // On Cloud Run the public URL is required (checked at start).
    let issuer = match &settings.public_url {
        Some(url) => url.trim_end_matches('/').to_owned(),
        None if address.ip().is_unspecified() => {
            format!("http://localhost:{}", address.port())
        }
        None => format!("http://{address}"),
    };
    let sign_in = SignIn {
        by_token: oauth.modes.contains(&SignInMode::Token),
        upstream: match oauth.modes.contains(&SignInMode::Oidc) {
            true => Some(upstream(oauth, &issuer)?),
            false => None,
        },
    };
    let documents = ClientDocuments::new(
        oauth.loopback_documents.as_ref(),
        oauth.dev_insecure_local_client_documents,
    )
    .map_err(StartupError::Documents)?;
    Ok(Some(Arc::new(AuthorizationServer::new(
        Arc::clone(&stores.grants),
        &issuer,
        oauth.lifetimes(),
        sign_in,
        Arc::clone(tokens),
        documents,
        stores.limit,
    ))))
}

/// The OpenID Provider's client, from the three settings `oidc` sign-in needs.
fn upstream(oauth: &OAuthSettings, issuer: &str) -> Result<Upstream, StartupError> {
    let (Some(provider), Some(client_id), Some(client_secret)) = (
        &oauth.oidc_issuer,
        &oauth.oidc_client_id,
        &oauth.oidc_client_secret,
    ) else {
        return Err(StartupError::Config(
            "KIOKU_OAUTH=oidc needs KIOKU_OIDC_ISSUER, KIOKU_OIDC_CLIENT_ID and \
             KIOKU_OIDC_CLIENT_SECRET"
                .into(),
        ));
    };
    Upstream::new(OidcSettings {
        issuer: provider.clone(),
        client_id: client_id.clone(),
        client_secret: client_secret.expose().to_owned(),
        redirect_uri: format!("{issuer}{CALLBACK_PATH}"),
    })
    .map_err(|err| StartupError::Config(format!("the OpenID Provider's settings: {err}")))
}
