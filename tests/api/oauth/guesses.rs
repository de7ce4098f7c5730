//! A refresh token the server has no record of, whose grant is gone or never was, counts
//! against the address that sent it, as a wrong API token does at the other doors: past the
//! limit the token endpoint answers 429 with `Retry-After` instead of 400. Only failures count,
//! so a client's real refresh token still works from an address that guessed (a shared egress,
//! such as ChatGPT's, is not locked out by one bad client).

use kioku::config::StoreKind;
use kioku::throttle::FAILURES_PER_WINDOW;
use serde_json::Value;

use super::flow::{connected_client, oauth_error, refresh, spawn_oauth, tokens};
use crate::helpers::retry_after;

#[tokio::test]
async fn unknown_refresh_tokens_are_guesses_and_a_flood_gets_429() {
    let fresh = spawn_oauth(StoreKind::Sqlite, |_| {}).await;
    let app = &fresh.app;
    let (client_id, issued) = connected_client(app, &fresh.token).await;
    let real = issued["refresh_token"].as_str().unwrap().to_owned();
    let made_up = |n: u32| match n % 3 {
        0 => format!("made-up-{n}"),
        // The shape of one issued here, naming no grant.
        1 => format!("kioku_rt_nogrant{n}.{}", "0".repeat(64)),
        // The real one's grant, with a longer random part: no record, and the grant is the
        // other client's.
        _ => format!("{real}{n}"),
    };
    let (other_client, _) = connected_client(app, &fresh.token).await;
    for n in 0..FAILURES_PER_WINDOW {
        let response = refresh(app, &other_client, &made_up(n)).await;
        oauth_error(response, 400, "invalid_grant").await;
    }
    let flooded = refresh(app, &other_client, &made_up(0)).await;
    assert_eq!(flooded.status(), 429);
    assert!(retry_after(&flooded) > 0);
    let body: Value = flooded.json().await.unwrap();
    assert_eq!(body["error"], "temporarily_unavailable", "{body}");

    // The address guessed, not the client: a real refresh token still works from there.
    tokens(refresh(app, &client_id, &real).await).await;
}
