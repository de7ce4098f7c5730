//! kioku's pages in a real browser, on each store: each scenario in tests/browser drives headless
//! Chromium through Playwright against a running server, checks what it renders, its
//! accessibility (axe-core) and that it cannot be framed, and leaves screenshots in
//! target/browser-artifacts/<scenario>-<store>/. scripts/test installs Chromium, Playwright and
//! axe-core.

use std::path::Path;
use std::process::Command;

use kioku::config::StoreKind;

use crate::helpers::on_both_stores;
use crate::helpers::{Fresh, TestApp, spawn_fresh, summaries};
use crate::needs;
use crate::oauth::flow::{CLIENT_NAME, connected_app, spawn_oauth};

on_both_stores!(
    the_privacy_page_renders_accessibly_and_unframed,
    a_person_sees_searches_corrects_and_forgets_their_memory,
    a_person_forgets_and_corrects_through_the_view_in_a_chat,
);

/// The Python that runs the scenarios with Playwright, once Chromium (read by
/// tests/browser/browser.py) and axe-core are there too; `None` once the test is skipped.
fn browser_python() -> Option<String> {
    let python = needs::var("KIOKU_BROWSER_PYTHON")?;
    needs::var("KIOKU_CHROMIUM")?;
    needs::npm_packages("tests/browser").then_some(python)
}

/// Runs tests/browser/`name`.py with `python` against `app` on `store`, with `env`; it exits
/// non-zero naming the first failed expectation.
async fn scenario(python: &str, name: &str, store: StoreKind, app: &TestApp, env: &[(&str, &str)]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let store_name = format!("{store:?}").to_lowercase();
    let artifacts = root.join(format!("target/browser-artifacts/{name}-{store_name}"));
    let mut command = Command::new(python);
    command
        .arg(root.join(format!("tests/browser/{name}.py")))
        .arg("--base-url")
        .arg(&app.base)
        .arg("--artifacts")
        .arg(&artifacts)
        .envs(env.iter().copied());
    // The server runs on this test's runtime, so the browser is waited for off it.
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("the {name} scenario did not start: {e}"));
    assert!(
        output.status.success(),
        "the {name} scenario failed on {store_name} ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

async fn the_privacy_page_renders_accessibly_and_unframed(store: StoreKind) {
    let Some(python) = browser_python() else {
        return;
    };
    let fresh = spawn_fresh(store, |_| {}).await;
    scenario(&python, "privacy", store, &fresh.app, &[]).await;
}

/// The memory page's scenario, between what the API saved before and what it finds after: the
/// summary forgotten in the browser is gone and the other kept, the profile forgotten there is
/// gone, and the app disconnected there can no longer use its access token, and what it saved
/// is forgotten with it.
async fn a_person_sees_searches_corrects_and_forgets_their_memory(store: StoreKind) {
    let Some(python) = browser_python() else {
        return;
    };
    let fresh = spawn_oauth(store, |_| {}).await;
    let app = &fresh.app;
    let (forget, keep) = ("lighthouse trip moved to Friday", "猫の名前はモチ");
    app.save(&fresh.token, None, forget).await;
    app.save(&fresh.token, None, keep).await;
    let access = connected_app(app, &fresh.token).await;
    let load = |token: &str| {
        app.client
            .get(format!("{}/?mode=load", app.base))
            .bearer_auth(token.to_owned())
            .send()
    };
    assert_eq!(load(&access).await.unwrap().status(), 200);
    let app_saved = "dentist appointment on Tuesday";
    app.save(&access, None, app_saved).await;
    // Another app of the same name, which the page must tell apart from the first.
    let namesake = connected_app(app, &fresh.token).await;

    let profile = "好きな言語は Rust。返事は短く。";
    let env = [
        ("KIOKU_PAGE_TOKEN", fresh.token.as_str()),
        ("KIOKU_PAGE_FORGET", forget),
        ("KIOKU_PAGE_KEEP", keep),
        ("KIOKU_PAGE_PROFILE", profile),
        ("KIOKU_PAGE_APP", CLIENT_NAME),
        ("KIOKU_PAGE_APP_SAVED", app_saved),
        ("KIOKU_PAGE_NAMESPACE", fresh.ns.as_str()),
    ];
    scenario(&python, "memory_page", store, app, &env).await;

    let after = app.load(&fresh.token).await;
    assert_eq!(summaries(&after), [keep]);
    // Written, rewritten, restored, then forgotten there (memory_page.py checks each step).
    assert!(after.get("profile").is_none(), "{after}");
    assert_eq!(load(&access).await.unwrap().status(), 401);
    assert_eq!(load(&namesake).await.unwrap().status(), 200);
}

/// The MCP Apps view in a host built on the official app-bridge (tests/browser/app_view.py):
/// what was forgotten and corrected there is gone and rewritten here.
async fn a_person_forgets_and_corrects_through_the_view_in_a_chat(store: StoreKind) {
    let Some(python) = browser_python() else {
        return;
    };
    let Fresh { app, ns, token } = spawn_fresh(store, |_| {}).await;
    let (forget, keep) = (
        "lighthouse trip moved to Friday",
        "lighthouse photos go in the shared album",
    );
    let stamp = app.save(&token, None, forget).await["timestamp"]
        .as_str()
        .unwrap()
        .to_owned();
    app.save(&token, None, keep).await;
    let profile = "Likes Rust and short answers.";
    let written = app
        .get(Some(&token), &[("mode", "profile"), ("profile", profile)])
        .send()
        .await
        .unwrap();
    assert_eq!(written.status(), 200);
    let env = [
        ("KIOKU_VIEW_TOKEN", token.as_str()),
        ("KIOKU_VIEW_FORGET", forget),
        ("KIOKU_VIEW_FORGET_STAMP", stamp.as_str()),
        ("KIOKU_VIEW_KEEP", keep),
        ("KIOKU_VIEW_QUERY", "lighthouse"),
        ("KIOKU_VIEW_PROFILE", profile),
        ("KIOKU_VIEW_WRITER", ns.as_str()),
    ];
    scenario(&python, "app_view", store, &app, &env).await;

    // One summary forgotten, then the other's thread (app_view.py checks each step).
    let after = app.load(&token).await;
    assert_eq!(after["count"], 0, "{after}");
    let profile = &after["profile"];
    assert_eq!(profile["version"], 3, "{after}");
    assert_eq!(profile["writer"]["by"], "token", "{after}");
}
