//! `POST /app/profile`: the person rewrites their profile, under the same conflict rule as an
//! assistant: the rewrite lands only if the profile is still the version the page showed.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use super::view::View;
use super::{posted, refused, see_other};
use crate::error_code::ErrorCode;
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
) -> HttpResponse {
    let (visit, form) = match posted::<ProfileForm>(&req, &app, body).await {
        Ok(posted) => posted,
        Err(answer) => return answer,
    };
    let request = ProfileWriteRequest {
        profile: form.profile.clone(),
        expected_version: Some(form.expected_version.clone()),
    };
    let t = visit.t;
    let (status, problem, shown) = match app
        .memory
        .write_profile(&visit.session.caller(), &request)
        .await
    {
        Ok(_) => return see_other("/app?done=profile"),
        // The box then holds what is current, for the person to make their change again.
        Err(MemoryError::ProfileConflict(current)) => {
            let (status, problem) = refused(t, ErrorCode::ProfileConflict);
            let shown = current.map_or((String::new(), 0), |p| (p.profile, p.version));
            (status, problem, shown)
        }
        Err(MemoryError::Store(err)) => return super::unavailable(t, &err),
        // The box keeps the person's text, to shorten or fix.
        Err(err) => {
            let (status, message) = refused(t, &err);
            let shown = (form.profile, form.expected_version.parse().unwrap_or(0));
            (status, message, shown)
        }
    };
    View {
        problem: Some((status, problem)),
        profile: Some(shown),
        ..View::default()
    }
    .render(&app, &visit)
    .await
}
