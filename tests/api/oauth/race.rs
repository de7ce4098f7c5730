//! A client's own race: two refreshes sent at once with one refresh token both get the pair
//! its rotation issued, and the grant stands; the same refresh token sent again once the race
//! window is over is a replay, which revokes the grant (RFC 9700, section 4.14.2).

use std::time::Duration;

use kioku::config::StoreKind;
use serde_json::Value;

use super::flow::{STORES, connected_client, oauth_error, spawn_oauth, token_request, tokens};
use crate::helpers::{TestApp, error_json};

/// The window the server is started with: short, so that the test can outwait it.
const WINDOW_SECS: u64 = 1;

async fn refresh(app: &TestApp, client_id: &str, refresh_token: &str) -> reqwest::Response {
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token),
        ("client_id", client_id),
    ];
    token_request(app, &form, None).await
}

async fn loads(app: &TestApp, access: &Value) -> reqwest::Response {
    app.get(access.as_str(), &[("mode", "load")])
        .send()
        .await
        .unwrap()
}

async fn a_race_keeps_the_grant_and_a_replay_ends_it(store: StoreKind) {
    let fresh = spawn_oauth(store, |s| s.oauth.refresh_race_secs = WINDOW_SECS).await;
    let app = &fresh.app;
    let (client_id, issued) = connected_client(app, &fresh.token).await;
    let spent = issued["refresh_token"].as_str().unwrap();

    let (first, second) = futures::join!(
        refresh(app, &client_id, spent),
        refresh(app, &client_id, spent)
    );
    let (first, second) = (tokens(first).await, tokens(second).await);
    assert_eq!(first["refresh_token"], second["refresh_token"]);
    assert_eq!(first["access_token"], second["access_token"]);
    assert_ne!(first["refresh_token"], issued["refresh_token"]);
    assert_eq!(loads(app, &first["access_token"]).await.status(), 200);

    // Past the window, the spent refresh token is a replay: the grant goes, with what the
    // race gave.
    tokio::time::sleep(Duration::from_secs(WINDOW_SECS) + Duration::from_millis(500)).await;
    oauth_error(refresh(app, &client_id, spent).await, 400, "invalid_grant").await;
    error_json(
        loads(app, &first["access_token"]).await,
        401,
        "invalid_token",
    )
    .await;
    let newest = first["refresh_token"].as_str().unwrap();
    oauth_error(refresh(app, &client_id, newest).await, 400, "invalid_grant").await;
}

#[tokio::test]
async fn a_refresh_race_keeps_the_grant_on_sqlite() {
    a_race_keeps_the_grant_and_a_replay_ends_it(STORES[0]).await;
}

#[tokio::test]
async fn a_refresh_race_keeps_the_grant_on_firestore() {
    a_race_keeps_the_grant_and_a_replay_ends_it(STORES[1]).await;
}
