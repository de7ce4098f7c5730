//! The memory page's views: signing in, the memory itself (threads or search results, the
//! profile, connected apps, the export), and the confirmation before forgetting.

use askama::Template;

use super::Clock;
use crate::credentials::LOCAL_NAMESPACE;
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
    /// The zone times are written in, and the zones offered to pick instead.
    pub zone: String,
    pub zones: &'static [&'static str],
    /// Whether the person picked the zone: until they do, the page offers their browser's.
    pub zone_chosen: bool,
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
    /// Whether the profile is shown in its form, to rewrite, or as text with a link to do so.
    pub editing: bool,
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
    /// Its newest summary's timestamp, and that time as the reader reads it.
    pub newest: String,
    pub newest_shown: String,
    /// "3 summaries", of those shown.
    pub count: String,
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
    /// "Dec 6, 2026, 8:42 PM · saved by Claude".
    pub saved: String,
}

impl VersionView {
    pub fn new(t: &Text, clock: &Clock, profile: Profile) -> Self {
        let mut saved = clock.time(&profile.updated_at);
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
    pub fn new(t: &Text, clock: &Clock, thread: &Thread) -> Self {
        let day = |entry: Option<&Entry>| entry.map(|e| clock.day(&e.timestamp));
        let dates = match (day(thread.entries.first()), day(thread.entries.last())) {
            (Some(from), Some(to)) if from != to => t
                .app
                .thread_dates
                .replace("{from}", &from)
                .replace("{to}", &to),
            (_, to) => to.unwrap_or_default(),
        };
        let newest = thread.entries.last().map(|e| e.timestamp.clone());
        let count = match thread.entries.len() {
            1 => t.app.one_summary.to_owned(),
            n => t.app.summaries_count.replace("{n}", &n.to_string()),
        };
        Self {
            id: thread.id.clone(),
            heading: heading(thread),
            dates,
            newest_shown: newest.as_deref().map(|n| clock.time(n)).unwrap_or_default(),
            newest: newest.unwrap_or_default(),
            count,
            entries: thread
                .entries
                .iter()
                .map(|e| EntryView::new(t, clock, &thread.id, e))
                .collect(),
        }
    }
}

impl EntryView {
    pub fn new(t: &Text, clock: &Clock, thread_id: &str, entry: &Entry) -> Self {
        Self {
            thread_id: thread_id.to_owned(),
            summary: entry.summary.clone(),
            opening: opening(&entry.summary, FOLDED_CHARS),
            timestamp: entry.timestamp.clone(),
            shown: clock.time(&entry.timestamp),
            matched: String::new(),
            thread_link: String::new(),
            writer: entry.writer.as_ref().map(|w| saved_by(t, w)),
        }
    }

    /// A search result, with the heading of its thread if that was read.
    pub fn found(t: &Text, clock: &Clock, found: &Found, thread_heading: Option<&str>) -> Self {
        Self {
            thread_id: found.thread_id.clone(),
            summary: found.summary.clone(),
            opening: opening(&found.summary, FOLDED_CHARS),
            timestamp: found.timestamp.clone(),
            shown: clock.time(&found.timestamp),
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
        // The generated token's namespace is named by no one: said for what it is.
        Writer::Token { label } if label == LOCAL_NAMESPACE => t.app.by_local_token.to_owned(),
        Writer::Token { label } => t.app.by_token.replace("{label}", label),
        Writer::Page => t.app.by_page.to_owned(),
        Writer::Import => t.app.by_import.to_owned(),
    };
    t.app.saved_by.replace("{writer}", &who)
}

impl AppView {
    /// `app` as the person reads it: which client, how they signed in, and when.
    pub fn new(t: &Text, clock: &Clock, app: ConnectedApp) -> Self {
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
            connected_at: clock.instant(app.connected_at),
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
const FOLDED_CHARS: usize = 120;

/// The first `chars` characters of `text` and an ellipsis, if it is longer than that: cut at
/// the last space before, where one is in the second half ("the use…" read as a word), else
/// at the character (Japanese has no spaces to cut at).
fn opening(text: &str, chars: usize) -> Option<String> {
    let (cut, next) = text.char_indices().nth(chars)?;
    let start = &text[..cut];
    let at_word = match next.is_whitespace() {
        true => start,
        false => match start.rfind(char::is_whitespace) {
            Some(space) if start[..space].chars().count() >= chars / 2 => &start[..space],
            _ => start,
        },
    };
    Some(format!("{}…", at_word.trim_end()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_named_by_its_label_but_the_generated_one_for_what_it_is() {
        let en = &crate::http::pages::text::EN;
        let token = |label: &str| Writer::Token {
            label: label.into(),
        };
        assert_eq!(saved_by(en, &token("mygpt")), "saved by API token mygpt");
        assert_eq!(
            saved_by(en, &token(LOCAL_NAMESPACE)),
            "saved by the API token kioku generated"
        );
    }

    #[test]
    fn only_a_text_longer_than_the_opening_is_cut() {
        assert_eq!(opening("短い要約", 4), None);
        assert_eq!(
            opening("認証の方式を決めた", 4).as_deref(),
            Some("認証の方…")
        );
        assert_eq!(opening("one two three", 4).as_deref(), Some("one…"));
        assert_eq!(opening("one two three", 6).as_deref(), Some("one…"));
        assert_eq!(opening("one two three", 7).as_deref(), Some("one two…"));
        assert_eq!(opening("onetwothree", 6).as_deref(), Some("onetwo…"));
        assert_eq!(
            opening("認証の 方式を決めた", 6).as_deref(),
            Some("認証の…")
        );
    }
}
