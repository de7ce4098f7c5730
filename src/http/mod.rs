//! The HTTP boundary, and the only module that knows actix-web: the server (each connection
//! read through `connection`, which makes raw request targets readable) and its middleware,
//! the extractors that authenticate, the route table and its handlers (the GPT Action's API,
//! the MCP endpoint, OAuth's, the operator's), the HTML pages (`pages`), the OpenAPI schema,
//! and the mapping of every error to an HTTP answer.

mod auth;
mod connection;
mod cookies;
mod error;
mod head_deadline;
mod limits;
mod pages;
mod request_log;
mod request_target;
mod routes;
pub mod schema;
mod state;
mod strict_query;

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_http::{HttpService, Protocol};
use actix_server::Server;
use actix_service::{IntoServiceFactory, ServiceFactoryExt, fn_service, map_config};
use actix_web::dev::AppConfig;
use actix_web::error::JsonPayloadError;
use actix_web::http::header;
use actix_web::middleware::{DefaultHeaders, from_fn};
use actix_web::{App, web};
use tokio::net::TcpStream;

use crate::mcp::{self, MemoryServer};
use error::ApiError;
pub use pages::Privacy;
pub use state::{AppState, Site};

/// Seconds in-flight requests get to finish after SIGTERM; Cloud Run allows 10.
const SHUTDOWN_GRACE_SECS: u64 = 8;
/// Connections each worker (one a core) holds at once; more wait in the listen backlog. Far
/// above Cloud Run's concurrency (80 requests an instance), and a bound on what held
/// connections cost a self-hosted instance: each holds at most a request head and a body of
/// its endpoint's limit, for at most [`HEAD_TIMEOUT`] and then [`limits::BODY_SECS`].
const MAX_CONNECTIONS_PER_WORKER: usize = 2_048;
/// How long a connection may take to send a request's head (actix's default, made explicit),
/// every head of it (`connection`).
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a kept-alive connection may sit idle after an answer (actix's default, made
/// explicit).
const KEEP_ALIVE: Duration = Duration::from_secs(5);
/// How long a closing connection may take to go (actix-web's default, made explicit).
const DISCONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// Serves on `listener` until SIGTERM or SIGINT, then lets in-flight requests finish.
pub fn serve(listener: TcpListener, state: AppState) -> std::io::Result<Server> {
    let body_limit = state.body_limit();
    let tools = MemoryServer::new(Arc::clone(&state.memory), mcp::instructions());
    let local = listener.local_addr()?;
    let mcp = web::Data::new(routes::mcp_endpoint(
        tools,
        state.site.public_url.as_deref(),
        local,
        body_limit,
    ));
    let state = web::Data::new(state);
    let builder = Server::build();
    let shutdown = builder.graceful_shutdown_signal();
    // actix-web's HttpServer, assembled from its parts so that each connection is read through
    // `Connection`, which makes raw request targets readable.
    let server = builder
        .max_concurrent_connections(MAX_CONNECTIONS_PER_WORKER)
        .shutdown_timeout(SHUTDOWN_GRACE_SECS)
        .listen("kioku", listener, move || {
            let app = App::new()
                .wrap(from_fn(limits::body_deadline))
                .wrap(from_fn(limits::request_size))
                .wrap(
                    // Every answer, unless its handler says otherwise: never sniffed as another
                    // type, never cached (memories and tokens are private to their holder).
                    DefaultHeaders::new()
                        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
                        .add((header::CACHE_CONTROL, "no-store")),
                )
                .wrap(from_fn(request_log::request_log))
                .app_data(state.clone())
                .app_data(mcp.clone())
                .app_data(
                    web::JsonConfig::default()
                        .limit(body_limit)
                        .error_handler(move |err, _| json_error(err, body_limit).into()),
                )
                // Pages first: the memory page takes `/` from a browser that asks for a page.
                .configure(pages::register)
                .configure(routes::configure);
            let shutdown = shutdown.clone();
            let http = HttpService::build()
                .client_request_timeout(HEAD_TIMEOUT)
                .keep_alive(KEEP_ALIVE)
                .client_disconnect_timeout(DISCONNECT_TIMEOUT)
                .local_addr(local)
                // Idle kept-alive connections close when shutdown begins, as HttpServer's do.
                .graceful_shutdown_signal(move || {
                    let shutdown = shutdown.clone();
                    async move { shutdown.notified().await }
                })
                .finish(map_config(
                    app.into_factory().map_err(|err| err.error_response()),
                    |_| AppConfig::default(),
                ));
            fn_service(|io: TcpStream| async move {
                let peer = io.peer_addr().ok();
                Ok((
                    connection::Connection::new(io, HEAD_TIMEOUT),
                    Protocol::Http1,
                    peer,
                ))
            })
            .and_then(http)
        })?
        .run();
    Ok(server)
}

fn json_error(err: JsonPayloadError, limit: usize) -> ApiError {
    match err {
        JsonPayloadError::ContentType => ApiError::UnsupportedMediaType,
        JsonPayloadError::Payload(err) if limits::timed_out(&err) => {
            ApiError::BodyTimeout(limits::BODY_SECS)
        }
        JsonPayloadError::Overflow { .. } | JsonPayloadError::OverflowKnownLength { .. } => {
            ApiError::BodyTooLarge(limit)
        }
        other => ApiError::MalformedJson(other.to_string()),
    }
}
