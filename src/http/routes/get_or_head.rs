//! A route that answers HEAD as it answers GET.

use actix_web::{Route, guard, web};

/// A route for GET and for HEAD, which uptime probes and link checkers send: actix-http
/// answers a HEAD with the GET's headers and no body.
pub fn get_or_head() -> Route {
    web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
}
