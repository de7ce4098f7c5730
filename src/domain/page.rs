//! A load's answer within a size budget. Entries are taken newest first across threads until
//! the JSON answer would pass the budget; what is left out is counted, and a cursor reaches it.

use std::cmp::Ordering;

use chrono::{DateTime, NaiveDate, SecondsFormat, TimeZone, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use utoipa::ToSchema;

use super::{Entry, Query, Thread, ThreadId, ValidationError, fold};

/// Room kept for the answer's envelope: status, counts, the truncation report and its cursor.
const ENVELOPE_CHARS: usize = 256;

/// Characters `value` takes as JSON, as sent.
fn json_chars(value: &impl Serialize) -> usize {
    serde_json::to_string(value)
        .expect("plain data serializes")
        .chars()
        .count()
}

/// Microseconds since the epoch of an entry's timestamp; an unreadable one sorts oldest.
pub fn micros(timestamp: &str) -> i64 {
    DateTime::parse_from_rfc3339(timestamp).map_or(i64::MIN, |t| t.timestamp_micros())
}

/// The cursor after an entry saved at `at`: entries strictly older come next.
fn cursor(at: i64) -> Option<String> {
    let at = DateTime::<Utc>::from_timestamp_micros(at).filter(|_| at != i64::MIN)?;
    Some(at.to_rfc3339_opts(SecondsFormat::Micros, true))
}

/// What a budget cut left out: entries, and threads with no entry on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Omitted {
    pub entries: u64,
    pub threads: u64,
}

/// Characters left for the answer's content.
struct Budget {
    left: usize,
}

impl Budget {
    fn new(limit: usize) -> Self {
        Self {
            left: limit.saturating_sub(ENVELOPE_CHARS),
        }
    }

    fn take(&mut self, chars: usize) -> bool {
        let fits = chars <= self.left;
        if fits {
            self.left -= chars;
        }
        fits
    }
}

/// `entry` with its summary cut, and marked as cut, to take at most `chars` characters of JSON.
/// `None` when not even the marker fits.
fn cut_to_fit(entry: &Entry, chars: usize) -> Option<Entry> {
    let total = entry.summary.chars().count();
    let cut = |keep: usize| Entry {
        summary: format!(
            "{}…[cut: {keep} of {total} characters shown]",
            entry.summary.chars().take(keep).collect::<String>()
        ),
        timestamp: entry.timestamp.clone(),
    };
    // The longest prefix that fits, by bisection: JSON length grows with the prefix.
    let (mut low, mut high) = (0, total);
    while low < high {
        let mid = (low + high).div_ceil(2);
        if json_chars(&cut(mid)) <= chars {
            low = mid
        } else {
            high = mid - 1
        }
    }
    Some(cut(low)).filter(|e| json_chars(e) <= chars)
}

/// One entry and where it belongs.
#[derive(Debug, Clone)]
pub struct Located {
    pub thread_id: String,
    pub entry: Entry,
    /// [`micros`] of the entry's timestamp.
    pub at: i64,
    /// Its place in the thread, rising with each save; breaks ties in time.
    pub seq: i64,
}

impl Located {
    /// The order loads take entries in: newest first, then by thread id, then newest in the
    /// thread. Every store sorts by it, so every store answers alike.
    pub fn load_order(a: &Self, b: &Self) -> Ordering {
        b.at.cmp(&a.at)
            .then_with(|| a.thread_id.cmp(&b.thread_id))
            .then_with(|| b.seq.cmp(&a.seq))
    }
}

/// Which entries a load or a search considers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    pub thread: Option<ThreadId>,
    /// Saved at or after, in [`micros`].
    pub since: Option<i64>,
    /// Saved strictly before, in [`micros`]: a load's cursor.
    pub before: Option<i64>,
    /// Only the threads saved to most recently (by a load), or the best results (by a search).
    pub limit: Option<usize>,
}

impl Filter {
    /// Whether `item` passes the thread and time filters (`limit` is applied to the whole).
    pub fn admits(&self, item: &Located) -> bool {
        self.thread
            .as_ref()
            .is_none_or(|t| t.as_str() == item.thread_id)
            && self.since.is_none_or(|since| item.at >= since)
            && self.before.is_none_or(|before| item.at < before)
    }

