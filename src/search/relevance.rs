//! How relevant an entry is to a question: BM25 over the question's terms, with document
//! frequencies from the namespace, and which terms a store reads its candidates by.
//!
//! Every store ranks with this one rule. A store only counts, per term, how many of the
//! namespace's documents hold it ([`TermCounts`]), and reads the entries holding the rarer
//! terms ([`drivers`]); the ranking itself happens here, on each entry's [`TermStats`].

use super::{Query, terms};

/// BM25's term-frequency saturation and length normalisation, at their usual values.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Most entries a search ranks. The rarest terms choose them, so a question holding a term
/// every memory holds still ranks a bounded number of entries, the ones its rarer terms name.
pub const MAX_CANDIDATES: u64 = 1_000;

/// Most terms that choose candidates: Firestore's `array-contains-any` takes 30 values.
pub const MAX_DRIVERS: usize = 30;

/// How many of a namespace's documents hold each of a question's terms, and how many it
/// holds. A document is what a store indexes (an entry on SQLite, a thread on Firestore); a
/// count may stop past [`MAX_CANDIDATES`], since no term that common chooses candidates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TermCounts {
    pub documents: u64,
    /// One count per term of [`Query::terms`], in its order.
    pub counts: Vec<u64>,
}

impl TermCounts {
    fn idf(&self, count: u64) -> f64 {
        let n = self.documents.max(count) as f64;
        let df = count as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }
}

/// The terms whose entries a store reads as candidates: the rarest ones that any document
/// holds, as many as keep the candidates within [`MAX_CANDIDATES`] (and always the rarest,
/// whose entries the store then cuts to the newest).
pub fn drivers(query: &Query, counts: &TermCounts) -> Vec<String> {
    let mut held: Vec<(u64, &String)> = counts
        .counts
        .iter()
        .copied()
        .zip(query.terms())
        .filter(|(count, _)| *count > 0)
        .collect();
    held.sort_by_key(|(count, _)| *count);
    let mut total = 0;
    let mut chosen = Vec::new();
    for (count, term) in held {
        total += count;
        if chosen.len() == MAX_DRIVERS || (total > MAX_CANDIDATES && !chosen.is_empty()) {
            break;
        }
        chosen.push(term.clone());
    }
    chosen
}

/// An entry's terms as the ranking reads them: how many it holds, and each distinct one's
/// frequency, by a hash of the term. Stored beside an entry (SQLite keeps it as
/// [`TermStats::to_bytes`]) so that ranking reads it instead of segmenting the text again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermStats {
    length: u32,
    /// Sorted by hash.
    frequencies: Vec<(u32, u16)>,
}

impl TermStats {
    pub fn of(text: &str) -> Self {
        let all = terms(text);
        let mut hashes: Vec<u32> = all.iter().map(|t| hash(t)).collect();
        hashes.sort_unstable();
        let mut frequencies: Vec<(u32, u16)> = Vec::new();
        for h in hashes {
            match frequencies.last_mut() {
                Some((last, n)) if *last == h => *n = n.saturating_add(1),
                _ => frequencies.push((h, 1)),
            }
        }
        Self {
            length: u32::try_from(all.len()).unwrap_or(u32::MAX),
            frequencies,
        }
    }

    /// Little-endian: the length, then each (hash, frequency) pair.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(4 + 6 * self.frequencies.len());
        bytes.extend_from_slice(&self.length.to_le_bytes());
        for (h, n) in &self.frequencies {
            bytes.extend_from_slice(&h.to_le_bytes());
            bytes.extend_from_slice(&n.to_le_bytes());
        }
        bytes
    }

    /// `None` for bytes [`to_bytes`](Self::to_bytes) did not write.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let (length, rest) = bytes.split_first_chunk::<4>()?;
        if rest.len() % 6 != 0 {
            return None;
        }
        let frequencies = rest
            .chunks_exact(6)
            .map(|pair| {
                let (h, n) = pair.split_at(4);
                (
                    u32::from_le_bytes([h[0], h[1], h[2], h[3]]),
                    u16::from_le_bytes([n[0], n[1]]),
                )
            })
            .collect();
        Some(Self {
            length: u32::from_le_bytes(*length),
            frequencies,
        })
    }

    fn frequency(&self, hash: u32) -> u16 {
        self.frequencies
            .binary_search_by_key(&hash, |(h, _)| *h)
            .map_or(0, |i| self.frequencies[i].1)
    }
}

