//! The words of a summary that hold a search's terms, as the summary writes them: a term is
//! folded, stemmed or a two-character piece of Japanese (`remot`, `いん`), which tells a
//! person or a model nothing; the word it came from (`remote`, `インスタンス`) does.

use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;

use super::terms::{SEGMENTER, is_cjk, is_hiragana, run_bigrams, word_terms};

/// For each of `wanted` (terms of `text`), in their order, the first word of `text` that
/// gives it, as written; each word once, and a term no word gives (none should) left out.
pub fn words_holding(text: &str, wanted: &[String]) -> Vec<String> {
    if wanted.is_empty() {
        return Vec::new();
    }
    let mut found: HashMap<&str, &str> = HashMap::with_capacity(wanted.len());
    // Whole words first, as the segmenter cuts the text as written.
    let mut start = 0;
    for (end, kind) in SEGMENTER.segment_str(text).iter_with_word_type() {
        if found.len() == wanted.len() {
            break;
        }
        let piece = &text[start..end];
        start = end;
        if kind.is_word_like() {
            note(&mut found, wanted, piece, word_terms(piece));
        }
    }
    // Then runs of kanji, katakana or hangul: their bigrams cross the segmenter's words.
    for run in cjk_runs(text) {
        if found.len() == wanted.len() {
            break;
        }
        note(&mut found, wanted, run, run_bigrams(run));
    }
    named(wanted, &found)
}

/// The words `found` for `wanted`, in its order, each once.
fn named(wanted: &[String], found: &HashMap<&str, &str>) -> Vec<String> {
    let mut words: Vec<String> = Vec::with_capacity(found.len());
    for want in wanted {
        if let Some(word) = found.get(want.as_str())
            && !words.iter().any(|w| w == word)
        {
            words.push((*word).to_owned());
        }
    }
    words
}

/// Notes `piece` as the word that gives each of `wanted` among its `given` terms, unless one
/// came first.
fn note<'w, 't>(
    found: &mut HashMap<&'w str, &'t str>,
    wanted: &'w [String],
    piece: &'t str,
    given: Vec<String>,
) {
    for term in given {
        if let Some(want) = wanted.iter().find(|want| **want == term) {
            found.entry(want.as_str()).or_insert(piece);
        }
    }
}

/// The unbroken runs of `text` whose terms are bigrams, as written.
fn cjk_runs(text: &str) -> impl Iterator<Item = &str> {
    // A character's fold is CJK when its NFKC is: lowercasing changes only letters, which are
    // not CJK either way, and spares three strings a character.
    let bigrammed = |c: char| !is_hiragana(c) && std::iter::once(c).nfkc().all(is_cjk);
    text.split(move |c: char| !bigrammed(c))
        .filter(|run| run.chars().nth(1).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::terms::terms;

    fn holding(text: &str, question: &str) -> Vec<String> {
        let asked = terms(question);
        let wanted: Vec<String> = terms(text)
            .into_iter()
            .filter(|term| asked.contains(term))
            .collect();
        words_holding(text, &wanted)
    }

    #[test]
    fn stems_and_folds_are_named_by_the_words_they_came_from() {
        assert_eq!(
            holding("Moved the REMOTE instances to Tokyo", "remote instance"),
            ["REMOTE", "instances"]
        );
        assert_eq!(holding("ＡＰＩ の設計", "api"), ["ＡＰＩ"]);
    }

    #[test]
    fn japanese_bigrams_are_named_by_their_word_or_run() {
        assert_eq!(
            holding("インスタンスを増やした", "ｲﾝｽﾀﾝｽ"),
            ["インスタンス"]
        );
        let words = holding(
            "来月から東京都の新しいアパートに引っ越す予定",
            "東京への引っ越し",
        );
        assert!(words.iter().any(|w| w.contains("東京")), "{words:?}");
        assert!(words.iter().all(|w| w.chars().count() > 1), "{words:?}");
    }

    #[test]
    fn nothing_wanted_names_nothing() {
        assert!(words_holding("some text", &[]).is_empty());
        assert!(words_holding("some text", &["absent".into()]).is_empty());
    }
}
