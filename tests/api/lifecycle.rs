//! Forgetting, retention and the admin endpoints over HTTP, each on both stores.

use kioku::config::StoreKind;
use kioku::domain::{Entry, Namespace, ThreadId};
use kioku::startup::open_store;
use reqwest::Method;
use serde_json::Value;

use crate::helpers::{
    ADMIN, ALICE, Fresh, error_json, ok_json, on_both_stores, on_store, settings, spawn_fresh,
    summaries,
};

on_both_stores!(
    forget_removes_a_thread_or_one_summary,
    saves_drop_what_the_limits_do_not_keep,
    loads_hide_summaries_past_the_retention_age,
    admins_list_export_and_delete_namespaces,
    an_export_streams_more_than_a_page,
);

async fn forget(fresh: &Fresh, query: &str) -> reqwest::Response {
    let path = format!("/forget?{query}");
    fresh
        .app
        .call(Method::GET, &path, &fresh.token)
        .send()
        .await
        .unwrap()
}

async fn forget_removes_a_thread_or_one_summary(store: StoreKind) {
    let fresh = spawn_fresh(store, |_| {}).await;
    let first = fresh.app.save(&fresh.token, Some("t"), "one").await;
    fresh.app.save(&fresh.token, Some("t"), "two").await;
    fresh.app.save(&fresh.token, Some("u"), "other").await;

    // The timestamp as the save answered it, its `+` unencoded as a GPT may send it.
    let timestamp = first["timestamp"].as_str().unwrap();
    assert!(timestamp.contains('+'), "{timestamp}");
    let one = ok_json(forget(&fresh, &format!("thread_id=t&timestamp={timestamp}")).await).await;
    assert_eq!(
        one,
        serde_json::json!({"status": "forgotten", "thread_id": "t", "forgotten_entries": 1, "thread_removed": false})
    );
    assert_eq!(
        summaries(&fresh.app.load(&fresh.token).await),
        ["other", "two"]
    );

    let again = forget(&fresh, &format!("thread_id=t&timestamp={timestamp}")).await;
    error_json(again, 404, "nothing_to_forget").await;
    // Another namespace cannot reach this thread.
    let alice = fresh.app.call(Method::GET, "/forget?thread_id=u", ALICE);
    error_json(alice.send().await.unwrap(), 404, "nothing_to_forget").await;

    let whole = ok_json(forget(&fresh, "thread_id=u").await).await;
    assert_eq!(whole["forgotten_entries"], 1);
    assert_eq!(whole["thread_removed"], true);
    assert_eq!(summaries(&fresh.app.load(&fresh.token).await), ["two"]);

    error_json(forget(&fresh, "").await, 400, "missing_thread_id").await;
    let bad_time = forget(&fresh, "thread_id=t&timestamp=yesterday").await;
    error_json(bad_time, 400, "invalid_filter").await;
    let post = fresh
        .app
        .call(Method::POST, "/forget?thread_id=t", &fresh.token);
    let refused = post.send().await.unwrap();
    assert_eq!(refused.headers()["allow"], "GET");
    error_json(refused, 405, "method_not_allowed").await;
    assert_eq!(
        summaries(&fresh.app.load(&fresh.token).await),
        ["two"],
        "bad requests forget nothing"
    );
}

async fn saves_drop_what_the_limits_do_not_keep(store: StoreKind) {
    let fresh = spawn_fresh(store, |s| {
        s.max_entries_per_thread = 2.try_into().ok();
        s.max_threads = 2.try_into().ok();
    })
    .await;
    let (app, token) = (&fresh.app, fresh.token.as_str());
    for summary in ["a1", "a2"] {
        let saved = app.save(token, Some("a"), summary).await;
        assert!(
            saved.get("dropped_entries").is_none() && saved.get("notice").is_none(),
            "{saved}"
        );
    }
    let third = app.save(token, Some("a"), "a3").await;
    assert_eq!(third["dropped_entries"], 1);
    assert!(
        third["notice"]
            .as_str()
            .unwrap()
            .contains("1 oldest summaries"),
        "{third}"
    );

    app.save(token, Some("b"), "b1").await;
    let over = app.save(token, Some("c"), "c1").await;
    assert_eq!(over["dropped_threads"], 1, "{over}");
    assert_eq!(over["count"], 2);
    assert_eq!(summaries(&app.load(token).await), ["c1", "b1"]);
}

