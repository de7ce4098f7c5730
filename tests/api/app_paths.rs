//! Links that lead nowhere on the memory page: a link to a thread no longer there says so and
//! shows the rest of the memory, and a mistyped path under `/app` answers a page in the person's
//! language, not the API's JSON.

use kioku::config::StoreKind;
use reqwest::StatusCode;
use reqwest::header::{ACCEPT_LANGUAGE, CONTENT_TYPE};

use crate::app::signed_in;

#[tokio::test]
async fn a_stale_thread_link_says_the_thread_is_gone_and_shows_the_rest() {
    let (fresh, browser) = signed_in(StoreKind::Sqlite).await;
    let saved = (fresh.app)
        .save(&fresh.token, None, "The garden shed got an oak floor")
        .await;
    let kept = saved["thread_id"].as_str().unwrap();

    let (status, page) = browser.get(&format!("/app?thread={kept}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!page.contains("no longer in your memory"), "{page}");

    let (status, page) = browser.get("/app?thread=forgotten-long-ago").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        page.contains("That thread is no longer in your memory"),
        "{page}"
    );
    assert!(page.contains("The garden shed got an oak floor"), "{page}");
}

#[tokio::test]
async fn a_mistyped_path_is_a_page_in_the_persons_language() {
    let (_fresh, browser) = signed_in(StoreKind::Sqlite).await;
    for (path, language, words) in [
        ("/app/memroy", "ja", "そのようなページはありません"),
        ("/app/forget/now", "en", "There is no such page"),
    ] {
        let answer = (browser.client)
            .get(format!("{}{path}", browser.base))
            .header(ACCEPT_LANGUAGE, language)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::NOT_FOUND, "{path}");
        let html = answer.headers()[CONTENT_TYPE].to_str().unwrap().to_owned();
        assert!(html.starts_with("text/html"), "{path}: {html}");
        let page = answer.text().await.unwrap();
        assert!(page.contains(words), "{path}: {page}");
    }
}
