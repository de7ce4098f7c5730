//! Loading: a page of threads within the answer's budget, or search results, each with what
//! the budget left out and the cursor to it.

mod json;
mod lookup;

use chrono_tz::Tz;
use schemars::JsonSchema;
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Memory, MemoryError, search, sent};
use crate::domain::{
    Entry, Filter, Namespace, PageBuilder, Profile, Thread, ThreadId, ValidationError,
    parse_instant,
};
use crate::search::{Found, Query, SearchCursor};
use lookup::Lookup;

/// A load's parameters, all optional, as every door sends them: the API's query string or body,
/// the `load_memories` tool's arguments (this is its schema), the memory page. Values stay as
/// sent until [`LoadRequest::lookup`] reads them; empty ones count as absent.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct LoadRequest {
    /// Search: the person's question, or their message as they wrote it, in any language, at
    /// most the server's summary limit (5,000 characters unless set otherwise). The summaries
    /// most relevant to it come back, best first, each with the terms it `matched`.
    pub q: Option<String>,
    /// Only this thread.
    pub thread_id: Option<String>,
    /// Only summaries saved at or after this time (RFC 3339, or YYYY-MM-DD).
    pub since: Option<String>,
    /// The `next_before` of a truncated answer, to get what it left out.
    pub before: Option<String>,
    /// At most this many threads (the most recently saved), or results with `q`.
    #[serde(default, deserialize_with = "sent::as_text")]
    #[schemars(with = "Option<u32>", range(min = 1))]
    pub limit: Option<String>,
}

impl LoadRequest {
    /// What the load asks for: a page of threads, or with `q` (at most `max_query_chars`) a
    /// search. Dates are read in `zone`.
    pub fn lookup(&self, zone: Tz, max_query_chars: usize) -> Result<Lookup, ValidationError> {
        let invalid = |name, expected| ValidationError::InvalidFilter { name, expected };
        let time = "an RFC 3339 time or a YYYY-MM-DD date";
        let filter = Filter {
            thread: (self.thread_id.as_deref())
                .filter(|id| !id.is_empty())
                .map(ThreadId::parse)
                .transpose()?,
            since: present(&self.since)
                .map(|raw| parse_instant(raw, zone).ok_or(invalid("since", time)))
                .transpose()?,
            before: None,
            limit: present(&self.limit)
                .map(|raw| {
                    raw.parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or(invalid("limit", "a whole number from 1"))
                })
                .transpose()?,
        };
        let before = present(&self.before);
        let query = match present(&self.q) {
            Some(q) if q.chars().count() > max_query_chars => {
                return Err(ValidationError::QueryTooLong {
                    actual: q.chars().count(),
                    limit: max_query_chars,
                });
            }
            q => q.and_then(Query::parse),
        };
        Ok(match query {
            Some(query) => Lookup::Search {
                after: before
                    .map(|raw| {
                        SearchCursor::parse(raw)
                            .ok_or(invalid("before", "the next_before of an earlier search"))
                    })
                    .transpose()?,
                filter,
                query,
            },
            None => Lookup::Page(Filter {
                before: before
                    .map(|raw| parse_instant(raw, zone).ok_or(invalid("before", time)))
                    .transpose()?,
                ..filter
            }),
        })
    }
}

/// A parameter's value, trimmed; an empty one counts as absent.
fn present(raw: &Option<String>) -> Option<&str> {
    raw.as_deref().map(str::trim).filter(|r| !r.is_empty())
}

/// What a load answers: a page of threads, or search results.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
pub enum LoadAnswer {
    Loaded(Loaded),
    Searched(Searched),
}

