//! What every store does with the profile, and with a save that repeats the one before.

use std::num::NonZeroU32;

use futures::future::join_all;
use kioku::domain::{
    Filter, Namespace, PageBuilder, Profile, ProfileDraft, ProfileWrite, Retention, ThreadId,
    Writer,
};

use crate::conformance::{KEEP_ALL, entry, load_all, namespace};

fn draft(text: &str, expected: Option<u64>) -> ProfileDraft {
    ProfileDraft::parse(
        text,
        expected.map(|v| v.to_string()).as_deref(),
        2_000,
        chrono_tz::Asia::Tokyo,
        Writer::Page,
    )
    .unwrap()
}

async fn write(
    store: &impl crate::Backend,
    ns: &Namespace,
    text: &str,
    expected: Option<u64>,
) -> ProfileWrite {
    store
        .write_profile(ns, &draft(text, expected), &KEEP_ALL)
        .await
        .unwrap()
}

/// Writes `text` and answers the version it became.
async fn written(store: &impl crate::Backend, ns: &Namespace, text: &str) -> Profile {
    match write(store, ns, text, None).await {
        ProfileWrite::Written(profile) => profile,
        conflict => panic!("not written: {conflict:?}"),
    }
}

fn version(text: &str, version: u64, updated_at: &str) -> Profile {
    Profile {
        profile: text.into(),
        version,
        updated_at: updated_at.into(),
        writer: Some(Writer::Import),
    }
}

pub async fn a_repeated_save_stores_nothing_and_answers_the_entry_it_repeats(
    store: &impl crate::Backend,
) {
    let ns = namespace();
    let id = ThreadId::parse("t").unwrap();
    let (ns, id) = (&ns, &id);
    let save = |summary: &str, timestamp: &str| {
        let entry = entry(summary, timestamp);
        async move { store.save(ns, id, &entry, None, &KEEP_ALL).await.unwrap() }
    };
    let first = save("要約", "2025-08-19T10:00:00.000000+09:00").await;
    assert!(first.new_thread && first.repeat_of.is_none(), "{first:?}");
    let retry = save("要約", "2025-08-19T10:09:00.000000+09:00").await;
    assert_eq!(
        (retry.new_thread, retry.thread_count, retry.repeat_of),
        (
            false,
            1,
            Some(entry("要約", "2025-08-19T10:00:00.000000+09:00"))
        )
    );
    let later = save("要約", "2025-08-19T10:10:00.000001+09:00").await;
    let other = save("別の要約", "2025-08-19T10:10:01.000000+09:00").await;
    assert!(later.repeat_of.is_none() && other.repeat_of.is_none());
    assert!(!later.new_thread && !other.new_thread);
    let threads = load_all(store, ns).await;
    let summaries: Vec<&str> = threads[0]
        .entries
        .iter()
        .map(|e| e.summary.as_str())
        .collect();
    assert_eq!(summaries, ["要約", "要約", "別の要約"]);
}

pub async fn a_profile_is_read_now_or_at_a_kept_version(store: &impl crate::Backend) {
    let ns = namespace();
    assert_eq!(store.profile(&ns, None, None).await.unwrap(), None);
    let first = written(store, &ns, "Rust が好き").await;
    let second = written(store, &ns, "Rust が好き。敬語は不要").await;
    assert_eq!((first.version, second.version), (1, 2));
    assert_eq!(
        store.profile(&ns, None, None).await.unwrap(),
        Some(second.clone())
    );
    assert_eq!(
        store.profile(&ns, Some(1), None).await.unwrap(),
        Some(first.clone())
    );
    assert_eq!(store.profile(&ns, Some(3), None).await.unwrap(), None);
    assert_eq!(store.profile(&namespace(), None, None).await.unwrap(), None);
    // Undoing a bad rewrite: the earlier text, written again as the newest version.
    let undone = written(store, &ns, &first.profile).await;
    assert_eq!((undone.version, undone.profile), (3, first.profile));
    assert_eq!(
        store.profile_versions(&ns).await.unwrap().len(),
        3,
        "every version is kept"
    );
}

