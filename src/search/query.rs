//! A search's question, read into the terms it is ranked by. Text and question are folded
//! alike (NFKC, lowercase), so `ＡＰＩ` finds `api` and half-width katakana finds full-width.

use super::{fold, terms};
use crate::domain::ValidationError;

/// Most words a question may hold: a person's question, or a long one pasted whole, fits.
pub const MAX_QUERY_WORDS: usize = 60;

/// Most characters a question may hold, after folding (spaces not counted): room for a long
/// question in Japanese, where a word has no spaces around it.
pub const MAX_QUERY_CHARS: usize = 400;

/// Most distinct terms a question is ranked by, the first it names: each is one more count
/// the store makes, so the terms bound a search's work.
pub const MAX_QUERY_TERMS: usize = 64;

/// The distinct terms of a question, in the order it names them. A question may hold no term
/// (only punctuation or stop words): it then matches nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The question as asked, trimmed: what a search by meaning embeds.
    text: String,
    terms: Vec<String>,
}

impl Query {
    /// `None` for a blank question; refused past [`MAX_QUERY_WORDS`] or [`MAX_QUERY_CHARS`].
    pub fn parse(raw: &str) -> Result<Option<Self>, ValidationError> {
        let folded = fold(raw);
        let words = folded.split_whitespace().count();
        if words > MAX_QUERY_WORDS {
            return Err(ValidationError::QueryTooManyWords {
                actual: words,
                limit: MAX_QUERY_WORDS,
            });
        }
        let chars = folded.chars().filter(|c| !c.is_whitespace()).count();
        if chars > MAX_QUERY_CHARS {
            return Err(ValidationError::QueryTooLong {
                actual: chars,
                limit: MAX_QUERY_CHARS,
            });
        }
        if words == 0 {
            return Ok(None);
        }
        let mut distinct: Vec<String> = Vec::new();
        for term in terms(raw) {
            if distinct.len() == MAX_QUERY_TERMS {
                break;
            }
            if !distinct.contains(&term) {
                distinct.push(term);
            }
        }
        Ok(Some(Self {
            text: raw.trim().to_owned(),
            terms: distinct,
        }))
    }

    /// The distinct terms, in the order the question names them.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    pub fn text(&self) -> &str {
        &self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_and_case_do_not_matter() {
        let wide = Query::parse("ＡＰＩ ｶﾀｶﾅ").unwrap().unwrap();
        let narrow = Query::parse("api カタカナ").unwrap().unwrap();
        assert_eq!(wide.terms(), narrow.terms());
        assert!(wide.terms().contains(&"api".to_owned()));
    }

    #[test]
    fn repeated_terms_count_once_and_blank_questions_are_none() {
        let query = Query::parse("memory memory MEMORY").unwrap().unwrap();
        assert_eq!(query.terms().len(), 1);
        assert_eq!(Query::parse(" \u{3000} "), Ok(None));
    }

    #[test]
    fn words_and_characters_are_bounded_after_folding() {
        let most = vec!["a"; MAX_QUERY_WORDS].join(" ");
        assert!(Query::parse(&most).unwrap().is_some());
        assert_eq!(
            Query::parse(&format!("{most} b")),
            Err(ValidationError::QueryTooManyWords {
                actual: MAX_QUERY_WORDS + 1,
                limit: MAX_QUERY_WORDS
            })
        );
        let long = "記".repeat(MAX_QUERY_CHARS);
        assert!(
            Query::parse(&format!("  {long}\u{3000} "))
                .unwrap()
                .is_some()
        );
        // One character that folds into four: U+3300 SQUARE APAATO is アパート.
        assert_eq!(
            Query::parse(&format!("{} \u{3300}", "記".repeat(MAX_QUERY_CHARS - 3))),
            Err(ValidationError::QueryTooLong {
                actual: MAX_QUERY_CHARS + 1,
                limit: MAX_QUERY_CHARS
            })
        );
    }

    #[test]
    fn the_terms_are_bounded() {
        let many: Vec<String> = (0..MAX_QUERY_WORDS).map(|n| format!("w{n}")).collect();
        let query = Query::parse(&many.join(" ")).unwrap().unwrap();
        assert_eq!(query.terms().len(), MAX_QUERY_TERMS.min(MAX_QUERY_WORDS));
        assert_eq!(query.terms()[0], "w0");
    }
}
