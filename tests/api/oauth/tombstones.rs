//! An access token issued here is no guess once its record is gone, with its grant revoked or
//! purged after it expired: it is signed, so it answers `invalid_token` however often it comes
//! back, while unsigned values of its shape still count as failed sign-ins.

use kioku::config::StoreKind;
use kioku::throttle::FAILURES_PER_WINDOW;

use super::flow::{connected_client, spawn_oauth};
use crate::helpers::{TestApp, error_json};

async fn load(app: &TestApp, bearer: &str) -> reqwest::Response {
    app.get(Some(bearer), &[("mode", "load")])
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_revoked_access_token_is_never_taken_for_a_guess() {
    let fresh = spawn_oauth(StoreKind::Sqlite, |_| {}).await;
    let app = &fresh.app;
    let (client_id, issued) = connected_client(app, &fresh.token).await;
    let access = issued["access_token"].as_str().unwrap();
    assert_eq!(load(app, access).await.status(), 200);
    let revoked = app
        .client
        .post(format!("{}/oauth/revoke", app.base))
        .form(&[
            ("token", issued["refresh_token"].as_str().unwrap()),
            ("client_id", &client_id),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), 200);

    // Far past the failures an address may make: each is the same 401, none throttled.
    for _ in 0..FAILURES_PER_WINDOW * 2 {
        let answer = error_json(load(app, access).await, 401, "invalid_token").await;
        assert!(
            answer["message"]
                .as_str()
                .unwrap()
                .contains("expired or was revoked"),
            "{answer}"
        );
    }
    // A value of the same shape that this server never signed is a guess, and counted.
    let unsigned = format!("kioku_at_{}", "ab".repeat(64));
    for _ in 0..FAILURES_PER_WINDOW {
        error_json(load(app, &unsigned).await, 401, "invalid_token").await;
    }
    error_json(load(app, &unsigned).await, 429, "sign_in_throttled").await;
}
