//! What the terms of each kind of text are: Japanese, Chinese, Korean, English, numbers.

use std::collections::HashSet;

use super::*;

fn set(text: &str) -> HashSet<String> {
    terms(text).into_iter().collect()
}

fn has(text: &str, wanted: &[&str]) {
    let got = terms(text);
    for w in wanted {
        assert!(got.iter().any(|t| t == w), "{w:?} not in {got:?}");
    }
}

#[test]
fn width_and_case_fold() {
    assert_eq!(terms("ＡＰＩ"), ["api"]);
    assert_eq!(terms("API"), terms("api"));
    assert_eq!(terms("ｶﾀｶﾅ"), terms("カタカナ"));
}

#[test]
fn katakana_equals_hiragana() {
    assert_eq!(terms("カタカナ"), ["かた", "たか", "かな"]);
    // The hiragana spelling segments differently but its terms all match the katakana's.
    assert!(set("かたかな").is_subset(&set("カタカナ")));
    assert!(set("3か月").is_subset(&set("3ヶ月")));
}

#[test]
fn japanese_bigrams_across_words_and_the_words_they_miss() {
    // ICU: 日本語|の|図書館|で|勉強|しま|す. A word of kanji alone is counted by its run's
    // bigrams, not again as itself: 日本語 would weigh twice what 勉強 does.
    assert_eq!(
        terms("日本語の図書館で勉強します"),
        ["日本", "本語", "図書", "書館", "勉強", "しま"]
    );
    // 東京|都|に|住|んで|いま|す: bigrams span the word boundaries of a kanji run; hiragana
    // ends it, its words count as themselves.
    assert_eq!(
        terms("東京都に住んでいます"),
        ["東京", "京都", "都", "住", "んで", "いま"]
    );
}

#[test]
fn a_segmenter_word_alone_gives_its_terms_unsegmented() {
    let text = "Moved the REMOTE instances to ＡＰＩ v1.2.3 on 19.01.2024; \
                来月から東京都の新しいアパートに引っ越す予定。ｲﾝｽﾀﾝｽを増やした。한국어 사전";
    let mut start = 0;
    let mut words = 0;
    for (end, kind) in SEGMENTER.segment_str(text).iter_with_word_type() {
        let word = &text[start..end];
        start = end;
        if kind.is_word_like() {
            words += 1;
            assert_eq!(word_terms(word), terms(word), "{word}");
        }
    }
    assert!(words > 20, "{words}");
}

#[test]
fn a_runs_bigrams_are_its_terms_but_lone_kanji() {
    // Katakana, kanji, half-width katakana with its voiced marks, a compatibility kanji, hangul.
    for run in [
        "インスタンス",
        "東京都庁舎",
        "ｶﾞｲﾄﾞﾌﾞｯｸ",
        "都市計画豈",
        "한국어사전",
    ] {
        let bigrams: Vec<String> = terms(run)
            .into_iter()
            .filter(|term| term.chars().count() == 2)
            .collect();
        assert!(!bigrams.is_empty(), "{run}");
        assert_eq!(run_bigrams(run), bigrams, "{run}");
    }
}

#[test]
fn particles_and_endings_give_no_terms() {
    assert_eq!(terms("東京に"), ["東京"]);
    assert_eq!(terms("猫 と 犬"), ["猫", "犬"]);
    // 勉強|し|てい|ます: no bigram of hiragana with the kanji before it, or with itself.
    assert_eq!(terms("勉強しています"), ["勉強", "てい", "ます"]);
    // A lone kana or long mark means nothing: ヶ|月, ら|ー|めん.
    assert_eq!(terms("ヶ"), Vec::<String>::new());
    assert_eq!(terms("らーめん"), ["めん"]);
}

