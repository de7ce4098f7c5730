//! Bad input: a clear 4xx JSON error that says what to change, and nothing stored.

use std::time::{Duration, Instant};

use kioku::search::{MAX_QUERY_CHARS, MAX_QUERY_WORDS};
use serde_json::{Value, json};

use crate::helpers::{ALICE, data_file, error_json, spawn_app, spawn_app_with};

#[tokio::test]
async fn bad_query_parameters_are_refused_with_what_to_change() {
    let app = spawn_app().await;
    let long_id = "字".repeat(257);
    let too_long = "あ".repeat(5_001);
    let cases: &[(&[(&str, &str)], &str)] = &[
        (&[], "missing_mode"),
        (&[("mode", "")], "missing_mode"),
        (&[("mode", "delete")], "unknown_mode"),
        (&[("mode", "saves")], "unknown_mode"),
        // Any case is the mode it spells: here a save, without its summary.
        (&[("mode", "SAVE")], "missing_summary"),
        (&[("mode", "save")], "missing_summary"),
        (&[("mode", "save"), ("summary", "")], "blank_summary"),
        (
            &[("mode", "save"), ("summary", " \n\t\u{3000}")],
            "blank_summary",
        ),
        (
            &[("mode", "save"), ("summary", "a\0b")],
            "summary_control_character",
        ),
        (
            &[("mode", "save"), ("summary", "a\u{1b}[31m")],
            "summary_control_character",
        ),
        (
            &[("mode", "save"), ("summary", "a\u{7f}b")],
            "summary_control_character",
        ),
        (
            &[("mode", "save"), ("summary", "a\u{85}b")],
            "summary_control_character",
        ),
        (
            &[("mode", "save"), ("summary", "\u{202e}txt.exe")],
            "summary_control_character",
        ),
        (
            &[("mode", "save"), ("summary", "a\u{2066}b")],
            "summary_control_character",
        ),
        (
            &[("mode", "save"), ("summary", &too_long)],
            "summary_too_long",
        ),
        (
            &[("mode", "save"), ("summary", "x"), ("thread_id", "a/b")],
            "invalid_thread_id",
        ),
        (
            &[("mode", "save"), ("summary", "x"), ("thread_id", "..")],
            "invalid_thread_id",
        ),
        (
            &[("mode", "save"), ("summary", "x"), ("thread_id", ".")],
            "invalid_thread_id",
        ),
        (
            &[
                ("mode", "save"),
                ("summary", "x"),
                ("thread_id", "__name__"),
            ],
            "invalid_thread_id",
        ),
        (
            &[("mode", "save"), ("summary", "x"), ("thread_id", " ")],
            "invalid_thread_id",
        ),
        (
            &[("mode", "save"), ("summary", "x"), ("thread_id", "a\nb")],
            "invalid_thread_id",
        ),
        (
            &[("mode", "save"), ("summary", "x"), ("thread_id", &long_id)],
            "invalid_thread_id",
        ),
        (
            &[("mode", "save"), ("summary", "x"), ("summary", "y")],
            "malformed_query",
        ),
        (
            &[("mode", "save"), ("mode", "load"), ("summary", "x")],
            "malformed_query",
        ),
    ];
    for (query, code) in cases {
        let response = app.get(Some(ALICE), query).send().await.unwrap();
        error_json(response, 400, code).await;
    }
    app.assert_nothing_stored().await;
}

/// A misspelt parameter is named, never quietly dropped: the save does not land as a blank
/// one, and a load does not answer everything as if unfiltered.
#[tokio::test]
async fn a_parameter_the_endpoint_does_not_take_is_named() {
    let app = spawn_app().await;
    for query in [
        &[("mode", "save"), ("sumary", "x")][..],
        &[("mode", "load"), ("thred_id", "t")][..],
    ] {
        let response = app.get(Some(ALICE), query).send().await.unwrap();
        let body = error_json(response, 400, "unknown_parameter").await;
        let message = body["message"].as_str().unwrap();
        assert!(message.starts_with(&format!("`{}`", query[1].0)), "{body}");
        assert!(
            message.contains("summary") && message.contains("thread_id"),
            "{body}"
        );
    }
    let forget = app
        .path("/forget?thread_id=t&timestmp=x")
        .bearer_auth(ALICE);
    error_json(forget.send().await.unwrap(), 400, "unknown_parameter").await;
    let body = r#"{"mode":"save","sumary":"x"}"#;
    let response = app.post_raw(ALICE, "application/json", body).send().await;
    let body = error_json(response.unwrap(), 400, "malformed_json").await;
    assert!(
        body["message"].as_str().unwrap().contains("`sumary`"),
        "{body}"
    );
    app.assert_nothing_stored().await;
}

#[tokio::test]
async fn an_over_long_summary_names_the_limit() {
    let app = spawn_app_with(|s| s.max_summary_chars = 1_000).await;
    let response = app
        .get(
            Some(ALICE),
            &[("mode", "save"), ("summary", &"要".repeat(1_001))],
        )
        .send()
        .await
        .unwrap();
    let body = error_json(response, 400, "summary_too_long").await;
    assert_eq!(body["limit"], 1_000);
    assert!(body["message"].as_str().unwrap().contains("1000"), "{body}");
    app.assert_nothing_stored().await;
}

