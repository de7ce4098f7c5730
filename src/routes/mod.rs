//! Thin HTTP handlers: read the request, validate into domain types, call the store.

pub mod admin;
mod docs;
pub mod forget;
mod health;
pub mod memory;
mod strict_query;

use actix_web::{HttpResponse, Route, web};

pub use docs::{openapi_json, openapi_yaml, prompt};
pub use forget::forget;
pub use health::{healthz, readyz};
pub use memory::{MemoryRequest, memory_get, memory_post};

use crate::error::ApiError;

pub async fn not_found() -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound)
}

/// A resource's answer to the methods it does not take; `allow` lists those it does.
pub fn method_not_allowed(allow: &'static str) -> Route {
    web::to(move || async move { Err::<HttpResponse, _>(ApiError::MethodNotAllowed(allow)) })
}
