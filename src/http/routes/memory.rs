//! `/`: the original function's save and load, as a query string (`GET`) or a JSON body
//! (`POST`).

use actix_web::http::header::ContentType;
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::fallback::method_not_allowed;
use super::gpt_errors::GptErrors;
use crate::domain::{Caller, Mode};
use crate::error_code::ErrorBody;
use crate::http::auth::Authenticated;
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::http::strict_query::StrictQuery;
use crate::memory::{
    LoadAnswer, LoadRequest, Loaded, ProfileAnswer, ProfileRead, ProfileRequest, ProfileSaved,
    SaveRequest, Saved, Searched, sent,
};

pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/")
            .route(web::get().to(memory_get))
            .route(web::post().to(memory_post))
            .default_service(method_not_allowed("GET, POST")),
    );
}

/// The original function's parameters, as a query string or a JSON body; any other is refused
/// (a misspelt `sumary` is named, not dropped).
#[derive(Debug, Default, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct MemoryRequest {
    /// `save` stores `summary` in the thread `thread_id`; `load` returns the profile and the
    /// saved threads; `profile` reads the profile, or with `profile` rewrites it.
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
    /// `load`: search. Send the person's question, or their message as they wrote it, in any
    /// language; the summaries most relevant to it come back, best first, each with the terms
    /// it `matched`.
    pub q: Option<String>,
    /// `load`: only summaries saved at or after this time (RFC 3339, or YYYY-MM-DD).
    pub since: Option<String>,
    /// `load`: the `next_before` of a truncated answer, to get what it left out.
    pub before: Option<String>,
    /// `load`: at most this many threads (most recently saved), or results with `q`.
    #[param(value_type = Option<u32>, minimum = 1)]
    #[schema(value_type = Option<u32>, minimum = 1)]
    #[serde(default, deserialize_with = "sent::as_text")]
    pub limit: Option<String>,
    /// `profile`: the whole new profile (durable facts, preferences, goals, tone), plain text;
    /// leave it out to read the profile.
    pub profile: Option<String>,
    /// `profile`: the `version` the rewrite is based on (0 when the profile was empty); if
    /// another is current, nothing is written and 409 carries it.
    #[param(value_type = Option<u64>, minimum = 0)]
    #[schema(value_type = Option<u64>, minimum = 0)]
    #[serde(default, deserialize_with = "sent::as_text")]
    pub expected_version: Option<String>,
    /// `profile`: read this earlier version instead (the newest 20 are kept).
    #[param(value_type = Option<u64>, minimum = 1)]
    #[schema(value_type = Option<u64>, minimum = 1)]
    #[serde(default, deserialize_with = "sent::as_text")]
    pub version: Option<String>,
}

/// `GET /?mode=save|load&thread_id=…&summary=…`, the original's contract.
#[utoipa::path(
    get,
    path = "/",
    tag = "memory",
    operation_id = "mngMemory",
    summary = "Save or load the user's memories",
    description = "mode=save stores a summary of this conversation under thread_id (leave it out the first time; reuse the one returned). mode=load returns the user's profile, then the saved threads, most recent first. mode=profile reads the profile, or with profile rewrites it.",
    params(MemoryRequest),
    responses(
        (status = 200, description = "Saved, or loaded", body = MemoryResponse),
        (status = 404, description = "mode=profile: no such profile version is kept", body = ErrorBody),
        (status = 409, description = "mode=profile: the profile changed since expected_version; `current` holds it", body = ErrorBody),
        (status = 413, description = "The summary alone is larger than the store holds in a thread", body = ErrorBody),
        GptErrors,
    ),
    security(("bearer" = [])),
    extensions(("x-openai-isConsequential" = json!(false))),
)]
pub async fn memory_get(
    Authenticated(caller): Authenticated,
    StrictQuery(query): StrictQuery<MemoryRequest>,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    handle(&app, &caller, query).await
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
        (status = 404, description = "mode=profile: no such profile version is kept", body = ErrorBody),
        (status = 408, description = "The body took too long to arrive", body = ErrorBody),
        (status = 409, description = "mode=profile: the profile changed since expected_version; `current` holds it", body = ErrorBody),
        (status = 413, description = "The body is too large, or the summary alone larger than the store holds in a thread", body = ErrorBody),
        (status = 415, description = "The body is not sent as application/json", body = ErrorBody),
        GptErrors,
    ),
    security(("bearer" = [])),
    extensions(("x-openai-isConsequential" = json!(false))),
)]
pub async fn memory_post(
    Authenticated(caller): Authenticated,
    body: web::Json<MemoryRequest>,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    handle(&app, &caller, body.into_inner()).await
}

async fn handle(
    app: &AppState,
    caller: &Caller,
    req: MemoryRequest,
) -> Result<HttpResponse, ApiError> {
    let memory = &app.memory;
    let response = match Mode::parse(req.mode.as_deref())? {
        Mode::Save => {
            let save = SaveRequest {
                summary: req.summary,
                thread_id: req.thread_id,
            };
            MemoryResponse::Saved(memory.save(caller, save).await?)
        }
        Mode::Load => {
            let load = LoadRequest {
                thread_id: req.thread_id,
                q: req.q,
                since: req.since,
                before: req.before,
                limit: req.limit,
            };
            match memory.load(&caller.namespace, &load).await? {
                LoadAnswer::Loaded(loaded) => MemoryResponse::Loaded(loaded),
                LoadAnswer::Searched(searched) => MemoryResponse::Searched(searched),
            }
        }
        Mode::Profile => {
            let profile = ProfileRequest {
                profile: req.profile,
                version: req.version,
                expected_version: req.expected_version,
            };
            match memory.profile(caller, profile).await? {
                ProfileAnswer::Read(read) => MemoryResponse::Profile(read),
                ProfileAnswer::Saved(saved) => MemoryResponse::ProfileSaved(saved),
            }
        }
    };
    Ok(match response {
        // Written directly, faster than serde_json and as it writes (`Loaded::to_json`).
        MemoryResponse::Loaded(loaded) => HttpResponse::Ok()
            .content_type(ContentType::json())
            .body(loaded.to_json()),
        other => HttpResponse::Ok().json(other),
    })
}

/// What a save, a load or a profile request answers.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum MemoryResponse {
    Saved(Saved),
    Loaded(Loaded),
    Searched(Searched),
    Profile(ProfileRead),
    ProfileSaved(ProfileSaved),
}