/// A search's words and characters are bounded, so no query is too large to run: a thousand
/// one-character words, which once reached SQLite's expression limit (a 5xx), are a 400 too.
#[tokio::test]
async fn an_oversized_search_is_refused_with_its_limit() {
    let app = spawn_app().await;
    app.save(ALICE, None, "a b c").await;
    let words = |n: usize| vec!["b"; n].join(" ");
    let long_word = "記".repeat(MAX_QUERY_CHARS + 1);
    for (q, limit) in [
        (words(MAX_QUERY_WORDS + 1), MAX_QUERY_WORDS),
        (words(1_000), MAX_QUERY_WORDS),
        (long_word.clone(), MAX_QUERY_CHARS),
        (
            format!("{} ㌀", "記".repeat(MAX_QUERY_CHARS - 3)),
            MAX_QUERY_CHARS,
        ),
    ] {
        let query = [("mode", "load"), ("q", q.as_str())];
        let response = app.get(Some(ALICE), &query).send().await.unwrap();
        let body = error_json(response, 400, "query_too_long").await;
        assert_eq!(body["limit"], limit, "{body}");
        let message = body["message"].as_str().unwrap();
        assert!(message.contains(&limit.to_string()), "{message}");
    }
    let body = json!({"mode": "load", "q": long_word});
    let response = app.post(Some(ALICE), &body).send().await.unwrap();
    error_json(response, 400, "query_too_long").await;
    let most = [("mode", "load"), ("q", &words(MAX_QUERY_WORDS))];
    let found = app.get(Some(ALICE), &most).send().await.unwrap();
    assert_eq!(found.json::<Value>().await.unwrap()["status"], "found");
}

/// A refused character is named by its code point, so the caller can find it.
#[tokio::test]
async fn a_refused_character_is_named_by_its_code_point() {
    let app = spawn_app().await;
    let query = [("mode", "save"), ("summary", "readme\u{202e}txt.exe")];
    let response = app.get(Some(ALICE), &query).send().await.unwrap();
    let body = error_json(response, 400, "summary_control_character").await;
    assert!(
        body["message"].as_str().unwrap().contains("U+202E"),
        "{body}"
    );
    app.assert_nothing_stored().await;
}

#[tokio::test]
async fn bad_json_bodies_are_refused() {
    let app = spawn_app().await;
    let post = |body: &'static str, content_type: &'static str| {
        app.post_raw(ALICE, content_type, body).send()
    };
    let cases = [
        (
            r#"{"mode":"save""#,
            "application/json",
            400,
            "malformed_json",
        ),
        (r#"["save"]"#, "application/json", 400, "malformed_json"),
        (
            r#"{"mode":"save","summary":42}"#,
            "application/json",
            400,
            "malformed_json",
        ),
        (
            r#"{"mode":"save","summary":"x","thread_id":{"a":1}}"#,
            "application/json",
            400,
            "malformed_json",
        ),
        (
            r#"{"mode":"save","summary":"x"}"#,
            "text/plain",
            415,
            "unsupported_media_type",
        ),
        (
            r#"{"mode":"save","summary":"a\u0000b"}"#,
            "application/json",
            400,
            "summary_control_character",
        ),
        (
            r#"{"mode":"save","summary":"x","thread_id":"a/b"}"#,
            "application/json",
            400,
            "invalid_thread_id",
        ),
        (
            r#"{"summary":"x"}"#,
            "application/json",
            400,
            "missing_mode",
        ),
    ];
    for (body, content_type, status, code) in cases {
        error_json(post(body, content_type).await.unwrap(), status, code).await;
    }
    let huge = json!({"mode": "save", "summary": "x".repeat(1_000_000)});
    let response = app.post(Some(ALICE), &huge).send().await.unwrap();
    error_json(response, 413, "body_too_large").await;
    app.assert_nothing_stored().await;
}

/// Another connection holds the database's write lock: saves are answered 503 with
/// Retry-After within the time limit, store nothing, and work again once the lock is gone.
#[tokio::test]
async fn a_locked_store_answers_503_promptly_and_recovers() {
    let app = spawn_app_with(|s| s.store_timeout_secs = 1).await;
    let locker = rusqlite::Connection::open(data_file(&app.data_dir)).unwrap();
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();

    let started = Instant::now();
    let response = app
        .get(Some(ALICE), &[("mode", "save"), ("summary", "during lock")])
        .send()
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(response.headers()["retry-after"], "5");
    let body: Value = error_json(response, 503, "store_unavailable").await;
    assert!(
        !body["message"].as_str().unwrap().contains("locked"),
        "internals stay in the log"
    );

    locker.execute_batch("COMMIT").unwrap();
    let saved = app.save(ALICE, None, "after lock").await;
    assert_eq!(saved["count"], 1);
    assert_eq!(
        crate::helpers::summaries(&app.load(ALICE).await),
        ["after lock"]
    );
}
