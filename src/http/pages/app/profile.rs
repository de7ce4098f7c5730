//! `POST /app/profile`: the person rewrites their profile, under the same conflict rule as an
//! assistant: the rewrite lands only if the profile is still the version the page showed; if
//! not, their text stays in the box beside the one saved meanwhile, for them to choose.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use super::answer::refused;
use super::error::PageError;
use super::view::View;
use super::visit::posted;
use crate::error_code::ErrorCode;
use crate::http::pages::respond::see_other;
use crate::http::state::AppState;
use crate::memory::{MemoryError, ProfileWriteRequest};

#[derive(Deserialize)]
pub(super) struct ProfileForm {
    #[serde(default)]
    profile: String,
    #[serde(default)]
    expected_version: String,
}

pub(super) async fn rewrite(
    req: HttpRequest,
    body: web::Payload,
    app: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let (visit, form) = posted::<ProfileForm>(&req, &app, body).await?;
    let request = ProfileWriteRequest {
        profile: form.profile.clone(),
        expected_version: Some(form.expected_version.clone()),
    };
    let t = visit.t;
    // The box keeps the person's text whatever the refusal: to shorten or fix it, or, when an
    // assistant rewrote the profile meanwhile, to save over theirs (shown beside it) at the
    // version now current, or to leave.
    let (problem, expected, rival) = match app
        .memory
        .write_profile(&visit.session.caller(), &request)
        .await
    {
        Ok(_) => return Ok(see_other("/app?done=profile")),
        Err(MemoryError::ProfileConflict(current)) => {
            let version = current.as_ref().map_or(0, |p| p.version);
            (refused(t, ErrorCode::ProfileConflict), version, current)
        }
        Err(MemoryError::Store(err)) => return Err(PageError::unavailable(t, &err)),
        Err(err) => {
            let expected = form.expected_version.parse().unwrap_or(0);
            (refused(t, &err), expected, None)
        }
    };
    View {
        problem: Some(problem),
        at_profile: true,
        profile: Some((form.profile, expected)),
        rival,
        ..View::default()
    }
    .render(&app, &visit)
    .await
}
