//! Who is visiting the memory page: their session, language and zone, and the forms they post,
//! each checked against the session's CSRF token.

use actix_web::cookie::time::Duration;
use actix_web::http::StatusCode;
use actix_web::{HttpMessage, HttpRequest, web};
use serde::de::DeserializeOwned;

use super::answer::{language, notice, sign_in_page, unreadable};
use super::error::PageError;
use crate::credentials::Session;
use crate::gate::Refusal;
use crate::http::cookies::Jar;
use crate::http::error::retry_after;
use crate::http::limits::{FORM_BODY_BYTES, read_body};
use crate::http::pages::Text;
use crate::http::pages::respond::add_cookie;
use crate::http::pages::views::Clock;
use crate::http::state::AppState;

/// A request from a signed-in person, admitted by their namespace's rate limit.
pub(super) struct Visit {
    pub(super) session: Session,
    pub(super) t: &'static Text,
    /// How times are written for them: in the zone they chose, else the server's.
    pub(super) clock: Clock,
    /// Whether they chose it.
    pub(super) zone_chosen: bool,
}

impl Visit {
    /// The person's session and language, or the answer for a request that has none: the
    /// sign-in page (saying the sign-in ended, if the browser held one), a page asking them
    /// to wait, or one saying the memory cannot be reached.
    pub(super) async fn of(req: &HttpRequest, app: &AppState) -> Result<Self, PageError> {
        let t = language(req, app);
        let jar = Jar::of(req, app);
        let presented = jar.session();
        let found = match &presented {
            Some(value) => app.gate.session(value).await,
            None => Ok(None),
        };
        let session = match found {
            Ok(Some(session)) => session,
            Ok(None) => {
                let (status, notice) = match (&presented, req.method().as_str()) {
                    (None, "GET" | "HEAD") => (StatusCode::OK, None),
                    _ => (StatusCode::UNAUTHORIZED, Some(t.app.session_ended)),
                };
                let mut answer = sign_in_page(req, app, t, status, notice, None);
                if presented.is_some() {
                    add_cookie(&mut answer, jar.session_cleared());
                }
                return Err(answer.into());
            }
            Err(Refusal::RateLimited(wait)) => {
                let answer = notice(t, StatusCode::TOO_MANY_REQUESTS, t.app.unavailable);
                return Err(retry_after(answer, wait).into());
            }
            Err(err) => return Err(PageError::unavailable(t, &err)),
        };
        // The request log names the namespace, as for the API.
        req.extensions_mut().insert(session.namespace.clone());
        let chosen = jar.zone().and_then(|zone| zone.parse().ok());
        let clock = Clock::new(t, chosen.unwrap_or(app.memory.rules().timezone));
        Ok(Self {
            session,
            t,
            clock,
            zone_chosen: chosen.is_some(),
        })
    }

    /// The posted form, read once, if it can be read and carries this session's CSRF token;
    /// else the status that refuses it.
    fn form<T: DeserializeOwned>(&self, body: &[u8]) -> Result<T, StatusCode> {
        let Posted { csrf, form } = read_form(body)?;
        if !self.session.csrf_matches(&csrf) {
            return Err(StatusCode::FORBIDDEN);
        }
        Ok(form)
    }
}

/// A form of the page as posted: the CSRF token every one carries, beside its own fields.
#[derive(serde::Deserialize)]
struct Posted<T> {
    #[serde(default)]
    csrf: String,
    #[serde(flatten)]
    form: T,
}

/// A signed-in person's posted form, its CSRF token checked; else the answer refusing it.
/// The body is read only once the session is known, and only up to the page's limit.
pub(super) async fn posted<T: DeserializeOwned>(
    req: &HttpRequest,
    app: &AppState,
    body: web::Payload,
) -> Result<(Visit, T), PageError> {
    let visit = Visit::of(req, app).await?;
    let body = read_body(body, app.page_form_limit())
        .await
        .map_err(|err| unreadable(visit.t, &err))?;
    match visit.form(&body) {
        Ok(form) => Ok((visit, form)),
        Err(status) => Err(notice(visit.t, status, visit.t.app.form_expired).into()),
    }
}

/// The form of someone not signed in yet, read up to [`FORM_BODY_BYTES`]; else the answer
/// refusing it.
pub(super) async fn anonymous_form<T: DeserializeOwned>(
    t: &'static Text,
    body: web::Payload,
) -> Result<T, PageError> {
    let body = read_body(body, FORM_BODY_BYTES)
        .await
        .map_err(|err| unreadable(t, &err))?;
    read_form(&body).map_err(|status| notice(t, status, t.app.form_expired).into())
}

/// `body` as the form `T`, or the status that refuses it.
fn read_form<T: DeserializeOwned>(body: &[u8]) -> Result<T, StatusCode> {
    serde_urlencoded::from_bytes(body).map_err(|_| StatusCode::BAD_REQUEST)
}

/// How long the session cookie is kept: as long as the session.
pub(super) fn lasts(session: &Session) -> Duration {
    let secs = (session.expires_at - chrono::Utc::now())
        .num_seconds()
        .max(0);
    Duration::seconds(secs)
}

#[cfg(test)]
mod tests {
    use serde::de::IgnoredAny;

    use super::*;

    #[derive(serde::Deserialize)]
    struct Asked {
        #[serde(default)]
        thread_id: String,
        timestamp: Option<String>,
    }

    #[test]
    fn a_form_and_its_csrf_token_are_read_from_one_pass() {
        let posted: Posted<Asked> =
            read_form(b"thread_id=t%201&csrf=abc&timestamp=2026-12-06T00%3A00%3A00Z").unwrap();
        assert_eq!(posted.csrf, "abc");
        assert_eq!(posted.form.thread_id, "t 1");
        assert_eq!(
            posted.form.timestamp.as_deref(),
            Some("2026-12-06T00:00:00Z")
        );

        let bare: Posted<IgnoredAny> = read_form(b"csrf=abc").unwrap();
        assert_eq!(bare.csrf, "abc");
        let unsigned: Posted<Asked> = read_form(b"thread_id=t").unwrap();
        assert_eq!(
            unsigned.csrf, "",
            "a form without its token is refused by the check"
        );
    }
}
