//! The memory page over HTTP, on each store: signing in and out, CSRF, what it shows, and the
//! headers that keep it out of frames. (tests/browser drives the same page in Chromium.)

use kioku::config::StoreKind;
use reqwest::StatusCode;
use reqwest::header::{CONTENT_SECURITY_POLICY, LOCATION, X_FRAME_OPTIONS};

use crate::helpers::on_both_stores;
use crate::helpers::{ADMIN, Fresh, spawn_fresh, summaries};
use crate::oauth::flow::browser;

on_both_stores!(
    signs_in_sees_searches_forgets_and_signs_out,
    a_search_result_names_its_thread_by_its_newest_summary,
);

/// A browser: keeps its cookies, follows no redirect.
pub struct Browser {
    pub base: String,
    pub client: reqwest::Client,
}

impl Browser {
    pub fn new(base: &str) -> Self {
        Self {
            base: base.to_owned(),
            client: browser(),
        }
    }

    pub async fn get(&self, path: &str) -> (StatusCode, String) {
        let response = self
            .client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap();
        (response.status(), response.text().await.unwrap())
    }

    pub async fn post(&self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .post(format!("{}{path}", self.base))
            .form(form)
            .send()
            .await
            .unwrap()
    }

    /// Signs in with `token` through the sign-in form; the answer to the form.
    pub async fn sign_in(&self, token: &str) -> reqwest::Response {
        let (status, page) = self.get("/app").await;
        assert_eq!(status, StatusCode::OK);
        let csrf = csrf(&page);
        self.post("/app/sign-in", &[("csrf", &csrf), ("token", token)])
            .await
    }
}