    /// Admits nothing saved before `cutoff`, such as entries past the retention age.
    pub fn not_before(self, cutoff: Option<i64>) -> Self {
        Self {
            since: self.since.max(cutoff),
            ..self
        }
    }

    /// Keeps the entries of the `limit` threads with the newest entries; `items` are in
    /// [`Located::load_order`].
    pub fn limit_threads(&self, items: &mut Vec<Located>) {
        let Some(limit) = self.limit else { return };
        let mut kept: Vec<String> = Vec::new();
        for item in items.iter() {
            if kept.len() == limit {
                break;
            }
            if !kept.contains(&item.thread_id) {
                kept.push(item.thread_id.clone());
            }
        }
        items.retain(|item| kept.contains(&item.thread_id));
    }
}

/// What a load asks for: a page of threads, or search results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Page(Filter),
    Search {
        filter: Filter,
        query: Query,
        after: Option<SearchCursor>,
    },
}

impl Lookup {
    /// Reads a load's optional parameters; empty ones count as absent. Dates are read in `zone`.
    pub fn parse(
        thread_id: Option<&str>,
        q: Option<&str>,
        since: Option<&str>,
        before: Option<&str>,
        limit: Option<&str>,
        zone: Tz,
    ) -> Result<Self, ValidationError> {
        let invalid = |name, expected| ValidationError::InvalidFilter { name, expected };
        let time = "an RFC 3339 time or a YYYY-MM-DD date";
        let filter = Filter {
            thread: thread_id
                .filter(|id| !id.is_empty())
                .map(ThreadId::parse)
                .transpose()?,
            since: present(since)
                .map(|raw| parse_instant(raw, zone).ok_or(invalid("since", time)))
                .transpose()?,
            before: None,
            limit: present(limit)
                .map(|raw| {
                    raw.parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or(invalid("limit", "a whole number from 1"))
                })
                .transpose()?,
        };
        let before = present(before);
        Ok(match present(q).and_then(Query::parse) {
            Some(query) => Self::Search {
                after: before
                    .map(|raw| {
                        SearchCursor::parse(raw)
                            .ok_or(invalid("before", "the next_before of an earlier search"))
                    })
                    .transpose()?,
                filter,
                query,
            },
            None => Self::Page(Filter {
                before: before
                    .map(|raw| parse_instant(raw, zone).ok_or(invalid("before", time)))
                    .transpose()?,
                ..filter
            }),
        })
    }

    /// The same lookup, admitting nothing saved before `cutoff`.
    pub fn not_before(self, cutoff: Option<i64>) -> Self {
        match self {
            Self::Page(filter) => Self::Page(filter.not_before(cutoff)),
            Self::Search {
                filter,
                query,
                after,
            } => Self::Search {
                filter: filter.not_before(cutoff),
                query,
                after,
            },
        }
    }
}

/// A saved entry's `timestamp` as a caller sends it back, in [`micros`]. A `+` sent unencoded
/// in a query string arrives as a space, so a space before the offset is read as `+`.
pub fn parse_timestamp(raw: &str) -> Option<i64> {
    let raw = raw.trim();
    let at = DateTime::parse_from_rfc3339(raw).or_else(|err| match raw.rsplit_once(' ') {
        Some((time, offset)) => DateTime::parse_from_rfc3339(&format!("{time}+{offset}")),
        None => Err(err),
    });
    at.ok().map(|at| at.timestamp_micros())
}

/// A parameter's value, trimmed; an empty one counts as absent.
fn present(raw: Option<&str>) -> Option<&str> {
    raw.map(str::trim).filter(|r| !r.is_empty())
}

/// An instant as a filter takes it: RFC 3339, or `YYYY-MM-DD` for the start of that day in
/// `zone`. In [`micros`].
pub fn parse_instant(raw: &str, zone: Tz) -> Option<i64> {
    if let Ok(at) = DateTime::parse_from_rfc3339(raw) {
        return Some(at.timestamp_micros());
    }
    let day = NaiveDate::parse_from_str(raw, "%Y-%m-%d").ok()?;
    let start = zone
        .from_local_datetime(&day.and_hms_opt(0, 0, 0)?)
        .earliest()?;
    Some(start.timestamp_micros())
}

