//! Search by words and by meaning as one ranking: reciprocal rank fusion (Cormack, Clarke and
//! Büttcher, SIGIR 2009). Each ranking gives an entry `1 / (K + rank)`; the sums order the
//! results. It needs no calibration of BM25 scores against cosines, which live on unrelated
//! scales, and an entry either ranking alone found still comes back.

use std::collections::HashMap;

use super::results::{Ranked, sort};
use crate::domain::{Filter, Located};

/// The usual constant: it damps the weight of the very first ranks.
const K: f64 = 60.0;

/// Most entries the ranking by meaning adds: past this rank, `1 / (K + rank)` no longer lifts
/// an entry the words did not find above one they did.
pub const MAX_NEAREST: usize = 100;

/// Fused scores are in billionths: small sums, which must still read back exactly in a cursor.
const SCALE: f64 = 1e9;

/// `lexical` (best first) and `nearest` (the entries closest in meaning, closest first) as one
/// ranking, sorted by [`sort`]. A result found by meaning alone matches no terms.
pub fn fuse(lexical: Vec<Ranked>, nearest: Vec<Located>, filter: &Filter) -> Vec<Ranked> {
    let share = |rank: usize| 1.0 / (K + rank as f64 + 1.0);
    let mut fused: HashMap<(String, i64), (f64, Ranked)> = HashMap::new();
    for (rank, ranked) in lexical.into_iter().enumerate() {
        let key = (ranked.item.thread_id.clone(), ranked.item.seq);
        fused.insert(key, (share(rank), ranked));
    }
    let nearest = nearest.into_iter().filter(|item| filter.admits(item));
    for (rank, item) in nearest.take(MAX_NEAREST).enumerate() {
        let key = (item.thread_id.clone(), item.seq);
        fused
            .entry(key)
            .or_insert_with(|| {
                let ranked = Ranked {
                    score: 0,
                    matched: Vec::new(),
                    item,
                };
                (0.0, ranked)
            })
            .0 += share(rank);
    }
    let mut ranked: Vec<Ranked> = fused
        .into_values()
        .map(|(score, ranked)| Ranked {
            score: (score * SCALE).round() as u64,
            ..ranked
        })
        .collect();
    sort(&mut ranked);
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Entry, cursor};

    fn item(thread: &str, second: i64) -> Located {
        let at = second * 1_000_000;
        Located {
            thread_id: thread.into(),
            entry: Entry {
                summary: thread.into(),
                timestamp: cursor(at).unwrap(),
                writer: None,
            },
            at,
            seq: at,
        }
    }

    fn lexical(threads: &[&str]) -> Vec<Ranked> {
        let n = threads.len() as u64;
        (threads.iter().enumerate())
            .map(|(i, t)| Ranked {
                score: n - i as u64,
                matched: vec!["word".into()],
                item: item(t, i as i64),
            })
            .collect()
    }

    fn order(ranked: &[Ranked]) -> Vec<&str> {
        ranked.iter().map(|r| r.item.thread_id.as_str()).collect()
    }

    #[test]
    fn an_entry_both_rankings_find_comes_before_those_one_finds() {
        let nearest = vec![item("c", 2), item("d", 9), item("a", 0)];
        let fused = fuse(lexical(&["a", "b", "c"]), nearest, &Filter::default());
        // a: 1st and 3rd; c: 3rd and 1st: a tie that load order breaks (c is newer).
        assert_eq!(order(&fused), ["c", "a", "d", "b"]);
        assert!(fused[2].matched.is_empty(), "d was found by meaning alone");
        assert_eq!(fused[3].matched, ["word"]);
    }

    #[test]
    fn entries_the_filter_refuses_are_not_added_by_meaning() {
        let filter = Filter {
            thread: Some(crate::domain::ThreadId::parse("a").unwrap()),
            ..Filter::default()
        };
        let fused = fuse(Vec::new(), vec![item("b", 1), item("a", 0)], &filter);
        assert_eq!(order(&fused), ["a"]);
    }
}
