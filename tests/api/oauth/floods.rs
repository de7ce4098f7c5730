//! Anyone may register a client, and each registration is stored: one address may register
//! only so many a minute, and a refused registration stores nothing.

use kioku::config::StoreKind;
use kioku::throttle::UNSIGNED_WRITES_PER_WINDOW;
use serde_json::Value;

use super::flow::{oauth_error, spawn_oauth};
use crate::helpers::{ADMIN, TestApp, retry_after};

/// A registration from `address`, as Cloud Run's front end forwards it.
async fn register(app: &TestApp, address: &str, name: &str) -> reqwest::Response {
    app.client
        .post(format!("{}/oauth/register", app.base))
        .header("x-forwarded-for", address)
        .json(&serde_json::json!({
            "client_name": name,
            "redirect_uris": ["http://127.0.0.1:9/cb"],
            "token_endpoint_auth_method": "none",
        }))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn registrations_are_limited_per_address() {
    let fresh = spawn_oauth(StoreKind::Sqlite, |s| {
        s.k_service = Some("kioku".into());
        s.public_url = Some("https://kioku.example".into());
    })
    .await;
    let app = &fresh.app;
    let (flooder, other) = ("203.0.113.7", "198.51.100.9");
    for n in 0..UNSIGNED_WRITES_PER_WINDOW {
        let response = register(app, flooder, &format!("flood {n}")).await;
        assert_eq!(response.status(), 201, "registration {n}");
    }
    let refused = register(app, flooder, "one too many").await;
    let wait = retry_after(&refused);
    assert!((1..=60).contains(&wait), "{wait}");
    oauth_error(refused, 429, "temporarily_unavailable").await;
    assert_eq!(register(app, other, "another address").await.status(), 201);

    let listed: Value = app
        .call(reqwest::Method::GET, "/admin/oauth/clients", ADMIN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let names: Vec<&str> = listed["clients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names.len(),
        UNSIGNED_WRITES_PER_WINDOW as usize + 1,
        "{names:?}"
    );
    assert!(!names.contains(&"one too many"), "{names:?}");
}
