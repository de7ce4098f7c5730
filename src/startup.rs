//! Builds the application from settings. `main` and the tests start it the same way.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::error::JsonPayloadError;
use actix_web::middleware::from_fn;
use actix_web::{App, HttpServer, web};
use chrono_tz::Tz;

use crate::auth::{self, AdminTokens, Tokens};
use crate::config::{Settings, StoreKind};
use crate::domain::Retention;
use crate::error::ApiError;
use crate::limits::{self, RateLimit};
use crate::routes;
use crate::store::{Bounded, FirestoreStore, MemoryStore, SqliteStore};
use crate::telemetry::{self, TraceProject};

/// Largest JSON body accepted: room for the longest summary at four UTF-8 bytes a character,
/// even with every character escaped, plus the other fields.
const fn json_body_limit(max_summary_chars: usize) -> usize {
    max_summary_chars * 12 + 4_096
}

/// Seconds in-flight requests get to finish after SIGTERM; Cloud Run allows 10.
const SHUTDOWN_GRACE_SECS: u64 = 8;

/// How often the embedded store forgets entries past `KIOKU_RETENTION_DAYS`.
const PURGE_EVERY: Duration = Duration::from_secs(3_600);

/// What every handler shares.
pub struct AppState {
    pub store: Arc<dyn MemoryStore>,
    pub timezone: Tz,
    pub max_summary_chars: usize,
    pub load_budget_chars: usize,
    pub retention: Retention,
    pub public_url: Option<String>,
    pub schema_post: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("{0}")]
    Config(String),
    #[error("the store could not be opened: {0}")]
    Store(#[from] crate::store::StoreError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
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
        let listener = TcpListener::bind((settings.host(), settings.port))?;
        let address = listener.local_addr()?;
        let state = web::Data::new(AppState {
            store,
            timezone: settings.timezone,
            max_summary_chars: settings.max_summary_chars as usize,
            load_budget_chars: settings.load_budget_chars as usize,
            retention: settings.retention(),
            public_url: settings.public_url.clone(),
            schema_post: settings.schema_post,
        });
        let server = serve(
            listener,
            state,
            web::Data::new(tokens),
            web::Data::new(admin_tokens),
            web::Data::new(RateLimit::per_minute(settings.rate_limit)),
            web::Data::new(TraceProject(settings.google_cloud_project.clone())),
        )?;
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
    let (token, created) = auth::local_token(&path)?;
    let spec = format!("{}:{token}", auth::LOCAL_NAMESPACE);
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
                Err(err) => tracing::error!(error = %err, "the retention purge failed"),
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

fn serve(
    listener: TcpListener,
    state: web::Data<AppState>,
    tokens: web::Data<Tokens>,
    admin_tokens: web::Data<AdminTokens>,
    rate_limit: web::Data<RateLimit>,
    trace_project: web::Data<TraceProject>,
) -> std::io::Result<Server> {
    let body_limit = json_body_limit(state.max_summary_chars);
    let server = HttpServer::new(move || {
        App::new()
            .wrap(from_fn(limits::request_size))
            .wrap(from_fn(telemetry::request_log))
            .app_data(state.clone())
            .app_data(tokens.clone())
            .app_data(admin_tokens.clone())
            .app_data(rate_limit.clone())
            .app_data(trace_project.clone())
            .app_data(
                web::JsonConfig::default()
                    .limit(body_limit)
                    .error_handler(move |err, _| json_error(err, body_limit).into()),
            )
            .service(
                web::resource("/")
                    .route(web::get().to(routes::memory_get))
                    .route(web::post().to(routes::memory_post))
                    .default_service(routes::method_not_allowed("GET, POST")),
            )
            .service(
                web::resource("/forget")
                    .route(web::get().to(routes::forget))
                    .default_service(routes::method_not_allowed("GET")),
            )
            .service(
                web::scope("/admin")
                    .service(
                        web::resource("/namespaces")
                            .route(web::get().to(routes::admin::namespaces))
                            .default_service(routes::method_not_allowed("GET")),
                    )
                    .service(
                        web::resource("/namespaces/{name}")
                            .route(web::delete().to(routes::admin::delete_namespace))
                            .default_service(routes::method_not_allowed("DELETE")),
                    )
                    .service(
                        web::resource("/export")
                            .route(web::get().to(routes::admin::export))
                            .default_service(routes::method_not_allowed("GET")),
                    ),
            )
            .route("/healthz", web::get().to(routes::healthz))
            .route("/readyz", web::get().to(routes::readyz))
            .route("/openapi.json", web::get().to(routes::openapi_json))
            .route("/openapi.yaml", web::get().to(routes::openapi_yaml))
            .route("/prompt", web::get().to(routes::prompt))
            .default_service(web::to(routes::not_found))
    })
    .listen(listener)?
    .shutdown_timeout(SHUTDOWN_GRACE_SECS)
    .run();
    Ok(server)
}

fn json_error(err: JsonPayloadError, limit: usize) -> ApiError {
    match err {
        JsonPayloadError::ContentType => ApiError::UnsupportedMediaType,
        JsonPayloadError::Overflow { .. } | JsonPayloadError::OverflowKnownLength { .. } => {
            ApiError::BodyTooLarge(limit)
        }
        other => ApiError::MalformedJson(other.to_string()),
    }
}
