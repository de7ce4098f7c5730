//! Loads over more threads than one read takes: whatever a store reads, and in whatever order,
//! each page holds the next entries in load order, counts what it left out, and its cursor
//! reaches the rest exactly once.

use std::collections::HashSet;

use kioku::domain::{Filter, Located, Namespace, Page, PageBuilder, ThreadId, entry_micros};

use crate::conformance::{KEEP_ALL, entry, namespace};

const THREADS: usize = 30;
const ROUNDS: usize = 3;
/// Small enough to cut a load many times, large enough for the three entries saved at one
/// instant (each with its writer) with the answer's envelope.
const BUDGET_CHARS: usize = 900;

fn stamp(second: usize) -> String {
    format!(
        "2025-08-19T1{}:{:02}:{:02}.000000+09:00",
        second / 3600,
        second / 60 % 60,
        second % 60
    )
}

/// 30 threads saved to in three rounds, so that each thread's entries lie between other
/// threads'; with `ties`, in the third round threads saved in threes, at the same second.
async fn rounds(store: &impl crate::Backend, ties: bool) -> (Namespace, Vec<Located>) {
    let ns = namespace();
    let mut saved = Vec::new();
    for round in 0..ROUNDS {
        for i in 0..THREADS {
            let second = match round {
                2 if ties => 1000 + i / 3 * 3,
                _ => round * 100 + (i * 7) % THREADS,
            };
            let id = format!("t{i:02}");
            let summary = format!("{id} round {round} {}", "記".repeat(i % 5 * 10));
            let entry = entry(&summary, &stamp(second));
            let thread = ThreadId::parse(&id).unwrap();
            store
                .save(&ns, &thread, &entry, None, &KEEP_ALL)
                .await
                .unwrap();
            saved.push(Located {
                thread_id: id,
                at: entry_micros(&entry.timestamp),
                entry,
                seq: round as i64,
            });
        }
    }
    saved.sort_by(Located::load_order);
    (ns, saved)
}

/// The page's entries as (thread, summary), in load order.
fn in_load_order(page: &Page) -> Vec<(String, String)> {
    let mut items: Vec<(i64, String, String)> = page
        .threads
        .iter()
        .flat_map(|t| {
            t.entries
                .iter()
                .map(|e| (entry_micros(&e.timestamp), t.id.clone(), e.summary.clone()))
        })
        .collect();
    items.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    items.into_iter().map(|(_, t, s)| (t, s)).collect()
}

fn keys(items: &[Located]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|i| (i.thread_id.clone(), i.entry.summary.clone()))
        .collect()
}

fn distinct_threads(items: &[Located]) -> usize {
    items
        .iter()
        .map(|i| &i.thread_id)
        .collect::<HashSet<_>>()
        .len()
}

/// Pages through `filter` with a small budget: each page the next entries of `expected`,
/// what it left out counted, every entry reached once.
async fn pages_through(
    store: &impl crate::Backend,
    ns: &Namespace,
    filter: Filter,
    expected: &[Located],
) {
    let mut filter = filter;
    let mut at = 0;
    let mut pages = 0;
    loop {
        let page = store
            .page(ns, &filter, PageBuilder::new(BUDGET_CHARS))
            .await
            .unwrap();
        pages += 1;
        let shown = in_load_order(&page);
        assert!(!shown.is_empty(), "page {pages} shows something");
        assert_eq!(shown, keys(&expected[at..at + shown.len()]), "page {pages}");
        let admitted = distinct_threads(&expected[at..]);
        at += shown.len();
        let Some(omitted) = page.omitted else { break };
        assert_eq!(
            omitted.entries as usize,
            expected.len() - at,
            "page {pages}"
        );
        assert_eq!(
            omitted.threads as usize,
            admitted - page.threads.len(),
            "page {pages}"
        );
        filter.before = Some(
            kioku::domain::parse_instant(page.next_before.as_deref().unwrap(), chrono_tz::UTC)
                .unwrap(),
        );
    }
    assert_eq!(at, expected.len(), "every entry was reached");
    assert!(pages > 3, "the budget cut several times: {pages} pages");
}

pub async fn pages_over_many_threads_follow_load_order(store: &impl crate::Backend) {
    let (ns, saved) = rounds(store, false).await;
    pages_through(store, &ns, Filter::default(), &saved).await;
    let since = entry_micros(&stamp(100 + 10));
    let recent: Vec<Located> = saved.iter().filter(|i| i.at >= since).cloned().collect();
    let filter = Filter {
        since: Some(since),
        ..Filter::default()
    };
    pages_through(store, &ns, filter, &recent).await;
}

/// Saves at the same instant are never split across pages: the cursor is a time, so a page
/// that ended inside such a group would leave the rest of it behind its own cursor.
pub async fn pages_never_part_saves_made_at_the_same_instant(store: &impl crate::Backend) {
    let (ns, saved) = rounds(store, true).await;
    pages_through(store, &ns, Filter::default(), &saved).await;
}

/// `limit` keeps the threads saved to most recently, and a cut page counts only theirs.
pub async fn a_limited_load_over_many_threads_counts_only_its_threads(store: &impl crate::Backend) {
    let (ns, saved) = rounds(store, true).await;
    let limit = 7;
    let mut kept: Vec<String> = Vec::new();
    for item in &saved {
        if kept.len() < limit && !kept.contains(&item.thread_id) {
            kept.push(item.thread_id.clone());
        }
    }
    let expected: Vec<Located> = saved
        .iter()
        .filter(|i| kept.contains(&i.thread_id))
        .cloned()
        .collect();
    let filter = Filter {
        limit: Some(limit),
        ..Filter::default()
    };
    let whole = store
        .page(&ns, &filter, PageBuilder::new(usize::MAX))
        .await
        .unwrap();
    assert_eq!(in_load_order(&whole), keys(&expected));
    let cut = store
        .page(&ns, &filter, PageBuilder::new(BUDGET_CHARS))
        .await
        .unwrap();
    let shown = in_load_order(&cut);
    assert_eq!(shown, keys(&expected[..shown.len()]));
    let omitted = cut.omitted.expect("the budget cut");
    assert_eq!(omitted.entries as usize, expected.len() - shown.len());
    assert_eq!(
        omitted.threads as usize,
        distinct_threads(&expected) - cut.threads.len()
    );
    // Threads saved at the same second come in the order of their ids, on every store.
    let all = store
        .page(&ns, &Filter::default(), PageBuilder::new(usize::MAX))
        .await
        .unwrap();
    assert_eq!(in_load_order(&all), keys(&saved));
}