/// FNV-1a: stable across versions and machines, as stored stats need.
fn hash(term: &str) -> u32 {
    term.bytes().fold(0x811c_9dc5, |h: u32, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// Scores entries against a question: one per candidate set, since the length normalisation
/// compares an entry with the candidates' mean.
pub struct Scorer<'a> {
    terms: Vec<(&'a str, u32, f64)>,
    mean_length: f64,
}

impl<'a> Scorer<'a> {
    pub fn new(query: &'a Query, counts: &TermCounts, stats: &[&TermStats]) -> Self {
        let total: f64 = stats.iter().map(|s| f64::from(s.length)).sum();
        let mean_length = (total / stats.len().max(1) as f64).max(1.0);
        let terms = query
            .terms()
            .iter()
            .zip(&counts.counts)
            .filter(|(_, count)| **count > 0)
            .map(|(term, count)| (term.as_str(), hash(term), counts.idf(*count)))
            .collect();
        Self { terms, mean_length }
    }

    /// The entry's BM25 score, and the terms it holds, most telling (rarest) first; `None`
    /// when it holds none.
    pub fn score(&self, stats: &TermStats) -> Option<(f64, Vec<String>)> {
        let norm = K1 * (1.0 - B + B * f64::from(stats.length) / self.mean_length);
        let mut matched: Vec<(f64, &str)> = Vec::new();
        let mut score = 0.0;
        for (term, hash, idf) in &self.terms {
            let tf = f64::from(stats.frequency(*hash));
            if tf > 0.0 {
                score += idf * tf * (K1 + 1.0) / (tf + norm);
                matched.push((*idf, term));
            }
        }
        if matched.is_empty() {
            return None;
        }
        matched.sort_by(|a, b| b.0.total_cmp(&a.0));
        Some((
            score,
            matched.into_iter().map(|(_, t)| t.to_owned()).collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(raw: &str) -> Query {
        Query::parse(raw).unwrap()
    }

    #[test]
    fn stats_survive_their_bytes_and_count_repeats() {
        let stats = TermStats::of("rust rust sqlite");
        assert_eq!(
            TermStats::from_bytes(&stats.to_bytes()),
            Some(stats.clone())
        );
        assert_eq!(stats.length, 3);
        assert_eq!(stats.frequency(hash("rust")), 2);
        assert_eq!(stats.frequency(hash("go")), 0);
        assert_eq!(TermStats::from_bytes(&[1, 2, 3]), None);
    }

    #[test]
    fn the_rarest_terms_drive_within_the_candidate_bound() {
        let q = query("kiwi mango plum fig");
        let counts = TermCounts {
            documents: 5_000,
            counts: vec![MAX_CANDIDATES + 1, 3, 0, MAX_CANDIDATES - 3],
        };
        assert_eq!(drivers(&q, &counts), ["mango", "fig"]);
        let only_common = TermCounts {
            documents: 5_000,
            counts: vec![4_000, 0, 0, 0],
        };
        assert_eq!(drivers(&q, &only_common), ["kiwi"]);
    }

    #[test]
    fn a_rarer_term_outweighs_a_commoner_one_and_more_terms_outweigh_fewer() {
        let q = query("rare common");
        let counts = TermCounts {
            documents: 100,
            counts: vec![2, 50],
        };
        let rare = TermStats::of("rare words here");
        let common = TermStats::of("common words here");
        let both = TermStats::of("rare common here");
        let none = TermStats::of("nothing at all");
        let scorer = Scorer::new(&q, &counts, &[&rare, &common, &both, &none]);
        let score = |s: &TermStats| scorer.score(s).map(|(score, _)| score);
        assert!(score(&rare) > score(&common));
        assert!(score(&both) > score(&rare));
        assert_eq!(score(&none), None);
        assert_eq!(scorer.score(&both).unwrap().1, ["rare", "common"]);
    }
}