/// The CSRF token of the page's forms.
pub fn csrf(page: &str) -> String {
    let at = page
        .find(r#"name="csrf" value=""#)
        .expect("the page has a form")
        + 19;
    let len = page[at..].find('"').expect("the value ends");
    page[at..at + len].to_owned()
}

pub async fn signed_in(store: StoreKind) -> (Fresh, Browser) {
    let fresh = spawn_fresh(store, |_| {}).await;
    let browser = Browser::new(&fresh.app.base);
    let answer = browser.sign_in(&fresh.token).await;
    assert_eq!(answer.status(), StatusCode::SEE_OTHER);
    assert_eq!(answer.headers()[LOCATION], "/app");
    (fresh, browser)
}

async fn signs_in_sees_searches_forgets_and_signs_out(store: StoreKind) {
    let (fresh, browser) = signed_in(store).await;
    let saved = fresh
        .app
        .save(&fresh.token, None, "会議は木曜の午後に移った")
        .await;
    fresh
        .app
        .save(&fresh.token, None, "kept: the cat is called Mochi")
        .await;
    let (status, page) = browser.get("/app").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("会議は木曜の午後に移った"), "{page}");
    let token = csrf(&page);

    let found = browser
        .post("/app", &[("csrf", &token), ("q", "木曜")])
        .await;
    let found = found.text().await.unwrap();
    assert!(found.contains("会議は木曜の午後に移った"));
    assert!(!found.contains("Mochi"), "a search shows only what matches");
    // Each result links to its thread, shown alone.
    let thread = saved["thread_id"].as_str().unwrap();
    let link = format!("/app?thread={thread}#memories");
    assert!(found.contains(&format!(r#"<a href="{link}">"#)), "{found}");
    let (status, alone) = browser.get(&link).await;
    assert_eq!(status, StatusCode::OK);
    assert!(alone.contains("会議は木曜の午後に移った"), "{alone}");
    assert!(!alone.contains("Mochi"), "one thread alone: {alone}");

    // The first step of forgetting only asks; nothing goes until it is confirmed.
    let timestamp = saved["timestamp"].as_str().unwrap();
    let fields = [
        ("csrf", token.as_str()),
        ("thread_id", thread),
        ("timestamp", timestamp),
    ];
    let asked = browser.post("/app/forget", &fields).await;
    assert_eq!(asked.status(), StatusCode::OK);
    assert!(
        asked
            .text()
            .await
            .unwrap()
            .contains(r#"name="confirm" value="yes""#)
    );
    assert_eq!(summaries(&fresh.app.load(&fresh.token).await).len(), 2);
    let forged = [
        ("thread_id", thread),
        ("timestamp", timestamp),
        ("confirm", "yes"),
    ];
    let refused = browser.post("/app/forget", &forged).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN, "no CSRF token");
    assert_eq!(summaries(&fresh.app.load(&fresh.token).await).len(), 2);
    let mut confirmed = fields.to_vec();
    confirmed.push(("confirm", "yes"));
    let done = browser.post("/app/forget", &confirmed).await;
    assert_eq!(done.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        summaries(&fresh.app.load(&fresh.token).await),
        ["kept: the cat is called Mochi"]
    );

    let out = browser.post("/app/sign-out", &[("csrf", &token)]).await;
    assert_eq!(out.status(), StatusCode::SEE_OTHER);
    // The browser is told to drop the cookie; without it, the page is the sign-in page.
    let old = out.cookies().find(|c| c.name() == "kioku_session");
    assert!(
        old.is_some_and(|c| c.value().is_empty()),
        "the cookie is cleared"
    );
    let (_, page) = browser.get("/app").await;
    assert!(!page.contains("Mochi"), "signed out, the page is closed");
}

async fn a_search_result_names_its_thread_by_its_newest_summary(store: StoreKind) {
    let (fresh, browser) = signed_in(store).await;
    let first = (fresh.app)
        .save(&fresh.token, None, "会議は木曜の午後に移った")
        .await;
    let thread = first["thread_id"].as_str().unwrap();
    (fresh.app)
        .save(&fresh.token, Some(thread), "議事録は金曜に送る")
        .await;
    let (_, page) = browser.get("/app").await;
    let found = browser
        .post("/app", &[("csrf", &csrf(&page)), ("q", "木曜")])
        .await;
    let found = found.text().await.unwrap();
    let named = format!(
        r#"<a href="/app?thread={thread}#memories">in the thread “議事録は金曜に送る”</a>"#
    );
    assert!(found.contains(&named), "{found}");
}

#[tokio::test]
async fn a_signed_out_session_opens_nothing_on_any_request() {
    let fresh = spawn_fresh(StoreKind::Sqlite, |_| {}).await;
    let saved = fresh.app.save(&fresh.token, None, "private").await;
    let browser = Browser::new(&fresh.app.base);
    let answer = browser.sign_in(&fresh.token).await;
    // The cookie's value, kept as a thief would keep it.
    let value = answer
        .cookies()
        .find(|c| c.name() == "kioku_session")
        .expect("a session cookie")
        .value()
        .to_owned();
    let stolen = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let with_cookie = |request: reqwest::RequestBuilder| {
        request.header("cookie", format!("kioku_session={value}"))
    };
    let app_url = format!("{}/app", fresh.app.base);
    let page = with_cookie(stolen.get(&app_url)).send().await.unwrap();
    let page = page.text().await.unwrap();
    assert!(page.contains("private"));
    let token = csrf(&page);

    let out = browser.post("/app/sign-out", &[("csrf", &token)]).await;
    assert_eq!(out.status(), StatusCode::SEE_OTHER);
    for path in ["/app", "/app/export"] {
        let after = with_cookie(stolen.get(format!("{}{path}", fresh.app.base)));
        let after = after.send().await.unwrap();
        assert_eq!(after.status(), StatusCode::UNAUTHORIZED, "{path}");
        assert!(!after.text().await.unwrap().contains("private"), "{path}");
    }
    let thread = saved["thread_id"].as_str().unwrap();
    let forget = [
        ("csrf", token.as_str()),
        ("thread_id", thread),
        ("confirm", "yes"),
    ];
    let forget = with_cookie(stolen.post(format!("{app_url}/forget")).form(&forget));
    assert_eq!(
        forget.send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(summaries(&fresh.app.load(&fresh.token).await), ["private"]);
}

#[tokio::test]
async fn only_api_tokens_sign_in() {
    let fresh = spawn_fresh(StoreKind::Sqlite, |_| {}).await;
    let browser = Browser::new(&fresh.app.base);
    for token in [ADMIN, "not-a-token-of-this-server-0123456789"] {
        let answer = browser.sign_in(token).await;
        assert_eq!(answer.status(), StatusCode::UNAUTHORIZED, "{token}");
        assert!(answer.cookies().all(|c| c.name() != "kioku_session"));
    }
    // The sign-in form itself needs its CSRF token.
    let answer = Browser::new(&fresh.app.base)
        .post("/app/sign-in", &[("token", &fresh.token)])
        .await;
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    assert!(answer.cookies().all(|c| c.name() != "kioku_session"));
}

#[tokio::test]
async fn the_page_is_kept_out_of_frames_and_its_export_is_the_namespace() {
    let (fresh, browser) = signed_in(StoreKind::Sqlite).await;
    fresh.app.save(&fresh.token, None, "exported line").await;
    let page = browser
        .client
        .get(format!("{}/app", fresh.app.base))
        .send()
        .await
        .unwrap();
    let csp = page.headers()[CONTENT_SECURITY_POLICY].to_str().unwrap();
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    // Its one script is a file of this server's, which offers the browser's zone; nothing
    // inline, nothing from elsewhere.
    assert!(
        csp.contains("default-src 'none'; style-src 'self'; script-src 'self';"),
        "{csp}"
    );
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    assert_eq!(page.headers()[X_FRAME_OPTIONS], "DENY");
    let export = browser
        .client
        .get(format!("{}/app/export", fresh.app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(export.status(), StatusCode::OK);
    let body = export.text().await.unwrap();
    assert!(body.contains("exported line"));
    assert!(body.lines().all(|l| l.contains(&fresh.ns)), "{body}");
}

#[tokio::test]
async fn a_browser_opening_the_root_is_sent_to_the_page_and_the_api_is_not() {
    let fresh = spawn_fresh(StoreKind::Sqlite, |_| {}).await;
    let client = browser();
    let root = format!("{}/", fresh.app.base);
    let html = "text/html,application/xhtml+xml;q=0.9";
    let opened = client
        .get(&root)
        .header("accept", html)
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status(), StatusCode::SEE_OTHER);
    assert_eq!(opened.headers()[LOCATION], "/app");
    // The API's requests keep the API's answers, HTML accepted or not.
    let api = client
        .get(format!("{root}?mode=load"))
        .header("accept", html)
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), StatusCode::UNAUTHORIZED);
    let with_token = client
        .get(&root)
        .header("accept", html)
        .bearer_auth(&fresh.token)
        .send()
        .await
        .unwrap();
    assert_eq!(with_token.status(), StatusCode::BAD_REQUEST, "no mode");
}

#[tokio::test]
async fn a_rewrite_made_meanwhile_keeps_the_persons_text_beside_the_assistants() {
    let (fresh, browser) = signed_in(StoreKind::Sqlite).await;
    let (_, page) = browser.get("/app?edit=profile").await;
    let token = csrf(&page);
    assert!(page.contains(r#"name="expected_version" value="0""#));
    // An assistant writes the profile after the page was opened.
    let assistant = [("mode", "profile"), ("profile", "written by an assistant")];
    fresh
        .app
        .get(Some(&fresh.token), &assistant)
        .send()
        .await
        .unwrap();
    let mut mine = [
        ("csrf", token.as_str()),
        ("profile", "mine"),
        ("expected_version", "0"),
    ];
    let refused = browser.post("/app/profile", &mine).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    let shown = refused.text().await.unwrap();
    // The person's draft stays in the box, the assistant's text beside it, the refusal at the
    // box; saving now would be at the version current.
    assert!(shown.contains(">mine</textarea>"), "{shown}");
    assert!(
        shown.contains(r#"<p class="summary quoted">written by an assistant</p>"#),
        "{shown}"
    );
    assert!(shown.contains(r#"id="profile-problem""#), "{shown}");
    assert!(
        shown.contains(r#"name="expected_version" value="1""#),
        "{shown}"
    );
    let load = fresh.app.load(&fresh.token).await;
    assert_eq!(load["profile"]["profile"], "written by an assistant");
    // Saved again from there, the person's text replaces the assistant's.
    mine[2] = ("expected_version", "1");
    let saved = browser.post("/app/profile", &mine).await;
    assert_eq!(saved.status(), StatusCode::SEE_OTHER);
    let load = fresh.app.load(&fresh.token).await;
    assert_eq!(load["profile"]["profile"], "mine");
}

/// The profile is forgotten, every version, only once the person confirms on a page that
/// shows it.
#[tokio::test]
async fn the_profile_is_forgotten_after_a_confirmation() {
    let (fresh, browser) = signed_in(StoreKind::Sqlite).await;
    let (_, page) = browser.get("/app?lang=en").await;
    assert!(
        !page.contains("Forget the profile"),
        "no profile yet: {page}"
    );
    let assistant = [("mode", "profile"), ("profile", "likes Rust")];
    let written = fresh.app.get(Some(&fresh.token), &assistant).send();
    assert_eq!(written.await.unwrap().status(), StatusCode::OK);
    let (_, page) = browser.get("/app").await;
    assert!(page.contains("Forget the profile"), "{page}");
    let token = csrf(&page);

    let asked = browser
        .post("/app/forget", &[("csrf", &token), ("profile", "true")])
        .await;
    assert_eq!(asked.status(), StatusCode::OK);
    let asked = asked.text().await.unwrap();
    assert!(asked.contains("likes Rust"), "{asked}");
    assert!(asked.contains(r#"name="profile" value="true""#), "{asked}");
    assert_eq!(
        fresh.app.load(&fresh.token).await["profile"]["profile"],
        "likes Rust"
    );

    let confirmed = [
        ("csrf", token.as_str()),
        ("profile", "true"),
        ("confirm", "yes"),
    ];
    let done = browser.post("/app/forget", &confirmed).await;
    assert_eq!(done.status(), StatusCode::SEE_OTHER);
    assert_eq!(done.headers()[LOCATION], "/app?done=profile_forgotten");
    let load = fresh.app.load(&fresh.token).await;
    assert!(load.get("profile").is_none(), "{load}");
    let (_, page) = browser.get("/app?done=profile_forgotten").await;
    assert!(page.contains("Profile forgotten."), "{page}");
    assert!(!page.contains("Forget the profile"), "{page}");
}

/// What a load cuts to its budget, the page shows whole: a long profile in its box (saved back,
/// a cut copy would cut the profile), and an old summary on its confirmation.
#[tokio::test]
async fn the_page_shows_whole_what_a_load_would_cut() {
    let fresh = spawn_fresh(StoreKind::Sqlite, |s| s.load_budget_chars = 3_000).await;
    let browser = Browser::new(&fresh.app.base);
    assert_eq!(
        browser.sign_in(&fresh.token).await.status(),
        StatusCode::SEE_OTHER
    );
    let profile = "長".repeat(1_900);
    let rewrite = [("mode", "profile"), ("profile", profile.as_str())];
    fresh
        .app
        .get(Some(&fresh.token), &rewrite)
        .send()
        .await
        .unwrap();
    let first = fresh.app.save(&fresh.token, None, &"古".repeat(900)).await;
    let thread = first["thread_id"].as_str().unwrap();
    for summary in ["新", "近", "今"] {
        fresh
            .app
            .save(&fresh.token, Some(thread), &summary.repeat(900))
            .await;
    }
    let (_, page) = browser.get("/app").await;
    assert!(
        page.contains(&format!(r#"id="profile-shown">{profile}</p>"#)),
        "the profile is cut"
    );
    assert!(
        !page.contains(&"古".repeat(900)),
        "the budget holds the oldest back"
    );
    let fields = [
        ("csrf", csrf(&page)),
        ("thread_id", thread.to_owned()),
        ("timestamp", first["timestamp"].as_str().unwrap().to_owned()),
    ];
    let fields = fields.each_ref().map(|(k, v)| (*k, v.as_str()));
    let asked = browser.post("/app/forget", &fields).await;
    assert_eq!(
        asked.status(),
        StatusCode::OK,
        "not sent away as already gone"
    );
    assert!(asked.text().await.unwrap().contains(&"古".repeat(900)));
}

/// What helps a person scan the page: each thread listed by the start of its newest summary,
/// linking to its own page, where a long summary is folded to its start; the profile before
/// the threads, the policy in the page's language, and no "connected apps" while OAuth is off
/// and none is connected.
#[tokio::test]
async fn the_page_heads_threads_by_their_words_and_folds_long_summaries() {
    let (fresh, browser) = signed_in(StoreKind::Sqlite).await;
    let first = fresh.app.save(&fresh.token, None, "旅の計画を始めた").await;
    let long = "京都への旅は十月の三連休に決まった。".repeat(20);
    let thread = first["thread_id"].as_str().unwrap();
    fresh.app.save(&fresh.token, Some(thread), &long).await;

    let (status, page) = browser.get("/app?lang=en").await;
    assert_eq!(status, StatusCode::OK);
    // Listed by its heading, linking to the thread's own page, which shows its summaries.
    let heading: String = long.chars().take(60).collect();
    let link = format!(r#"<a href="/app?thread={thread}#memories">{heading}…</a>"#);
    assert!(page.contains(&link), "{page}");
    assert!(page.contains("2 summaries"), "{page}");
    assert!(!page.contains("旅の計画を始めた"), "{page}");
    let (_, alone) = browser.get(&format!("/app?thread={thread}")).await;
    assert!(
        alone.contains(&format!(r#"<h3 id="thread-1">{heading}…</h3>"#)),
        "{alone}"
    );
    let folded: String = long.chars().take(120).collect();
    assert!(
        alone.contains(&format!(r#"<summary class="summary">{folded}…</summary>"#)),
        "{alone}"
    );
    assert!(alone.contains(r#"<p class="summary">旅の計画を始めた</p>"#));
    let profile = page.find(r#"id="profile-heading""#).unwrap();
    assert!(profile < page.find(r#"role="search""#).unwrap());
    assert!(page.contains(r#"href="/privacy?lang=en""#));
    assert!(!page.contains("Connected apps"), "OAuth is off: {page}");
}
