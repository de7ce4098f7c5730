//! A grant refreshed in a loop and a person approving apps in a loop are refused with a wait
//! (OAuth's shape at the token endpoint, the consent page's at the page) before anything more
//! is stored; a refused refresh token is not spent, and other grants and people go on.

use kioku::config::StoreKind;
use kioku::oauth::{APPROVALS_PER_MINUTE, REFRESHES_PER_MINUTE};

use super::flow::{
    PublicClient, authorize_with_token, browser, connected_client, consent_form, decide,
    oauth_error, param, refresh, spawn_oauth, tokens,
};
use crate::helpers::retry_after;

#[tokio::test]
async fn a_grant_refreshed_in_a_loop_is_refused_with_a_wait() {
    let fresh = spawn_oauth(StoreKind::Sqlite, |_| {}).await;
    let app = &fresh.app;
    let (client_id, issued) = connected_client(app, &fresh.token).await;
    let (other_client, other) = connected_client(app, &fresh.token).await;
    let mut current = issued["refresh_token"].as_str().unwrap().to_owned();
    for _ in 0..REFRESHES_PER_MINUTE.get() {
        let renewed = tokens(refresh(app, &client_id, &current).await).await;
        current = renewed["refresh_token"].as_str().unwrap().to_owned();
    }

    let refused = refresh(app, &client_id, &current).await;
    let wait = retry_after(&refused);
    assert!((1..=6).contains(&wait), "Retry-After: {wait}");
    oauth_error(refused, 429, "temporarily_unavailable").await;
    // Another grant is refreshed meanwhile.
    let other_token = other["refresh_token"].as_str().unwrap();
    tokens(refresh(app, &other_client, other_token).await).await;
    // The refused token was not spent: after the wait it renews the grant.
    tokio::time::sleep(std::time::Duration::from_secs(wait)).await;
    tokens(refresh(app, &client_id, &current).await).await;
}

#[tokio::test]
async fn a_person_approving_apps_in_a_loop_is_refused_with_a_wait() {
    let fresh = spawn_oauth(StoreKind::Sqlite, |_| {}).await;
    let app = &fresh.app;
    let client = PublicClient::register(app, "http://127.0.0.1:9/callback").await;
    let params = client.authorization(&[]);
    for _ in 0..APPROVALS_PER_MINUTE.get() {
        let back = authorize_with_token(app, &params, &fresh.token).await;
        assert!(param(&back, "code").is_some(), "{back}");
    }

    let browser = browser();
    let form = consent_form(app, &browser, &params).await;
    let allow = [("token", fresh.token.as_str()), ("decision", "allow")];
    let refused = decide(app, &browser, &form, &allow).await;
    assert_eq!(refused.status(), 429);
    assert!((1..=6).contains(&retry_after(&refused)));
    let page = refused.text().await.unwrap();
    assert!(
        page.contains("Too many apps were allowed into this memory just now"),
        "{page}"
    );
    // Another person's memory is not held up.
    let back = authorize_with_token(app, &params, crate::helpers::ALICE).await;
    assert!(param(&back, "code").is_some(), "{back}");
}
