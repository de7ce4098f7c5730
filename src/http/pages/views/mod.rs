//! What each page shows, as compiled templates (`templates/`): the memory page's, the consent
//! page's, the privacy policy's, and the sentence a person reads for each refusal.

mod app;
mod clock;
mod consent;
mod privacy;
mod refusals;

pub use app::{
    AppNotice, AppView, ConfirmPage, DisconnectPage, EntryView, MemoryPage, SignInPage, ThreadView,
    VersionView, heading, saved_by,
};
pub use clock::{Clock, OFFERED_ZONES};
pub use consent::{Consent, Notice};
pub use privacy::{FILE_POLICY, Privacy, PrivacyPage};
pub use refusals::refusal;

/// The host a URL names, as a person knows it: how a sign-in button names an OpenID Provider.
pub fn host(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| url.to_owned())
}
