//! `GET /app`: the newest threads, the profile and the connected apps; `POST /app`: a search, or
//! older summaries, through the same load as the API (the same budget, search and cursor).

use std::collections::HashMap;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use chrono_tz::Tz;
use serde::Deserialize;

use super::answer::{language, refused, render_memory, sign_in_page, switch_url};
use super::error::{OrUnavailable, PageError};
use super::visit::{Visit, posted};
use crate::domain::{Namespace, Profile};
use crate::http::cookies::Jar;
use crate::http::pages::respond::{add_cookie, see_other};
use crate::http::pages::views::{
    AppView, Clock, EntryView, MemoryPage, OFFERED_ZONES, ThreadView, VersionView, heading,
    saved_by,
};
use crate::http::state::AppState;
use crate::memory::{LoadAnswer, LoadRequest, MemoryError, ProfileReadRequest};
use crate::search::Found;

/// What `GET /app` may be asked: the outcome of the form just sent, a language, a time zone,
/// an earlier version of the profile to show in its box.
#[derive(Deserialize)]
pub(super) struct Shown {
    done: Option<String>,
    lang: Option<String>,
    zone: Option<String>,
    /// `profile`: the profile in its form, to rewrite.
    edit: Option<String>,
    version: Option<String>,
    /// One thread alone, as a search result links to it.
    thread: Option<String>,
}

pub(super) async fn show(
    req: HttpRequest,
    query: web::Query<Shown>,
    app: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let Shown {
        done,
        lang,
        zone,
        edit,
        version,
        thread,
    } = query.into_inner();
    // A zone chosen now is kept, and writes this page's times; an unknown one is said so.
    let zone = zone.map(|zone| zone.trim().parse::<Tz>().map_err(|_| zone));
    let mut answer = match Visit::of(&req, &app).await {
        Ok(mut visit) => {
            let t = visit.t;
            let notice = match done.as_deref() {
                Some("forgotten") => Some(t.app.forgotten),
                Some("gone") => Some(t.app.already_gone),
                Some("profile") => Some(t.app.profile_saved),
                Some("profile_forgotten") => Some(t.app.profile_forgotten),
                Some("disconnected") => Some(t.app.disconnected),
                Some("disconnected_forgotten") => Some(t.app.disconnected_forgotten),
                _ => None,
            };
            let mut view = View {
                notice,
                editing: edit.as_deref() == Some("profile"),
                thread: thread.filter(|id| !id.is_empty()),
                ..View::default()
            };
            match &zone {
                Some(Ok(chosen)) => {
                    visit.clock = Clock::new(t, *chosen);
                    visit.zone_chosen = true;
                }
                Some(Err(_)) => {
                    view.problem = Some((StatusCode::BAD_REQUEST, t.app.unknown_zone));
                }
                None => {}
            }
            if let Some(version) = version {
                match earlier(&app, &visit, version).await {
                    Ok(shown) => {
                        view.profile = Some(shown);
                        view.notice = Some(t.app.profile_earlier);
                    }
                    Err(MemoryError::Store(err)) => return Err(PageError::unavailable(t, &err)),
                    Err(err) => view.problem = Some(refused(t, &err)),
                }
            }
            view.render(&app, &visit).await?
        }
        Err(_)
            if done.as_deref() == Some("signed_out") && Jar::of(&req, &app).session().is_none() =>
        {
            let t = language(&req, &app);
            sign_in_page(&req, &app, t, StatusCode::OK, Some(t.app.signed_out), None)
        }
        Err(stopped) => stopped.error_response(),
    };
    let jar = Jar::of(&req, &app);
    if let Some(lang) = lang.filter(|l| l == "ja" || l == "en") {
        add_cookie(&mut answer, jar.language_cookie(&lang));
    }
    if let Some(Ok(chosen)) = zone {
        add_cookie(&mut answer, jar.zone_cookie(chosen.name()));
    }
    Ok(answer)
}

/// The profile's earlier `version`, to restore: its text, and the current version, which a
/// save of it must expect.
async fn earlier(
    app: &AppState,
    visit: &Visit,
    version: String,
) -> Result<(String, u64), MemoryError> {
    let ns = &visit.session.namespace;
    let request = ProfileReadRequest {
        version: Some(version),
    };
    let text = app.memory.read_profile(ns, &request).await?.into_text();
    let current = app.memory.current_profile(ns).await?;
    Ok((text.unwrap_or_default(), current.map_or(0, |p| p.version)))
}

#[derive(Deserialize)]
pub(super) struct BrowseForm {
    q: Option<String>,
    before: Option<String>,
}

pub(super) async fn browse(
    req: HttpRequest,
    body: web::Payload,
    app: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let (visit, form) = posted::<BrowseForm>(&req, &app, body).await?;
    let query = form.q.filter(|q| !q.trim().is_empty());
    let before = form.before.filter(|b| !b.is_empty());
    if query.is_none() && before.is_none() {
        return Ok(see_other("/app"));
    }
    let view = View {
        query,
        before,
        ..View::default()
    };
    view.render(&app, &visit).await
}

