//! The search terms of a text: one tokenizer both indexes memories and reads search questions.
//!
//! One tokenizer, so both sides of a BM25 match are cut the same way. Text is folded (NFKC,
//! lowercase) and split by ICU4X's word segmenter with its compiled-in dictionary, which finds
//! words in Japanese and Chinese where no spaces separate them. English words lose common
//! function words and are stemmed (Snowball), so `memories` finds `memory`; words with digits
//! or `_` (versions, identifiers) stay whole. CJK text gives character bigrams over each
//! unbroken run of kanji, katakana or hangul, crossing the dictionary's word boundaries, so a
//! name or word the dictionary does not know still matches; a dictionary word counts as
//! itself only where those bigrams miss it (a lone kanji, a word written with hiragana).
//! Hiragana ends a run: in Japanese it mostly writes particles and endings, whose bigrams
//! (`てい`, `を担`) match everything and rank nothing, as English stop words would
//! (docs/recall.md measures it); question words (`何`, `どこ`) go as `what` and `where` do.
//! Katakana is folded to hiragana in the terms (not before segmenting: the dictionary knows
//! loanwords only in katakana).

use std::borrow::Cow;
use std::sync::LazyLock;

use icu_segmenter::options::WordBreakInvariantOptions;
use icu_segmenter::{WordSegmenter, WordSegmenterBorrowed};
use rust_stemmers::{Algorithm, Stemmer};

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

/// The version of what [`terms`] answers. Bump it with any change to [`terms`]: Firestore keeps
/// each thread's terms with the version that wrote them, and re-indexes the other versions'
/// threads; SQLite records the version its index holds and rebuilds it at open under another.
pub const TERMS_VERSION: i64 = 4;

/// Dictionary model for every complex script: CJ are dictionary-segmented either way, and it
/// spares the LSTM code and models that `new_auto` would add for Southeast Asian scripts.
pub(super) static SEGMENTER: LazyLock<WordSegmenterBorrowed<'static>> =
    LazyLock::new(|| WordSegmenter::new_dictionary(WordBreakInvariantOptions::default()));

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// The commonest English function words, sorted for `binary_search`: too frequent to rank by.
const STOP_WORDS: &[&str] = &[
    "a", "about", "am", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "did",
    "do", "does", "for", "from", "had", "has", "have", "he", "her", "his", "how", "i", "if", "in",
    "is", "it", "its", "me", "my", "of", "on", "or", "our", "she", "so", "that", "the", "their",
    "them", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who",
    "why", "with", "you", "your",
];

/// The search terms of `text`, in text order, repeats kept (a term's count is its frequency).
pub fn terms(text: &str) -> Vec<String> {
    let folded = fold(text);
    // About one term per two characters of Japanese, fewer in English: one allocation.
    let mut out = Vec::with_capacity(folded.len() / 4);
    let mut run = Run::default();
    let mut start = 0;
    for (end, kind) in SEGMENTER.segment_str(&folded).iter_with_word_type() {
        if end == 0 {
            continue;
        }
        segment_terms(&folded[start..end], kind.is_word_like(), &mut run, &mut out);
        start = end;
    }
    run.end(&mut out);
    out
}

/// The terms of a word the segmenter cut from a text as written, as [`terms`] gives them for
/// the word alone but without segmenting it again: the words that name a result's terms
/// (surface.rs) are a summary's segmenter words, and segmenting each twice cost a twentieth of
/// a Japanese search (perf, 2026-12-06).
pub(super) fn word_terms(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut run = Run::default();
    segment_terms(&fold(word), true, &mut run, &mut out);
    run.end(&mut out);
    out
}