impl Memory {
    /// Loads a page of threads, or with `q` searches, within the answer's budget; never an
    /// entry past its age. The first page of an unfiltered load carries the profile first.
    pub async fn load(&self, ns: &Namespace, req: &LoadRequest) -> Result<LoadAnswer, MemoryError> {
        self.limit
            .within(async {
                let lookup = req.lookup(self.rules.timezone, self.rules.max_summary_chars)?;
                // Before the age limit joins the filter: only the caller's filters count here.
                let unfiltered = lookup.is_unfiltered();
                let budget = self.rules.load_budget_chars;
                Ok(match lookup.not_before(self.rules.retention.cutoff()) {
                    Lookup::Page(filter) => {
                        let (profile, page) = if unfiltered {
                            let cutoff = self.rules.retention.cutoff();
                            self.store.first_page(ns, &filter, cutoff, budget).await?
                        } else {
                            let page = PageBuilder::new(budget);
                            (None, self.store.page(ns, &filter, page).await?)
                        };
                        let omitted = page.omitted.map(|o| (o.entries, Some(o.threads)));
                        let status =
                            match (page.threads.is_empty() && profile.is_none(), unfiltered) {
                                (false, _) => LoadStatus::Loaded,
                                (true, true) => LoadStatus::Empty,
                                (true, false) => LoadStatus::NoMatch,
                            };
                        LoadAnswer::Loaded(Loaded {
                            status,
                            profile,
                            count: page.threads.len(),
                            data: ThreadMap(page.threads),
                            truncation: Truncation::new(omitted, page.next_before),
                        })
                    }
                    Lookup::Search {
                        filter,
                        query,
                        after,
                    } => {
                        let _turn = self.turns.take(ns).await;
                        let meaning = self.embed_question(query.text()).await;
                        let (store, meaning) = (self.store.as_ref(), meaning.as_ref());
                        let results =
                            search(store, ns, &filter, &query, meaning, after, budget).await?;
                        LoadAnswer::Searched(Searched {
                            status: if results.found.is_empty() {
                                SearchStatus::NoMatch
                            } else {
                                SearchStatus::Found
                            },
                            count: results.found.len(),
                            results: results.found,
                            truncation: Truncation::new(
                                results.omitted.map(|n| (n, None)),
                                results.next_before,
                            ),
                        })
                    }
                })
            })
            .await
    }
}

/// `loaded`; `empty` when nothing at all is saved; `no_match` when something is, but nothing the
/// filters (`thread_id`, `since`, `before`) admit.
#[derive(Serialize, ToSchema, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoadStatus {
    Loaded,
    Empty,
    NoMatch,
}

/// Saved threads, within the answer's size budget.
#[derive(Serialize, ToSchema, JsonSchema)]
pub struct Loaded {
    status: LoadStatus,
    /// What is known about the user, kept apart from the threads: on the first page of a load
    /// without `thread_id`, `since` or `before`, when a profile was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    profile: Option<Profile>,
    /// How many threads `data` holds.
    count: usize,
    /// Each thread's summaries, oldest first, keyed by thread id; the most recently saved
    /// thread comes first.
    #[schema(value_type = std::collections::HashMap<String, Vec<Entry>>)]
    #[schemars(with = "std::collections::BTreeMap<String, Vec<Entry>>")]
    data: ThreadMap,
    #[serde(flatten)]
    truncation: Truncation,
}

/// Present only when the answer's size budget left summaries out.
#[derive(Serialize, ToSchema, JsonSchema)]
pub struct Truncation {
    /// `true`: more is saved than this answer holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
    /// Summaries left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    omitted_entries: Option<u64>,
    /// Threads left out entirely.
    #[serde(skip_serializing_if = "Option::is_none")]
    omitted_threads: Option<u64>,
    /// Send as `before` (with the same other parameters) to get the older summaries; or narrow
    /// the load with `q` or `thread_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_before: Option<String>,
}

impl Truncation {
    fn new(omitted: Option<(u64, Option<u64>)>, next_before: Option<String>) -> Self {
        Self {
            truncated: omitted.map(|_| true),
            omitted_entries: omitted.map(|(entries, _)| entries),
            omitted_threads: omitted.and_then(|(_, threads)| threads),
            next_before,
        }
    }
}

/// `found`, or `no_match`: no summary holds any term of the question.
#[derive(Serialize, ToSchema, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchStatus {
    Found,
    NoMatch,
}

/// The summaries most relevant to `q` (those holding more of its rarer terms), best first,
/// then most recent.
#[derive(Serialize, ToSchema, JsonSchema)]
pub struct Searched {
    status: SearchStatus,
    /// How many results `results` holds.
    count: usize,
    results: Vec<Found>,
    #[serde(flatten)]
    truncation: Truncation,
}

impl Loaded {
    /// The threads, most recently saved first.
    pub fn threads(&self) -> &[Thread] {
        &self.data.0
    }

    pub fn truncation(&self) -> &Truncation {
        &self.truncation
    }
}

impl Searched {
    pub fn results(&self) -> &[Found] {
        &self.results
    }

    pub fn truncation(&self) -> &Truncation {
        &self.truncation
    }
}

impl Truncation {
    /// Where the rest starts, when the budget left some out.
    pub fn next_before(&self) -> Option<&str> {
        self.next_before.as_deref()
    }

    /// How many summaries the budget left out.
    pub fn omitted_entries(&self) -> u64 {
        self.omitted_entries.unwrap_or_default()
    }
}

/// Threads as a JSON object keyed by thread id, in the store's order (most recent first).
struct ThreadMap(Vec<Thread>);

impl Serialize for ThreadMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for thread in &self.0 {
            map.serialize_entry(&thread.id, &thread.entries)?;
        }
        map.end()
    }
}
