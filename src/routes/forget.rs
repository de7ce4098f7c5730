use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::Authenticated;
use crate::domain::{ThreadId, ValidationError, parse_timestamp};
use crate::error::{ApiError, ErrorBody};
use crate::startup::AppState;

use super::GptErrors;
use super::strict_query::StrictQuery;

/// What to forget: a thread, or one summary of it.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ForgetRequest {
    /// The thread to forget, as a load shows it.
    #[param(required = true, max_length = 256)]
    pub thread_id: Option<String>,
    /// Forget only the summary saved at this time: its `timestamp` exactly as a load shows it.
    /// Leave it out to forget the whole thread.
    pub timestamp: Option<String>,
}

/// `GET /forget?thread_id=…[&timestamp=…]`: deletes for good, so ChatGPT asks the user first.
#[utoipa::path(
    get,
    path = "/forget",
    tag = "memory",
    operation_id = "forgetMemory",
    summary = "Forget a saved thread, or one summary of it",
    description = "Deletes for good the thread thread_id, or with timestamp only the summary saved at that time. Only when the user asks to forget something: first tell them exactly what will be forgotten and get their confirmation.",
    params(ForgetRequest),
    responses(
        (status = 200, description = "Forgotten", body = Forgotten),
        (status = 404, description = "Nothing matched: no such thread, or no summary saved at that timestamp", body = ErrorBody),
        GptErrors,
    ),
    security(("bearer" = [])),
    extensions(("x-openai-isConsequential" = json!(true))),
)]
pub async fn forget(
    Authenticated(ns): Authenticated,
    StrictQuery(req): StrictQuery<ForgetRequest>,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let thread = ThreadId::parse_required(req.thread_id.as_deref())?;
    let at = req
        .timestamp
        .as_deref()
        .filter(|raw| !raw.trim().is_empty())
        .map(|raw| {
            parse_timestamp(raw).ok_or(ValidationError::InvalidFilter {
                name: "timestamp",
                expected: "the timestamp of a saved summary, as a load shows it",
            })
        })
        .transpose()?;
    let removed = app.store.forget(&ns, &thread, at).await?;
    if removed.entries == 0 && removed.threads == 0 {
        return Err(ApiError::NothingToForget(match at {
            Some(_) => "this thread holds no summary saved at this timestamp",
            None => "no thread has this thread_id",
        }));
    }
    tracing::info!(namespace = %ns, thread_id = thread.as_str(), entries = removed.entries, "forgot");
    Ok(HttpResponse::Ok().json(Forgotten {
        status: ForgetStatus::Forgotten,
        thread_id: thread.as_str().to_owned(),
        forgotten_entries: removed.entries,
        thread_removed: removed.threads > 0,
    }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ForgetStatus {
    Forgotten,
}

/// What was forgotten.
#[derive(Serialize, ToSchema)]
pub struct Forgotten {
    status: ForgetStatus,
    /// The thread forgotten from.
    thread_id: String,
    /// How many summaries were deleted.
    forgotten_entries: u64,
    /// `true` when the thread is gone: it was forgotten whole, or its last summary was.
    thread_removed: bool,
}
