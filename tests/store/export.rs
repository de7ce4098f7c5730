//! Conformance, continued: what an export relies on to read a database a page at a time. Run
//! for every backend through `conformance_suite!`.

use kioku::domain::{Thread, ThreadId};

use crate::conformance::{KEEP_ALL, entry, namespace};

/// Paging by id reaches every thread of the namespace once, in byte order of their ids, each
/// with its entries in save order; a full last page is followed by an empty one.
pub async fn pages_of_threads_reach_every_thread_once_by_id(store: &impl crate::Backend) {
    let (ns, other) = (namespace(), namespace());
    let ids = ["b", "a-b", "a", "Z", "10", "9", "スレッド", "c"];
    for (i, id) in ids.iter().enumerate() {
        let saved = entry(&format!("{id} 1"), &format!("2025-08-19T10:00:{i:02}Z"));
        store
            .save(&ns, &ThreadId::parse(id).unwrap(), &saved, None, &KEEP_ALL)
            .await
            .unwrap();
    }
    let again = entry("a 2", "2025-08-19T10:01:00Z");
    store
        .save(&ns, &ThreadId::parse("a").unwrap(), &again, None, &KEEP_ALL)
        .await
        .unwrap();
    let elsewhere = entry("not this namespace's", "2025-08-19T10:02:00Z");
    store
        .save(
            &other,
            &ThreadId::parse("a0").unwrap(),
            &elsewhere,
            None,
            &KEEP_ALL,
        )
        .await
        .unwrap();
    let mut expected: Vec<&str> = ids.to_vec();
    expected.sort();
    for (limit, sizes) in [(3, &[3, 3, 2][..]), (4, &[4, 4, 0][..])] {
        let mut read: Vec<Thread> = Vec::new();
        let mut pages = Vec::new();
        loop {
            let after = read.last().map(|thread| thread.id.as_str());
            let page = store.threads_page(&ns, after, limit).await.unwrap();
            pages.push(page.len());
            let last = page.len() < limit as usize;
            read.extend(page);
            if last {
                break;
            }
        }
        assert_eq!(pages, sizes, "pages of {limit}");
        let read_ids: Vec<&str> = read.iter().map(|thread| thread.id.as_str()).collect();
        assert_eq!(read_ids, expected, "pages of {limit}");
        let a = read.iter().find(|thread| thread.id == "a").unwrap();
        assert_eq!(
            a.entries,
            [entry("a 1", "2025-08-19T10:00:02Z"), again.clone()]
        );
    }
}