/// A first page carries the current profile and, within what the profile leaves of the
/// budget, the page a load of that smaller budget answers; without a profile written since
/// `not_before`, the whole budget's page.
pub async fn a_first_page_carries_the_profile_within_its_budget(store: &impl crate::Backend) {
    let ns = namespace();
    for i in 0..6 {
        let summary = format!("t{i} {}", "記憶".repeat(100));
        let entry = entry(&summary, &format!("2025-08-19T10:0{i}:00.000000+09:00"));
        let thread = ThreadId::parse(&format!("t{i}")).unwrap();
        store
            .save(&ns, &thread, &entry, None, &KEEP_ALL)
            .await
            .unwrap();
    }
    let profile = written(store, &ns, &"好み".repeat(150)).await;
    let (budget, filter) = (1_200, Filter::default());
    let page_of = |builder| store.page(&ns, &filter, builder);
    let (carried, page) = store.first_page(&ns, &filter, None, budget).await.unwrap();
    let (fitted, within) = PageBuilder::after_profile(Some(profile), budget);
    assert_eq!(carried, fitted);
    let expected = page_of(within).await.unwrap();
    let whole = page_of(PageBuilder::new(budget)).await.unwrap();
    assert_eq!(
        (&page.threads, page.omitted, &page.next_before),
        (&expected.threads, expected.omitted, &expected.next_before)
    );
    assert!(
        page.threads.len() < whole.threads.len(),
        "the profile takes from the page's budget"
    );

    let (carried, page) = store
        .first_page(&ns, &filter, Some(i64::MAX), budget)
        .await
        .unwrap();
    assert_eq!(carried, None);
    assert_eq!(
        (&page.threads, page.omitted, &page.next_before),
        (&whole.threads, whole.omitted, &whole.next_before)
    );
}

pub async fn a_rewrite_from_a_stale_version_conflicts_with_the_current_one(
    store: &impl crate::Backend,
) {
    let ns = namespace();
    assert_eq!(
        write(store, &ns, "x", Some(1)).await,
        ProfileWrite::Conflict(None)
    );
    let ProfileWrite::Written(first) = write(store, &ns, "first", Some(0)).await else {
        panic!("0 expects no profile");
    };
    for stale in [0, 2] {
        assert_eq!(
            write(store, &ns, "stale", Some(stale)).await,
            ProfileWrite::Conflict(Some(first.clone()))
        );
    }
    let ProfileWrite::Written(second) = write(store, &ns, "second", Some(1)).await else {
        panic!("the current version was expected");
    };
    assert_eq!(second.version, 2);
    assert_eq!(store.profile(&ns, None, None).await.unwrap(), Some(second));
}

pub async fn of_concurrent_rewrites_from_one_version_one_lands(store: &impl crate::Backend) {
    let ns = namespace();
    let rewrites = (0..8).map(|i| {
        let draft = draft(&format!("rewrite {i}"), Some(0));
        let ns = ns.clone();
        async move { store.write_profile(&ns, &draft, &KEEP_ALL).await.unwrap() }
    });
    let outcomes = join_all(rewrites).await;
    let landed: Vec<&Profile> = outcomes
        .iter()
        .filter_map(|o| match o {
            ProfileWrite::Written(p) => Some(p),
            ProfileWrite::Conflict(_) => None,
        })
        .collect();
    assert_eq!(landed.len(), 1, "{outcomes:?}");
    let current = store.profile(&ns, None, None).await.unwrap().unwrap();
    assert_eq!(&current, landed[0]);
    for outcome in &outcomes {
        if let ProfileWrite::Conflict(seen) = outcome {
            assert_eq!(seen.as_ref(), Some(&current));
        }
    }
}

pub async fn a_profile_keeps_its_newest_twenty_versions(store: &impl crate::Backend) {
    let ns = namespace();
    for i in 1..=23 {
        written(store, &ns, &format!("version {i}")).await;
    }
    let kept: Vec<u64> = store
        .profile_versions(&ns)
        .await
        .unwrap()
        .iter()
        .map(|p| p.version)
        .collect();
    assert_eq!(kept, (4..=23).collect::<Vec<_>>());
    assert_eq!(store.profile(&ns, Some(3), None).await.unwrap(), None);
    assert_eq!(
        store
            .profile(&ns, Some(4), None)
            .await
            .unwrap()
            .unwrap()
            .profile,
        "version 4"
    );
}

