//! Keyword search without word segmentation: text and query are compared NFKC-normalised and
//! lowercased, so `ＡＰＩ` finds `api` and half-width katakana finds full-width.

use unicode_normalization::UnicodeNormalization;

use super::ValidationError;

/// Most words a query may hold. Each word is one more substring scan of every candidate (and
/// one more term of the SQL), so the words bound a search's work; a person looking for a
/// memory names a few distinctive words, never dozens.
pub const MAX_QUERY_WORDS: usize = 20;

/// Most characters a query's words may hold together, after folding (spaces not counted):
/// longer words are longer scans. Room for twenty words of ten characters.
pub const MAX_QUERY_CHARS: usize = 200;

/// `text` in the form searches compare: NFKC, lowercased, NFKC again (lowercasing can leave
/// text unnormalised).
pub fn fold(text: &str) -> String {
    text.nfkc()
        .collect::<String>()
        .to_lowercase()
        .nfkc()
        .collect()
}

/// The words of a query, folded; whitespace of any width separates them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query(Vec<String>);

impl Query {
    /// `None` for a query with no words; refused past [`MAX_QUERY_WORDS`] or
    /// [`MAX_QUERY_CHARS`].
    pub fn parse(raw: &str) -> Result<Option<Self>, ValidationError> {
        let words: Vec<String> = fold(raw).split_whitespace().map(str::to_owned).collect();
        if words.len() > MAX_QUERY_WORDS {
            return Err(ValidationError::QueryTooManyWords {
                actual: words.len(),
                limit: MAX_QUERY_WORDS,
            });
        }
        let chars = words.iter().map(|word| word.chars().count()).sum();
        if chars > MAX_QUERY_CHARS {
            return Err(ValidationError::QueryTooLong {
                actual: chars,
                limit: MAX_QUERY_CHARS,
            });
        }
        Ok((!words.is_empty()).then_some(Self(words)))
    }

    pub fn words(&self) -> &[String] {
        &self.0
    }

    /// How often the words occur in `folded` text that holds every one of them; `None` when
    /// one is missing.
    pub fn score(&self, folded: &str) -> Option<usize> {
        self.0.iter().try_fold(0, |total, word| {
            let hits = folded.matches(word.as_str()).count();
            (hits > 0).then_some(total + hits)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_and_case_do_not_matter() {
        let query = Query::parse("ＡＰＩ ｶﾀｶﾅ").unwrap().unwrap();
        assert_eq!(query.words(), ["api", "カタカナ"]);
        assert_eq!(query.score(&fold("APIとカタカナ、api")), Some(3));
        assert_eq!(query.score(&fold("API only")), None);
    }

    #[test]
    fn ideographic_space_separates_words_and_blank_queries_are_none() {
        assert_eq!(
            Query::parse("記憶\u{3000}ロード").unwrap().unwrap().words(),
            ["記憶", "ロード"]
        );
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
}
