//! `POST /app/forget`: first a page showing what would go and asking to confirm; then, with
//! `confirm=yes`, the same forget as the API: one summary, or a whole thread.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use super::{Visit, notice, posted, see_other, switch_url};
use crate::http::pages::{ConfirmPage, EntryView};
use crate::http::state::AppState;
use crate::memory::{ForgetRequest, LoadAnswer, LoadRequest, MemoryError};

#[derive(Deserialize)]
pub(super) struct ForgetForm {
    #[serde(default)]
    thread_id: String,
    timestamp: Option<String>,
    confirm: Option<String>,
}

pub(super) async fn forget(
    req: HttpRequest,
    body: web::Bytes,
    app: web::Data<AppState>,
) -> HttpResponse {
    let (visit, form) = match posted::<ForgetForm>(&req, &app, &body).await {
        Ok(posted) => posted,
        Err(answer) => return answer,
    };
    let timestamp = form.timestamp.filter(|t| !t.is_empty());
    if form.confirm.as_deref() != Some("yes") {
        return confirm(&app, &visit, form.thread_id, timestamp).await;
    }
    let request = ForgetRequest {
        thread_id: Some(form.thread_id),
        timestamp,
        profile: None,
    };
    match app.memory.forget(&visit.session.namespace, &request).await {
        Ok(_) => see_other("/app?done=forgotten"),
        Err(MemoryError::NothingToForget(_)) => see_other("/app?done=gone"),
        Err(MemoryError::Store(err)) => super::unavailable(visit.t, &err),
        Err(err) => notice(visit.t, StatusCode::BAD_REQUEST, &err.to_string()),
    }
}

/// The page that shows the summary, or the thread's summaries, and asks to confirm.
async fn confirm(
    app: &AppState,
    visit: &Visit,
    thread_id: String,
    timestamp: Option<String>,
) -> HttpResponse {
    let t = visit.t;
    let load = LoadRequest {
        thread_id: Some(thread_id.clone()),
        ..LoadRequest::default()
    };
    let thread = match app.memory.load(&visit.session.namespace, &load).await {
        Ok(LoadAnswer::Loaded(loaded)) => loaded.threads().first().cloned(),
        Ok(LoadAnswer::Searched(_)) => None,
        Err(MemoryError::Store(err)) => return super::unavailable(t, &err),
        Err(err) => return notice(t, StatusCode::BAD_REQUEST, &err.to_string()),
    };
    let Some(thread) = thread else {
        return see_other("/app?done=gone");
    };
    let entries: Vec<EntryView> = thread
        .entries
        .iter()
        .filter(|e| timestamp.as_ref().is_none_or(|t| *t == e.timestamp))
        .map(|e| EntryView::new(&thread.id, e))
        .collect();
    if entries.is_empty() {
        return see_other("/app?done=gone");
    }
    let explanation = match &timestamp {
        Some(_) => t.app.confirm_summary.to_owned(),
        None => t
            .app
            .confirm_thread
            .replace("{n}", &entries.len().to_string()),
    };
    super::render(
        StatusCode::OK,
        &ConfirmPage {
            t,
            switch_url: switch_url(t),
            csrf: visit.session.csrf.clone(),
            explanation,
            thread_id,
            timestamp,
            entries,
        },
    )
}
