//! The memory page's views: signing in, the memory itself (threads or search results, the
//! profile, connected apps, the export), and the confirmation before forgetting.

use askama::Template;

use crate::domain::{Entry, Profile, Thread, Writer};
use crate::http::pages::Text;
use crate::oauth::connected::ConnectedApp;
use crate::search::Found;

#[derive(Template)]
#[template(path = "app/sign_in.html")]
pub struct SignInPage<'a> {
    pub t: &'a Text,
    pub switch_url: Option<String>,
    pub csrf: String,
    /// "Sign in with …", when an OpenID Provider is configured.
    pub provider_button: Option<String>,
    pub notice: Option<&'a str>,
    pub problem: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "app/memory.html")]
pub struct MemoryPage<'a> {
    pub t: &'a Text,
    pub switch_url: Option<String>,
    pub csrf: String,
    pub notice: Option<&'a str>,
    pub problem: Option<&'a str>,
    /// The search shown, if the view is one.
    pub query: Option<String>,
    /// Whether one thread is shown alone (a search result's link), not every thread.
    pub one_thread: bool,
    pub threads: Vec<ThreadView>,
    pub results: Vec<EntryView>,
    /// The cursor to older summaries, when the budget left some out.
    pub older: Option<String>,
    pub profile: String,
    /// The version the profile form was read at: 0 for none.
    pub profile_version: u64,
    /// Who saved the current profile, when it is the one shown and kioku recorded that.
    pub profile_writer: Option<String>,
    /// Why the profile form was refused, shown beside its box.
    pub profile_problem: Option<&'a str>,
    /// The profile saved since the page was opened, beside the person's text.
    pub rival: Option<VersionView>,
    /// The profile's earlier versions that are kept, newest first, to open and restore.
    pub earlier: Vec<VersionView>,
    pub apps: Vec<AppView>,
    /// Whether the connected apps are shown: while OAuth is on, or while any is connected.
    pub show_apps: bool,
}

#[derive(Template)]
#[template(path = "app/confirm.html")]
pub struct ConfirmPage<'a> {
    pub t: &'a Text,
    pub switch_url: Option<String>,
    pub csrf: String,
    pub explanation: String,
    /// Set when the profile is to go: its text. Else a thread or a summary is.
    pub profile: Option<String>,
    pub thread_id: String,
    /// Set when one summary is to go, not the whole thread.
    pub timestamp: Option<String>,
    pub entries: Vec<EntryView>,
}

/// Before an app is disconnected: what it saved, to keep or to forget.
#[derive(Template)]
#[template(path = "app/disconnect.html")]
pub struct DisconnectPage<'a> {
    pub t: &'a Text,
    pub switch_url: Option<String>,
    pub csrf: String,
    pub explanation: String,
    /// How many summaries the app saved.
    pub saved: String,
    /// Whether it saved any, to offer forgetting them.
    pub forget: bool,
    pub grant_id: String,
}

/// One message, and the way back to the page.
#[derive(Template)]
#[template(path = "app/notice.html")]
pub struct AppNotice<'a> {
    pub t: &'a Text,
    pub switch_url: Option<String>,
    pub message: &'a str,
}

pub struct ThreadView {
    pub id: String,
    /// The start of its newest summary: what a person recognizes a thread by.
    pub heading: String,
    /// The days its shown summaries were saved on, first to last.
    pub dates: String,
    pub entries: Vec<EntryView>,
}

pub struct EntryView {
    pub thread_id: String,
    pub summary: String,
    /// The start of a long summary, shown while the rest is folded away.
    pub opening: Option<String>,
    pub timestamp: String,
    /// The time as a person reads it, in the zone it was saved in, with its offset.
    pub shown: String,
    /// The search's terms it holds, for a search result.
    pub matched: String,
    /// A search result's link text to its thread: the thread's heading, when it was read.
    pub thread_link: String,
    /// Who saved it, when kioku recorded that.
    pub writer: Option<String>,
}

/// A version of the profile as the page names it: its number, when and by whom it was saved.
pub struct VersionView {
    pub version: u64,
    /// "version 3", "第3版".
    pub label: String,
    pub text: String,
    /// "2026-12-06 20:42 UTC+09:00 · saved by Claude".
    pub saved: String,
}

impl VersionView {
    pub fn new(t: &Text, profile: Profile) -> Self {
        let mut saved = shown(&profile.updated_at);
        if let Some(writer) = &profile.writer {
            saved = format!("{saved} · {}", saved_by(t, writer));
        }
        Self {
            version: profile.version,
            label: t.app.version.replace("{n}", &profile.version.to_string()),
            text: profile.profile,
            saved,
        }
    }
}

pub struct AppView {
    pub grant_id: String,
    pub name: String,
    /// What tells it from another of the same name: the host that publishes its metadata, or
    /// the start of the id kioku gave it when it registered.
    pub client: String,
    pub signed_in_with: String,
    pub connected_at: String,
}

