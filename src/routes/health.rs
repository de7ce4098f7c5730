use actix_web::{HttpResponse, web};
use serde_json::json;

use crate::error::ApiError;
use crate::startup::AppState;

/// The process is alive.
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "status": "ok" }))
}

/// The store answers, so requests can be served.
pub async fn readyz(app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    app.store.ping().await?;
    Ok(HttpResponse::Ok().json(json!({ "status": "ready" })))
}
