//! `POST /app/forget`: first a page showing what would go and asking to confirm; then, with
//! `confirm=yes`, the same forget as the API: one summary, a whole thread, or the profile.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use super::answer::{notice, refused, render, switch_url};
use super::error::{OrUnavailable, PageError};
use super::visit::{Visit, posted};
use crate::http::pages::Text;
use crate::http::pages::respond::see_other;
use crate::http::pages::views::{ConfirmPage, EntryView};
use crate::http::state::AppState;
use crate::memory::{ForgetRequest, LoadAnswer, LoadRequest, MemoryError};

#[derive(Deserialize)]
pub(super) struct ForgetForm {
    #[serde(default)]
    thread_id: String,
    timestamp: Option<String>,
    /// `true` to forget the profile, as the API takes it.
    profile: Option<String>,
    confirm: Option<String>,
}

pub(super) async fn forget(
    req: HttpRequest,
    body: web::Payload,
    app: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let (visit, form) = posted::<ForgetForm>(&req, &app, body).await?;
    let timestamp = form.timestamp.filter(|t| !t.is_empty());
    let profile = form.profile.as_deref() == Some("true");
    match (form.confirm.as_deref() == Some("yes"), profile) {
        (false, true) => return confirm_profile(&app, &visit).await,
        (false, false) => return confirm(&app, &visit, form.thread_id, timestamp).await,
        (true, _) => {}
    }
    let request = ForgetRequest {
        thread_id: Some(form.thread_id),
        timestamp,
        profile: form.profile,
    };
    let done = match profile {
        true => "/app?done=profile_forgotten",
        false => "/app?done=forgotten",
    };
    match app.memory.forget(&visit.session.namespace, &request).await {
        Ok(_) => Ok(see_other(done)),
        Err(MemoryError::NothingToForget(_)) => Ok(see_other("/app?done=gone")),
        Err(err) => Err(refusal(visit.t, err)),
    }
}

/// A memory operation's refusal as this page answers it: a page saying why.
fn refusal(t: &'static Text, err: MemoryError) -> PageError {
    match err {
        MemoryError::Store(err) => PageError::unavailable(t, &err),
        err => {
            let (status, message) = refused(t, &err);
            notice(t, status, message).into()
        }
    }
}

/// The page that shows the summary, or the thread's newest summaries and how many it holds,
/// and asks to confirm.
async fn confirm(
    app: &AppState,
    visit: &Visit,
    thread_id: String,
    timestamp: Option<String>,
) -> Result<HttpResponse, PageError> {
    let t = visit.t;
    // One summary is looked up by its time, wherever it is in the thread.
    let (since, before) = match timestamp.as_deref().map(just_after) {
        Some(Some(after)) => (timestamp.clone(), Some(after)),
        Some(None) => return Ok(see_other("/app?done=gone")),
        None => (None, None),
    };
    let load = LoadRequest {
        thread_id: Some(thread_id.clone()),
        since,
        before,
        ..LoadRequest::default()
    };
    let (thread, omitted) = match app.memory.load(&visit.session.namespace, &load).await {
        Ok(LoadAnswer::Loaded(loaded)) => (
            loaded.threads().first().cloned(),
            loaded.truncation().omitted_entries(),
        ),
        Ok(LoadAnswer::Searched(_)) => (None, 0),
        Err(err) => return Err(refusal(t, err)),
    };
    let Some(thread) = thread else {
        return Ok(see_other("/app?done=gone"));
    };
    let entries: Vec<EntryView> = thread
        .entries
        .iter()
        .filter(|e| timestamp.as_ref().is_none_or(|t| *t == e.timestamp))
        .map(|e| EntryView::new(t, &visit.clock, &thread.id, e))
        .collect();
    if entries.is_empty() {
        return Ok(see_other("/app?done=gone"));
    }
    let explanation = match &timestamp {
        Some(_) => t.app.confirm_summary.to_owned(),
        None => {
            let shown = entries.len() as u64;
            let text = match omitted {
                0 => t.app.confirm_thread,
                _ => t.app.confirm_thread_newest,
            };
            text.replace("{n}", &(shown + omitted).to_string())
                .replace("{shown}", &shown.to_string())
        }
    };
    Ok(render(
        StatusCode::OK,
        &ConfirmPage {
            t,
            switch_url: switch_url(t),
            csrf: visit.session.csrf.clone(),
            explanation,
            profile: None,
            thread_id,
            timestamp,
            entries,
        },
    ))
}

/// The page that shows the profile and asks to confirm forgetting it with every version.
async fn confirm_profile(app: &AppState, visit: &Visit) -> Result<HttpResponse, PageError> {
    let t = visit.t;
    let current = app.memory.current_profile(&visit.session.namespace);
    let Some(current) = current.await.or_unavailable(t)? else {
        return Ok(see_other("/app?done=gone"));
    };
    Ok(render(
        StatusCode::OK,
        &ConfirmPage {
            t,
            switch_url: switch_url(t),
            csrf: visit.session.csrf.clone(),
            explanation: t.app.confirm_profile.to_owned(),
            profile: Some(current.profile),
            thread_id: String::new(),
            timestamp: None,
            entries: Vec::new(),
        },
    ))
}

/// A microsecond after `timestamp`: the exclusive end of a load of just the entries saved then.
fn just_after(timestamp: &str) -> Option<String> {
    let at = chrono::DateTime::parse_from_rfc3339(timestamp).ok()?;
    let after = at + chrono::TimeDelta::microseconds(1);
    Some(after.to_rfc3339_opts(chrono::SecondsFormat::Micros, false))
}
