//! What the memory page keeps from everyone but its person: forms not its own, other
//! namespaces' apps, and the log.

use kioku::config::StoreKind;
use reqwest::StatusCode;
use reqwest::header::LOCATION;

use crate::app::{Browser, csrf, signed_in};
use crate::helpers::{ADMIN, ALICE, api_tokens, summaries};
use crate::launch::Launch;
use crate::oauth::flow::{connected_app, spawn_oauth};

#[tokio::test]
async fn a_form_with_another_sessions_token_changes_nothing() {
    let (fresh, mine) = signed_in(StoreKind::Sqlite).await;
    let saved = fresh.app.save(&fresh.token, None, "stays").await;
    let theirs = Browser::new(&fresh.app.base);
    assert_eq!(
        theirs.sign_in(&fresh.token).await.status(),
        StatusCode::SEE_OTHER
    );
    let (_, page) = theirs.get("/app").await;
    let (_, own) = mine.get("/app").await;
    assert_ne!(csrf(&page), csrf(&own), "each session has its own token");
    let thread = saved["thread_id"].as_str().unwrap();
    for token in [csrf(&page), "0".repeat(64), String::new()] {
        let forged = [
            ("csrf", token.as_str()),
            ("thread_id", thread),
            ("confirm", "yes"),
        ];
        let answer = mine.post("/app/forget", &forged).await;
        assert_eq!(answer.status(), StatusCode::FORBIDDEN, "{token:?}");
    }
    assert_eq!(summaries(&fresh.app.load(&fresh.token).await), ["stays"]);
}

#[tokio::test]
async fn a_whole_thread_is_forgotten_after_its_confirmation_counts_every_summary() {
    let (fresh, browser) = signed_in(StoreKind::Sqlite).await;
    let first = fresh.app.save(&fresh.token, None, "one").await;
    let thread = first["thread_id"].as_str().unwrap();
    for summary in ["two", "three"] {
        fresh.app.save(&fresh.token, Some(thread), summary).await;
    }
    fresh.app.save(&fresh.token, None, "another thread").await;
    let (_, page) = browser.get("/app").await;
    let token = csrf(&page);
    let asked = browser
        .post(
            "/app/forget",
            &[("csrf", token.as_str()), ("thread_id", thread)],
        )
        .await;
    let asked = asked.text().await.unwrap();
    assert!(asked.contains("all 3 of its summaries"), "{asked}");
    let confirmed = [
        ("csrf", token.as_str()),
        ("thread_id", thread),
        ("confirm", "yes"),
    ];
    let done = browser.post("/app/forget", &confirmed).await;
    assert_eq!(done.headers()[LOCATION], "/app?done=forgotten");
    assert_eq!(
        summaries(&fresh.app.load(&fresh.token).await),
        ["another thread"]
    );
}

#[tokio::test]
async fn a_person_cannot_disconnect_another_namespaces_app() {
    let fresh = spawn_oauth(StoreKind::Sqlite, |_| {}).await;
    let access = connected_app(&fresh.app, &fresh.token).await;
    let grants = fresh
        .app
        .call(
            reqwest::Method::GET,
            &format!("/admin/namespaces/{}/grants", fresh.ns),
            ADMIN,
        )
        .send()
        .await
        .unwrap();
    let grants: serde_json::Value = grants.json().await.unwrap();
    let grant = grants["grants"][0]["id"]
        .as_str()
        .expect("a grant")
        .to_owned();

    let other = Browser::new(&fresh.app.base);
    assert_eq!(other.sign_in(ALICE).await.status(), StatusCode::SEE_OTHER);
    let (_, page) = other.get("/app").await;
    let token = csrf(&page);
    let fields = [("csrf", token.as_str()), ("grant_id", grant.as_str())];
    let answer = other.post("/app/apps/disconnect", &fields).await;
    assert_eq!(answer.status(), StatusCode::SEE_OTHER);
    assert_eq!(answer.headers()[LOCATION], "/app?done=gone");
    let still = fresh.app.load(&access).await;
    assert_eq!(
        still["status"], "empty",
        "the other namespace's app still works"
    );
}

