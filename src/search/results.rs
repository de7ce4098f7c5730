//! Search results: entries holding the question's terms, ranked by relevance (BM25, see
//! [`relevance`](super::relevance)) and then by recency, within the answer's budget, with a
//! cursor to the rest.

use chrono::DateTime;
use schemars::JsonSchema;
use serde::Serialize;
use utoipa::ToSchema;

use super::Query;
use super::relevance::{Scorer, TermCounts, TermStats};
use super::surface::words_holding;
use crate::domain::{Budget, Entry, Filter, Located, Ties, Writer, cursor, cut_to_fit, json_chars};

/// Most terms a result names in `matched`.
const MAX_MATCHED: usize = 8;

/// One search result: a saved summary, its thread, and why it came back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ToSchema, JsonSchema)]
pub struct Found {
    pub thread_id: String,
    pub summary: String,
    pub timestamp: String,
    /// The words of this summary that hold the question's terms, as the summary writes them,
    /// the rarest first; empty when it came back for its meaning alone.
    pub matched: Vec<String>,
    /// Who saved it, when kioku recorded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writer: Option<Writer>,
}

/// An entry a store read for a search, with its terms if the store keeps them.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub item: Located,
    /// `None`: the ranking segments the summary itself.
    pub stats: Option<TermStats>,
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
    /// The score in millionths, so that it reads back exactly.
    score: u64,
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
    fn admits(self, score: u64, at: i64) -> bool {
        score < self.score || (score == self.score && at < self.at)
    }
}

/// A result before the budget: its score (in the ranking's own unit: higher is better), the
/// terms it matched, and the entry.
#[derive(Debug, Clone)]
pub struct Ranked {
    pub score: u64,
    pub matched: Vec<String>,
    pub item: Located,
}

/// Ranks `candidates` (entries the filter admits; extra ones are harmless) by relevance to
/// the query, best first, then by recency. Segmenting and scoring every candidate is the
/// costly part: `given_up` is asked between candidates, and once it says yes the ranking stops
/// and answers `None`.
pub fn rank(
    candidates: Vec<Candidate>,
    query: &Query,
    counts: &TermCounts,
    filter: &Filter,
    given_up: &dyn Fn() -> bool,
) -> Option<Vec<Ranked>> {
    let mut admitted: Vec<(Located, TermStats)> = Vec::new();
    for Candidate { item, stats } in candidates {
        if given_up() {
            return None;
        }
        if filter.admits(&item) {
            let stats = stats.unwrap_or_else(|| TermStats::of(&item.entry.summary));
            admitted.push((item, stats));
        }
    }
    let all: Vec<&TermStats> = admitted.iter().map(|(_, stats)| stats).collect();
    let scorer = Scorer::new(query, counts, &all);
    let mut ranked: Vec<Ranked> = Vec::new();
    for (item, stats) in admitted {
        let Some((score, mut matched)) = scorer.score(&stats) else {
            continue;
        };
        matched.truncate(MAX_MATCHED);
        ranked.push(Ranked {
            score: (score * 1e6).round() as u64,
            matched,
            item,
        });
    }
    sort(&mut ranked);
    Some(ranked)
}

/// Best first, then in load order: the order results come in and cursors count.
pub fn sort(ranked: &mut [Ranked]) {
    ranked.sort_by(|a, b| {
        (b.score.cmp(&a.score)).then_with(|| Located::load_order(&a.item, &b.item))
    });
}

