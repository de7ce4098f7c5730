//! Hostile and abusive input: each refused with a clear 4xx JSON error, nothing stored, and
//! no secret in the logs.

use futures::future::join_all;
use serde_json::json;

use crate::helpers::{
    ALICE, BOB, TestApp, error_json, ok_json, retry_after, spawn_app, spawn_app_with,
};
use crate::launch::Launch;

#[tokio::test]
async fn broken_percent_encoding_and_invalid_utf8_are_refused() {
    let app = spawn_app().await;
    for query in [
        "mode=save&summary=%zz",
        "mode=save&summary=100%",
        "mode=save&summary=%E8%A8",
        "mode=save&summary=%FF%FE",
        "mode=save&summary=ok&thread_id=%C0%AF",
        "mode=sa%ve&summary=x",
    ] {
        let response = app
            .client
            .get(format!("{}/?{query}", app.base))
            .bearer_auth(ALICE)
            .send()
            .await
            .unwrap();
        error_json(response, 400, "malformed_query").await;
    }
    app.assert_nothing_stored().await;
}

#[tokio::test]
async fn ids_and_summaries_at_the_limit_pass_and_one_past_fails_in_multibyte_text() {
    let app = spawn_app().await;
    let id_at = "𠮷".repeat(256);
    let saved = app.save(ALICE, Some(&id_at), &"𠮷".repeat(5_000)).await;
    assert_eq!(saved["thread_id"], id_at.as_str());
    let id_past = "𠮷".repeat(257);
    let query = [
        ("mode", "save"),
        ("summary", "x"),
        ("thread_id", id_past.as_str()),
    ];
    error_json(
        app.get(Some(ALICE), &query).send().await.unwrap(),
        400,
        "invalid_thread_id",
    )
    .await;
    let past = "𠮷".repeat(5_001);
    let body = json!({"mode": "save", "summary": past, "thread_id": "t"});
    error_json(
        app.post(Some(ALICE), &body).send().await.unwrap(),
        400,
        "summary_too_long",
    )
    .await;
    assert_eq!(app.load(ALICE).await["count"], 1);
}

#[tokio::test]
async fn path_like_and_reserved_thread_ids_are_refused() {
    let app = spawn_app().await;
    for id in [
        "../x",
        "a/../../b",
        "/",
        "..",
        ".",
        "__.*__",
        "__id__",
        "\u{7f}",
        "a\u{9f}b",
    ] {
        let query = [("mode", "save"), ("summary", "x"), ("thread_id", id)];
        error_json(
            app.get(Some(ALICE), &query).send().await.unwrap(),
            400,
            "invalid_thread_id",
        )
        .await;
    }
    app.assert_nothing_stored().await;
}

#[tokio::test]
async fn oversized_targets_and_headers_get_414_and_431() {
    let app = spawn_app().await;
    let long = "x".repeat(65_100);
    let response = app
        .get(Some(ALICE), &[("mode", "save"), ("summary", &long)])
        .send()
        .await
        .unwrap();
    let body = error_json(response, 414, "uri_too_long").await;
    assert_eq!(body["limit"], 65_000);
    let huge = format!("Bearer {}", "t".repeat(20_000));
    let response = app
        .client
        .get(&app.base)
        .header("authorization", huge)
        .query(&[("mode", "load")])
        .send()
        .await
        .unwrap();
    error_json(response, 431, "headers_too_large").await;
    app.assert_nothing_stored().await;
}

#[tokio::test]
async fn json_of_the_wrong_shape_or_depth_is_refused() {
    let app = spawn_app().await;
    let deep = format!(
        "{{\"mode\":{}\"save\"{}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let bodies = [
        deep,
        r#"{"mode":"save","summary":["x"]}"#.to_owned(),
        r#"{"mode":"save","summary":{"text":"x"}}"#.to_owned(),
        r#"{"mode":"save","summary":"x","thread_id":7}"#.to_owned(),
        r#""save""#.to_owned(),
        "null".to_owned(),
        r#"{"mode":"save","summary":"x"} trailing"#.to_owned(),
    ];
    for body in bodies {
        let response = app
            .post_raw(ALICE, "application/json", body)
            .send()
            .await
            .unwrap();
        error_json(response, 400, "malformed_json").await;
    }
    app.assert_nothing_stored().await;
}

