//! `/mcp`: the MCP endpoint. It authenticates like every API route (same tokens, namespaces
//! and rate limit), then hands the request to the official SDK's Streamable HTTP transport,
//! stateless and answering JSON, with the namespace in the request's extensions.

use std::sync::Arc;

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::fallback::method_not_allowed;
use super::oauth::RESOURCE_METADATA_PATH;
use crate::credentials::AuthError;
use crate::http::auth::Authenticated;
use crate::http::error::ApiError;
use crate::http::limits;
use crate::http::state::AppState;
use crate::mcp::MemoryServer;
use crate::store::Usage;

/// The SDK's transport over kioku's tools.
pub type McpService = StreamableHttpService<MemoryServer, LocalSessionManager>;

/// The transport: stateless, so that any instance answers any request; JSON answers; the
/// `Origin` of a browser checked against the public URL (MCP transport spec, "Security
/// Warning"), and `Host` too when the server has one.
pub fn service(server: MemoryServer, public_url: Option<&str>, body_limit: usize) -> McpService {
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_max_request_body_bytes(body_limit)
        .enforce_origin_validation();
    config = match public_url.and_then(|url| url.parse::<http::Uri>().ok()) {
        Some(url) => {
            let scheme = url.scheme_str().unwrap_or("https");
            let host = url.host().unwrap_or_default().to_owned();
            // An explicit port: a browser's Origin without one means the scheme's default.
            let port = url
                .port_u16()
                .unwrap_or(if scheme == "http" { 80 } else { 443 });
            let origin = format!("{scheme}://{host}:{port}");
            config.with_allowed_origins([origin]).with_allowed_hosts([
                host,
                "localhost".into(),
                "127.0.0.1".into(),
            ])
        }
        // Without a public URL the host is not known; a bearer token is needed all the same.
        None => config.disable_allowed_hosts(),
    };
    StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    )
}

pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        // Stateless: no stream to GET and no session to DELETE, so POST alone.
        web::resource("/mcp")
            .route(web::post().to(mcp))
            .default_service(method_not_allowed("POST")),
    );
}

async fn mcp(
    auth: Result<Authenticated, ApiError>,
    req: HttpRequest,
    body: web::Payload,
    app: web::Data<AppState>,
    service: web::Data<McpService>,
) -> Result<HttpResponse, ApiError> {
    let Authenticated(ns) = match auth {
        Ok(auth) => auth,
        Err(err @ ApiError::Auth(_)) => return Ok(challenge(&err, &app.resource_base(&req))),
        Err(err) => return Err(err),
    };
    let body = read_body(body, app.body_limit()).await?;
    let target = req.uri().path_and_query().map_or("/mcp", |pq| pq.as_str());
    let mut request = http::Request::builder()
        .method(req.method().as_str())
        .uri(target);
    for (name, value) in req.headers() {
        request = request.header(name.as_str(), value.as_bytes());
    }
    let mut request = request
        .body(Full::new(body))
        .map_err(|e| ApiError::MalformedQuery(e.to_string()))?;
    request.extensions_mut().insert(ns);
    // The SDK runs the tool in a task of its own, beyond the request's count of store costs.
    if let Some(usage) = Usage::current() {
        request.extensions_mut().insert(usage);
    }
    let response = service.handle(request).await;
    let (parts, body) = response.into_parts();
    let mut answer = HttpResponse::build(
        StatusCode::from_u16(parts.status.as_u16()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
    );
    for (name, value) in &parts.headers {
        answer.append_header((name.as_str(), value.as_bytes()));
    }
    let event_stream = parts
        .headers
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
    if event_stream {
        return Ok(answer.streaming(body.into_data_stream()));
    }
    // A JSON answer is complete already: sent whole, with its length.
    let Ok(whole) = body.collect().await;
    Ok(answer.body(whole.to_bytes()))
}

/// The body, refused with 413 past `limit` bytes.
async fn read_body(mut payload: web::Payload, limit: usize) -> Result<web::Bytes, ApiError> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| match limits::timed_out(&e) {
            true => ApiError::BodyTimeout(limits::BODY_SECS),
            false => ApiError::MalformedJson(e.to_string()),
        })?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::BodyTooLarge(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// A refused credential, with where to learn how to get one (RFC 9728, section 5.1).
fn challenge(err: &ApiError, base_url: &str) -> HttpResponse {
    let mut response = err.error_response();
    // RFC 6750, section 3.1: a token that was presented and refused says so.
    let error = match err {
        ApiError::Auth(AuthError::InvalidAccessToken(_)) => r#"error="invalid_token", "#,
        _ => "",
    };
    let value = format!("Bearer {error}resource_metadata=\"{base_url}{RESOURCE_METADATA_PATH}\"");
    if let Ok(value) = header::HeaderValue::from_str(&value) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}
