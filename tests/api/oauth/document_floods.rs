//! A client metadata document is fetched for anyone who names one, before anyone signs in, so
//! the fetches are fenced: counted per address before they start, a failure kept for a minute
//! so that asking again fetches nothing, two at a time for one address and for one host (a
//! host that never answers holds no more), and a refusal that repeats nothing the document
//! said.

use futures::future::join_all;
use kioku::config::StoreKind;
use kioku::oauth::LoopbackDocuments;
use kioku::throttle::UNSIGNED_WRITES_PER_WINDOW;
use reqwest::header::LOCATION;
use serde_json::json;
use tokio::net::TcpListener;

use super::documents::{Answer, DocumentServer, document};
use super::flow::{browser, pkce, spawn_oauth};
use crate::helpers::{Fresh, TestApp};

/// A server as on Cloud Run (the client's address is the one its front end forwards) that
/// trusts the test documents' root.
async fn behind_cloud_run(server: &DocumentServer) -> Fresh {
    let root_pem = server.root_pem.clone();
    spawn_oauth(StoreKind::Sqlite, move |s| {
        s.k_service = Some("kioku".into());
        s.public_url = Some("https://kioku.example".into());
        s.oauth.loopback_documents = Some(LoopbackDocuments { root_pem });
    })
    .await
}

/// The consent page's status and text for `client_id`, asked from `address`.
async fn ask(app: &TestApp, address: &str, client_id: &str) -> (u16, String) {
    let (_, challenge) = pkce();
    let response = browser()
        .get(format!("{}/oauth/authorize", app.base))
        .header("x-forwarded-for", address)
        .query(&[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", "http://127.0.0.1:7/callback"),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
        ])
        .send()
        .await
        .unwrap();
    assert!(response.headers().get(LOCATION).is_none());
    (response.status().as_u16(), response.text().await.unwrap())
}

async fn documents() -> DocumentServer {
    DocumentServer::start(|base| {
        let mut odd = document(&format!("{base}/odd.json"), "Odd");
        odd["grant_types"] = json!(["marker-grant"]);
        odd["redirect_uris"] = json!(["http://marker.example/cb"]);
        vec![
            (
                "/client.json".into(),
                Answer::json(&document(&format!("{base}/client.json"), "Good app")),
            ),
            ("/odd.json".into(), Answer::json(&odd)),
        ]
    })
    .await
}

#[tokio::test]
async fn document_fetches_are_counted_per_address_and_a_failure_is_kept() {
    let server = documents().await;
    let fresh = behind_cloud_run(&server).await;
    let app = &fresh.app;
    let (flooder, other) = ("203.0.113.7", "198.51.100.9");
    for n in 0..UNSIGNED_WRITES_PER_WINDOW {
        let (status, page) = ask(app, flooder, &format!("{}/missing-{n}.json", server.base)).await;
        assert_eq!(status, 400);
        assert!(page.contains("HTTP 404"), "{n}: {page}");
    }
    let next = format!("{}/missing-next.json", server.base);
    let (status, page) = ask(app, flooder, &next).await;
    assert_eq!(status, 400);
    assert!(page.contains("from your address"), "{page}");
    assert_eq!(
        server.hits("/missing-next.json"),
        0,
        "refused before the fetch"
    );

    // Another address is not held back, and a failure is not fetched again for a while.
    let good = format!("{}/client.json", server.base);
    assert_eq!(ask(app, other, &good).await.0, 200);
    let (status, _) = ask(app, other, &format!("{}/missing-0.json", server.base)).await;
    assert_eq!(status, 400);
    assert_eq!(server.hits("/missing-0.json"), 1);
}

#[tokio::test]
async fn a_refusal_repeats_nothing_the_document_said() {
    let server = documents().await;
    let fresh = behind_cloud_run(&server).await;
    let (status, page) = ask(
        &fresh.app,
        "203.0.113.7",
        &format!("{}/odd.json", server.base),
    )
    .await;
    assert_eq!(status, 400);
    assert!(page.contains("grant_types"), "{page}");
    assert!(!page.contains("marker"), "{page}");
}

#[tokio::test]
async fn a_host_that_never_answers_holds_two_fetches_at_most() {
    let server = documents().await;
    let fresh = behind_cloud_run(&server).await;
    let app = &fresh.app;
    // Takes connections and says nothing, for as long as the test runs; on another loopback
    // address, so another host than the documents server's.
    let silent = TcpListener::bind("127.0.0.2:0").await.unwrap();
    let port = silent.local_addr().unwrap().port();
    let (accepted, mut connected) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = silent.accept().await {
            held.push(stream);
            let _ = accepted.send(());
        }
    });
    let silent = move |n: usize| format!("https://127.0.0.2:{port}/client-{n}.json");
    let waiting = tokio::spawn({
        let app = TestApp {
            base: app.base.clone(),
            data_dir: tempfile::tempdir().unwrap(),
            client: app.client.clone(),
        };
        async move {
            let asked = [("203.0.113.1", silent(1)), ("203.0.113.2", silent(2))];
            join_all(asked.iter().map(|(address, id)| ask(&app, address, id))).await
        }
    });
    // While both wait on it, a third fetch from that host is refused at once, and another
    // host's is made.
    for _ in 0..2 {
        connected.recv().await.unwrap();
    }
    let (status, page) = ask(app, "203.0.113.3", &silent(3)).await;
    assert_eq!(status, 400);
    assert!(page.contains("at once"), "{page}");
    let good = format!("{}/client.json", server.base);
    assert_eq!(ask(app, "203.0.113.4", &good).await.0, 200);
    for (status, page) in waiting.await.unwrap() {
        assert_eq!(status, 400);
        assert!(page.contains("did not answer"), "{page}");
    }
}