impl ThreadView {
    pub fn new(t: &Text, thread: &Thread) -> Self {
        let dates = match (day(thread.entries.first()), day(thread.entries.last())) {
            (Some(from), Some(to)) if from != to => t
                .app
                .thread_dates
                .replace("{from}", from)
                .replace("{to}", to),
            (_, to) => to.unwrap_or_default().to_owned(),
        };
        Self {
            id: thread.id.clone(),
            heading: heading(thread),
            dates,
            entries: thread
                .entries
                .iter()
                .map(|e| EntryView::new(t, &thread.id, e))
                .collect(),
        }
    }
}

impl EntryView {
    pub fn new(t: &Text, thread_id: &str, entry: &Entry) -> Self {
        Self {
            thread_id: thread_id.to_owned(),
            summary: entry.summary.clone(),
            opening: opening(&entry.summary, FOLDED_CHARS),
            timestamp: entry.timestamp.clone(),
            shown: shown(&entry.timestamp),
            matched: String::new(),
            thread_link: String::new(),
            writer: entry.writer.as_ref().map(|w| saved_by(t, w)),
        }
    }

    /// A search result, with the heading of its thread if that was read.
    pub fn found(t: &Text, found: &Found, thread_heading: Option<&str>) -> Self {
        Self {
            thread_id: found.thread_id.clone(),
            summary: found.summary.clone(),
            opening: opening(&found.summary, FOLDED_CHARS),
            timestamp: found.timestamp.clone(),
            shown: shown(&found.timestamp),
            matched: found.matched.join(", "),
            thread_link: thread_heading.map_or_else(
                || t.app.open_thread.to_owned(),
                |heading| t.app.in_thread.replace("{heading}", heading),
            ),
            writer: found.writer.as_ref().map(|w| saved_by(t, w)),
        }
    }
}

/// "saved by Claude", in the page's language.
pub fn saved_by(t: &Text, writer: &Writer) -> String {
    let who = match writer {
        Writer::App { name, .. } => name.clone(),
        Writer::Token { label } => t.app.by_token.replace("{label}", label),
        Writer::Page => t.app.by_page.to_owned(),
        Writer::Import => t.app.by_import.to_owned(),
    };
    t.app.saved_by.replace("{writer}", &who)
}

impl AppView {
    /// `app` as the person reads it: which client, how they signed in, and when, in the
    /// server's zone.
    pub fn new(t: &Text, app: ConnectedApp, zone: chrono_tz::Tz) -> Self {
        let signed_in_with = match app.signed_in_with.as_str() {
            "token" => t.app.with_token.to_owned(),
            issuer => t
                .app
                .with_provider
                .replace("{provider}", &super::host(issuer)),
        };
        let client = match url::Url::parse(&app.client_id)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
        {
            Some(host) => t.app.app_from.replace("{host}", &host),
            None => {
                let id: String = app.client_id.chars().take(CLIENT_ID_CHARS).collect();
                t.app.app_id.replace("{id}", &id)
            }
        };
        Self {
            grant_id: app.grant_id,
            name: app.client_name,
            client,
            signed_in_with,
            connected_at: app
                .connected_at
                .with_timezone(&zone)
                .format("%Y-%m-%d %H:%M")
                .to_string(),
        }
    }
}

/// The start of a thread's newest summary: what a person recognizes a thread by.
pub fn heading(thread: &Thread) -> String {
    let newest = thread.entries.last().map_or("", |e| e.summary.as_str());
    opening(newest, HEADING_CHARS).unwrap_or_else(|| newest.to_owned())
}

/// Characters of a registered client's id that tell it from another: 8 hex digits.
const CLIENT_ID_CHARS: usize = 8;
/// Characters of a thread's newest summary its heading shows.
const HEADING_CHARS: usize = 60;
/// Characters of a summary shown before the rest is folded away.
const FOLDED_CHARS: usize = 240;

/// The day `entry` was saved, in the zone it was saved in.
fn day(entry: Option<&Entry>) -> Option<&str> {
    entry.map(|e| e.timestamp.get(..10).unwrap_or(&e.timestamp))
}

/// The first `chars` characters of `text` and an ellipsis, if it is longer than that.
fn opening(text: &str, chars: usize) -> Option<String> {
    let (cut, _) = text.char_indices().nth(chars)?;
    Some(format!("{}…", text[..cut].trim_end()))
}

/// `2025-08-19 08:39 UTC+09:00` for `2025-08-19T08:39:27.174624+09:00`: the minute, in the
/// zone it was saved in, named by its offset so that nobody reads it as their own; a time of
/// another shape as it is.
fn shown(timestamp: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(timestamp).map_or_else(
        |_| timestamp.to_owned(),
        |time| time.format("%Y-%m-%d %H:%M UTC%:z").to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_shown_to_the_minute_in_their_own_zone_named() {
        assert_eq!(
            shown("2025-08-19T08:39:27.174624+09:00"),
            "2025-08-19 08:39 UTC+09:00"
        );
        assert_eq!(shown("2025-08-19T08:39:27Z"), "2025-08-19 08:39 UTC+00:00");
        assert_eq!(shown("yesterday"), "yesterday");
    }

    #[test]
    fn only_a_text_longer_than_the_opening_is_cut() {
        assert_eq!(opening("短い要約", 4), None);
        assert_eq!(
            opening("認証の方式を決めた", 4).as_deref(),
            Some("認証の方…")
        );
        assert_eq!(opening("one two three", 4).as_deref(), Some("one…"));
    }
}
