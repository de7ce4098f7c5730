//! Who wrote each entry and profile version comes back with it from every read: loads, searches,
//! export pages and profile reads; what was stored without a writer stays without one.

use kioku::domain::{Filter, Profile, ProfileDraft, ProfileWrite, Writer};
use kioku::search::Query;

use crate::conformance::{KEEP_ALL, entry, load_all, namespace, thread};

fn app() -> Writer {
    Writer::App {
        client_id: "https://app.example/client.json".into(),
        name: "記憶アプリ".into(),
    }
}

fn writers() -> [Option<Writer>; 5] {
    [
        Some(app()),
        Some(Writer::Token {
            label: "alice".into(),
        }),
        Some(Writer::Page),
        Some(Writer::Import),
        None,
    ]
}

pub async fn every_read_gives_each_entry_its_writer(store: &impl crate::Backend) {
    let ns = namespace();
    let mut saved = Vec::new();
    for (i, writer) in writers().into_iter().enumerate() {
        let mut entry = entry(
            &format!("writer {i} wrote about kumquats"),
            &format!("2025-01-01T00:00:0{i}.000000+09:00"),
        );
        entry.writer = writer;
        store
            .save(&ns, &thread("t"), &entry, None, &KEEP_ALL)
            .await
            .unwrap();
        saved.push(entry);
    }
    let imported = {
        let mut entry = entry("imported kumquats", "2025-01-01T00:00:09.000000+09:00");
        entry.writer = Some(Writer::Import);
        entry
    };
    store
        .import(&ns, &thread("t"), std::slice::from_ref(&imported))
        .await
        .unwrap();
    saved.push(imported);

    assert_eq!(load_all(store, &ns).await[0].entries, saved, "a load");
    let exported = store.threads_page(&ns, None, 10).await.unwrap();
    assert_eq!(exported[0].entries, saved, "an export's page");
    let query = Query::parse("kumquats").unwrap();
    let results =
        kioku::memory::search(store, &ns, &Filter::default(), &query, None, None, 100_000)
            .await
            .unwrap();
    let mut found: Vec<_> = results
        .found
        .into_iter()
        .map(|f| (f.timestamp, f.writer))
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    let expected: Vec<_> = saved
        .iter()
        .map(|e| (e.timestamp.clone(), e.writer.clone()))
        .collect();
    assert_eq!(found, expected, "a search");
}

pub async fn every_profile_version_keeps_its_writer(store: &impl crate::Backend) {
    let ns = namespace();
    let draft =
        ProfileDraft::parse("Rust を書く", None, 100, chrono_tz::Asia::Tokyo, app()).unwrap();
    let written = match store.write_profile(&ns, &draft, &KEEP_ALL).await.unwrap() {
        ProfileWrite::Written(profile) => profile,
        conflict => panic!("{conflict:?}"),
    };
    assert_eq!(written.writer, Some(app()));
    let old = Profile {
        profile: "以前の".into(),
        version: 1,
        updated_at: "2025-01-01T00:00:00.000000+09:00".into(),
        writer: None,
    };
    let imported = Profile {
        version: 3,
        writer: Some(Writer::Import),
        ..old.clone()
    };
    let other = namespace();
    store
        .import_profile(&other, &[old.clone(), imported.clone()])
        .await
        .unwrap();

    let current = store.profile(&ns, None, None).await.unwrap();
    assert_eq!(current.and_then(|p| p.writer), Some(app()));
    assert_eq!(
        store.profile_versions(&other).await.unwrap(),
        [old, imported],
        "a version without a writer stays without"
    );
}
