//! `/mcp`: the MCP endpoint. It authenticates like every API route (same tokens, namespaces
//! and rate limit), then hands the request to the official SDK's Streamable HTTP transport,
//! stateless and answering JSON, with the namespace in the request's extensions. A plain tool
//! call, which that transport would take as it is, kioku answers itself (`mcp::ToolCall`).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use http_body_util::{BodyExt, Full};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::fallback::method_not_allowed;
use super::oauth::RESOURCE_METADATA_PATH;
use crate::credentials::AuthError;
use crate::domain::Door;
use crate::error_code::ErrorCode;
use crate::http::auth::let_in;
use crate::http::error::ApiError;
use crate::http::limits;
use crate::http::state::AppState;
use crate::mcp::{MemoryServer, PageUrl, Standard, ToolCall};
use crate::oauth::SCOPE;
use crate::store::Usage;

/// The MCP endpoint: kioku's tools behind the SDK's transport, and the hosts that transport
/// allows, which a plain tool call is held to as well (`direct_call`).
pub struct McpEndpoint {
    sdk: StreamableHttpService<MemoryServer, LocalSessionManager>,
    tools: MemoryServer,
    /// Empty when the public URL is not known, as the SDK's check then is.
    hosts: Vec<String>,
}

/// The transport: stateless, so that any instance answers any request; JSON answers; the
/// `Origin` of a browser checked (MCP transport spec, "Security Warning") against the public
/// URL, or without one against the address kioku listens on, and `Host` too when the server
/// has a public URL.
pub fn endpoint(
    tools: MemoryServer,
    public_url: Option<&str>,
    listen: SocketAddr,
    body_limit: usize,
) -> McpEndpoint {
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_max_request_body_bytes(body_limit)
        .enforce_origin_validation();
    let mut hosts = Vec::new();
    if let Some(url) = public_url.and_then(|url| url.parse::<http::Uri>().ok()) {
        let scheme = url.scheme_str().unwrap_or("https");
        let host = url.host().unwrap_or_default().to_owned();
        // An explicit port: a browser's Origin without one means the scheme's default.
        let port = url
            .port_u16()
            .unwrap_or(if scheme == "http" { 80 } else { 443 });
        hosts = vec![host.clone(), "localhost".into(), "127.0.0.1".into()];
        // A URL without a host allows none of its own (the SDK drops an empty entry too).
        hosts.retain(|h| !h.is_empty());
        config = config
            .with_allowed_origins([format!("{scheme}://{host}:{port}")])
            .with_allowed_hosts(hosts.clone());
    } else {
        // Without a public URL the host is not known; a bearer token is needed all the same.
        config = config
            .with_allowed_origins(local_origins(listen))
            .disable_allowed_hosts();
    }
    let server = tools.clone();
    let sdk = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    McpEndpoint { sdk, tools, hosts }
}

