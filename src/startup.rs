//! Wires the application from settings: the store, the credentials, then the HTTP server.
//! `main` and the tests start it the same way.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;

use crate::config::{Settings, StoreKind};
use crate::credentials::{self, AdminTokens, Tokens};
use crate::http::{self, AppState, Shared, TraceProject};
use crate::memory::{Memory, Rules};
use crate::rate_limit::RateLimit;
use crate::store::{Bounded, FirestoreStore, MemoryStore, SqliteStore};
use crate::telemetry::ErrorChain;

/// How often the embedded store forgets entries past `KIOKU_RETENTION_DAYS`.
const PURGE_EVERY: Duration = Duration::from_secs(3_600);

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("{0}")]
    Config(String),
    #[error("the store could not be opened")]
    Store(#[from] crate::store::StoreError),
    #[error("the local token file could not be read or written")]
    LocalToken(#[source] std::io::Error),
    #[error("the server could not listen")]
    Listen(#[source] std::io::Error),
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

impl Application {
    pub async fn build(settings: Settings) -> Result<Self, StartupError> {
        let (tokens, local_token) = tokens(&settings)?;
        for ns in tokens.bare_token_namespaces() {
            tracing::warn!(
                namespace = %ns,
                "a bare API token is its own namespace name, as in the original function; \
                 prefer `name:token` so the token can be rotated without losing memories"
            );
        }
        let admin_tokens = AdminTokens::parse(settings.admin_tokens.as_deref(), &tokens)
            .map_err(StartupError::Config)?;
        let store = open_store(&settings).await?;
        if let (StoreKind::Sqlite, Some(_)) = (settings.store(), settings.retention_days) {
            keep_purging(&settings).await?;
        }
        let listener =
            TcpListener::bind((settings.host(), settings.port)).map_err(StartupError::Listen)?;
        let address = listener.local_addr().map_err(StartupError::Listen)?;
        let rules = Rules {
            timezone: settings.timezone,
            max_summary_chars: settings.max_summary_chars as usize,
            load_budget_chars: settings.load_budget_chars as usize,
            retention: settings.retention(),
        };
        let state = AppState {
            memory: Arc::new(Memory::new(Arc::clone(&store), rules)),
            store,
            public_url: settings.public_url.clone(),
            schema_post: settings.schema_post,
        };
        let shared = Shared {
            state,
            tokens,
            admin_tokens,
            rate_limit: RateLimit::per_minute(settings.rate_limit),
            trace_project: TraceProject(settings.google_cloud_project.clone()),
        };
        let server = http::serve(listener, shared).map_err(StartupError::Listen)?;
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

fn tokens(settings: &Settings) -> Result<(Tokens, Option<LocalToken>), StartupError> {
    if let Some(spec) = &settings.api_tokens {
        return Ok((Tokens::parse(spec).map_err(StartupError::Config)?, None));
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
    let tokens = Tokens::parse(&spec).map_err(StartupError::Config)?;
    Ok((
        tokens,
        Some(LocalToken {
            token,
            path,
            created,
        }),
    ))
}

/// The store `settings` name, each call within the store time limit. The CLI's export and
/// import use it too.
pub async fn open_store(settings: &Settings) -> Result<Arc<dyn MemoryStore>, StartupError> {
    let limit = settings.store_timeout();
    Ok(match settings.store() {
        // Lock waits end before the call's limit, so a write refused for a lock is refused
        // for certain, and not left to land after the caller was told 503.
        StoreKind::Sqlite => {
            let store = SqliteStore::open(&settings.sqlite_path(), limit * 3 / 4)?;
            Arc::new(Bounded::new(store, limit))
        }
        // Each attempt gets a share of the limit, so a retry still fits within it.
        StoreKind::Firestore => {
            let project = settings.google_cloud_project.clone();
            let store =
                FirestoreStore::connect(project, &settings.firestore_database, limit / 3).await?;
            Arc::new(Bounded::new(store, limit))
        }
    })
}

/// Forgets the embedded store's entries past their age now, then every [`PURGE_EVERY`], on a
/// connection of its own. (Firestore's TTL policy does this for Firestore: docs/deploy.md.)
async fn keep_purging(settings: &Settings) -> Result<(), StartupError> {
    let store = SqliteStore::open(&settings.sqlite_path(), settings.store_timeout())?;
    let retention = settings.retention();
    let purge = move || {
        let store = store.clone();
        async move {
            let Some(cutoff) = retention.cutoff() else {
                return;
            };
            match store.purge_before(cutoff).await {
                Ok(0) => {}
                Ok(entries) => tracing::info!(entries, "forgot entries past KIOKU_RETENTION_DAYS"),
                Err(err) => {
                    tracing::error!(error = %ErrorChain(&err), "the retention purge failed")
                }
            }
        }
    };
    purge().await;
    tokio::spawn(async move {
        let mut every = tokio::time::interval(PURGE_EVERY);
        every.tick().await;
        loop {
            every.tick().await;
            purge().await;
        }
    });
    Ok(())
}
