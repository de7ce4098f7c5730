//! `/healthz` and `/readyz`, for the platform: no token needed.

use actix_web::{HttpResponse, web};
use serde_json::json;

use super::get_or_head::get_or_head;
use crate::http::error::ApiError;
use crate::http::state::AppState;

pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.route("/healthz", get_or_head().to(healthz))
        .route("/readyz", get_or_head().to(readyz));
}

/// The process is alive.
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "status": "ok" }))
}

/// The store answers, so requests can be served; asked at most every few seconds.
pub async fn readyz(app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    app.readiness.check().await?;
    Ok(HttpResponse::Ok().json(json!({ "status": "ready" })))
}
