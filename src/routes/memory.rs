use actix_web::{HttpResponse, web};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::auth::Authenticated;
use crate::domain::{Entry, Mode, Namespace, Summary, Thread, ThreadId};
use crate::error::ApiError;
use crate::startup::AppState;

/// The original function's parameters, as a query string or a JSON body.
#[derive(Debug, Default, Deserialize)]
pub struct MemoryRequest {
    pub mode: Option<String>,
    pub thread_id: Option<String>,
    pub summary: Option<String>,
}

/// `GET /?mode=save|load&thread_id=…&summary=…`, the original's contract.
pub async fn memory_get(
    Authenticated(ns): Authenticated,
    query: web::Query<MemoryRequest>,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    handle(&app, &ns, query.into_inner()).await
}

/// `POST /` with the same fields as JSON, for long summaries.
pub async fn memory_post(
    Authenticated(ns): Authenticated,
    body: web::Json<MemoryRequest>,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    handle(&app, &ns, body.into_inner()).await
}

async fn handle(
    app: &AppState,
    ns: &Namespace,
    req: MemoryRequest,
) -> Result<HttpResponse, ApiError> {
    match Mode::parse(req.mode.as_deref())? {
        Mode::Save => save(app, ns, req).await,
        Mode::Load => load(app, ns).await,
    }
}

#[derive(Serialize)]
struct Saved {
    status: &'static str,
    count: u64,
    thread_id: String,
    timestamp: String,
}

async fn save(
    app: &AppState,
    ns: &Namespace,
    req: MemoryRequest,
) -> Result<HttpResponse, ApiError> {
    let summary = Summary::parse(req.summary, app.max_summary_chars)?;
    let thread = ThreadId::parse_or_new(req.thread_id.as_deref())?;
    let entry = Entry::now(summary, app.timezone);
    app.store.save(ns, &thread, &entry).await?;
    let count = app.store.count(ns).await?;
    tracing::info!(namespace = %ns, thread_id = thread.as_str(), chars = entry.summary.chars().count(), "saved");
    Ok(HttpResponse::Ok().json(Saved {
        status: "saved",
        count,
        thread_id: thread.as_str().to_owned(),
        timestamp: entry.timestamp,
    }))
}

#[derive(Serialize)]
struct Loaded {
    status: &'static str,
    count: usize,
    data: ThreadMap,
}

/// Threads as a JSON object keyed by thread id, in the store's order (most recent first).
struct ThreadMap(Vec<Thread>);

impl Serialize for ThreadMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for thread in &self.0 {
            map.serialize_entry(&thread.id, &thread.entries)?;
        }
        map.end()
    }
}

async fn load(app: &AppState, ns: &Namespace) -> Result<HttpResponse, ApiError> {
    let threads = app.store.load(ns).await?;
    Ok(HttpResponse::Ok().json(Loaded {
        status: if threads.is_empty() {
            "empty"
        } else {
            "loaded"
        },
        count: threads.len(),
        data: ThreadMap(threads),
    }))
}
