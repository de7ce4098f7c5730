use actix_web::{HttpResponse, web};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::Authenticated;
use crate::domain::{Entry, Found, Lookup, Mode, Namespace, Summary, Thread, ThreadId, search};
use crate::error::{ApiError, ErrorBody};
use crate::startup::AppState;
use crate::store::{SaveOutcome, Trimmed};

use super::GptErrors;
use super::strict_query::StrictQuery;

/// The original function's parameters, as a query string or a JSON body.
#[derive(Debug, Default, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
pub struct MemoryRequest {
    /// `save` stores `summary` in the thread `thread_id`; `load` returns every saved thread.
    #[param(value_type = Mode, required = true, inline)]
    #[schema(value_type = Mode)]
    pub mode: Option<String>,
    /// `save`: the thread to save to; leave it out on the first save of a conversation and
    /// send the returned `thread_id` with every later save of it. `load`: only this thread.
    #[param(max_length = 256)]
    #[schema(max_length = 256)]
    pub thread_id: Option<String>,
    /// `save`: the summary of the conversation to remember, plain text.
    pub summary: Option<String>,
    /// `load`: keyword search. Returns the saved summaries holding every word (any script, no
    /// need to split Japanese; width and case do not matter), most matches first.
    pub q: Option<String>,
    /// `load`: only summaries saved at or after this time (RFC 3339, or YYYY-MM-DD).
    pub since: Option<String>,
    /// `load`: the `next_before` of a truncated answer, to get what it left out.
    pub before: Option<String>,
    /// `load`: at most this many threads (most recently saved), or results with `q`.
    pub limit: Option<String>,
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
        (status = 413, description = "The summary alone is larger than the store holds in a thread", body = ErrorBody),
        GptErrors,
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
        (status = 413, description = "The body is too large, or the summary alone larger than the store holds in a thread", body = ErrorBody),
        (status = 415, description = "The body is not sent as application/json", body = ErrorBody),
        GptErrors,
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
        Mode::Load => load(app, ns, req).await?,
    };
    Ok(HttpResponse::Ok().json(response))
}

/// What a save or a load answers.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum MemoryResponse {
    Saved(Saved),
    Loaded(Loaded),
    Searched(Searched),
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
    /// Summaries of this thread this save dropped, oldest first, to keep within the limits.
    #[serde(skip_serializing_if = "is_zero")]
    dropped_entries: u64,
    /// Least recently saved threads this save dropped, to keep within the thread limit.
    #[serde(skip_serializing_if = "is_zero")]
    dropped_threads: u64,
    /// What this save dropped, in a sentence to pass on to the user.
    #[serde(skip_serializing_if = "Option::is_none")]
    notice: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Tells the user what a save dropped, if anything.
fn notice(trimmed: &Trimmed) -> Option<String> {
    let entries = match trimmed.entries {
        0 => None,
        n if trimmed.for_size => Some(format!(
            "This thread reached the store's size limit, so its {n} oldest summaries were forgotten."
        )),
        n => Some(format!(
            "This thread's {n} oldest summaries were forgotten to keep within this memory's limits."
        )),
    };
    let threads = (trimmed.threads > 0).then(|| {
        format!(
            "The {} least recently saved threads were forgotten to keep within this memory's thread limit.",
            trimmed.threads
        )
    });
    let sentences: Vec<String> = entries.into_iter().chain(threads).collect();
    (!sentences.is_empty()).then(|| sentences.join(" "))
}