/// Threads, most recently saved first, each with its entries oldest first.
#[derive(Debug, Default)]
pub struct Page {
    pub threads: Vec<Thread>,
    /// Set when the budget left entries out.
    pub omitted: Option<Omitted>,
    /// Where the next page starts: pass it back as `before`.
    pub next_before: Option<String>,
}

/// Builds a [`Page`] from entries in load order.
pub struct PageBuilder {
    budget: Budget,
    page: Page,
    included: u64,
    last_at: Option<i64>,
    full: bool,
}

impl PageBuilder {
    pub fn new(budget_chars: usize) -> Self {
        Self {
            budget: Budget::new(budget_chars),
            page: Page::default(),
            included: 0,
            last_at: None,
            full: false,
        }
    }

    /// Adds the next entry; `false` when it does not fit, and the page is full. An entry too
    /// large for an empty page is cut to fit instead.
    pub fn push(&mut self, item: Located) -> bool {
        let existing = self
            .page
            .threads
            .iter()
            .position(|t| t.id == item.thread_id);
        // A new thread costs its key, brackets and a comma; an entry, itself and a comma.
        let thread_cost = existing.map_or(json_chars(&item.thread_id) + 4, |_| 0);
        let entry_cost = json_chars(&item.entry) + 1;
        let entry = if self.budget.take(thread_cost + entry_cost) {
            item.entry
        } else if self.page.threads.is_empty() {
            match cut_to_fit(
                &item.entry,
                self.budget.left.saturating_sub(thread_cost + 1),
            ) {
                Some(cut) => {
                    self.budget.left = 0;
                    cut
                }
                None => return self.fill(),
            }
        } else {
            return self.fill();
        };
        self.included += 1;
        self.last_at = Some(item.at);
        match existing {
            Some(i) => self.page.threads[i].entries.push(entry),
            None => self.page.threads.push(Thread {
                id: item.thread_id,
                entries: vec![entry],
            }),
        }
        true
    }

    fn fill(&mut self) -> bool {
        self.full = true;
        false
    }

    /// Whether an entry was refused: then [`finish`](Self::finish) needs the totals.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// The page. `totals` (entries, threads) are of everything the filters let through, and
    /// needed only when the page [`is_full`](Self::is_full).
    pub fn finish(mut self, totals: Option<(u64, u64)>) -> Page {
        for thread in &mut self.page.threads {
            thread.entries.reverse();
        }
        if let Some((entries, threads)) = totals.filter(|_| self.full) {
            self.page.omitted = Some(Omitted {
                entries: entries.saturating_sub(self.included),
                threads: threads.saturating_sub(self.page.threads.len() as u64),
            });
            self.page.next_before = self.last_at.and_then(cursor);
        }
        self.page
    }
}

/// One search result: a saved summary and its thread.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct Found {
    pub thread_id: String,
    pub summary: String,
    pub timestamp: String,
}

/// Search results, best first, within the budget.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Results {
    pub found: Vec<Found>,
    /// Matching entries the budget or `limit` left out, if any.
    pub omitted: Option<u64>,
    /// Where the next results start: pass it back as `before`.
    pub next_before: Option<String>,
}

/// Where a search's next results start: after this score and time, in result order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchCursor {
    score: usize,
    at: i64,
}

impl SearchCursor {
    /// Reads `score@RFC3339`, as [`Results::next_before`] writes it.
    pub fn parse(raw: &str) -> Option<Self> {
        let (score, at) = raw.split_once('@')?;
        Some(Self {
            score: score.parse().ok()?,
            at: DateTime::parse_from_rfc3339(at).ok()?.timestamp_micros(),
        })
    }

    fn render(self) -> Option<String> {
        Some(format!("{}@{}", self.score, cursor(self.at)?))
    }

    /// Whether a result of `score` at `at` comes after the cursor.
    fn admits(self, score: usize, at: i64) -> bool {
        score < self.score || (score == self.score && at < self.at)
    }
}

