//! What every `MemoryStore` must do. Each backend runs this whole suite through
//! [`conformance_suite!`]. Tests use fresh namespaces, so backends may share one database.

use std::collections::HashSet;

use futures::future::try_join_all;
use kioku::domain::{Entry, Filter, Namespace, PageBuilder, Retention, Thread, ThreadId, Writer};
use kioku::store::{Dropped, SaveOutcome};

pub use crate::export::*;
pub use crate::lifecycle::*;
pub use crate::paging::*;
pub use crate::profile::*;
pub use crate::retention::*;
pub use crate::search::*;
pub use crate::search_index::*;
pub use crate::writers::*;

/// No retention limit.
pub const KEEP_ALL: Retention = Retention {
    max_entries_per_thread: None,
    max_threads: None,
    max_age_days: None,
};

/// Everything the namespace holds, in one page.
pub async fn load_all(store: &impl crate::Backend, ns: &Namespace) -> Vec<Thread> {
    store
        .page(ns, &Filter::default(), PageBuilder::new(usize::MAX))
        .await
        .unwrap()
        .threads
}

/// The thread's summaries, in no order.
pub fn summary_set(thread: &Thread) -> HashSet<String> {
    thread.entries.iter().map(|e| e.summary.clone()).collect()
}

/// The namespace's threads by id, read a few at a time as an export reads them.
pub async fn all_threads(store: &impl crate::Backend, ns: &Namespace) -> Vec<Thread> {
    let mut threads: Vec<Thread> = Vec::new();
    loop {
        let after = threads.last().map(|thread| thread.id.as_str());
        let page = store.threads_page(ns, after, 2).await.unwrap();
        let last = page.len() < 2;
        threads.extend(page);
        if last {
            return threads;
        }
    }
}

/// How many threads the namespace holds.
pub async fn thread_count(store: &impl crate::Backend, ns: &Namespace) -> usize {
    all_threads(store, ns).await.len()
}

pub fn namespace() -> Namespace {
    Namespace::named(&format!("ns-{}", uuid::Uuid::new_v4())).unwrap()
}

pub fn entry(summary: &str, timestamp: &str) -> Entry {
    Entry {
        summary: summary.to_owned(),
        timestamp: timestamp.to_owned(),
        writer: Some(Writer::Token {
            label: "conformance".into(),
        }),
    }
}

pub fn thread(id: &str) -> ThreadId {
    ThreadId::parse(id).unwrap()
}

pub async fn an_unknown_namespace_is_empty(store: &impl crate::Backend) {
    let ns = namespace();
    assert_eq!(thread_count(store, &ns).await, 0);
    assert!(load_all(store, &ns).await.is_empty());
}

pub async fn a_saved_entry_loads_back_exactly(store: &impl crate::Backend) {
    let ns = namespace();
    let saved = entry(
        "要約: 🎌 \u{200f}עברית\u{200b} \"quotes\" \\ tab\there\r\nnext line",
        "2025-08-19T08:39:27.174624+09:00",
    );
    let outcome = store
        .save(&ns, &thread("t1"), &saved, None, &KEEP_ALL)
        .await;
    let one_thread = SaveOutcome {
        dropped: Dropped::default(),
        thread_count: 1,
        new_thread: true,
        repeat_of: None,
    };
    assert_eq!(outcome.unwrap(), one_thread, "the save counts the threads");
    assert_eq!(thread_count(store, &ns).await, 1);
    let threads = load_all(store, &ns).await;
    assert_eq!(threads.len(), 1);
    assert_eq!(threads[0].id, "t1");
    assert_eq!(threads[0].entries, vec![saved]);
}

pub async fn entries_come_oldest_first_and_threads_most_recent_first(store: &impl crate::Backend) {
    let ns = namespace();
    let saves = [
        ("a", "a1"),
        ("b", "b1"),
        ("c", "c1"),
        ("a", "a2"),
        ("b", "b2"),
    ];
    for (i, (id, summary)) in saves.into_iter().enumerate() {
        let ts = format!("2025-01-01T00:00:0{i}.000000+09:00");
        store
            .save(&ns, &thread(id), &entry(summary, &ts), None, &KEEP_ALL)
            .await
            .unwrap();
    }
    let threads = load_all(store, &ns).await;
    let order: Vec<_> = threads.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(order, ["b", "a", "c"]);
    let summaries: Vec<_> = threads[0]
        .entries
        .iter()
        .map(|e| e.summary.as_str())
        .collect();
    assert_eq!(summaries, ["b1", "b2"]);
    assert_eq!(thread_count(store, &ns).await, 3);
}

