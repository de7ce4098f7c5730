//! The request log: one line per request, never a query string, a token or a summary.

use std::sync::Arc;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, web};

use super::state::AppState;
use crate::domain::Namespace;
use crate::store::Usage;

/// What an unmatched path is logged as: the path itself could be anything a client sent, a
/// token or 64 KB of text included.
const UNMATCHED: &str = "(unmatched)";
/// A Cloud Trace id: 32 hex digits.
const TRACE_ID_HEX: usize = 32;

/// Logs one line per request: method, the route's pattern (`/admin/namespaces/{name}`: a bare
/// token's namespace name is the token) and never the path a client sent nor its query (it
/// carries summaries), status, latency, namespace label, trace, and on Firestore the documents
/// the request read and wrote.
pub async fn request_log(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let method = req.method().to_string();
    let trace = trace_field(&req);
    let usage = Arc::new(Usage::default());
    let response = Arc::clone(&usage).scope(next.call(req)).await?;
    let firestore = usage.firestore();
    let path = response
        .request()
        .match_pattern()
        .unwrap_or_else(|| UNMATCHED.to_owned());
    let status = response.status().as_u16();
    let namespace = response
        .request()
        .extensions()
        .get::<Namespace>()
        .map(|ns| ns.label().to_owned());
    tracing::info!(
        httpRequest.requestMethod = %method,
        httpRequest.requestUrl = %path,
        httpRequest.status = status,
        httpRequest.latency = %format!("{:.6}s", started.elapsed().as_secs_f64()),
        namespace = namespace.as_deref().unwrap_or("-"),
        trace = trace.as_deref(),
        firestore_calls = firestore.map(|billed| billed.calls),
        firestore_reads = firestore.map(|billed| billed.reads),
        firestore_writes = firestore.map(|billed| billed.writes),
        "{method} {path} {status}"
    );
    Ok(response)
}

/// `projects/<project>/traces/<id>` from `X-Cloud-Trace-Context: <id>/<span>;o=1`; anything
/// but a 32-hex-digit id is not logged, since any client can send the header.
fn trace_field(req: &ServiceRequest) -> Option<String> {
    let header = req.headers().get("x-cloud-trace-context")?.to_str().ok()?;
    let id = header.split(['/', ';']).next()?;
    if id.len() != TRACE_ID_HEX || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let app = req.app_data::<web::Data<AppState>>()?;
    Some(match &app.site.trace_project {
        Some(project) => format!("projects/{project}/traces/{id}"),
        None => id.to_owned(),
    })
}