async fn save(
    app: &AppState,
    ns: &Namespace,
    req: MemoryRequest,
) -> Result<MemoryResponse, ApiError> {
    let summary = Summary::parse(req.summary, app.max_summary_chars)?;
    let thread = ThreadId::parse_or_new(req.thread_id.as_deref())?;
    let entry = Entry::now(summary, app.timezone);
    let SaveOutcome { trimmed, threads } =
        app.store.save(ns, &thread, &entry, &app.retention).await?;
    tracing::info!(
        namespace = %ns,
        thread_id = thread.as_str(),
        chars = entry.summary.chars().count(),
        dropped_entries = trimmed.entries,
        dropped_threads = trimmed.threads,
        "saved"
    );
    Ok(MemoryResponse::Saved(Saved {
        status: SaveStatus::Saved,
        count: threads,
        thread_id: thread.as_str().to_owned(),
        timestamp: entry.timestamp,
        dropped_entries: trimmed.entries,
        dropped_threads: trimmed.threads,
        notice: notice(&trimmed),
    }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum LoadStatus {
    Loaded,
    Empty,
}

/// Saved threads, within the answer's size budget.
#[derive(Serialize, ToSchema)]
pub struct Loaded {
    /// `empty` when nothing (that the filters admit) is saved.
    status: LoadStatus,
    /// How many threads `data` holds.
    count: usize,
    /// Each thread's summaries, oldest first, keyed by thread id; the most recently saved
    /// thread comes first.
    #[schema(value_type = std::collections::HashMap<String, Vec<Entry>>)]
    data: ThreadMap,
    #[serde(flatten)]
    truncation: Truncation,
}

/// Present only when the answer's size budget left summaries out.
#[derive(Serialize, ToSchema)]
pub struct Truncation {
    /// `true`: more is saved than this answer holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
    /// Summaries left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    omitted_entries: Option<u64>,
    /// Threads left out entirely.
    #[serde(skip_serializing_if = "Option::is_none")]
    omitted_threads: Option<u64>,
    /// Send as `before` (with the same other parameters) to get the older summaries; or narrow
    /// the load with `q` or `thread_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_before: Option<String>,
}

impl Truncation {
    fn new(omitted: Option<(u64, Option<u64>)>, next_before: Option<String>) -> Self {
        Self {
            truncated: omitted.map(|_| true),
            omitted_entries: omitted.map(|(entries, _)| entries),
            omitted_threads: omitted.and_then(|(_, threads)| threads),
            next_before,
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchStatus {
    Found,
    Empty,
}

/// Summaries holding every word of `q`, most matches first, then most recent.
#[derive(Serialize, ToSchema)]
pub struct Searched {
    status: SearchStatus,
    /// How many results `results` holds.
    count: usize,
    results: Vec<Found>,
    #[serde(flatten)]
    truncation: Truncation,
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

async fn load(
    app: &AppState,
    ns: &Namespace,
    req: MemoryRequest,
) -> Result<MemoryResponse, ApiError> {
    let lookup = Lookup::parse(
        req.thread_id.as_deref(),
        req.q.as_deref(),
        req.since.as_deref(),
        req.before.as_deref(),
        req.limit.as_deref(),
        app.timezone,
    )?
    .not_before(app.retention.cutoff());
    let budget = app.load_budget_chars;
    Ok(match lookup {
        Lookup::Page(filter) => {
            let page = app.store.page(ns, &filter, budget).await?;
            let omitted = page.omitted.map(|o| (o.entries, Some(o.threads)));
            MemoryResponse::Loaded(Loaded {
                status: if page.threads.is_empty() {
                    LoadStatus::Empty
                } else {
                    LoadStatus::Loaded
                },
                count: page.threads.len(),
                data: ThreadMap(page.threads),
                truncation: Truncation::new(omitted, page.next_before),
            })
        }
        Lookup::Search {
            filter,
            query,
            after,
        } => {
            let candidates = app.store.candidates(ns, &filter, &query).await?;
            let results = search(candidates, &query, &filter, after, budget);
            MemoryResponse::Searched(Searched {
                status: if results.found.is_empty() {
                    SearchStatus::Empty
                } else {
                    SearchStatus::Found
                },
                count: results.found.len(),
                results: results.found,
                truncation: Truncation::new(
                    results.omitted.map(|n| (n, None)),
                    results.next_before,
                ),
            })
        }
    })
}