/// Old summaries written straight into the store, as an import from elsewhere would.
async fn seed(store: StoreKind, data_dir: &std::path::Path, ns: &str, entries: &[Entry]) {
    let mut settings = settings(data_dir);
    on_store(&mut settings, store);
    let store = open_store(&settings).await.unwrap().maintenance;
    let ns = Namespace::named(ns).unwrap();
    let thread = ThreadId::parse("seeded").unwrap();
    store.import(&ns, &thread, entries).await.unwrap();
}

async fn loads_hide_summaries_past_the_retention_age(store: StoreKind) {
    let dir = tempfile::tempdir().unwrap();
    let ns = format!("ns-{}", uuid::Uuid::new_v4());
    let old = Entry {
        writer: None,
        summary: "from last year".into(),
        timestamp: "2020-01-01T00:00:00.000000+09:00".into(),
    };
    let recent = Entry {
        writer: None,
        summary: "from today".into(),
        timestamp: chrono::Utc::now().to_rfc3339(),
    };
    seed(store, dir.path(), &ns, &[old, recent]).await;
    let token = format!("tok-{ns}");
    let app = crate::helpers::spawn_app_with(|s| {
        on_store(s, store);
        s.data_dir = dir.path().to_owned();
        s.api_tokens = Some(format!("{ns}:{token}").into());
        s.retention_days = 30.try_into().ok();
    })
    .await;
    assert_eq!(summaries(&app.load(&token).await), ["from today"]);
    // Both summaries hold a term of the question; only the recent one may come back.
    let search = app.get(
        Some(&token),
        &[("mode", "load"), ("q", "last year or today")],
    );
    let found = ok_json(search.send().await.unwrap()).await;
    assert_eq!(found["count"], 1, "{found}");
    if store == StoreKind::Sqlite {
        // Purged from the file at start, not only hidden (Firestore's TTL policy deletes).
        let mut settings = settings(dir.path());
        on_store(&mut settings, store);
        let held = open_store(&settings).await.unwrap().memory;
        let threads = held
            .threads_page(&Namespace::named(&ns).unwrap(), None, 10)
            .await
            .unwrap();
        assert_eq!(threads[0].entries.len(), 1);
    }
}

