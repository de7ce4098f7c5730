//! Thin HTTP handlers: read the request, validate into domain types, call the store.

mod docs;
mod health;
pub mod memory;
mod strict_query;

pub use docs::{openapi_json, openapi_yaml, prompt};
pub use health::{healthz, readyz};
pub use memory::{MemoryRequest, memory_get, memory_post};

use crate::error::ApiError;

pub async fn not_found() -> Result<actix_web::HttpResponse, ApiError> {
    Err(ApiError::NotFound)
}

pub async fn method_not_allowed() -> Result<actix_web::HttpResponse, ApiError> {
    Err(ApiError::MethodNotAllowed)
}
