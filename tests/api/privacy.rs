//! `/privacy`: the policy a shared GPT links to, written from the settings in the reader's
//! language, or the operator's own file; no token needed. (It is no GPT operation:
//! `the_schema_follows_the_gpt_action_rules` lists every path the schema has.)

use std::num::NonZeroU32;

use crate::helpers::{TestApp, spawn_app, spawn_app_with};
use crate::launch::Launch;

/// The policy at `path` as `accept_language` reads it, without a token, and its
/// content security policy.
async fn policy(app: &TestApp, path: &str, accept_language: &str) -> (String, String) {
    let response = app
        .path(path)
        .header("accept-language", accept_language)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let header = |name: &str| response.headers()[name].to_str().unwrap().to_owned();
    assert_eq!(header("content-type"), "text/html; charset=utf-8");
    let csp = header("content-security-policy");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    (response.text().await.unwrap(), csp)
}

#[tokio::test]
async fn the_default_policy_states_the_retention_in_the_readers_language() {
    let app = spawn_app_with(|s| {
        s.retention_days = NonZeroU32::new(30);
        s.max_threads = NonZeroU32::new(50);
    })
    .await;
    let (en, csp) = policy(&app, "/privacy", "en-US,en;q=0.9").await;
    assert!(csp.contains("default-src 'none'"), "{csp}");
    for said in [
        "Privacy policy",
        "forgotten 30 days after",
        "At most 50 conversations",
        "database file on the server",
        "forgetMemory",
        "the memory page, /app",
        "memory page lasts 12 hours at most",
    ] {
        assert!(en.contains(said), "{said}: {en}");
    }
    assert!(!en.contains("until they are forgotten"), "{en}");
    let (ja, _) = policy(&app, "/privacy", "ja-JP,ja;q=0.9,en;q=0.8").await;
    assert!(ja.contains(r#"<html lang="ja">"#), "{ja}");
    for said in [
        "プライバシーポリシー",
        "保存から 30 日",
        "50 件まで",
        "長くて 12 時間",
    ] {
        assert!(ja.contains(said), "{said}: {ja}");
    }
    // The link to the other language wins over the browser's.
    let (chosen, _) = policy(&app, "/privacy?lang=en", "ja").await;
    assert!(chosen.contains("forgotten 30 days after"), "{chosen}");
}

#[tokio::test]
async fn without_limits_the_policy_keeps_memories_until_forgotten() {
    let app = spawn_app().await;
    let (en, _) = policy(&app, "/privacy", "en").await;
    assert!(en.contains("kept until they are forgotten"), "{en}");
    assert!(!en.contains("days after"), "{en}");
    let (ja, _) = policy(&app, "/privacy", "ja").await;
    assert!(ja.contains("消すよう頼まれるまで保管します"), "{ja}");
}

#[tokio::test]
async fn the_policy_names_the_operators_contact_when_one_is_set() {
    let app = spawn_app().await;
    let (en, _) = policy(&app, "/privacy", "en").await;
    assert!(!en.contains("Write to them at"), "{en}");
    let contact = kioku::config::Contact::parse("privacy@example.com").unwrap();
    let app = spawn_app_with(|s| s.privacy_contact = Some(contact)).await;
    let (en, _) = policy(&app, "/privacy", "en").await;
    let link = r#"<a href="mailto:privacy@example.com">privacy@example.com</a>"#;
    assert!(
        en.contains(&format!("(an export). Write to them at {link}")),
        "{en}"
    );
    let (ja, _) = policy(&app, "/privacy", "ja").await;
    assert!(
        ja.contains(&format!("受け取ることもできます。運営者の連絡先：{link}")),
        "{ja}"
    );
}

#[tokio::test]
async fn an_operators_file_is_served_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("privacy.html");
    let html = "<!doctype html><title>Our policy</title><p style=\"color: red\">私たちの方針</p>\n";
    std::fs::write(&path, html).unwrap();
    let app = spawn_app_with(|s| s.privacy_file = Some(path)).await;
    let (served, csp) = policy(&app, "/privacy?lang=ja", "ja").await;
    assert_eq!(served, html);
    assert!(csp.contains("script-src 'none'"), "{csp}");
}

#[tokio::test]
async fn an_unreadable_privacy_file_stops_the_start() {
    let launch = Launch::new();
    let missing = launch.dir().join("no-such-policy.html");
    let missing = missing.to_str().unwrap();
    let launch = launch.set("KIOKU_PRIVACY_FILE", missing);
    let Err((status, log)) = launch.start() else {
        panic!("started without its privacy file");
    };
    assert!(!status.success());
    assert!(
        log.iter()
            .any(|l| l.contains("KIOKU_PRIVACY_FILE") && l.contains(missing)),
        "{log:?}"
    );
}