/// Takes the best of `ranked` (sorted by [`sort`]) after the cursor that fit `budget_chars`,
/// at most `filter.limit` of them, and says what it left out.
pub fn take(
    ranked: Vec<Ranked>,
    filter: &Filter,
    after: Option<SearchCursor>,
    budget_chars: usize,
) -> Results {
    let ranked: Vec<Ranked> = ranked
        .into_iter()
        .filter(|r| after.is_none_or(|c| c.admits(r.score, r.item.at)))
        .collect();
    let total = ranked.len();
    let mut budget = Budget::new(budget_chars);
    let mut results = Results::default();
    let mut ties = Ties::default();
    let limit = filter.limit.unwrap_or(usize::MAX);
    for Ranked {
        score,
        matched,
        item,
    } in ranked
    {
        let key = SearchCursor { score, at: item.at };
        if results.found.len() == limit {
            refuse(&mut results, &mut ties, key);
            break;
        }
        let found = Found {
            thread_id: item.thread_id,
            matched: words_holding(&item.entry.summary, &matched),
            summary: item.entry.summary,
            timestamp: item.entry.timestamp,
            writer: item.entry.writer,
        };
        let found = if budget.take(json_chars(&found) + 1) {
            found
        } else if results.found.is_empty() {
            let entry = Entry {
                summary: found.summary,
                timestamp: found.timestamp,
                writer: found.writer,
            };
            let overhead = json_chars(&Found {
                thread_id: found.thread_id.clone(),
                matched: found.matched.clone(),
                ..Default::default()
            });
            match cut_to_fit(&entry, budget.left.saturating_sub(overhead + 1)) {
                Some(cut) => {
                    budget.left = 0;
                    Found {
                        thread_id: found.thread_id,
                        // Only the words the cut kept (fewer only shrink what was counted).
                        matched: (found.matched.into_iter())
                            .filter(|word| cut.summary.contains(word.as_str()))
                            .collect(),
                        summary: cut.summary,
                        timestamp: cut.timestamp,
                        writer: cut.writer,
                    }
                }
                None => break,
            }
        } else {
            refuse(&mut results, &mut ties, key);
            break;
        };
        results.found.push(found);
        ties.took(key);
    }
    let omitted = total - results.found.len();
    if omitted > 0 {
        results.omitted = Some(omitted as u64);
        results.next_before = ties.last().and_then(SearchCursor::render);
    }
    results
}

/// The results are full before a result at `key`: those at `key` go back unless they are all
/// there is (see [`Ties`]).
fn refuse(results: &mut Results, ties: &mut Ties<SearchCursor>, key: SearchCursor) {
    let back = ties.give_back(key, results.found.len());
    results.found.truncate(results.found.len() - back);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ENVELOPE_CHARS;

    /// Entries matching `word` once each, newest first; `b` and `c` saved at the same instant.
    fn candidates() -> Vec<Candidate> {
        [("a", 3), ("b", 2), ("c", 2), ("d", 1)]
            .into_iter()
            .map(|(thread, second)| {
                let at = second * 1_000_000;
                Candidate {
                    item: Located {
                        thread_id: thread.into(),
                        entry: Entry {
                            summary: format!("word {thread}"),
                            timestamp: cursor(at).unwrap(),
                            writer: None,
                        },
                        at,
                        seq: at,
                    },
                    stats: None,
                }
            })
            .collect()
    }

    fn threads(results: &Results) -> Vec<&str> {
        results.found.iter().map(|f| f.thread_id.as_str()).collect()
    }

    fn search_with(filter: &Filter, after: Option<SearchCursor>, budget: usize) -> Results {
        let query = Query::parse("word").unwrap();
        let counts = TermCounts {
            documents: 4,
            counts: vec![4],
        };
        let ranked = rank(candidates(), &query, &counts, filter, &|| false).unwrap();
        take(ranked, filter, after, budget)
    }

    /// Room for two results, or a limit of two: the second is at the same instant as the
    /// third, so both wait for the next results, where the cursor reaches them.
    #[test]
    fn results_at_the_same_instant_are_never_parted() {
        let one = json_chars(&Found {
            thread_id: "a".into(),
            summary: "word a".into(),
            timestamp: cursor(3_000_000).unwrap(),
            matched: vec!["word".into()],
            writer: None,
        }) + 1;
        let limited = Filter {
            limit: Some(2),
            ..Filter::default()
        };
        for (filter, budget) in [
            (Filter::default(), ENVELOPE_CHARS + 2 * one),
            (limited, usize::MAX),
        ] {
            let first = search_with(&filter, None, budget);
            assert_eq!(threads(&first), ["a"], "{filter:?}");
            assert_eq!(first.omitted, Some(3));
            let after = SearchCursor::parse(first.next_before.as_deref().unwrap());
            let next = search_with(&filter, after, budget);
            assert_eq!(threads(&next), ["b", "c"], "{filter:?}");
        }
    }
}