/// The origins of pages served from the address kioku listens on, as a browser names them: a
/// local run's own pages (the MCP Inspector's, say), and nobody else's.
fn local_origins(listen: SocketAddr) -> Vec<String> {
    let port = listen.port();
    let mut hosts = vec![
        "127.0.0.1".to_owned(),
        "localhost".to_owned(),
        "[::1]".to_owned(),
    ];
    let ip = listen.ip();
    if !ip.is_loopback() && !ip.is_unspecified() {
        hosts.push(match ip {
            IpAddr::V4(ip) => ip.to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
        });
    }
    hosts
        .into_iter()
        .map(|host| format!("http://{host}:{port}"))
        .collect()
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
    req: HttpRequest,
    body: web::Payload,
    app: web::Data<AppState>,
    endpoint: web::Data<McpEndpoint>,
) -> Result<HttpResponse, ApiError> {
    let caller = match let_in(&req, &app, Door::Mcp).await {
        Ok(caller) => caller,
        Err(err @ ApiError::Auth(_)) => return Ok(challenge(&err, &app.resource_base(&req))),
        Err(err) => return Err(err),
    };
    let body = limits::read_body(body, app.body_limit()).await?;
    if let Some(call) = direct_call(&req, &body, &endpoint.hosts)
        && let Some(answer) = endpoint.tools.answer(&caller, call).await
    {
        return Ok(HttpResponse::Ok()
            .insert_header(header::ContentType::json())
            .body(answer));
    }
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
    request.extensions_mut().insert(caller);
    let page = PageUrl(format!("{}/app", app.site.base_url(&req)));
    request.extensions_mut().insert(page);
    // The SDK runs the tool in a task of its own, beyond the request's count of store costs.
    if let Some(usage) = Usage::current() {
        request.extensions_mut().insert(usage);
    }
    let response = endpoint.sdk.handle(request).await;
    let (parts, body) = response.into_parts();
    let mut answer = HttpResponse::build(
        StatusCode::from_u16(parts.status.as_u16()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
    );
    for (name, value) in &parts.headers {
        answer.append_header((name.as_str(), value.as_bytes()));
    }
    let content_type = parts.headers.get(http::header::CONTENT_TYPE);
    let is = |prefix: &[u8]| content_type.is_some_and(|t| t.as_bytes().starts_with(prefix));
    if is(b"text/event-stream") {
        return Ok(answer.streaming(body.into_data_stream()));
    }
    // A JSON answer is complete already: sent whole, with its length.
    let Ok(whole) = body.collect().await;
    let whole = whole.to_bytes();
    if parts.status.is_client_error() && !is(b"application/json") {
        return Err(transport_refusal(parts.status.as_u16(), &whole));
    }
    Ok(answer.body(whole))
}

/// A refusal the SDK's transport writes as plain text, as every other refusal of kioku's is
/// written: JSON with a code, and a message that says what to change.
fn transport_refusal(status: u16, text: &[u8]) -> ApiError {
    let said = String::from_utf8_lossy(text);
    let (code, message) = match status {
        403 => (
            ErrorCode::OriginNotAllowed,
            format!(
                "{said}. This server takes MCP requests from its own origin and host only: \
                 connect from an MCP client (which sends no Origin), or set KIOKU_PUBLIC_URL \
                 to the URL clients use."
            ),
        ),
        405 => return ApiError::MethodNotAllowed("POST"),
        406 => (
            ErrorCode::NotAcceptable,
            format!("{said}. Send `Accept: application/json, text/event-stream`."),
        ),
        415 => return ApiError::UnsupportedMediaType,
        // 400, and any other the stateless transport has no cause to send (404 names a
        // session, and none is kept): the request is one it cannot take.
        _ => (
            ErrorCode::InvalidMcpRequest,
            format!("{said}. Send a JSON-RPC request as the MCP Streamable HTTP transport has it."),
        ),
    };
    ApiError::McpTransport { code, message }
}

/// A plain tool call, sent as the SDK accepts it on every count: no `Origin` (not a browser's
/// page), a `Host` that is a plain authority and allowed, both answer types accepted in plain
/// form, a JSON body, a version given and no other `Mcp-` header than SEP-2243's `Mcp-Method`
/// and `Mcp-Name`, once each (which `ToolCall::read` holds to the body as the SDK does).
/// Everything else goes to the SDK, whose checks then apply as they are.
fn direct_call(req: &HttpRequest, body: &[u8], hosts: &[String]) -> Option<ToolCall> {
    let headers = req.headers();
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    // Parsed as the SDK parses it: `a:1@b` names `b`, and what is no authority is refused.
    let host_allowed = text(header::HOST.as_str())
        .and_then(|host| host.parse::<http::uri::Authority>().ok())
        .is_some_and(|host| {
            !host.as_str().contains('@')
                && (hosts.is_empty() || hosts.iter().any(|h| h.eq_ignore_ascii_case(host.host())))
        });
    let accept: Vec<_> = text(header::ACCEPT.as_str())?
        .split(',')
        .map(str::trim)
        .collect();
    let accepts_both = accept.len() == 2
        && accept
            .iter()
            .any(|t| t.eq_ignore_ascii_case("application/json"))
        && accept
            .iter()
            .any(|t| t.eq_ignore_ascii_case("text/event-stream"));
    let json_body = text(header::CONTENT_TYPE.as_str())
        .and_then(|t| t.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
    let known = ["mcp-protocol-version", "mcp-method", "mcp-name"];
    let other_mcp_header = headers
        .keys()
        .any(|name| name.as_str().starts_with("mcp-") && !known.contains(&name.as_str()));
    let once = |name: &str| headers.get_all(name).count() <= 1;
    let plain = !headers.contains_key(header::ORIGIN)
        && host_allowed
        && accepts_both
        && json_body
        && !other_mcp_header
        && known.iter().all(|name| once(name));
    let standard = Standard {
        method: text("mcp-method"),
        name: text("mcp-name"),
    };
    // A header that is not text is no plain one.
    let readable = ["mcp-method", "mcp-name"]
        .iter()
        .all(|name| !headers.contains_key(*name) || text(name).is_some());
    (plain && readable).then(|| ToolCall::read(body, text("mcp-protocol-version")?, standard))?
}

/// A refused credential, with where to learn how to get one (RFC 9728, section 5.1) and the
/// scope to ask for (MCP authorization, "Scope Selection Strategy").
fn challenge(err: &ApiError, base_url: &str) -> HttpResponse {
    let mut response = err.error_response();
    // RFC 6750, section 3.1: a token that was presented and refused says so.
    let error = match err {
        ApiError::Auth(AuthError::InvalidAccessToken { .. }) => r#"error="invalid_token", "#,
        _ => "",
    };
    let value = format!(
        "Bearer {error}resource_metadata=\"{base_url}{RESOURCE_METADATA_PATH}\", scope=\"{SCOPE}\""
    );
    if let Ok(value) = header::HeaderValue::from_str(&value) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;
    use serde_json::json;

    use super::direct_call;

    /// A 2026-07-28 `tools/call` of `load_memories`, with the headers `extra` adds.
    fn taken(extra: &[(&str, &str)]) -> bool {
        let body = json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "load_memories", "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            }},
        });
        let mut request = TestRequest::post()
            .uri("/mcp")
            .insert_header(("host", "kioku.example"))
            .insert_header(("accept", "application/json, text/event-stream"))
            .insert_header(("content-type", "application/json"))
            .insert_header(("mcp-protocol-version", "2026-07-28"));
        for header in extra {
            request = request.append_header(*header);
        }
        let hosts = ["kioku.example".to_owned()];
        direct_call(
            &request.to_http_request(),
            body.to_string().as_bytes(),
            &hosts,
        )
        .is_some()
    }

    #[test]
    fn a_stateless_call_is_taken_with_its_method_and_name_once_each() {
        let method = ("mcp-method", "tools/call");
        let name = ("mcp-name", "load_memories");
        assert!(taken(&[method, name]));
        assert!(!taken(&[name]));
        assert!(!taken(&[method]));
        assert!(!taken(&[method, name, name]));
        assert!(!taken(&[method, method, name]));
        assert!(!taken(&[method, ("mcp-name", "save_memory")]));
        assert!(!taken(&[method, name, ("mcp-param-q", "x")]));
    }
}
