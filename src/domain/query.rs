//! Keyword search without word segmentation: text and query are compared NFKC-normalised and
//! lowercased, so `ＡＰＩ` finds `api` and half-width katakana finds full-width.

use unicode_normalization::UnicodeNormalization;

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
    /// `None` for a query with no words.
    pub fn parse(raw: &str) -> Option<Self> {
        let words: Vec<String> = fold(raw).split_whitespace().map(str::to_owned).collect();
        (!words.is_empty()).then_some(Self(words))
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
        let query = Query::parse("ＡＰＩ ｶﾀｶﾅ").unwrap();
        assert_eq!(query.words(), ["api", "カタカナ"]);
        assert_eq!(query.score(&fold("APIとカタカナ、api")), Some(3));
        assert_eq!(query.score(&fold("API only")), None);
    }

    #[test]
    fn ideographic_space_separates_words_and_blank_queries_are_none() {
        assert_eq!(
            Query::parse("記憶\u{3000}ロード").unwrap().words(),
            ["記憶", "ロード"]
        );
        assert_eq!(Query::parse(" \u{3000} "), None);
    }
}
