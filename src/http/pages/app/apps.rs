//! `POST /app/apps/disconnect`: first a page naming the app and how many summaries it saved,
//! asking whether to keep or forget them; then, with `confirm`, the app's grant is revoked (its
//! tokens stop opening the memory at once) and, if asked, what it saved is forgotten.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use super::answer::{render, switch_url, unavailable};
use super::visit::{Visit, posted};
use crate::http::pages::respond::see_other;
use crate::http::pages::views::DisconnectPage;
use crate::http::state::AppState;
use crate::oauth::connected::{connected_apps, disconnect as revoke};

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
) -> HttpResponse {
    let (visit, form) = match posted::<DisconnectForm>(&req, &app, body).await {
        Ok(posted) => posted,
        Err(answer) => return answer,
    };
    let ns = &visit.session.namespace;
    let connected = match app
        .limit
        .within(connected_apps(app.grants.as_ref(), ns))
        .await
    {
        Ok(apps) => apps.into_iter().find(|a| a.grant_id == form.grant_id),
        Err(err) => return unavailable(visit.t, &err),
    };
    let Some(connected) = connected else {
        return see_other("/app?done=gone");
    };
    let forget = match form.confirm.as_deref() {
        Some("keep") => false,
        Some("forget") => true,
        _ => return confirm(&app, &visit, connected).await,
    };
    match (app.limit)
        .within(revoke(app.grants.as_ref(), ns, &form.grant_id))
        .await
    {
        Ok(true) => {}
        Ok(false) => return see_other("/app?done=gone"),
        Err(err) => return unavailable(visit.t, &err),
    }
    if !forget {
        return see_other("/app?done=disconnected");
    }
    match app.memory.forget_written_by(ns, &connected.client_id).await {
        Ok(_) => see_other("/app?done=disconnected_forgotten"),
        Err(err) => unavailable(visit.t, &err),
    }
}

/// The page that names the app and counts what it saved, and asks what to do with it.
async fn confirm(
    app: &AppState,
    visit: &Visit,
    connected: crate::oauth::connected::ConnectedApp,
) -> HttpResponse {
    let t = visit.t;
    let saved = match app
        .memory
        .count_written_by(&visit.session.namespace, &connected.client_id)
        .await
    {
        Ok(saved) => saved,
        Err(err) => return unavailable(t, &err),
    };
    render(
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
    )
}