#[test]
fn unknown_name_matches_via_bigrams() {
    // The dictionary keeps 戦艦ポチョムキン as 戦艦|ポチョムキン and the kanji run's
    // bigrams cross it; a name it does not know, asked by part, matches every bigram.
    let text = set("昨日、戦艦ポチョムキンを見た");
    assert!(text.contains("艦ぽ"));
    let query = set("ポチョム");
    assert_eq!(query.len(), 3, "{query:?}");
    assert!(query.is_subset(&text), "{query:?} {text:?}");
}

#[test]
fn chinese_text_segmented() {
    has(
        "中华人民共和国成立于1949年",
        &["共和", "和国", "中华", "民共", "1949", "年"],
    );
    has("我们在北京大学学习中文", &["北京", "大学", "学习", "京大"]);
}

#[test]
fn mixed_latin_and_japanese() {
    assert_eq!(
        terms("Rustで書いたAPIサーバー"),
        ["rust", "書", "api", "さー", "ーば", "ばー"]
    );
}

#[test]
fn hangul_words_and_bigrams() {
    has("한국어 텍스트를", &["한국", "국어", "텍스", "스트", "트를"]);
}

#[test]
fn english_stemming_shares_terms() {
    assert_eq!(terms("memories"), terms("memory"));
    assert_eq!(terms("running"), terms("run"));
    assert_eq!(terms("runs"), terms("run"));
    assert_eq!(terms("Memory's"), terms("memory"));
    assert_eq!(terms("don\u{2019}t"), terms("don't"));
}

#[test]
fn question_words_dropped() {
    // 梅雨|を|何|と|いう|か and どこ: what the question asks, not what it is about.
    assert_eq!(terms("梅雨を何というか"), ["梅雨", "いう"]);
    assert_eq!(terms("誰がどこで"), Vec::<String>::new());
    assert!(
        QUESTION_WORDS.windows(2).all(|w| w[0] < w[1]),
        "sorted for binary_search"
    );
}

#[test]
fn stop_words_dropped() {
    assert_eq!(terms("What is the name of my cat?"), ["name", "cat"]);
    assert!(
        STOP_WORDS.windows(2).all(|w| w[0] < w[1]),
        "sorted for binary_search"
    );
}

#[test]
fn identifiers_numbers_versions_kept_whole() {
    assert_eq!(
        terms("v1.2.3 is_running 2025 IPv6 3.14 node.js"),
        ["v1.2.3", "is_running", "2025", "ipv6", "3.14", "node.js"]
    );
    // ICU splits at `-` (e-mail, dates) but keeps a contraction whole; a number is its value.
    assert_eq!(
        terms("e-mail 2025-01-02 don't"),
        ["e", "mail", "2025", "1", "2", "don't"]
    );
}

#[test]
fn a_date_written_any_way_gives_its_day_month_and_year() {
    for date in [
        "19.01.2024",
        "2024-01-19",
        "2024/1/19",
        "2024年1月19日",
        "19/01/2024",
    ] {
        has(date, &["19", "1", "2024"]);
    }
    // Kept whole as well, so that the same notation matches closest.
    has("19.01.2024 192.168.0.1", &["19.01.2024", "192", "168", "0"]);
    // A decimal is one number, not two.
    assert_eq!(terms("3.14 0.5"), ["3.14", "0.5"]);
}

#[test]
fn other_alphabets_are_words_not_bigrams() {
    assert_eq!(terms("Москва Αθήνα"), ["москва", "αθήνα"]);
}

#[test]
fn punctuation_and_emoji_dropped() {
    assert_eq!(
        terms("hello, world! 😀 ★ 「東京」。…"),
        ["hello", "world", "東京"]
    );
    // ・ separates words: 5 + 3 bigrams, none across it.
    assert_eq!(terms("データベース・サーバー").len(), 8);
}

#[test]
fn empty_and_whitespace_give_no_terms() {
    assert!(terms("").is_empty());
    assert!(terms(" \t\n\u{3000}").is_empty());
    assert!(terms("?!、。").is_empty());
}
