//! Anyone may register a client, and each registration is stored: one address may register
//! only so many a minute, and a refused registration stores nothing.

use futures::future::join_all;
use kioku::config::StoreKind;
use kioku::throttle::UNSIGNED_WRITES_PER_WINDOW;
use serde_json::Value;

use super::flow::{oauth_error, spawn_oauth};
use crate::helpers::{ADMIN, Fresh, TestApp, error_json, ok_json, retry_after};

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

/// A server as on Cloud Run, where the client's address is the one its front end forwards.
async fn behind_cloud_run() -> Fresh {
    spawn_oauth(StoreKind::Sqlite, |s| {
        s.k_service = Some("kioku".into());
        s.public_url = Some("https://kioku.example".into());
    })
    .await
}

/// The registered clients' names, as the operator lists them, ten a page.
async fn registered_names(app: &TestApp) -> Vec<String> {
    let mut names = Vec::new();
    let mut path = "/admin/oauth/clients?limit=10".to_owned();
    loop {
        let page = app.call(reqwest::Method::GET, &path, ADMIN).send().await;
        let page: Value = ok_json(page.unwrap()).await;
        let clients = page["clients"].as_array().unwrap();
        assert!(clients.len() <= 10, "{page}");
        names.extend(
            clients
                .iter()
                .map(|c| c["name"].as_str().unwrap().to_owned()),
        );
        match page["next_after"].as_str() {
            Some(after) => path = format!("/admin/oauth/clients?limit=10&after={after}"),
            None => return names,
        }
    }
}

#[tokio::test]
async fn registrations_are_limited_per_address() {
    let fresh = behind_cloud_run().await;
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

    let names = registered_names(app).await;
    assert_eq!(
        names.len(),
        UNSIGNED_WRITES_PER_WINDOW as usize + 1,
        "{names:?}"
    );
    assert!(!names.iter().any(|n| n == "one too many"), "{names:?}");
    for wrong in ["limit=0", "limit=1001", "after=..%2Fx"] {
        let path = format!("/admin/oauth/clients?{wrong}");
        let refused = app.call(reqwest::Method::GET, &path, ADMIN).send().await;
        error_json(refused.unwrap(), 400, "invalid_filter").await;
    }
}

/// Registrations sent all at once, each still writing while the next arrives, are held to the
/// same limit: an address cannot pass it by not waiting for answers.
#[tokio::test]
async fn registrations_sent_at_once_are_limited_alike() {
    let fresh = behind_cloud_run().await;
    let app = &fresh.app;
    let sent = 3 * UNSIGNED_WRITES_PER_WINDOW;
    let names: Vec<String> = (0..sent).map(|n| format!("burst {n}")).collect();
    let answers = join_all(names.iter().map(|n| register(app, "203.0.113.7", n))).await;
    let created = answers.iter().filter(|a| a.status() == 201).count();
    let refused = answers.iter().filter(|a| a.status() == 429).count();
    assert_eq!(
        (created, refused),
        (
            UNSIGNED_WRITES_PER_WINDOW as usize,
            (sent - UNSIGNED_WRITES_PER_WINDOW) as usize
        )
    );
    assert_eq!(
        registered_names(app).await.len(),
        UNSIGNED_WRITES_PER_WINDOW as usize
    );
}
