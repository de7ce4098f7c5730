//! What someone not signed in may make kioku read: a token request, a revocation, a client's
//! metadata, a consent or a sign-in form of at most 16 KiB, refused as soon as it passes that,
//! the rest never waited for; and a signed-in person's longest profile still fits the page's
//! form.

use std::time::Duration;

use kioku::config::StoreKind;
use reqwest::StatusCode;
use reqwest::header::LOCATION;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::flow::spawn_oauth;
use crate::app::{Browser, csrf};

/// Sends `path` a head promising 200 KB and 20 KB of it, then waits for an answer without
/// sending the rest: a server that reads the whole body before refusing answers only at its
/// body deadline (10 s), too late here.
async fn partly_sent(base: &str, path: &str, content_type: &str) -> String {
    let address = base.trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&address).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: {content_type}\r\n\
         Content-Length: 200000\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&[b'a'; 20_000]).await.unwrap();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    let read_answer = async {
        loop {
            let read = stream.read(&mut buffer).await.unwrap_or(0);
            answer.extend_from_slice(&buffer[..read]);
            let text = String::from_utf8_lossy(&answer);
            if read == 0 || text.contains("}") || text.contains("</html>") {
                break;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(5), read_answer)
        .await
        .unwrap_or_else(|_| panic!("{path}: no answer within 5 s of 20 KB"));
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn an_anonymous_body_past_16_kib_is_refused_before_the_rest_arrives() {
    let fresh = spawn_oauth(StoreKind::Sqlite, |_| {}).await;
    let base = &fresh.app.base;
    let form = "application/x-www-form-urlencoded";
    for path in ["/oauth/token", "/oauth/revoke"] {
        let answer = partly_sent(base, path, form).await;
        assert!(answer.starts_with("HTTP/1.1 400"), "{path}: {answer}");
        assert!(answer.contains(r#""error":"invalid_request""#), "{answer}");
        assert!(answer.contains("larger than 16384 bytes"), "{answer}");
    }
    let answer = partly_sent(base, "/oauth/register", "application/json").await;
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(
        answer.contains(r#""error":"invalid_client_metadata""#),
        "{answer}"
    );
    for path in ["/app/sign-in", "/oauth/authorize"] {
        let answer = partly_sent(base, path, form).await;
        assert!(answer.starts_with("HTTP/1.1 413"), "{path}: {answer}");
    }
}

#[tokio::test]
async fn the_longest_profile_still_fits_the_page_form() {
    let fresh = spawn_oauth(StoreKind::Sqlite, |_| {}).await;
    let browser = Browser::new(&fresh.app.base);
    assert_eq!(
        browser.sign_in(&fresh.token).await.status(),
        StatusCode::SEE_OTHER
    );
    let (_, page) = browser.get("/app").await;
    // 2,000 characters of four UTF-8 bytes: 24,000 bytes once percent-encoded.
    let profile = "𝄞".repeat(2_000);
    let fields = [
        ("csrf", csrf(&page)),
        ("profile", profile.clone()),
        ("expected_version", "0".to_owned()),
    ];
    let fields = fields.each_ref().map(|(k, v)| (*k, v.as_str()));
    let saved = browser.post("/app/profile", &fields).await;
    assert_eq!(saved.status(), StatusCode::SEE_OTHER);
    assert_eq!(saved.headers()[LOCATION], "/app?done=profile");
    let load = fresh.app.load(&fresh.token).await;
    assert_eq!(load["profile"]["profile"], profile.as_str());
}
