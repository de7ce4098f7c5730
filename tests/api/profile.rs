//! The profile over HTTP, and what makes a GPT use memory well: a no-match told apart from an
//! empty memory, a retried save stored once, an unknown thread told; each on both stores.

use kioku::config::StoreKind;
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Fresh, error_json, ok_json, on_both_stores, spawn_fresh, summaries};

on_both_stores!(
    the_profile_is_rewritten_read_by_version_and_guarded_by_its_version,
    bad_profile_requests_are_refused_and_store_nothing,
    a_first_page_carries_the_profile_first_within_the_budget,
    a_load_that_matches_nothing_says_so_apart_from_an_empty_memory,
    a_retried_save_is_stored_once_and_an_unknown_thread_is_told,
    the_profile_is_forgotten_on_request,
);

async fn profile(fresh: &Fresh, query: &[(&str, &str)]) -> reqwest::Response {
    let mut query = query.to_vec();
    query.insert(0, ("mode", "profile"));
    fresh
        .app
        .get(Some(&fresh.token), &query)
        .send()
        .await
        .unwrap()
}

async fn read(fresh: &Fresh) -> Value {
    ok_json(profile(fresh, &[]).await).await
}

/// The 200 answer to `request`.
async fn answered(request: reqwest::RequestBuilder) -> Value {
    ok_json(request.send().await.unwrap()).await
}

async fn the_profile_is_rewritten_read_by_version_and_guarded_by_its_version(store: StoreKind) {
    let fresh = spawn_fresh(store, |_| {}).await;
    assert_eq!(read(&fresh).await, json!({"status": "empty"}));
    // Each version names who wrote it: here the namespace's API token.
    let writer = json!({"by": "token", "label": fresh.ns});

    let first = ok_json(
        profile(
            &fresh,
            &[("profile", "Rust を書く"), ("expected_version", "0")],
        )
        .await,
    )
    .await;
    assert_eq!(
        (&first["status"], &first["version"]),
        (&json!("saved"), &json!(1))
    );
    let body =
        json!({"mode": "profile", "profile": "Rust を書く。敬語は不要", "expected_version": 1});
    let second = answered(fresh.app.post(Some(&fresh.token), &body)).await;
    assert_eq!(second["version"], 2);

    let current = read(&fresh).await;
    assert_eq!(
        current,
        json!({"status": "profile", "profile": "Rust を書く。敬語は不要", "version": 2,
               "updated_at": second["updated_at"], "writer": writer})
    );
    // A rewrite based on version 1 would drop what version 2 added: refused, with version 2.
    let stale = profile(
        &fresh,
        &[("profile", "Rust を書く"), ("expected_version", "1")],
    )
    .await;
    let refused = error_json(stale, 409, "profile_conflict").await;
    assert_eq!(
        refused["current"],
        json!({"profile": "Rust を書く。敬語は不要", "version": 2, "updated_at": second["updated_at"],
               "writer": writer})
    );
    assert_eq!(read(&fresh).await, current, "a conflict writes nothing");

    // Undo: read version 1, write it back.
    let old = ok_json(profile(&fresh, &[("version", "1")]).await).await;
    assert_eq!(
        (&old["profile"], &old["version"]),
        (&json!("Rust を書く"), &json!(1))
    );
    let text = old["profile"].as_str().unwrap();
    let undone =
        ok_json(profile(&fresh, &[("profile", text), ("expected_version", "2")]).await).await;
    assert_eq!(undone["version"], 3);
    assert_eq!(read(&fresh).await["profile"], "Rust を書く");
    // Without expected_version a rewrite replaces whatever is current.
    let blind = ok_json(profile(&fresh, &[("profile", "上書き")]).await).await;
    assert_eq!(blind["version"], 4);

    let missing = profile(&fresh, &[("version", "99")]).await;
    let body = error_json(missing, 404, "unknown_profile_version").await;
    assert!(
        body["message"].as_str().unwrap().contains("newest 20"),
        "{body}"
    );
}

async fn bad_profile_requests_are_refused_and_store_nothing(store: StoreKind) {
    let fresh = spawn_fresh(store, |s| s.max_profile_chars = 10).await;
    type Case<'a> = (&'a [(&'a str, &'a str)], u16, &'a str);
    let cases: [Case; 7] = [
        (&[("profile", " \n ")], 400, "blank_profile"),
        (&[("profile", "12345678901")], 400, "profile_too_long"),
        (
            &[("profile", "a\u{202e}b")],
            400,
            "profile_control_character",
        ),
        (
            &[("profile", "ok"), ("version", "1")],
            400,
            "invalid_parameters",
        ),
        (
            &[("profile", "ok"), ("expected_version", "-1")],
            400,
            "invalid_filter",
        ),
        (&[("version", "0")], 400, "invalid_filter"),
        (&[("version", "1")], 404, "unknown_profile_version"),
    ];
    for (query, status, code) in cases {
        let body = error_json(profile(&fresh, query).await, status, code).await;
        let message = body["message"].as_str().unwrap();
        assert!(
            message.len() > 20,
            "{query:?}: a message says what to change: {body}"
        );
        if code == "profile_too_long" {
            assert_eq!(body["limit"], 10, "{body}");
        }
    }
    assert_eq!(read(&fresh).await, json!({"status": "empty"}));
    assert_eq!(
        fresh.app.load(&fresh.token).await,
        json!({"status": "empty", "count": 0, "data": {}})
    );
}

