//! `/`: the original function's save and load, as a query string (`GET`) or a JSON body
//! (`POST`).

use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::fallback::method_not_allowed;
use super::gpt_errors::GptErrors;
use crate::domain::{Mode, Namespace};
use crate::error_code::ErrorBody;
use crate::http::auth::Authenticated;
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::http::strict_query::StrictQuery;
use crate::memory::{LoadAnswer, LoadRequest, Loaded, Saved, Searched};

pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/")
            .route(web::get().to(memory_get))
            .route(web::post().to(memory_post))
            .default_service(method_not_allowed("GET, POST")),
    );
}

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
        (status = 408, description = "The body took too long to arrive", body = ErrorBody),
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
    let memory = &app.memory;
    let response = match Mode::parse(req.mode.as_deref())? {
        Mode::Save => MemoryResponse::Saved(
            memory
                .save(ns, req.summary, req.thread_id.as_deref())
                .await?,
        ),
        Mode::Load => {
            let load = LoadRequest {
                thread_id: req.thread_id,
                q: req.q,
                since: req.since,
                before: req.before,
                limit: req.limit,
            };
            match memory.load(ns, &load).await? {
                LoadAnswer::Loaded(loaded) => MemoryResponse::Loaded(loaded),
                LoadAnswer::Searched(searched) => MemoryResponse::Searched(searched),
            }
        }
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