pub async fn namespaces_never_see_each_other(store: &impl crate::Backend) {
    let (alice, bob) = (namespace(), namespace());
    let prefix = Namespace::named(&alice.name()[..alice.name().len() - 1]).unwrap();
    store
        .save(
            &alice,
            &thread("shared-id"),
            &entry("alice's", "t"),
            None,
            &KEEP_ALL,
        )
        .await
        .unwrap();
    store
        .save(
            &bob,
            &thread("shared-id"),
            &entry("bob's", "t"),
            None,
            &KEEP_ALL,
        )
        .await
        .unwrap();
    store
        .save(
            &bob,
            &thread("other"),
            &entry("bob's other", "t"),
            None,
            &KEEP_ALL,
        )
        .await
        .unwrap();

    let alice_threads = load_all(store, &alice).await;
    assert_eq!(alice_threads.len(), 1);
    assert_eq!(alice_threads[0].entries, vec![entry("alice's", "t")]);
    assert_eq!(thread_count(store, &alice).await, 1);
    assert_eq!(thread_count(store, &bob).await, 2);
    assert_eq!(thread_count(store, &prefix).await, 0);
    assert!(load_all(store, &prefix).await.is_empty());
}

/// Concurrent appends to one thread all land: none overwrites another.
pub async fn parallel_saves_to_one_thread_all_land(store: &impl crate::Backend) {
    let ns = namespace();
    let id = thread("busy");
    let expected: HashSet<String> = (0..200).map(|i| format!("entry {i}")).collect();
    let entries: Vec<Entry> = expected.iter().map(|s| entry(s, "t")).collect();
    try_join_all(
        entries
            .iter()
            .map(|e| store.save(&ns, &id, e, None, &KEEP_ALL)),
    )
    .await
    .unwrap();
    let threads = load_all(store, &ns).await;
    assert_eq!(threads[0].entries.len(), 200);
    assert_eq!(summary_set(&threads[0]), expected);
}

pub async fn parallel_saves_across_threads_are_all_counted(store: &impl crate::Backend) {
    let ns = namespace();
    let saves = (0..100).map(|i| (thread(&format!("t{}", i % 5)), entry(&format!("e{i}"), "t")));
    let saves: Vec<_> = saves.collect();
    try_join_all(
        saves
            .iter()
            .map(|(id, e)| store.save(&ns, id, e, None, &KEEP_ALL)),
    )
    .await
    .unwrap();
    assert_eq!(thread_count(store, &ns).await, 5);
    let threads = load_all(store, &ns).await;
    assert_eq!(threads.iter().map(|t| t.entries.len()).sum::<usize>(), 100);
}

pub async fn a_ready_store_answers_ping(store: &impl crate::Backend) {
    store.ping().await.unwrap();
}

/// Saves `summaries` to `thread` a second apart from `start` (Tokyo time), in order.
pub async fn save_at(
    store: &impl crate::Backend,
    ns: &Namespace,
    id: &str,
    start: u32,
    summaries: &[&str],
) {
    for (i, summary) in summaries.iter().enumerate() {
        let second = start as usize + i;
        let timestamp = format!(
            "2025-08-19T10:{:02}:{:02}.000000+09:00",
            second / 60,
            second % 60
        );
        store
            .save(
                ns,
                &thread(id),
                &entry(summary, &timestamp),
                None,
                &KEEP_ALL,
            )
            .await
            .unwrap();
    }
}

fn ids_and_summaries(threads: &[Thread]) -> Vec<(String, Vec<String>)> {
    threads
        .iter()
        .map(|t| {
            (
                t.id.clone(),
                t.entries.iter().map(|e| e.summary.clone()).collect(),
            )
        })
        .collect()
}

/// A three-thread namespace saved over time: a at 0-2 s, b at 3-4 s, a again at 5 s, c at 6 s.
async fn timeline(store: &impl crate::Backend) -> Namespace {
    let ns = namespace();
    save_at(store, &ns, "a", 0, &["a0 記憶", "a1", "a2"]).await;
    save_at(store, &ns, "b", 3, &["b3", "b4 記憶"]).await;
    save_at(store, &ns, "a", 5, &["a5"]).await;
    save_at(store, &ns, "c", 6, &["c6 ＡＰＩ"]).await;
    ns
}

fn owned(expected: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    expected
        .iter()
        .map(|(id, s)| (id.to_string(), s.iter().map(|x| x.to_string()).collect()))
        .collect()
}

pub async fn filters_select_threads_times_and_counts(store: &impl crate::Backend) {
    let ns = timeline(store).await;
    let ns = &ns;
    let page = |filter: Filter| async move {
        ids_and_summaries(
            &store
                .page(ns, &filter, PageBuilder::new(usize::MAX))
                .await
                .unwrap()
                .threads,
        )
    };
    let at = |second: u32| {
        kioku::domain::entry_micros(&format!("2025-08-19T10:00:{second:02}.000000+09:00"))
    };
    assert_eq!(
        page(Filter {
            thread: Some(thread("b")),
            ..Filter::default()
        })
        .await,
        owned(&[("b", &["b3", "b4 記憶"])])
    );
    assert_eq!(
        page(Filter {
            since: Some(at(4)),
            ..Filter::default()
        })
        .await,
        owned(&[("c", &["c6 ＡＰＩ"]), ("a", &["a5"]), ("b", &["b4 記憶"])])
    );
    assert_eq!(
        page(Filter {
            before: Some(at(3)),
            ..Filter::default()
        })
        .await,
        owned(&[("a", &["a0 記憶", "a1", "a2"])])
    );
    assert_eq!(
        page(Filter {
            limit: Some(2),
            ..Filter::default()
        })
        .await,
        owned(&[("c", &["c6 ＡＰＩ"]), ("a", &["a0 記憶", "a1", "a2", "a5"])])
    );
    assert_eq!(
        page(Filter {
            since: Some(at(1)),
            before: Some(at(6)),
            limit: Some(1),
            ..Filter::default()
        })
        .await,
        owned(&[("a", &["a1", "a2", "a5"])])
    );
}

