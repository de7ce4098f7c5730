//! A search's question, read into the terms it is ranked by. Text and question are folded
//! alike (NFKC, lowercase), so `ＡＰＩ` finds `api` and half-width katakana finds full-width.
//! A question may be as long as a message people write: the load bounds it (by the summary
//! limit), and its terms are bounded here.

use std::collections::HashMap;

use super::terms;

/// Most distinct terms a question is ranked by: each is one more count the store makes, so the
/// terms bound a search's work. A longer message is searched by the terms it repeats most (what
/// it is about), then by those it names first.
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
    /// `None` for a blank question.
    pub fn parse(raw: &str) -> Option<Self> {
        let text = raw.trim();
        if text.is_empty() {
            return None;
        }
        // Each distinct term: how often the question holds it, and where it first does.
        let mut seen: HashMap<String, (usize, usize)> = HashMap::new();
        for (at, term) in terms(text).into_iter().enumerate() {
            seen.entry(term).or_insert((0, at)).0 += 1;
        }
        let mut distinct: Vec<(String, (usize, usize))> = seen.into_iter().collect();
        if distinct.len() > MAX_QUERY_TERMS {
            distinct.sort_by_key(|(_, (count, first))| (std::cmp::Reverse(*count), *first));
            distinct.truncate(MAX_QUERY_TERMS);
        }
        distinct.sort_by_key(|(_, (_, first))| *first);
        Some(Self {
            text: text.to_owned(),
            terms: distinct.into_iter().map(|(term, _)| term).collect(),
        })
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
        let wide = Query::parse("ＡＰＩ ｶﾀｶﾅ").unwrap();
        let narrow = Query::parse("api カタカナ").unwrap();
        assert_eq!(wide.terms(), narrow.terms());
        assert!(wide.terms().contains(&"api".to_owned()));
    }

    #[test]
    fn repeated_terms_count_once_and_blank_questions_are_none() {
        let query = Query::parse("memory memory MEMORY").unwrap();
        assert_eq!(query.terms().len(), 1);
        assert_eq!(Query::parse(" \u{3000} "), None);
    }

    #[test]
    fn a_long_message_is_searched_by_the_terms_it_repeats_most() {
        let many: Vec<String> = (0..200).map(|n| format!("w{n}")).collect();
        let message = format!("{} kyoto w150 kyoto", many.join(" "));
        let query = Query::parse(&message).unwrap();
        assert_eq!(query.terms().len(), MAX_QUERY_TERMS);
        assert_eq!(
            query.terms()[0],
            "w0",
            "in the order the message names them"
        );
        assert!(query.terms().contains(&"kyoto".to_owned()));
        assert!(query.terms().contains(&"w150".to_owned()));
        assert!(!query.terms().contains(&"w149".to_owned()));
        let short = Query::parse(&many[..10].join(" ")).unwrap();
        assert_eq!(short.terms(), &many[..10]);
    }
}