#[tokio::test]
async fn a_namespace_over_its_rate_gets_429_and_others_carry_on() {
    let app = spawn_app_with(|s| s.rate_limit = 3).await;
    for _ in 0..3 {
        app.load(ALICE).await;
    }
    let response = app
        .get(Some(ALICE), &[("mode", "load")])
        .send()
        .await
        .unwrap();
    let wait = retry_after(&response);
    assert!((1..=21).contains(&wait), "{wait}");
    error_json(response, 429, "rate_limited").await;
    ok_json(
        app.get(Some(BOB), &[("mode", "load")])
            .send()
            .await
            .unwrap(),
    )
    .await;
}

/// 500 concurrent saves spread over 10 threads: every one lands, exactly once.
pub async fn five_hundred_concurrent_saves_land_exactly(app: &TestApp) {
    let prefix = uuid::Uuid::new_v4();
    let saves = (0..500).map(|i| {
        let (thread, summary) = (format!("{prefix}-{}", i % 10), format!("concurrent {i}"));
        let request = app.get(
            Some(ALICE),
            &[
                ("mode", "save"),
                ("thread_id", &thread),
                ("summary", &summary),
            ],
        );
        async move { request.send().await.unwrap().status().as_u16() }
    });
    let statuses = join_all(saves).await;
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    let loaded = app.load(ALICE).await;
    let mine: Vec<&str> = loaded["data"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(id, _)| id.starts_with(&prefix.to_string()))
        .flat_map(|(_, entries)| entries.as_array().unwrap())
        .map(|e| e["summary"].as_str().unwrap())
        .collect();
    assert_eq!(mine.len(), 500);
    let mut sorted = mine.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 500, "no entry twice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_hundred_concurrent_saves_on_sqlite() {
    five_hundred_concurrent_saves_land_exactly(&spawn_app().await).await;
}

/// Known tokens and summaries, in good requests and bad, never reach the log in either format.
#[tokio::test]
async fn no_token_or_summary_is_ever_logged() {
    let secret_summary = "secret-summary-7c1e";
    let wrong_token = "secret-wrong-token-93ab";
    for format in ["text", "json"] {
        let launch = Launch::new()
            .set("KIOKU_LOG_FORMAT", format)
            .set("RUST_LOG", "debug");
        let server = launch.start().unwrap();
        let client = reqwest::Client::new();
        let base = server.base();
        let query = [
            ("mode", "save"),
            ("summary", secret_summary),
            ("thread_id", "t"),
        ];
        for token in [ALICE, BOB, crate::helpers::BARE, wrong_token] {
            let _ = client
                .get(&base)
                .bearer_auth(token)
                .query(&query)
                .send()
                .await
                .unwrap();
            let _ = client
                .get(&base)
                .bearer_auth(token)
                .query(&[("mode", "load")])
                .send()
                .await
                .unwrap();
            let body = json!({"mode": "save", "summary": format!("{secret_summary}\u{0}")});
            let _ = client
                .post(&base)
                .bearer_auth(token)
                .json(&body)
                .send()
                .await
                .unwrap();
            let _ = client
                .get(format!("{base}/?mode=save&summary={secret_summary}%FF"))
                .bearer_auth(token)
                .send()
                .await
                .unwrap();
        }
        let _ = client
            .get(&base)
            .header("authorization", format!("Basic {wrong_token}"))
            .send()
            .await
            .unwrap();
        let (_, log) = server.stop_and_collect();
        // One line per request sent (four per token, and the Basic one), the last included: the
        // check below reads the whole log.
        let requests = log.iter().filter(|l| l.contains("requestMethod")).count();
        assert_eq!(requests, 4 * 4 + 1, "{log:?}");
        let log = log.join("\n");
        for secret in [
            ALICE,
            BOB,
            crate::helpers::BARE,
            wrong_token,
            secret_summary,
        ] {
            assert!(!log.contains(secret), "{format} log holds {secret}: {log}");
        }
    }
}

#[tokio::test]
async fn other_methods_on_the_memory_path_get_405() {
    let app = spawn_app().await;
    for method in [
        reqwest::Method::PUT,
        reqwest::Method::DELETE,
        reqwest::Method::PATCH,
    ] {
        let response = app
            .client
            .request(method, &app.base)
            .bearer_auth(ALICE)
            .send()
            .await
            .unwrap();
        assert_eq!(response.headers()["allow"], "GET, POST");
        error_json(response, 405, "method_not_allowed").await;
    }
}
