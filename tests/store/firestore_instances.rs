//! Instances of the Firestore store share one database, as Cloud Run's do: what one remembers
//! of a namespace it loaded (small, how many threads, and its profile's newest version, which
//! lets its next first page make one call when there is none) never hides what another wrote
//! since.

use kioku::domain::{Filter, Namespace, ProfileDraft, ProfileWrite, Writer};
use kioku::store::{FirestoreStore, MemoryStore};

use crate::conformance::{KEEP_ALL, entry, namespace, thread};
use crate::firestore::connect;

async fn save(store: &FirestoreStore, ns: &Namespace, id: &str) {
    let at = "2025-08-19T10:00:00.000000+09:00";
    store
        .save(ns, &thread(id), &entry(id, at), None, &KEEP_ALL)
        .await
        .unwrap();
}

async fn profile(store: &FirestoreStore, ns: &Namespace, text: &str) {
    let draft = ProfileDraft::parse(text, None, 2_000, chrono_tz::Asia::Tokyo, Writer::Page);
    let write = store
        .write_profile(ns, &draft.unwrap(), &KEEP_ALL)
        .await
        .unwrap();
    assert!(matches!(write, ProfileWrite::Written(_)), "{write:?}");
}

/// What a first page of `ns` answers: its profile's text and how many threads it holds.
async fn first_page(store: &FirestoreStore, ns: &Namespace) -> (Option<String>, usize) {
    let (profile, page) = store
        .first_page(ns, &Filter::default(), None, usize::MAX)
        .await
        .unwrap();
    (profile.map(|p| p.profile), page.threads.len())
}

#[tokio::test]
async fn a_first_page_answers_what_other_instances_wrote_since() {
    let (Some(here), Some(there)) = (connect().await, connect().await) else {
        return;
    };
    let ns = namespace();
    for id in ["a", "b", "c"] {
        save(&there, &ns, id).await;
    }
    profile(&there, &ns, "一つ目").await;
    assert_eq!(first_page(&here, &ns).await, (Some("一つ目".into()), 3));
    assert_eq!(first_page(&here, &ns).await, (Some("一つ目".into()), 3));

    // A newer version and a new thread.
    profile(&there, &ns, "二つ目").await;
    save(&there, &ns, "d").await;
    assert_eq!(first_page(&here, &ns).await, (Some("二つ目".into()), 4));

    // Forgotten, and begun again: version 1, below the version seen here.
    there.forget_profile(&ns).await.unwrap();
    profile(&there, &ns, "やり直し").await;
    assert_eq!(first_page(&here, &ns).await, (Some("やり直し".into()), 4));

    // Forgotten.
    there.forget_profile(&ns).await.unwrap();
    assert_eq!(first_page(&here, &ns).await, (None, 4));

    // Seen without a profile: a new thread, then two.
    save(&there, &ns, "e").await;
    assert_eq!(first_page(&here, &ns).await, (None, 5));
    save(&there, &ns, "f").await;
    save(&there, &ns, "g").await;
    assert_eq!(first_page(&here, &ns).await, (None, 7));

    // Written where there was none seen here.
    profile(&there, &ns, "三つ目").await;
    assert_eq!(first_page(&here, &ns).await, (Some("三つ目".into()), 7));

    // Grown past what a small namespace holds.
    for i in 0..30 {
        save(&there, &ns, &format!("h{i}")).await;
    }
    assert_eq!(first_page(&here, &ns).await, (Some("三つ目".into()), 37));
    assert_eq!(first_page(&here, &ns).await, (Some("三つ目".into()), 37));
}
