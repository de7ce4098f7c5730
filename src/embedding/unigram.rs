//! A SentencePiece unigram vocabulary (XLM-R's, which multilingual-e5 reads with), segmenting
//! text exactly as Hugging Face's `tokenizers` does (its `encode_optimized`, after
//! SentencePiece's), but from a plain map of its pieces. `tokenizers` keeps the 250,002 pieces
//! in a trie of a hash map per node: 282 MB for this one vocabulary, more than the model's
//! weights. Here a piece is looked up by each of its possible lengths instead, a few dozen
//! lookups a character; the map is a few percent of that size (docs/recall.md).

use std::collections::HashMap;

use tokenizers::{Result, Token};

/// What an unknown piece scores below the least likely known one, as in SentencePiece.
const UNKNOWN_PENALTY: f64 = 10.0;

pub struct Unigram {
    /// Each piece and its log-probability, by id.
    pieces: Vec<(Box<str>, f64)>,
    ids: HashMap<Box<str>, u32>,
    unknown: u32,
    unknown_score: f64,
    /// The longest piece, in bytes: no lookup is longer.
    longest: usize,
}

/// The best segmentation of a text's prefix ending at one byte: its score, and where its last
/// piece starts (`None`: not reached yet).
#[derive(Clone, Copy)]
struct Best {
    score: f64,
    starts_at: Option<usize>,
    id: u32,
}

impl Unigram {
    /// `vocab`, pieces with their scores by id, and the id of the unknown piece.
    pub fn new(vocab: Vec<(String, f64)>, unknown: usize) -> Result<Self> {
        if unknown >= vocab.len() {
            return Err("the unknown piece's id is not in the vocabulary".into());
        }
        let mut ids = HashMap::with_capacity(vocab.len());
        let (mut least, mut longest) = (f64::INFINITY, 0);
        for (id, (piece, score)) in vocab.iter().enumerate() {
            // A piece listed twice takes its last id, as in `tokenizers`.
            ids.insert(piece.as_str().into(), id as u32);
            least = least.min(*score);
            longest = longest.max(piece.len());
        }
        Ok(Self {
            pieces: (vocab.into_iter())
                .map(|(piece, score)| (piece.into_boxed_str(), score))
                .collect(),
            ids,
            unknown: unknown as u32,
            unknown_score: least - UNKNOWN_PENALTY,
            longest,
        })
    }

    /// The pieces of `text` that score highest together (Viterbi), each with its byte range;
    /// unknown characters in a row become one unknown piece.
    fn segment(&self, text: &str) -> Vec<(u32, usize, usize)> {
        let unreached = Best {
            score: 0.0,
            starts_at: None,
            id: 0,
        };
        let mut best = vec![unreached; text.len() + 1];
        let offer = |best: &mut [Best], end: usize, start: usize, score: f64, id: u32| {
            let target = &mut best[end];
            if target.starts_at.is_none() || score > target.score {
                *target = Best {
                    score,
                    starts_at: Some(start),
                    id,
                };
            }
        };
        for (start, first) in text.char_indices() {
            let here = best[start].score;
            let mut single = false;
            let ends = (start + 1..=text.len().min(start + self.longest))
                .filter(|&end| text.is_char_boundary(end));
            for end in ends {
                if let Some(&id) = self.ids.get(&text[start..end]) {
                    offer(&mut best, end, start, here + self.pieces[id as usize].1, id);
                    single |= end - start == first.len_utf8();
                }
            }
            if !single {
                let end = start + first.len_utf8();
                offer(
                    &mut best,
                    end,
                    start,
                    here + self.unknown_score,
                    self.unknown,
                );
            }
        }
        let mut pieces = Vec::new();
        let mut end = text.len();
        while end > 0 {
            let node = best[end];
            let start = node.starts_at.expect("every character is reached");
            match pieces.last_mut() {
                Some((id, fused, _)) if *id == self.unknown && node.id == self.unknown => {
                    *fused = start;
                }
                _ => pieces.push((node.id, start, end)),
            }
            end = start;
        }
        pieces.reverse();
        pieces
    }
}

impl Unigram {
    /// `sequence`'s pieces, each with its offsets in it.
    pub fn tokenize(&self, sequence: &str) -> Vec<Token> {
        (self.segment(sequence).into_iter())
            .map(|(id, start, end)| Token::new(id, sequence[start..end].to_owned(), (start, end)))
            .collect()
    }

    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    pub fn id_to_token(&self, id: u32) -> Option<String> {
        (self.pieces.get(id as usize)).map(|(piece, _)| piece.to_string())
    }

    pub fn vocab(&self) -> HashMap<String, u32> {
        (self.ids.iter())
            .map(|(piece, id)| (piece.to_string(), *id))
            .collect()
    }

    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// The unknown piece's id.
    pub fn unknown(&self) -> u32 {
        self.unknown
    }
}