/// What the memory page shows, besides what the store holds.
#[derive(Default)]
pub(super) struct View<'a> {
    pub query: Option<String>,
    pub thread: Option<String>,
    pub before: Option<String>,
    pub notice: Option<&'a str>,
    pub problem: Option<(StatusCode, &'static str)>,
    /// The profile text and version to show in place of the stored one: the person's own
    /// rewrite, refused.
    pub profile: Option<(String, u64)>,
    /// Whether `problem` is the profile form's, shown beside its box.
    pub at_profile: bool,
    /// Whether the profile is asked for in its form.
    pub editing: bool,
    /// The profile saved meanwhile, shown beside the person's refused rewrite.
    pub rival: Option<Profile>,
}

impl View<'_> {
    pub async fn render(self, app: &AppState, visit: &Visit) -> Result<HttpResponse, PageError> {
        let (t, ns) = (visit.t, &visit.session.namespace);
        let (mut thread, mut notice) = (self.thread.clone(), self.notice);
        let mut load = LoadRequest {
            q: self.query.clone(),
            thread_id: thread.clone(),
            before: self.before.clone(),
            ..LoadRequest::default()
        };
        let (mut threads, mut results, mut older) = (Vec::new(), Vec::new(), None);
        let mut problem = self.problem;
        let mut loaded = app.memory.load(ns, &load).await;
        // A link to a thread no longer there (forgotten, past its age) shows the rest.
        if let Ok(LoadAnswer::Loaded(one)) = &loaded
            && thread.is_some()
            && one.threads().is_empty()
        {
            (thread, notice, load.thread_id) = (None, Some(t.app.thread_gone), None);
            loaded = app.memory.load(ns, &load).await;
        }
        match loaded {
            Ok(LoadAnswer::Loaded(loaded)) => {
                threads = loaded
                    .threads()
                    .iter()
                    .map(|th| ThreadView::new(t, &visit.clock, th))
                    .collect();
                older = loaded.truncation().next_before().map(str::to_owned);
            }
            Ok(LoadAnswer::Searched(searched)) => {
                let headings = thread_headings(app, ns, searched.results()).await;
                results = searched
                    .results()
                    .iter()
                    .map(|found| {
                        let heading = headings.get(&found.thread_id).map(String::as_str);
                        EntryView::found(t, &visit.clock, found, heading)
                    })
                    .collect();
                older = searched.truncation().next_before().map(str::to_owned);
            }
            Err(MemoryError::Store(err)) => return Err(PageError::unavailable(t, &err)),
            Err(err) => problem = Some(refused(t, &err)),
        }
        // Read whole: a load's copy may be cut to fit its budget, and saved back it would cut
        // the profile. Every version kept: the current one last, the others listed.
        let mut versions = app.memory.profile_history(ns).await.or_unavailable(t)?;
        let current = versions.pop();
        let shown_unsaved = self.profile.is_some() || self.rival.is_some();
        let (profile, profile_writer) = match (self.profile, current) {
            (Some(shown), _) => (shown, None),
            (None, Some(current)) => (
                (current.profile, current.version),
                current.writer.map(|w| saved_by(t, &w)),
            ),
            (None, None) => ((String::new(), 0), None),
        };
        let apps: Vec<AppView> = (app.apps.of(ns).await.or_unavailable(t)?.into_iter())
            .map(|a| AppView::new(t, &visit.clock, a))
            .collect();
        let (status, problem) = match problem {
            Some((status, message)) => (status, Some(message)),
            None => (StatusCode::OK, None),
        };
        let (problem, profile_problem) = match self.at_profile {
            true => (None, problem),
            false => (problem, None),
        };
        let page = MemoryPage {
            t,
            switch_url: switch_url(t),
            csrf: visit.session.csrf.clone(),
            notice,
            problem,
            query: self.query,
            one_thread: thread.is_some(),
            threads,
            results,
            older,
            profile: profile.0,
            profile_version: profile.1,
            // In its form when asked, and whenever the box holds what was not saved as it is.
            editing: self.editing || shown_unsaved || profile_problem.is_some(),
            profile_writer,
            profile_problem,
            rival: self
                .rival
                .map(|rival| VersionView::new(t, &visit.clock, rival)),
            earlier: (versions.into_iter().rev())
                .map(|earlier| VersionView::new(t, &visit.clock, earlier))
                .collect(),
            zone: visit.clock.zone.name().to_owned(),
            zone_chosen: visit.zone_chosen,
            zones: &OFFERED_ZONES,
            show_apps: app.oauth.is_some() || !apps.is_empty(),
            apps,
        };
        Ok(render_memory(status, &page))
    }
}

/// Threads a page of search results names by their heading, at most: each is one more read.
const NAMED_THREADS: usize = 20;

/// The headings of the threads `results` come from (the first [`NAMED_THREADS`]), read at
/// once, by thread id. A thread that could not be read goes unnamed: its link says so.
async fn thread_headings(
    app: &AppState,
    ns: &Namespace,
    results: &[Found],
) -> HashMap<String, String> {
    let mut ids: Vec<&str> = Vec::new();
    for found in results {
        if ids.len() < NAMED_THREADS && !ids.contains(&found.thread_id.as_str()) {
            ids.push(&found.thread_id);
        }
    }
    let reads = ids.into_iter().map(|id| async move {
        let load = LoadRequest {
            thread_id: Some(id.to_owned()),
            ..LoadRequest::default()
        };
        match app.memory.load(ns, &load).await {
            Ok(LoadAnswer::Loaded(loaded)) => {
                (loaded.threads().first()).map(|thread| (thread.id.clone(), heading(thread)))
            }
            _ => None,
        }
    });
    futures_util::future::join_all(reads)
        .await
        .into_iter()
        .flatten()
        .collect()
}
