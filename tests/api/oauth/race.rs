//! A client's own race: two refreshes sent at once with one refresh token both get the pair
//! its rotation issued, and the grant stands; the same refresh token sent again once the race
//! window is over is a replay, which revokes the grant (RFC 9700, section 4.14.2), also once
//! its record is gone.

use std::time::Duration;

use kioku::config::StoreKind;
use kioku::store::{GrantStore, SqliteStore};
use serde_json::Value;

use super::flow::{connected_client, oauth_error, refresh, spawn_oauth, tokens};
use crate::helpers::on_both_stores;
use crate::helpers::{TestApp, error_json};

on_both_stores!(a_refresh_race_keeps_the_grant,);

/// The window the server is started with: short, so that the test can outwait it.
const WINDOW_SECS: u64 = 1;

async fn loads(app: &TestApp, access: &Value) -> reqwest::Response {
    app.get(access.as_str(), &[("mode", "load")])
        .send()
        .await
        .unwrap()
}

async fn a_refresh_race_keeps_the_grant(store: StoreKind) {
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

/// Once the window is over, the hourly purge takes a rotated token's record, so a grant keeps
/// one refresh token's however often it is refreshed; a rotated token presented after that
/// still ends the grant it names.
#[tokio::test]
async fn a_replay_after_its_record_is_purged_still_ends_the_grant() {
    let fresh = spawn_oauth(StoreKind::Sqlite, |s| s.oauth.refresh_race_secs = 0).await;
    let app = &fresh.app;
    let (client_id, issued) = connected_client(app, &fresh.token).await;
    let leaked = issued["refresh_token"].as_str().unwrap().to_owned();
    let mut current = leaked.clone();
    for _ in 0..5 {
        let renewed = tokens(refresh(app, &client_id, &current).await).await;
        current = renewed["refresh_token"].as_str().unwrap().to_owned();
    }
    // The hourly purge, run now on the server's file.
    let path = app.data_dir.path().join("kioku.sqlite3");
    let store = SqliteStore::open(&path, Duration::from_secs(5)).unwrap();
    store.purge_expired(chrono::Utc::now()).await.unwrap();
    let refresh_records: u64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row(
            "SELECT COUNT(*) FROM oauth_credentials WHERE kind = 'refresh_token'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(refresh_records, 1, "only the current refresh token is kept");

    oauth_error(
        refresh(app, &client_id, &leaked).await,
        400,
        "invalid_grant",
    )
    .await;
    oauth_error(
        refresh(app, &client_id, &current).await,
        400,
        "invalid_grant",
    )
    .await;
}
