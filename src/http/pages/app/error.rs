//! The memory page's one error responder, beside the API's `ApiError` and the OAuth server's
//! `OAuthFailure`: why a handler stops before its page, answered through actix's
//! [`ResponseError`] as a page in the person's language, so that a handler says `?` where it
//! would otherwise build and return the page itself.

use std::cell::RefCell;
use std::fmt;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};

use super::answer::notice;
use crate::error_chain::ErrorChain;
use crate::http::pages::Text;

pub(in crate::http::pages) enum PageError {
    /// The store, the gate or the OAuth server could not answer; logged where it arose, with
    /// its causes.
    Unavailable(&'static Text),
    /// A page built where the handler stopped: the sign-in page with its cookies, a refusal in
    /// words, a wait. Taken when actix answers with it, which it does once.
    Page(RefCell<Option<Box<HttpResponse>>>),
}

impl PageError {
    pub fn unavailable(t: &'static Text, err: &(dyn std::error::Error + 'static)) -> Self {
        tracing::error!(error = %ErrorChain(err), "the memory page could not reach the store");
        Self::Unavailable(t)
    }
}

impl From<HttpResponse> for PageError {
    fn from(page: HttpResponse) -> Self {
        Self::Page(RefCell::new(Some(Box::new(page))))
    }
}

/// A failure of the store or the gate, as the memory page answers it.
pub(super) trait OrUnavailable<T> {
    fn or_unavailable(self, t: &'static Text) -> Result<T, PageError>;
}

impl<T, E: std::error::Error + 'static> OrUnavailable<T> for Result<T, E> {
    fn or_unavailable(self, t: &'static Text) -> Result<T, PageError> {
        self.map_err(|err| PageError::unavailable(t, &err))
    }
}

// What actix logs of an error it answers with: nothing a person sent or a memory holds.
impl fmt::Debug for PageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for PageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unavailable(_) => f.write_str("the memory page could not reach the store"),
            Self::Page(_) => f.write_str("the memory page answered before its page"),
        }
    }
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Page(page) => page
                .borrow()
                .as_ref()
                .map_or(StatusCode::INTERNAL_SERVER_ERROR, |page| page.status()),
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            Self::Unavailable(t) => notice(t, StatusCode::SERVICE_UNAVAILABLE, t.app.unavailable),
            Self::Page(page) => page.take().map_or_else(
                || HttpResponse::InternalServerError().finish(),
                |page| *page,
            ),
        }
    }
}