/// Ranks `candidates` (entries the filter admits; extra ones are harmless) by how often the
/// query's words occur, then by recency, and takes the best that fit `budget` characters.
pub fn search(
    candidates: Vec<Located>,
    query: &Query,
    filter: &Filter,
    after: Option<SearchCursor>,
    budget_chars: usize,
) -> Results {
    let mut ranked: Vec<(usize, Located)> = candidates
        .into_iter()
        .filter(|item| filter.admits(item))
        .filter_map(|item| Some((query.score(&fold(&item.entry.summary))?, item)))
        .filter(|(score, item)| after.is_none_or(|c| c.admits(*score, item.at)))
        .collect();
    ranked.sort_by(|(sa, a), (sb, b)| sb.cmp(sa).then_with(|| Located::load_order(a, b)));
    let total = ranked.len();
    let mut budget = Budget::new(budget_chars);
    let mut results = Results::default();
    let mut last = None;
    for (score, item) in ranked.into_iter().take(filter.limit.unwrap_or(usize::MAX)) {
        let found = Found {
            thread_id: item.thread_id,
            summary: item.entry.summary,
            timestamp: item.entry.timestamp,
        };
        let found = if budget.take(json_chars(&found) + 1) {
            found
        } else if results.found.is_empty() {
            let entry = Entry {
                summary: found.summary,
                timestamp: found.timestamp,
            };
            let overhead = json_chars(&Found {
                thread_id: found.thread_id.clone(),
                ..Default::default()
            });
            match cut_to_fit(&entry, budget.left.saturating_sub(overhead + 1)) {
                Some(cut) => {
                    budget.left = 0;
                    Found {
                        thread_id: found.thread_id,
                        summary: cut.summary,
                        timestamp: cut.timestamp,
                    }
                }
                None => break,
            }
        } else {
            break;
        };
        results.found.push(found);
        last = Some(SearchCursor { score, at: item.at });
    }
    let omitted = total - results.found.len();
    if omitted > 0 {
        results.omitted = Some(omitted as u64);
        results.next_before = last.and_then(SearchCursor::render);
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    fn located(thread: &str, summary: &str, at: i64) -> Located {
        let timestamp = cursor(at).unwrap();
        Located {
            thread_id: thread.into(),
            entry: Entry {
                summary: summary.into(),
                timestamp,
            },
            at,
            seq: at,
        }
    }

    #[test]
    fn regroups_newest_first_entries_by_thread_oldest_first() {
        let mut page = PageBuilder::new(10_000);
        for (thread, summary, at) in [
            ("b", "b2", 4),
            ("a", "a2", 3),
            ("b", "b1", 2),
            ("a", "a1", 1),
        ] {
            assert!(page.push(located(thread, summary, at)));
        }
        let page = page.finish(None);
        let got: Vec<(&str, Vec<&str>)> = page
            .threads
            .iter()
            .map(|t| {
                (
                    t.id.as_str(),
                    t.entries.iter().map(|e| e.summary.as_str()).collect(),
                )
            })
            .collect();
        assert_eq!(got, [("b", vec!["b1", "b2"]), ("a", vec!["a1", "a2"])]);
        assert_eq!((page.omitted, page.next_before), (None, None));
    }

    #[test]
    fn a_full_page_reports_a_cursor_at_its_oldest_entry() {
        let mut page = PageBuilder::new(ENVELOPE_CHARS + 120);
        assert!(page.push(located("a", "x", 2_000_000)));
        assert!(!page.push(located("a", &"y".repeat(100), 1_000_000)));
        let page = page.finish(Some((2, 1)));
        assert_eq!(
            page.next_before.as_deref(),
            Some("1970-01-01T00:00:02.000000Z")
        );
        assert_eq!(
            page.omitted,
            Some(Omitted {
                entries: 1,
                threads: 0
            })
        );
    }

    #[test]
    fn an_entry_larger_than_the_budget_is_cut_with_a_marker() {
        let mut page = PageBuilder::new(ENVELOPE_CHARS + 500);
        assert!(page.push(located("a", &"記".repeat(10_000), 1)));
        let summary = &page.finish(None).threads[0].entries[0].summary;
        assert!(summary.ends_with("characters shown]"), "{summary}");
        assert!(summary.contains("of 10000"));
    }
}
