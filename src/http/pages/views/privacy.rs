//! The privacy policy a shared GPT links to: the operator's own page, or one kioku writes from
//! its settings (what it keeps, where, for how long, and how to have it forgotten).

use askama::Template;

use crate::config::{Contact, StoreKind};
use crate::credentials::SESSION_LIFETIME;
use crate::domain::Retention;
use crate::http::pages::Text;

/// What `/privacy` answers with.
pub enum Privacy {
    /// The operator's HTML (`KIOKU_PRIVACY_FILE`), served as it is.
    File(String),
    /// A page written from the settings; the store and the operator's contact are the facts the
    /// rest of the state lacks.
    Written {
        store: StoreKind,
        contact: Option<Contact>,
    },
}

/// What the operator's page may load: anything but scripts, which have no place on a policy
/// and would run on the origin of the consent page.
pub const FILE_POLICY: &str = "default-src * data:; script-src 'none'; object-src 'none'; \
                               style-src * 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

#[derive(Template)]
#[template(path = "privacy.html")]
pub struct PrivacyPage<'a> {
    pub t: &'a Text,
    pub switch_url: Option<String>,
    pub stored: Vec<&'a str>,
    pub place: &'a str,
    pub kept: Vec<String>,
    /// Whom to ask to delete or export the whole memory (`KIOKU_PRIVACY_CONTACT`).
    pub contact: Option<&'a Contact>,
}

impl<'a> PrivacyPage<'a> {
    /// The page in `t`'s language, for memories in `store` kept under `retention`; `sign_in`
    /// when the OAuth server is on, which keeps grants too; naming the operator's `contact`.
    pub fn new(
        t: &'a Text,
        store: StoreKind,
        contact: Option<&'a Contact>,
        retention: &Retention,
        sign_in: bool,
    ) -> Self {
        let mut stored = vec![t.stored_summaries, t.stored_profile, t.stored_threads];
        let limits = [
            (t.kept_days, retention.max_age_days),
            (t.kept_entries, retention.max_entries_per_thread),
            (t.kept_threads, retention.max_threads),
        ];
        let mut kept: Vec<String> = limits
            .into_iter()
            .filter_map(|(text, limit)| Some(text.replace("{n}", &limit?.to_string())))
            .collect();
        if retention.max_age_days.is_none() {
            let rest = match kept.is_empty() {
                true => t.kept_until_forgotten,
                false => t.kept_otherwise,
            };
            kept.push(rest.into());
        }
        if sign_in {
            stored.push(t.stored_sign_in);
            kept.push(t.kept_sign_in.into());
        }
        let hours = SESSION_LIFETIME.num_hours().to_string();
        kept.push(t.kept_page_session.replace("{hours}", &hours));
        Self {
            t,
            switch_url: Some(format!("?lang={}", t.other_lang)),
            stored,
            place: match store {
                StoreKind::Sqlite => t.where_sqlite,
                StoreKind::Firestore => t.where_firestore,
            },
            kept,
            contact,
        }
    }
}