/// What a person types and reads on the page, and the secrets that open it, never reach the
/// log, in either format.
#[tokio::test]
async fn nothing_of_the_page_is_logged() {
    let (summary, search, profile) = (
        "page-secret-summary-51c0",
        "page-secret-51c0",
        "page-secret-profile-8d2e",
    );
    for format in ["text", "json"] {
        let launch = Launch::new()
            .set("KIOKU_LOG_FORMAT", format)
            .set("RUST_LOG", "debug");
        let server = launch.start().unwrap();
        let app = server.app();
        app.save(ALICE, None, summary).await;
        let browser = Browser::new(&server.base());
        assert_eq!(
            browser
                .sign_in("page-secret-wrong-token-0123456789")
                .await
                .status(),
            401
        );
        let signed_in = browser.sign_in(ALICE).await;
        let session = signed_in
            .cookies()
            .find(|c| c.name() == "kioku_session")
            .unwrap();
        let session = session.value().to_owned();
        let (_, page) = browser.get("/app").await;
        let token = csrf(&page);
        let searched = browser
            .post("/app", &[("csrf", &token), ("q", search)])
            .await;
        assert_eq!(searched.status(), StatusCode::OK);
        let rewrite = [
            ("csrf", token.as_str()),
            ("profile", profile),
            ("expected_version", "0"),
        ];
        assert_eq!(browser.post("/app/profile", &rewrite).await.status(), 303);
        assert_eq!(browser.get("/app/export").await.0, StatusCode::OK);
        assert_eq!(
            browser
                .post("/app/sign-out", &[("csrf", &token)])
                .await
                .status(),
            303
        );
        let (_, log) = server.stop_and_collect();
        // One line per request sent, the last included: the check below reads the whole log.
        let requests = log.iter().filter(|l| l.contains("requestMethod")).count();
        assert_eq!(requests, 1 + 2 * 2 + 1 + 3 + 1, "{log:?}");
        let log = log.join("\n");
        for secret in [
            ALICE,
            &session,
            &token,
            summary,
            search,
            profile,
            "page-secret-wrong",
        ] {
            assert!(!log.contains(secret), "{format} log holds {secret}: {log}");
        }
    }
}

/// A session signed in with a token ends when the operator takes the token away, on any
/// instance: the next start without it, on the same store, opens nothing for the old cookie,
/// even when another token of the same namespace is configured in its place.
#[tokio::test]
async fn a_session_ends_with_its_token() {
    let fresh = crate::helpers::spawn_fresh(StoreKind::Sqlite, |_| {}).await;
    fresh
        .app
        .save(&fresh.token, None, "kept for the token")
        .await;
    let signed = Browser::new(&fresh.app.base).sign_in(&fresh.token).await;
    let value = signed
        .cookies()
        .find(|c| c.name() == "kioku_session")
        .unwrap();
    let cookie = format!("kioku_session={}", value.value());
    let store = fresh.app.data_dir.path().to_owned();
    let instance = |tokens: String| {
        let store = store.clone();
        crate::helpers::spawn_app_with(move |s| {
            s.data_dir = store;
            s.api_tokens = Some(tokens.into());
        })
    };
    let with_token = instance(format!("{},{}:{}", api_tokens(), fresh.ns, fresh.token)).await;
    let without = instance(api_tokens()).await;
    let rotated = format!("rotated-{}", uuid::Uuid::new_v4());
    let rotated = instance(format!("{},{}:{rotated}", api_tokens(), fresh.ns)).await;
    let page = |base: String| {
        let cookie = cookie.clone();
        async move {
            let answer = reqwest::Client::new()
                .get(format!("{base}/app"))
                .header("cookie", cookie)
                .send()
                .await
                .unwrap();
            (answer.status(), answer.text().await.unwrap())
        }
    };
    let (status, shown) = page(with_token.base.clone()).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        shown.contains("kept for the token"),
        "another instance serves the session"
    );
    for other in [without, rotated] {
        let (status, shown) = page(other.base.clone()).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(!shown.contains("kept for the token"));
    }
}
