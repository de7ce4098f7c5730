//! The memory page's profile versions over HTTP, on each store: an earlier version opened and
//! restored, and one no longer kept refused with the API's status and a sentence in the page's
//! language, never the message written for a model.

use kioku::config::StoreKind;
use reqwest::StatusCode;
use reqwest::header::LOCATION;

use crate::app::{csrf, signed_in};
use crate::helpers::{Fresh, on_both_stores};

on_both_stores!(
    an_earlier_version_is_opened_and_restored,
    a_version_no_longer_kept_is_refused_in_the_page_language
);

/// An assistant writes the profile twice: version 2 is current, version 1 earlier.
async fn written_twice(fresh: &Fresh) {
    for profile in ["first words", "second words"] {
        let rewrite = [("mode", "profile"), ("profile", profile)];
        let answer = fresh.app.get(Some(&fresh.token), &rewrite).send().await;
        assert_eq!(answer.unwrap().status(), StatusCode::OK);
    }
}

async fn an_earlier_version_is_opened_and_restored(store: StoreKind) {
    let (fresh, browser) = signed_in(store).await;
    written_twice(&fresh).await;
    let (_, page) = browser.get("/app").await;
    assert!(
        page.contains(r#"href="/app?version=1#profile-heading""#),
        "{page}"
    );
    assert!(
        !page.contains("/app?version=2"),
        "the current one is not earlier"
    );

    let (status, page) = browser.get("/app?version=1").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains(">first words</textarea>"), "{page}");
    // A save of it must expect the current version, or it would be refused as a conflict.
    assert!(
        page.contains(r#"name="expected_version" value="2""#),
        "{page}"
    );
    let restore = [
        ("csrf", csrf(&page)),
        ("profile", "first words".to_owned()),
        ("expected_version", "2".to_owned()),
    ];
    let restore = restore.each_ref().map(|(k, v)| (*k, v.as_str()));
    let saved = browser.post("/app/profile", &restore).await;
    assert_eq!(saved.status(), StatusCode::SEE_OTHER);
    assert_eq!(saved.headers()[LOCATION], "/app?done=profile");
    let load = fresh.app.load(&fresh.token).await;
    assert_eq!(load["profile"]["profile"], "first words");
    assert_eq!(load["profile"]["version"], 3);
}

async fn a_version_no_longer_kept_is_refused_in_the_page_language(store: StoreKind) {
    let (fresh, browser) = signed_in(store).await;
    written_twice(&fresh).await;
    let (status, page) = browser.get("/app?version=7&lang=ja").await;
    // The API answers the same request 404 `unknown_profile_version`.
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(
        page.contains("その以前の版のプロフィールはもう残っていません"),
        "{page}"
    );
    assert!(
        !page.contains("version 7"),
        "the model's message is not shown"
    );
    assert!(
        page.contains(r#"id="profile-shown">second words</p>"#),
        "the current one is shown"
    );
    let api = [("mode", "profile"), ("version", "7")];
    let answer = fresh
        .app
        .get(Some(&fresh.token), &api)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::NOT_FOUND);
}