async fn a_first_page_carries_the_profile_first_within_the_budget(store: StoreKind) {
    let fresh = spawn_fresh(store, |s| {
        s.load_budget_chars = 2_000;
        s.max_profile_chars = 2_000;
    })
    .await;
    let saved = fresh.app.save(&fresh.token, None, &"要".repeat(300)).await;
    let thread = saved["thread_id"].as_str().unwrap();
    let without = fresh.app.load(&fresh.token).await;
    assert!(
        without.get("profile").is_none(),
        "no profile, no key: {without}"
    );

    let long = "好".repeat(1_500);
    ok_json(profile(&fresh, &[("profile", &long)]).await).await;
    let raw = fresh
        .app
        .get(Some(&fresh.token), &[("mode", "load")])
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        raw.chars().count() <= 2_000,
        "{} characters",
        raw.chars().count()
    );
    assert!(
        raw.starts_with(r#"{"status":"loaded","profile":{"profile":"好"#),
        "{raw}"
    );
    let loaded: Value = serde_json::from_str(&raw).unwrap();
    let cut = loaded["profile"]["profile"].as_str().unwrap();
    assert!(cut.ends_with("of 1500 characters shown]"), "{cut}");
    assert_eq!(loaded["profile"]["version"], 1);
    assert_eq!(
        summaries(&loaded),
        ["要".repeat(300)],
        "the threads keep their half"
    );

    // Only the first page of an unfiltered load carries it.
    for filter in [("thread_id", thread), ("since", "2000-01-01"), ("q", "要")] {
        let query = [("mode", "load"), filter];
        let narrowed = answered(fresh.app.get(Some(&fresh.token), &query)).await;
        assert!(narrowed.get("profile").is_none(), "{filter:?}: {narrowed}");
    }
    let query = [("mode", "load"), ("limit", "1")];
    let limited = answered(fresh.app.get(Some(&fresh.token), &query)).await;
    assert_eq!(
        limited["profile"]["version"], 1,
        "a limit is no filter: {limited}"
    );
}

async fn a_load_that_matches_nothing_says_so_apart_from_an_empty_memory(store: StoreKind) {
    let fresh = spawn_fresh(store, |_| {}).await;
    let load = |query: Vec<(&'static str, &'static str)>| {
        let request = fresh.app.get(Some(&fresh.token), &query);
        async move { ok_json(request.send().await.unwrap()).await }
    };
    assert_eq!(load(vec![("mode", "load")]).await["status"], "empty");
    fresh.app.save(&fresh.token, Some("t"), "認証の設計").await;
    for filter in [
        ("thread_id", "other"),
        ("since", "2999-01-01"),
        ("q", "存在しない"),
    ] {
        let answer = load(vec![("mode", "load"), filter]).await;
        assert_eq!(answer["status"], "no_match", "{filter:?}: {answer}");
        assert_eq!(answer["count"], 0);
    }
    assert_eq!(
        load(vec![("mode", "load"), ("q", "認証")]).await["status"],
        "found"
    );
    assert_eq!(load(vec![("mode", "load")]).await["status"], "loaded");
}

async fn a_retried_save_is_stored_once_and_an_unknown_thread_is_told(store: StoreKind) {
    let fresh = spawn_fresh(store, |_| {}).await;
    let token = &fresh.token;
    let first = fresh.app.save(token, None, "初回の要約").await;
    assert_eq!(first["new_thread"], true, "{first}");
    assert!(first.get("duplicate").is_none(), "{first}");
    let thread = first["thread_id"].as_str().unwrap();

    let retry = fresh.app.save(token, Some(thread), "初回の要約").await;
    assert_eq!(
        retry,
        json!({"status": "saved", "count": 1, "thread_id": thread, "timestamp": first["timestamp"],
               "duplicate": true})
    );
    let next = fresh.app.save(token, Some(thread), "次の要約").await;
    assert!(
        next.get("duplicate").is_none() && next.get("new_thread").is_none(),
        "{next}"
    );
    // The same text again, after another: not a retry.
    let again = fresh.app.save(token, Some(thread), "初回の要約").await;
    assert!(again.get("duplicate").is_none(), "{again}");
    assert_eq!(
        summaries(&fresh.app.load(token).await),
        ["初回の要約", "次の要約", "初回の要約"]
    );

    let invented = fresh.app.save(token, Some("thread-i-remember"), "x").await;
    assert_eq!(invented["new_thread"], true, "{invented}");
}

async fn the_profile_is_forgotten_on_request(store: StoreKind) {
    let fresh = spawn_fresh(store, |_| {}).await;
    let forget = |query: &str| {
        let path = format!("/forget?{query}");
        let request = fresh.app.call(Method::GET, &path, &fresh.token);
        async move { request.send().await.unwrap() }
    };
    for text in ["one", "two"] {
        ok_json(profile(&fresh, &[("profile", text)]).await).await;
    }
    fresh.app.save(&fresh.token, Some("t"), "kept").await;
    error_json(
        forget("profile=true&thread_id=t").await,
        400,
        "invalid_parameters",
    )
    .await;
    error_json(forget("profile=yes").await, 400, "invalid_filter").await;
    let forgotten = ok_json(forget("profile=true").await).await;
    assert_eq!(
        forgotten,
        json!({"status": "forgotten", "forgotten_profile_versions": 2})
    );
    assert_eq!(read(&fresh).await, json!({"status": "empty"}));
    assert_eq!(summaries(&fresh.app.load(&fresh.token).await), ["kept"]);
    error_json(forget("profile=true").await, 404, "nothing_to_forget").await;
    let earlier = profile(&fresh, &[("version", "1")]).await;
    error_json(earlier, 404, "unknown_profile_version").await;
}
