use actix_web::{HttpResponse, web};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, IntoResponses, ToSchema};

use crate::auth::Authenticated;
use crate::domain::{Entry, Mode, Namespace, Summary, Thread, ThreadId};
use crate::error::{ApiError, ErrorBody};
use crate::startup::AppState;

use super::strict_query::StrictQuery;

/// The original function's parameters, as a query string or a JSON body.
#[derive(Debug, Default, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
pub struct MemoryRequest {
    /// `save` stores `summary` in the thread `thread_id`; `load` returns every saved thread.
    #[param(value_type = Mode, required = true, inline)]
    #[schema(value_type = Mode)]
    pub mode: Option<String>,
    /// The thread to save to. Leave it out on the first save of a conversation: the answer
    /// carries a new `thread_id` to send with every later save of the same conversation.
    /// Ignored by `load`.
    #[param(max_length = 256)]
    #[schema(max_length = 256)]
    pub thread_id: Option<String>,
    /// For `save`: the summary of the conversation to remember, plain text. Ignored by `load`.
    pub summary: Option<String>,
}

/// `GET /?mode=save|load&thread_id=…&summary=…`, the original's contract.
#[utoipa::path(
    get,
    path = "/",
    tag = "memory",
    operation_id = "mngMemory",
    summary = "Save or load the user's memories",
    description = "mode=save stores a summary of this conversation under thread_id (leave it out the first time; reuse the one returned). mode=load returns every saved thread, most recent first, each with its summaries oldest first.",
    params(MemoryRequest),
    responses(
        (status = 200, description = "Saved, or loaded", body = MemoryResponse),
        MemoryErrors,
    ),
    security(("bearer" = [])),
    extensions(("x-openai-isConsequential" = json!(false))),
)]
pub async fn memory_get(
    Authenticated(ns): Authenticated,
    StrictQuery(query): StrictQuery<MemoryRequest>,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    handle(&app, &ns, query).await
}

/// `POST /` with the same fields as JSON, for long summaries.
#[utoipa::path(
    post,
    path = "/",
    tag = "memory",
    operation_id = "mngMemoryPost",
    summary = "Save or load the user's memories (JSON body)",
    description = "The same as mngMemory, with the parameters in a JSON body, for long summaries.",
    request_body = MemoryRequest,
    responses(
        (status = 200, description = "Saved, or loaded", body = MemoryResponse),
        (status = 413, description = "The body is too large", body = ErrorBody),
        (status = 415, description = "The body is not sent as application/json", body = ErrorBody),
        MemoryErrors,
    ),
    security(("bearer" = [])),
    extensions(("x-openai-isConsequential" = json!(false))),
)]
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
    let response = match Mode::parse(req.mode.as_deref())? {
        Mode::Save => save(app, ns, req).await?,
        Mode::Load => load(app, ns).await?,
    };
    Ok(HttpResponse::Ok().json(response))
}

/// The errors both memory operations answer; each body is an [`ErrorBody`].
#[derive(IntoResponses)]
#[allow(dead_code)] // documentation only: ApiError builds the real answers
enum MemoryErrors {
    /// A parameter is missing or invalid; `message` says which and how to fix it
    #[response(status = 400)]
    BadRequest(ErrorBody),
    /// No `Authorization: Bearer` token was sent
    #[response(status = 401)]
    Unauthorized(ErrorBody),
    /// The token is not known to this server
    #[response(status = 403)]
    Forbidden(ErrorBody),
    /// The thread is full; save to a new thread by leaving out thread_id
    #[response(status = 409)]
    ThreadFull(ErrorBody),
    /// The request target is too long; send long summaries with POST
    #[response(status = 414)]
    UriTooLong(ErrorBody),
    /// Too many requests; retry after `Retry-After` seconds
    #[response(status = 429, headers(("Retry-After" = u32, description = "Seconds to wait before retrying")))]
    TooManyRequests(ErrorBody),
    /// The request headers are too large
    #[response(status = 431)]
    HeadersTooLarge(ErrorBody),
    /// Memory is unavailable for a moment; retry after `Retry-After` seconds
    #[response(status = 503, headers(("Retry-After" = u32, description = "Seconds to wait before retrying")))]
    Unavailable(ErrorBody),
}

/// What a save or a load answers.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum MemoryResponse {
    Saved(Saved),
    Loaded(Loaded),
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SaveStatus {
    Saved,
}

/// The summary was saved.
#[derive(Serialize, ToSchema)]
pub struct Saved {
    status: SaveStatus,
    /// How many threads this memory holds now.
    count: u64,
    /// The thread saved to; send it with later saves of this conversation.
    thread_id: String,
    /// When the summary was saved.
    timestamp: String,
}

async fn save(
    app: &AppState,
    ns: &Namespace,
    req: MemoryRequest,
) -> Result<MemoryResponse, ApiError> {
    let summary = Summary::parse(req.summary, app.max_summary_chars)?;
    let thread = ThreadId::parse_or_new(req.thread_id.as_deref())?;
    let entry = Entry::now(summary, app.timezone);
    app.store.save(ns, &thread, &entry).await?;
    let count = app.store.count(ns).await?;
    tracing::info!(namespace = %ns, thread_id = thread.as_str(), chars = entry.summary.chars().count(), "saved");
    Ok(MemoryResponse::Saved(Saved {
        status: SaveStatus::Saved,
        count,
        thread_id: thread.as_str().to_owned(),
        timestamp: entry.timestamp,
    }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum LoadStatus {
    Loaded,
    Empty,
}

/// Every saved thread.
#[derive(Serialize, ToSchema)]
pub struct Loaded {
    /// `empty` when nothing is saved yet.
    status: LoadStatus,
    /// How many threads `data` holds.
    count: usize,
    /// Each thread's summaries, oldest first, keyed by thread id; the most recently saved
    /// thread comes first.
    #[schema(value_type = std::collections::HashMap<String, Vec<Entry>>)]
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

async fn load(app: &AppState, ns: &Namespace) -> Result<MemoryResponse, ApiError> {
    let threads = app.store.load(ns).await?;
    Ok(MemoryResponse::Loaded(Loaded {
        status: if threads.is_empty() {
            LoadStatus::Empty
        } else {
            LoadStatus::Loaded
        },
        count: threads.len(),
        data: ThreadMap(threads),
    }))
}
