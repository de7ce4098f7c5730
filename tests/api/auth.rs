//! Tokens, namespaces and isolation.

use crate::helpers::{
    ALICE, ALICE_ROTATED, BARE, BOB, authorize, error_json, spawn_app, summaries,
};

#[tokio::test]
async fn requests_without_bearer_credentials_get_401() {
    let app = spawn_app().await;
    let other_scheme = format!("Token {ALICE}");
    let headers = [
        None,
        Some("Basic dXNlcjpwYXNz"),
        Some("Bearer"),
        Some("Bearer "),
        Some("Bearer    "),
        Some(ALICE),
        Some(other_scheme.as_str()),
    ];
    for header in headers {
        let mut request = app.client.get(&app.base).query(&[("mode", "load")]);
        if let Some(value) = header {
            request = request.header("authorization", value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.headers()["www-authenticate"], "Bearer");
        error_json(response, 401, "missing_credentials").await;
    }
}

#[tokio::test]
async fn unknown_tokens_get_403() {
    let app = spawn_app().await;
    let upper = ALICE.to_uppercase();
    let with_name = format!("alice:{ALICE}");
    for token in [
        "nope",
        upper.as_str(),
        &ALICE[..ALICE.len() - 1],
        "alice",
        with_name.as_str(),
    ] {
        let request = authorize(
            app.client.get(&app.base).query(&[("mode", "load")]),
            Some(token),
        );
        error_json(request.send().await.unwrap(), 403, "unknown_token").await;
    }
    // The scheme is case-insensitive; the token is not.
    let response = app
        .client
        .get(&app.base)
        .query(&[("mode", "load")])
        .header("authorization", format!("bearer {ALICE}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn auth_is_checked_before_parameters() {
    let app = spawn_app().await;
    let response = app.get(None, &[("mode", "bogus")]).send().await.unwrap();
    error_json(response, 401, "missing_credentials").await;
    let response = app
        .get(Some("nope"), &[("mode", "save")])
        .send()
        .await
        .unwrap();
    error_json(response, 403, "unknown_token").await;
}

#[tokio::test]
async fn no_token_reads_or_writes_another_namespace() {
    let app = spawn_app().await;
    app.save(ALICE, Some("same-id"), "alice's secret").await;
    let bob = app.save(BOB, Some("same-id"), "bob's note").await;
    assert_eq!(bob["count"], 1);
    app.save(BARE, Some("same-id"), "seed-style").await;

    assert_eq!(summaries(&app.load(ALICE).await), ["alice's secret"]);
    assert_eq!(summaries(&app.load(BOB).await), ["bob's note"]);
    assert_eq!(summaries(&app.load(BARE).await), ["seed-style"]);
}

#[tokio::test]
async fn a_rotated_token_keeps_its_namespace() {
    let app = spawn_app().await;
    let saved = app.save(ALICE, None, "before rotation").await;
    let id = saved["thread_id"].as_str().unwrap();
    app.save(ALICE_ROTATED, Some(id), "after rotation").await;
    assert_eq!(
        summaries(&app.load(ALICE).await),
        ["before rotation", "after rotation"]
    );
    assert_eq!(app.load(ALICE_ROTATED).await, app.load(ALICE).await);
}
