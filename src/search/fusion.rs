//! Search by words and by meaning as one ranking: reciprocal rank fusion (Cormack, Clarke and
//! Büttcher, SIGIR 2009), weighted. Each ranking gives an entry `weight / (K + rank)`; the sums
//! order the results. It needs no calibration of BM25 scores against cosines, which live on
//! unrelated scales, and an entry either ranking alone found still comes back.

use std::collections::HashMap;

use super::results::{Ranked, sort};
use crate::domain::{Filter, Located};

/// How fast a rank's share falls: the first rank counts `(K + 2) / (K + 1)` times the second.
/// Cormack et al. chose 60 fusing many systems' rankings a thousand deep; kioku fuses two and
/// shows a handful, where what each ranking puts first matters most. Replayed outside kioku
/// over its own word rankings and vectors (multilingual-e5-small), every K from 15 to 30 found
/// more than 60 at recall@10 on the four main sets, and 20, in the middle, held on the three
/// held-out ones (docs/recall.md, "The fusion's constant").
const K: f64 = 20.0;

/// What a rank by meaning counts for against the same rank by words. Words match what the
/// person wrote, and on real conversations they rank better than a small model's vectors do
/// (LoCoMo's sessions: 0.960 against 0.760 at recall@10); counted alike, the vectors pushed
/// entries the words had right out of the first ranks. Counted half, meaning still lifts what
/// the words missed or ranked low: chosen on the main sets, checked on the held-out ones
/// (docs/recall.md, "Fusion that does not lose to words").
const MEANING_WEIGHT: f64 = 0.5;

/// Most entries the ranking by meaning adds: past this rank, its share (at most half of
/// `1 / (K + 101)`) no longer lifts an entry the words did not find into the first results.
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
            .0 += MEANING_WEIGHT * share(rank);
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
    fn an_entry_both_rankings_find_comes_first_and_words_outweigh_meaning() {
        let nearest = vec![item("c", 2), item("d", 9), item("a", 0)];
        let fused = fuse(lexical(&["a", "b", "c"]), nearest, &Filter::default());
        // a: 1st by words and 3rd by meaning; c: the reverse, so a comes first; b, 2nd by
        // words alone, before d, 2nd by meaning alone.
        assert_eq!(order(&fused), ["a", "c", "b", "d"]);
        assert_eq!(fused[2].matched, ["word"]);
        assert!(fused[3].matched.is_empty(), "d was found by meaning alone");
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