async fn admins_list_export_and_delete_namespaces(store: StoreKind) {
    let fresh = spawn_fresh(store, |_| {}).await;
    let app = &fresh.app;
    app.save(&fresh.token, Some("t1"), "one").await;
    let last = app.save(&fresh.token, Some("t1"), "two").await;
    app.save(&fresh.token, Some("t2"), "three").await;
    let newest = app.save(&fresh.token, Some("t0"), "four").await;
    assert!(last["timestamp"].as_str() < newest["timestamp"].as_str());

    let listed = ok_json(
        app.call(Method::GET, "/admin/namespaces", ADMIN)
            .send()
            .await
            .unwrap(),
    )
    .await;
    let mine = listed["namespaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == fresh.ns.as_str())
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(mine["threads"], 3);
    assert_eq!(mine["entries"], 4);
    assert_eq!(mine["last_saved"], newest["timestamp"]);

    let path = format!("/admin/export?namespace={}", fresh.ns);
    let exported = app.call(Method::GET, &path, ADMIN).send().await.unwrap();
    assert_eq!(exported.status(), 200);
    assert_eq!(exported.headers()["content-type"], "application/x-ndjson");
    let lines: Vec<Value> = exported
        .text()
        .await
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let threads: Vec<(&str, usize)> = lines
        .iter()
        .map(|l| {
            (
                l["thread_id"].as_str().unwrap(),
                l["entries"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(threads, [("t0", 1), ("t1", 2), ("t2", 1)]);
    assert_eq!(lines[1]["namespace"], fresh.ns.as_str());
    assert_eq!(lines[1]["entries"][1]["summary"], "two");
    assert_eq!(lines[1]["entries"][1]["timestamp"], last["timestamp"]);

    // Each kind of token stays on its side.
    let as_api = app
        .call(Method::GET, "/admin/namespaces", &fresh.token)
        .send()
        .await
        .unwrap();
    error_json(as_api, 403, "not_admin").await;
    let unauthenticated = app
        .client
        .get(format!("{}/admin/namespaces", app.base))
        .send()
        .await
        .unwrap();
    error_json(unauthenticated, 401, "missing_credentials").await;
    let admin_load = app
        .get(Some(ADMIN), &[("mode", "load")])
        .send()
        .await
        .unwrap();
    error_json(admin_load, 403, "unknown_token").await;
    let admin_forget = app
        .call(Method::GET, "/forget?thread_id=t1", ADMIN)
        .send()
        .await
        .unwrap();
    error_json(admin_forget, 403, "unknown_token").await;

    let path = format!("/admin/namespaces/{}", fresh.ns);
    let deleted = ok_json(app.call(Method::DELETE, &path, ADMIN).send().await.unwrap()).await;
    assert_eq!(
        (deleted["threads"].as_u64(), deleted["entries"].as_u64()),
        (Some(3), Some(4))
    );
    assert_eq!(app.load(&fresh.token).await["status"], "empty");
    let again = app.call(Method::DELETE, &path, ADMIN).send().await.unwrap();
    error_json(again, 404, "unknown_namespace").await;
    let path = format!("/admin/export?namespace={}", fresh.ns);
    let gone = app.call(Method::GET, &path, ADMIN).send().await.unwrap();
    error_json(gone, 404, "unknown_namespace").await;
}

/// Without KIOKU_ADMIN_TOKENS `/admin` is not there: every path under it answers 404, as any
/// unknown path does, whatever token comes; with them, a wrong token is told it is not one.
#[tokio::test]
async fn admin_is_off_without_admin_tokens() {
    let fresh = spawn_fresh(StoreKind::Sqlite, |s| s.admin_tokens = None).await;
    for path in ["/admin/namespaces", "/admin/export", "/admin/oauth/clients"] {
        for token in [ADMIN, ALICE] {
            let response = fresh
                .app
                .call(Method::GET, path, token)
                .send()
                .await
                .unwrap();
            error_json(response, 404, "not_found").await;
        }
    }
    let on = spawn_fresh(StoreKind::Sqlite, |_| {}).await;
    let response = on
        .app
        .call(Method::GET, "/admin/namespaces", ALICE)
        .send()
        .await;
    error_json(response.unwrap(), 403, "not_admin").await;
}

/// An export of more threads than a page (100) is streamed, not sent whole, and holds every
/// thread once, by id.
async fn an_export_streams_more_than_a_page(store: StoreKind) {
    let fresh = spawn_fresh(store, |_| {}).await;
    let ids: Vec<String> = (0..201).map(|i| format!("t{i:03}")).collect();
    for id in &ids {
        fresh.app.save(&fresh.token, Some(id), "要約").await;
    }
    let path = format!("/admin/export?namespace={}", fresh.ns);
    let exported = fresh
        .app
        .call(Method::GET, &path, ADMIN)
        .send()
        .await
        .unwrap();
    assert_eq!(exported.status(), 200);
    assert_eq!(
        exported.content_length(),
        None,
        "streamed, so of no length known ahead"
    );
    let body = exported.text().await.unwrap();
    let read: Vec<String> = body
        .lines()
        .map(|line| {
            let line: Value = serde_json::from_str(line).unwrap();
            line["thread_id"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(read, ids);
}
