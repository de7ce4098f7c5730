//! `POST /app/apps/disconnect`: first a page naming the app and how many summaries it saved,
//! asking whether to keep or forget them; then, with `confirm`, the app's grant is revoked (its
//! tokens stop opening the memory at once) and, if asked, what it saved is forgotten.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use super::answer::{render, switch_url};
use super::error::{OrUnavailable, PageError};
use super::visit::{Visit, posted};
use crate::http::pages::respond::see_other;
use crate::http::pages::views::DisconnectPage;
use crate::http::state::AppState;

#[derive(Deserialize)]
pub(super) struct DisconnectForm {
    #[serde(default)]
    grant_id: String,
    /// `keep` or `forget` what the app saved; absent: ask first.
    confirm: Option<String>,
}

pub(super) async fn disconnect(
    req: HttpRequest,
    body: web::Payload,
    app: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let (visit, form) = posted::<DisconnectForm>(&req, &app, body).await?;
    let (t, ns) = (visit.t, &visit.session.namespace);
    let connected = app.apps.of(ns).await.or_unavailable(t)?;
    let Some(connected) = connected.into_iter().find(|a| a.grant_id == form.grant_id) else {
        return Ok(see_other("/app?done=gone"));
    };
    let forget = match form.confirm.as_deref() {
        Some("keep") => false,
        Some("forget") => true,
        _ => return confirm(&app, &visit, connected).await,
    };
    let revoked = app.apps.disconnect(ns, &form.grant_id).await;
    if !revoked.or_unavailable(t)? {
        return Ok(see_other("/app?done=gone"));
    }
    if !forget {
        return Ok(see_other("/app?done=disconnected"));
    }
    let forgotten = app.memory.forget_written_by(ns, &connected.client_id);
    forgotten.await.or_unavailable(t)?;
    Ok(see_other("/app?done=disconnected_forgotten"))
}

/// The page that names the app and counts what it saved, and asks what to do with it.
async fn confirm(
    app: &AppState,
    visit: &Visit,
    connected: crate::oauth::connected::ConnectedApp,
) -> Result<HttpResponse, PageError> {
    let t = visit.t;
    let saved = app
        .memory
        .count_written_by(&visit.session.namespace, &connected.client_id)
        .await
        .or_unavailable(t)?;
    Ok(render(
        StatusCode::OK,
        &DisconnectPage {
            t,
            switch_url: switch_url(t),
            csrf: visit.session.csrf.clone(),
            explanation: t
                .app
                .disconnect_explanation
                .replace("{app}", &connected.client_name),
            saved: t.app.disconnect_saved.replace("{n}", &saved.to_string()),
            forget: saved > 0,
            grant_id: connected.grant_id,
        },
    ))
}