/// Adds the terms of one segment of folded text to `out`: its characters to the CJK `run`,
/// which crosses segments, and a word-like segment as a word.
fn segment_terms(segment: &str, word_like: bool, run: &mut Run, out: &mut Vec<String>) {
    // Runs are made of characters, not segments: they cross word boundaries and end at
    // hiragana or anything not CJK (space, punctuation, Latin), whatever the segmenter said.
    let mut chars = Chars::default();
    for c in segment.chars() {
        if is_hiragana(c) {
            run.end(out);
            chars.hiragana += 1;
        } else if is_cjk(c) {
            run.push(kana(c), out);
            chars.bigrammed += 1;
        } else {
            run.end(out);
            chars.other = true;
        }
    }
    if !word_like {
        return;
    }
    if chars.bigrammed + chars.hiragana > 0 {
        cjk_word(segment, chars, run, out);
    } else {
        latin_word(segment, out);
    }
}

/// What a segmenter word is made of.
#[derive(Default, Clone, Copy)]
struct Chars {
    /// Characters a run's bigrams cover: kanji, katakana, hangul.
    bigrammed: usize,
    hiragana: usize,
    /// Anything else: digits, Latin, marks.
    other: bool,
}

/// A segmenter word holding CJK: kept unless its run's bigram or unigram already counts it.
fn cjk_word(word: &str, chars: Chars, run: &mut Run, out: &mut Vec<String>) {
    let term = || {
        let mut term = String::with_capacity(word.len());
        term.extend(word.chars().map(kana));
        term
    };
    match chars {
        // A lone kanji: the run's unigram would repeat it if the run stays one character long.
        Chars {
            bigrammed: 1,
            hiragana: 0,
            other: false,
        } => {
            if !word.chars().all(|c| means_nothing_alone(kana(c))) {
                run.lone_word = run.len == 1;
                push_cjk(term(), out);
            }
        }
        // A word of kanji or katakana alone lies within one run, whose bigrams already count
        // it: counted again as a word, a name (コンゴ共和国: こんご, 共和国) would outweigh
        // the rest of a question (docs/recall.md, "Japanese words without a title").
        Chars {
            hiragana: 0,
            other: false,
            ..
        } => {}
        // A lone hiragana is a particle (は, の, を).
        Chars {
            bigrammed: 0,
            hiragana: 1,
            other: false,
        } => {}
        _ => push_cjk(term(), out),
    }
}

/// Japanese question words, sorted for `binary_search`: a question holds them and the
/// memory that answers it does not (as `what` and `where`, English stop words).
const QUESTION_WORDS: &[&str] = &[
    "いくつ",
    "いくら",
    "いつ",
    "どう",
    "どこ",
    "どちら",
    "どの",
    "どれ",
    "どんな",
    "なぜ",
    "なに",
    "なん",
    "何",
    "何か",
    "何と",
    "誰",
];

/// A CJK word or unigram, unless it is a question word.
fn push_cjk(term: String, out: &mut Vec<String>) {
    if QUESTION_WORDS.binary_search(&term.as_str()).is_err() {
        out.push(term);
    }
}

/// A word of an alphabetic script: identifiers whole, stop words dropped, the rest stemmed.
fn latin_word(word: &str, out: &mut Vec<String>) {
    // NFKC keeps the typographic apostrophe; the stemmer knows only `'` (for `'s`).
    let word = if word.contains('\u{2019}') {
        Cow::Owned(word.replace('\u{2019}', "'"))
    } else {
        Cow::Borrowed(word)
    };
    if word.bytes().all(|b| b.is_ascii_digit()) {
        out.push(number(&word).to_owned());
    } else if word.contains(|c: char| c.is_numeric() || c == '_' || c == '.') {
        // ICU keeps `v1.2.3`, `user_id`, `foo.bar` whole; a stemmer would chop their ends.
        out.push(word.to_string());
        // It keeps `19.01.2024` whole too, but cuts `2024-01-19` and `2024/1/19` at `-` and
        // `/`: a date, an address or a version of numbers and dots also gives its parts, so
        // that each way of writing a date shares the day, the month and the year.
        let parts = word.split('.');
        if word.matches('.').count() >= 2
            && parts
                .clone()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        {
            out.extend(parts.map(|part| number(part).to_owned()));
        }
    } else if STOP_WORDS.binary_search(&word.as_ref()).is_err() {
        if word.bytes().any(|b| b.is_ascii_alphabetic()) {
            out.push(STEMMER.stem(&word).into_owned());
        } else {
            // Cyrillic, Greek, ...: the English stemmer has nothing to say about them.
            out.push(word.into_owned());
        }
    }
}

