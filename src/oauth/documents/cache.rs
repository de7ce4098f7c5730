//! What is kept of the documents fetched: each client as long as its answer allows (and its
//! last good copy for a while after, for when its host fails), and briefly why a document could
//! not be used, so that asking again does not fetch again. Both bounded in count.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::store::Client;

/// How long after it was fetched a document's last good copy stands in for one that cannot
/// be fetched (RFC 5861's stale-if-error, bounded here).
pub(super) const MAX_STALE: Duration = Duration::from_secs(86_400);
/// How long a refusal is kept: a document that failed is not fetched again for a minute.
pub(super) const REFUSAL_LIFETIME: Duration = Duration::from_secs(60);
/// Most documents, and most refusals, kept.
const MAX_KEPT: usize = 512;

#[derive(Default)]
pub(super) struct Cache {
    kept: Mutex<HashMap<String, Kept>>,
    refused: Mutex<HashMap<String, Refused>>,
}

struct Kept {
    client: Client,
    /// Fresh until then; after it, the last good copy.
    until: Instant,
    fetched: Instant,
}

struct Refused {
    why: String,
    until: Instant,
}

impl Cache {
    /// The client of `url`'s document while its answer said it is fresh.
    pub fn fresh(&self, url: &str) -> Option<Client> {
        self.kept(url, |kept| kept.until)
    }

    /// The last good copy of `url`'s document, within [`MAX_STALE`] of its fetch.
    pub fn last_good(&self, url: &str) -> Option<Client> {
        self.kept(url, |kept| kept.fetched + MAX_STALE)
    }

    fn kept(&self, url: &str, usable_until: impl Fn(&Kept) -> Instant) -> Option<Client> {
        let kept = self
            .kept
            .lock()
            .expect("the document cache is never poisoned");
        kept.get(url)
            .filter(|kept| usable_until(kept) > Instant::now())
            .map(|kept| kept.client.clone())
    }

    pub fn forget(&self, url: &str) {
        let mut kept = self
            .kept
            .lock()
            .expect("the document cache is never poisoned");
        kept.remove(url);
    }

    pub fn keep(&self, client: Client, lifetime: Duration) {
        let now = Instant::now();
        let mut kept = self
            .kept
            .lock()
            .expect("the document cache is never poisoned");
        make_room(
            &mut kept,
            |kept| kept.fetched + MAX_STALE > now,
            |kept| kept.until,
        );
        kept.insert(
            client.id.clone(),
            Kept {
                client,
                until: now + lifetime,
                fetched: now,
            },
        );
    }

    /// Why `url`'s document was refused of late, if it was.
    pub fn refusal(&self, url: &str) -> Option<String> {
        let refused = self
            .refused
            .lock()
            .expect("the refusals are never poisoned");
        refused
            .get(url)
            .filter(|refused| refused.until > Instant::now())
            .map(|refused| refused.why.clone())
    }

    pub fn refuse(&self, url: &str, why: &str) {
        let now = Instant::now();
        let mut refused = self
            .refused
            .lock()
            .expect("the refusals are never poisoned");
        make_room(
            &mut refused,
            |refused| refused.until > now,
            |refused| refused.until,
        );
        let until = now + REFUSAL_LIFETIME;
        let why = why.to_owned();
        refused.insert(url.to_owned(), Refused { why, until });
    }
}

/// Room for one more in `map`: what `live` no longer keeps goes, then the soonest to go.
fn make_room<T>(
    map: &mut HashMap<String, T>,
    live: impl Fn(&T) -> bool,
    goes_at: impl Fn(&T) -> Instant,
) {
    if map.len() >= MAX_KEPT {
        map.retain(|_, value| live(value));
    }
    if map.len() >= MAX_KEPT
        && let Some(soonest) = map
            .iter()
            .min_by_key(|(_, value)| goes_at(value))
            .map(|(key, _)| key.clone())
    {
        map.remove(&soonest);
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;

    fn client(id: &str) -> Client {
        Client {
            id: id.to_owned(),
            name: "App".into(),
            secret_digest: None,
            redirect_uris: Vec::new(),
            registered: true,
            created_at: Utc::now(),
            expires_at: None,
        }
    }

    #[test]
    fn both_kinds_are_bounded_and_a_stale_copy_outlives_its_freshness() {
        let cache = Cache::default();
        cache.keep(client("a"), Duration::ZERO);
        assert!(cache.fresh("a").is_none() && cache.last_good("a").is_some());
        for n in 0..MAX_KEPT + 10 {
            cache.keep(client(&format!("c{n}")), Duration::from_secs(60));
            cache.refuse(&format!("r{n}"), "it answered HTTP 503");
        }
        assert_eq!(cache.kept.lock().unwrap().len(), MAX_KEPT);
        assert_eq!(cache.refused.lock().unwrap().len(), MAX_KEPT);
        assert_eq!(
            cache.refusal(&format!("r{}", MAX_KEPT + 9)).as_deref(),
            Some("it answered HTTP 503")
        );
    }
}