pub async fn a_profile_is_forgotten_deleted_and_listed_with_its_namespace(
    store: &impl crate::Backend,
) {
    let (only_profile, both) = (namespace(), namespace());
    written(store, &only_profile, "a").await;
    written(store, &only_profile, "b").await;
    written(store, &both, "c").await;
    let id = ThreadId::parse("t").unwrap();
    store
        .save(
            &both,
            &id,
            &entry("s", "2025-08-19T10:00:00Z"),
            None,
            &KEEP_ALL,
        )
        .await
        .unwrap();
    let listed: Vec<String> = store
        .namespaces()
        .await
        .unwrap()
        .into_iter()
        .map(|stats| stats.name)
        .collect();
    let names = store.namespace_names().await.unwrap();
    assert!(names.is_sorted(), "{names:?}");
    for ns in [&only_profile, &both] {
        let name = ns.name().to_owned();
        assert!(listed.contains(&name), "{ns} not in {listed:?}");
        assert!(names.contains(&name), "{ns} not in {names:?}");
    }
    assert_eq!(store.forget_profile(&only_profile).await.unwrap(), 2);
    assert_eq!(
        store.profile(&only_profile, None, None).await.unwrap(),
        None
    );
    assert_eq!(store.forget_profile(&only_profile).await.unwrap(), 0);
    store.delete_namespace(&both).await.unwrap();
    assert_eq!(store.profile_versions(&both).await.unwrap(), []);
    let names = store.namespace_names().await.unwrap();
    for ns in [&only_profile, &both] {
        assert!(!names.contains(&ns.name().to_owned()), "{ns} in {names:?}");
    }
    // A namespace's next profile after forgetting starts a new history.
    assert_eq!(written(store, &only_profile, "d").await.version, 1);
}

pub async fn profile_versions_import_once_and_keep_the_newest(store: &impl crate::Backend) {
    let (from, to) = (namespace(), namespace());
    for i in 1..=3 {
        written(store, &from, &format!("v{i}")).await;
    }
    let exported = store.profile_versions(&from).await.unwrap();
    assert_eq!(store.import_profile(&to, &exported).await.unwrap(), 3);
    assert_eq!(store.import_profile(&to, &exported).await.unwrap(), 0);
    assert_eq!(store.profile_versions(&to).await.unwrap(), exported);
    assert_eq!(
        store.profile(&to, None, None).await.unwrap().as_ref(),
        exported.last()
    );

    let many: Vec<Profile> = (1..=25)
        .map(|i| version(&format!("v{i}"), i, "2025-08-19T10:00:00Z"))
        .collect();
    let target = namespace();
    assert_eq!(store.import_profile(&target, &many).await.unwrap(), 25);
    let kept = store.profile_versions(&target).await.unwrap();
    assert_eq!(kept, many[5..]);
}

pub async fn profile_versions_past_their_age_are_not_current(store: &impl crate::Backend) {
    let ns = namespace();
    let old = version("old", 1, "2020-01-01T00:00:00Z");
    store
        .import_profile(&ns, std::slice::from_ref(&old))
        .await
        .unwrap();
    let week = Retention {
        max_age_days: NonZeroU32::new(7),
        ..KEEP_ALL
    };
    let cutoff = week.cutoff();
    assert_eq!(store.profile(&ns, None, cutoff).await.unwrap(), None);
    assert_eq!(store.profile(&ns, Some(1), cutoff).await.unwrap(), None);
    assert_eq!(store.profile(&ns, Some(1), None).await.unwrap(), Some(old));
    // What a reader cannot see is not current: a rewrite expecting none lands after it.
    let landed = store
        .write_profile(&ns, &draft("new", Some(0)), &week)
        .await
        .unwrap();
    let ProfileWrite::Written(new) = landed else {
        panic!("{landed:?}");
    };
    assert_eq!(new.version, 2);
    assert_eq!(store.profile(&ns, None, cutoff).await.unwrap(), Some(new));
}
