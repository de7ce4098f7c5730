//! What every store's search must do: rank by relevance over the question's terms, in any
//! width, script and word form, and keep its index exact however entries go.

use kioku::domain::{Filter, Namespace, entry_micros};
use kioku::search::Query;

use crate::conformance::{entry, namespace, save_at, thread};

/// The (thread, summary) pairs a search for `q` answers, best first.
pub async fn search_for(
    store: &impl crate::Backend,
    ns: &Namespace,
    filter: &Filter,
    q: &str,
) -> Vec<(String, String)> {
    let query = Query::parse(q).unwrap();
    kioku::memory::search(store, ns, filter, &query, None, None, usize::MAX)
        .await
        .unwrap()
        .found
        .into_iter()
        .map(|f| (f.thread_id, f.summary))
        .collect()
}

/// The threads a search for `q` answers, best first.
async fn threads_for(store: &impl crate::Backend, ns: &Namespace, q: &str) -> Vec<String> {
    search_for(store, ns, &Filter::default(), q)
        .await
        .into_iter()
        .map(|(thread, _)| thread)
        .collect()
}

pub async fn search_folds_width_and_case_and_keeps_to_the_filter(store: &impl crate::Backend) {
    let ns = namespace();
    save_at(store, &ns, "x", 0, &["API の設計", "関係ない"]).await;
    save_at(store, &ns, "y", 3, &["ｶﾀｶﾅ と ＡＰＩ"]).await;
    let found = threads_for(store, &ns, "api").await;
    assert_eq!(found.len(), 2, "{found:?}");
    // Characters no index tokenizer keeps (unassigned, controls) beside a term never break it.
    let odd = threads_for(store, &ns, "\u{e955a}\u{329c}*\u{1}\u{b9}v api").await;
    assert_eq!(odd.len(), 2, "{odd:?}");
    let only_x = Filter {
        thread: Some(thread("x")),
        ..Filter::default()
    };
    assert_eq!(
        search_for(store, &ns, &only_x, "ＡＰＩ").await,
        [("x".to_owned(), "API の設計".to_owned())]
    );
    let query = Query::parse("Api").unwrap();
    let results = kioku::memory::search(
        store,
        &ns,
        &Filter::default(),
        &query,
        None,
        None,
        usize::MAX,
    )
    .await
    .unwrap();
    assert!(
        results
            .found
            .iter()
            .all(|f| f.matched.len() == 1 && ["API", "ＡＰＩ"].contains(&f.matched[0].as_str())),
        "{results:?}"
    );
}

/// `both` holds both terms; `rare` only the rarer one; the others only the common one, all of
/// one length, so recency orders them.
pub async fn search_ranks_rarer_and_more_terms_first_then_recency(store: &impl crate::Backend) {
    let ns = namespace();
    save_at(store, &ns, "old", 0, &["rust compiler upgrade"]).await;
    save_at(store, &ns, "both", 1, &["rust sqlite upgrade"]).await;
    save_at(store, &ns, "rare", 2, &["sqlite compiler upgrade"]).await;
    save_at(store, &ns, "mid", 3, &["rust borrow upgrade"]).await;
    save_at(store, &ns, "new", 4, &["rust lifetime upgrade"]).await;
    save_at(store, &ns, "none", 5, &["gardening tomato upgrade"]).await;
    assert_eq!(
        threads_for(store, &ns, "rust sqlite").await,
        ["both", "rare", "new", "mid", "old"]
    );
}

pub async fn search_needs_only_some_of_the_words(store: &impl crate::Backend) {
    let ns = namespace();
    save_at(
        store,
        &ns,
        "trip",
        0,
        &["Booked the train to Kyoto for the autumn trip"],
    )
    .await;
    save_at(store, &ns, "other", 1, &["Refactored the billing service"]).await;
    assert_eq!(
        threads_for(store, &ns, "when is my Kyoto vacation").await,
        ["trip"]
    );
    assert!(
        threads_for(store, &ns, "nothing like this")
            .await
            .is_empty()
    );
}

pub async fn search_segments_japanese_and_falls_back_to_bigrams(store: &impl crate::Backend) {
    let ns = namespace();
    save_at(store, &ns, "tokyo", 0, &["来月から東京都に住んでいます"]).await;
    save_at(store, &ns, "osaka", 1, &["大阪の会社で働いています"]).await;
    save_at(
        store,
        &ns,
        "name",
        2,
        &["ポチョムキンさんと打ち合わせをした"],
    )
    .await;
    assert_eq!(
        threads_for(store, &ns, "東京に住む予定は？").await[0],
        "tokyo"
    );
    assert_eq!(threads_for(store, &ns, "大阪の仕事").await[0], "osaka");
    // A name no dictionary holds, asked in the other kana and in half width.
    assert_eq!(threads_for(store, &ns, "ぽちょむきん").await, ["name"]);
    assert_eq!(threads_for(store, &ns, "ﾎﾟﾁｮﾑｷﾝ").await, ["name"]);
}

pub async fn search_matches_word_forms_by_their_stem(store: &impl crate::Backend) {
    let ns = namespace();
    save_at(
        store,
        &ns,
        "a",
        0,
        &["She keeps memories of running marathons"],
    )
    .await;
    save_at(store, &ns, "b", 1, &["Ordered a new desk lamp"]).await;
    assert_eq!(threads_for(store, &ns, "memory").await, ["a"]);
    assert_eq!(threads_for(store, &ns, "marathon runs").await, ["a"]);
}

pub async fn imported_entries_are_found_and_past_their_age_are_not(store: &impl crate::Backend) {
    let ns = namespace();
    let entries = [
        entry("harbour lighthouse", "2025-08-19T10:00:00.000000+09:00"),
        entry("lighthouse keeper", "2025-08-20T10:00:00.000000+09:00"),
    ];
    store.import(&ns, &thread("i"), &entries).await.unwrap();
    assert_eq!(threads_for(store, &ns, "lighthouse").await.len(), 2);
    let recent = Filter {
        since: Some(entry_micros("2025-08-20T00:00:00.000000+09:00")),
        ..Filter::default()
    };
    assert_eq!(
        search_for(store, &ns, &recent, "lighthouse").await,
        [("i".to_owned(), "lighthouse keeper".to_owned())]
    );
}
