//! What a request gets where no route answers it: 404, or 405 with the methods that would.

use actix_web::{HttpResponse, Route, web};

use crate::http::error::ApiError;

pub async fn not_found() -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound)
}

/// A resource's answer to the methods it does not take; `allow` lists those it does.
pub fn method_not_allowed(allow: &'static str) -> Route {
    web::to(move || async move { Err::<HttpResponse, _>(ApiError::MethodNotAllowed(allow)) })
}
