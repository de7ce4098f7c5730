//! `/forget`: the GPT forgets a thread, one summary of it, or the profile, when the user asks.

use actix_web::{HttpResponse, web};

use super::fallback::method_not_allowed;
use super::gpt_errors::GptErrors;
use crate::error_code::ErrorBody;
use crate::http::auth::Authenticated;
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::http::strict_query::StrictQuery;
use crate::memory::{ForgetAnswer, ForgetRequest};

pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/forget")
            .route(web::get().to(forget))
            .default_service(method_not_allowed("GET")),
    );
}

/// `GET /forget?thread_id=…[&timestamp=…]` or `GET /forget?profile=true`: deletes for good, so
/// ChatGPT asks the user first.
#[utoipa::path(
    get,
    path = "/forget",
    tag = "memory",
    operation_id = "forgetMemory",
    summary = "Forget a saved thread, one summary of it, or the profile",
    description = "Deletes for good the thread thread_id, or with timestamp only the summary saved at that time, or with profile=true the user's profile. Only when the user asks to forget something: first tell them exactly what will be forgotten and get their confirmation.",
    params(ForgetRequest),
    responses(
        (status = 200, description = "Forgotten", body = ForgetAnswer),
        (status = 404, description = "Nothing matched: no such thread, no summary saved at that timestamp, or no profile", body = ErrorBody),
        GptErrors,
    ),
    security(("bearer" = [])),
    extensions(("x-openai-isConsequential" = json!(true))),
)]
pub async fn forget(
    Authenticated(caller): Authenticated,
    StrictQuery(req): StrictQuery<ForgetRequest>,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(app.memory.forget(&caller.namespace, &req).await?))
}
