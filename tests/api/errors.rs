//! Bad input: a clear 4xx JSON error that says what to change, and nothing stored.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{ALICE, data_file, error_json, ok_json, spawn_app, spawn_app_with};

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

/// A question may be as long as a message people write: one of 2,000 characters, in any
/// language, is searched (by the terms it repeats most), and so is one at the summary limit;
/// past it is a 400 naming the limit. A thousand one-character words, which once reached
/// SQLite's expression limit (a 5xx), are searched too.
#[tokio::test]
async fn a_search_as_long_as_a_message_is_answered_and_a_longer_one_refused() {
    let app = spawn_app_with(|s| s.max_summary_chars = 3_000).await;
    app.save(
        ALICE,
        None,
        "Booked the ryokan in Arashiyama for the autumn trip",
    )
    .await;
    let filler = "Thanks again for yesterday, it was lovely to catch up over coffee. ";
    let message = format!(
        "{}So, about the autumn trip: which ryokan did I book, and was it in Arashiyama?",
        filler.repeat(30)
    );
    assert!((2_000..3_000).contains(&message.chars().count()));
    let japanese = format!("{}秋の旅行で予約した旅館はどこ？", "記".repeat(2_980));
    for q in [message.as_str(), &vec!["a"; 1_000].join(" "), &japanese] {
        let response = app.get(Some(ALICE), &[("mode", "load"), ("q", q)]);
        let body = ok_json(response.send().await.unwrap()).await;
        assert!(
            body["status"] == "found" || body["status"] == "no_match",
            "{body}"
        );
    }
    let found = app.get(Some(ALICE), &[("mode", "load"), ("q", &message)]);
    let found = ok_json(found.send().await.unwrap()).await;
    assert_eq!(found["status"], "found", "{found}");
    assert_eq!(
        found["results"][0]["summary"],
        "Booked the ryokan in Arashiyama for the autumn trip"
    );

    let too_long = "記".repeat(3_001);
    let response = app.get(Some(ALICE), &[("mode", "load"), ("q", &too_long)]);
    let body = error_json(response.send().await.unwrap(), 400, "query_too_long").await;
    assert_eq!(body["limit"], 3_000, "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("3000"), "{message}");
    let body = json!({"mode": "load", "q": too_long});
    let response = app.post(Some(ALICE), &body).send().await.unwrap();
    error_json(response, 400, "query_too_long").await;
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