/// A number as its value reads: `01` and `1` (a month written two ways) are one term.
fn number(digits: &str) -> &str {
    match digits.trim_start_matches('0') {
        "" => "0",
        value => value,
    }
}

/// The bigrams [`terms`] gives for a run of CJK characters that are not hiragana, without
/// segmenting it: a run's terms but for a lone kanji the dictionary finds in it.
pub(super) fn run_bigrams(run: &str) -> Vec<String> {
    let mut out = Vec::with_capacity(run.len() / 3);
    let mut bigrams = Run::default();
    for c in fold(run).chars() {
        bigrams.push(kana(c), &mut out);
    }
    out
}

/// The unbroken CJK run being read: its last character and its length so far.
#[derive(Default)]
struct Run {
    last: Option<char>,
    len: usize,
    /// The run's first character was already emitted as a one-character word.
    lone_word: bool,
}

impl Run {
    fn push(&mut self, c: char, out: &mut Vec<String>) {
        if let Some(last) = self.last {
            let mut bigram = String::with_capacity(last.len_utf8() + c.len_utf8());
            bigram.push(last);
            bigram.push(c);
            out.push(bigram);
        }
        self.last = Some(c);
        self.len += 1;
    }

    /// A one-character run has no bigram: it counts as itself, unless already a word.
    fn end(&mut self, out: &mut Vec<String>) {
        if let (1, Some(c), false) = (self.len, self.last, self.lone_word)
            && !means_nothing_alone(c)
        {
            push_cjk(c.to_string(), out);
        }
        *self = Run::default();
    }
}

/// Han, kana (with ー, without ・, which separates words) and Hangul: scripts written without
/// spaces between words, or whose words carry particles, so bigrams are worth having.
pub(super) fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3005}'..='\u{3007}'         // 々 〆 〇
        | '\u{3041}'..='\u{309F}'       // hiragana
        | '\u{30A1}'..='\u{30FA}'       // katakana
        | '\u{30FC}'..='\u{30FF}'       // ー ヽ ヾ ヿ
        | '\u{31F0}'..='\u{31FF}'       // small katakana for Ainu
        | '\u{3400}'..='\u{4DBF}'       // Han extension A
        | '\u{4E00}'..='\u{9FFF}'       // Han
        | '\u{F900}'..='\u{FAFF}'       // Han compatibility
        | '\u{20000}'..='\u{323AF}'     // Han extensions B..H
        | '\u{1100}'..='\u{11FF}'       // Hangul jamo
        | '\u{A960}'..='\u{A97F}'
        | '\u{AC00}'..='\u{D7FF}') // Hangul syllables, jamo extended B
}

/// Katakana folded to its hiragana, so カタカナ and かたかな are one term.
fn kana(c: char) -> char {
    match c {
        // The counter ヶ/ヵ is read か: 3ヶ月, 3ヵ月, 3カ月 and 3か月 are one date.
        'ヵ' | 'ヶ' | 'ゕ' | 'ゖ' => 'か',
        '\u{30A1}'..='\u{30F6}' | '\u{30FD}'..='\u{30FE}' => {
            char::from_u32(u32::from(c) - 0x60).unwrap_or(c)
        }
        _ => c,
    }
}

/// Hiragana as written (before [`kana`] folds katakana into it).
pub(super) fn is_hiragana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{309F}')
}

/// One kana (folded: katakana too) or ー: a sound or a long mark, no word by itself.
fn means_nothing_alone(folded: char) -> bool {
    is_hiragana(folded) || folded == 'ー'
}

#[cfg(test)]
mod tests;