/// A small budget cuts the page; following `next_before` reaches every entry exactly once.
pub async fn a_cut_page_counts_what_it_left_out_and_the_cursor_reaches_it(
    store: &impl crate::Backend,
) {
    let ns = timeline(store).await;
    let mut seen = Vec::new();
    let mut filter = Filter::default();
    let mut pages = 0;
    loop {
        let page = store
            .page(&ns, &filter, PageBuilder::new(256 + 150))
            .await
            .unwrap();
        pages += 1;
        let shown: usize = page.threads.iter().map(|t| t.entries.len()).sum();
        assert!(shown > 0, "every page shows something");
        for thread in &page.threads {
            seen.extend(thread.entries.iter().map(|e| e.summary.clone()));
        }
        let Some(omitted) = page.omitted else { break };
        assert_eq!(omitted.entries as usize, 7 - seen.len());
        filter.before = Some(
            kioku::domain::parse_instant(page.next_before.as_deref().unwrap(), chrono_tz::UTC)
                .unwrap(),
        );
    }
    assert!(pages > 1, "the budget cut at least once");
    seen.sort();
    assert_eq!(
        seen,
        ["a0 記憶", "a1", "a2", "a5", "b3", "b4 記憶", "c6 ＡＰＩ"]
    );
}

/// Instantiates every conformance test for one backend. `$make` is an async expression giving
/// `Some((store, guard))`, or `None` when the test is skipped; the guard keeps whatever the store needs alive until the test ends.
#[macro_export]
macro_rules! conformance_suite {
    ($make:expr; $($case:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let Some((store, _guard)) = $make.await else {
                    return;
                };
                $crate::conformance::$case(&store).await;
            }
        )+
    };
    ($make:expr) => {
        $crate::conformance_suite!($make;
            an_unknown_namespace_is_empty,
            a_saved_entry_loads_back_exactly,
            entries_come_oldest_first_and_threads_most_recent_first,
            namespaces_never_see_each_other,
            parallel_saves_to_one_thread_all_land,
            parallel_saves_across_threads_are_all_counted,
            a_ready_store_answers_ping,
            forgetting_a_thread_removes_it_whole,
            forgetting_one_entry_keeps_the_rest,
            a_thread_keeps_at_most_its_entry_limit,
            a_namespace_keeps_at_most_its_thread_limit,
            import_appends_only_what_is_missing,
            threads_and_namespaces_list_what_is_held,
            pages_of_threads_reach_every_thread_once_by_id,
            deleting_a_namespace_removes_only_it,
            filters_select_threads_times_and_counts,
            a_cut_page_counts_what_it_left_out_and_the_cursor_reaches_it,
            pages_over_many_threads_follow_load_order,
            pages_never_part_saves_made_at_the_same_instant,
            a_limited_load_over_many_threads_counts_only_its_threads,
            search_folds_width_and_case_and_keeps_to_the_filter,
            search_ranks_rarer_and_more_terms_first_then_recency,
            search_needs_only_some_of_the_words,
            search_segments_japanese_and_falls_back_to_bigrams,
            search_matches_word_forms_by_their_stem,
            imported_entries_are_found_and_past_their_age_are_not,
            search_ranks_any_of_the_terms_rarest_first,
            saves_imports_and_forgets_keep_the_index_exact,
            entries_a_cap_drops_leave_the_index,
            parallel_saves_with_every_limit_set_all_land,
            entries_past_their_age_are_never_a_saves_drops,
            a_repeated_save_stores_nothing_and_answers_the_entry_it_repeats,
            a_profile_is_read_now_or_at_a_kept_version,
            a_first_page_carries_the_profile_within_its_budget,
            a_rewrite_from_a_stale_version_conflicts_with_the_current_one,
            of_concurrent_rewrites_from_one_version_one_lands,
            a_profile_keeps_its_newest_twenty_versions,
            a_profile_is_forgotten_deleted_and_listed_with_its_namespace,
            profile_versions_import_once_and_keep_the_newest,
            profile_versions_past_their_age_are_not_current,
            every_read_gives_each_entry_its_writer,
            every_profile_version_keeps_its_writer,
        );
    };
}
