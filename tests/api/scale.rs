//! Loads at any size: the answer stays within its budget, says what it left out, and the rest
//! is reachable; filters and search over HTTP.

use serde_json::{Value, json};

use crate::helpers::{ALICE, TestApp, error_json, ok_json, spawn_app_with, summaries};

async fn load_text(app: &TestApp, query: &[(&str, &str)]) -> (usize, Value) {
    let mut full = vec![("mode", "load")];
    full.extend_from_slice(query);
    let response = app.get(Some(ALICE), &full).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    (text.chars().count(), serde_json::from_str(&text).unwrap())
}

/// Multibyte entries of many lengths, so the budget cuts at many different points: every
/// answer stays within it, and paging with `before` returns each entry exactly once.
#[tokio::test]
async fn no_answer_passes_the_budget_and_paging_reaches_everything() {
    const BUDGET: usize = 3_000;
    let app = spawn_app_with(|s| s.load_budget_chars = BUDGET as u32).await;
    for trial in 0..12 {
        let thread = format!("trial-{trial}");
        let mut saved = Vec::new();
        for i in 0..(6 + trial) {
            let summary = format!(
                "{trial}-{i} {}\"\\\n",
                "記憶𠮷".repeat(37 * (i % 5) + 13 * trial + 1)
            );
            app.save(ALICE, Some(&thread), &summary).await;
            saved.push(summary);
        }
        let mut seen = Vec::new();
        let mut before = String::new();
        loop {
            let (chars, body) =
                load_text(&app, &[("thread_id", &thread), ("before", &before)]).await;
            assert!(chars <= BUDGET, "trial {trial}: {chars} characters");
            let shown = summaries(&body);
            assert!(!shown.is_empty());
            seen.splice(0..0, shown);
            if body["truncated"] != true {
                assert!(body.get("next_before").is_none());
                break;
            }
            assert!(body["omitted_entries"].as_u64().unwrap() > 0);
            before = body["next_before"].as_str().unwrap().to_owned();
        }
        assert_eq!(seen, saved, "trial {trial}: every entry once, oldest first");
    }
}

#[tokio::test]
async fn an_entry_larger_than_the_budget_is_cut_with_a_marker_and_never_dropped() {
    let app = spawn_app_with(|s| s.load_budget_chars = 1_000).await;
    app.save(ALICE, Some("big"), &"長".repeat(5_000)).await;
    let (chars, body) = load_text(&app, &[]).await;
    assert!(chars <= 1_000, "{chars}");
    let shown = &summaries(&body)[0];
    assert!(
        shown.starts_with("長長長") && shown.ends_with("of 5000 characters shown]"),
        "{shown}"
    );
}

/// The default budget keeps a large namespace under GPT Actions' 100,000-character limit.
#[tokio::test]
async fn a_large_namespace_loads_under_the_gpt_action_limit() {
    let app = spawn_app_with(|_| {}).await;
    for i in 0..60 {
        let body = json!({"mode": "save", "thread_id": format!("t{}", i % 20), "summary": format!("{i} {}", "会話の要約。".repeat(330))});
        ok_json(app.post(Some(ALICE), &body).send().await.unwrap()).await;
    }
    let (chars, body) = load_text(&app, &[]).await;
    assert!(chars <= 90_000 && chars > 80_000, "{chars}");
    assert_eq!(body["truncated"], true);
    let first = body["data"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    assert_eq!(first, "t19", "the most recently saved thread first");
}

#[tokio::test]
async fn search_and_filters_over_http() {
    let app = spawn_app_with(|_| {}).await;
    app.save(ALICE, Some("x"), "GPT の API 設計").await;
    app.save(ALICE, Some("y"), "ｶﾀｶﾅ の api と API").await;
    app.save(ALICE, Some("z"), "関係のない話").await;
    let (_, body) = load_text(&app, &[("q", "ＡＰＩ")]).await;
    assert_eq!(body["status"], "found");
    assert_eq!(body["count"], 2);
    let results: Vec<(&str, &str)> = body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["thread_id"].as_str().unwrap(),
                r["summary"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [("y", "ｶﾀｶﾅ の api と API"), ("x", "GPT の API 設計")]
    );
    let (_, none) = load_text(&app, &[("q", "量子計算")]).await;
    assert_eq!(
        none,
        json!({"status": "no_match", "count": 0, "results": []})
    );
    let (_, limited) = load_text(&app, &[("limit", "1")]).await;
    assert_eq!(summaries(&limited), ["関係のない話"]);
    let (_, since) = load_text(&app, &[("since", "2000-01-01")]).await;
    assert_eq!(since["count"], 3);
    let (_, future) = load_text(&app, &[("since", "2999-01-01")]).await;
    assert_eq!(
        future,
        json!({"status": "no_match", "count": 0, "data": {}})
    );
    for (name, value) in [
        ("since", "yesterday"),
        ("limit", "0"),
        ("limit", "-1"),
        ("before", "soon"),
        ("thread_id", "a/b"),
    ] {
        let response = app
            .get(Some(ALICE), &[("mode", "load"), (name, value)])
            .send()
            .await
            .unwrap();
        let code = if name == "thread_id" {
            "invalid_thread_id"
        } else {
            "invalid_filter"
        };
        error_json(response, 400, code).await;
    }
    let response = app
        .get(
            Some(ALICE),
            &[("mode", "load"), ("q", "api"), ("before", "2025-01-01")],
        )
        .send()
        .await
        .unwrap();
    error_json(response, 400, "invalid_filter").await;
}
