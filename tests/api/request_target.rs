//! Request targets sent with raw bytes, as a person's curl sends `?summary=初回の要約`: read as
//! their percent-encoded UTF-8, or refused with JSON, on a connection kept alive across
//! requests with bodies.

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{ALICE, ok_json, spawn_app};

/// One kept-alive connection, written to and read from a request at a time.
struct Connection {
    stream: TcpStream,
    host: String,
    unread: Vec<u8>,
}

impl Connection {
    async fn open(base: &str) -> Self {
        let host = base.trim_start_matches("http://").to_owned();
        let stream = TcpStream::connect(&host).await.unwrap();
        Self {
            stream,
            host,
            unread: Vec::new(),
        }
    }

    /// Sends `target` as its bytes are, and a body if there is one; answers status and JSON.
    async fn send(&mut self, method: &str, target: &[u8], body: Option<&Value>) -> (u16, Value) {
        let mut request = format!("{method} ").into_bytes();
        request.extend_from_slice(target);
        let body = body.map(Value::to_string).unwrap_or_default();
        request.extend_from_slice(
            format!(
                " HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {ALICE}\r\n\
                 Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                self.host,
                body.len()
            )
            .as_bytes(),
        );
        self.stream.write_all(&request).await.unwrap();
        self.answer().await
    }

    async fn answer(&mut self) -> (u16, Value) {
        let head_end = loop {
            if let Some(end) = self.unread.windows(4).position(|w| w == b"\r\n\r\n") {
                break end + 4;
            }
            self.fill().await;
        };
        let head = String::from_utf8(self.unread[..head_end].to_vec()).unwrap();
        let status = head[9..12].parse().unwrap();
        let length: usize = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().unwrap())
            })
            .unwrap_or_else(|| panic!("an answer with a length and a body: {head}"));
        while self.unread.len() < head_end + length {
            self.fill().await;
        }
        let body: Vec<u8> = self
            .unread
            .drain(..head_end + length)
            .skip(head_end)
            .collect();
        (status, serde_json::from_slice(&body).unwrap())
    }

    async fn fill(&mut self) {
        let mut buffer = [0u8; 4096];
        let read = self.stream.read(&mut buffer).await.unwrap();
        assert!(read > 0, "the server closed the connection");
        self.unread.extend_from_slice(&buffer[..read]);
    }
}

#[tokio::test]
async fn a_raw_utf8_target_is_read_as_its_percent_encoding_between_bodies() {
    let app = spawn_app().await;
    let mut connection = Connection::open(&app.base).await;
    let first = json!({"mode": "save", "summary": "本文に 「初回」 と書いた要約"});
    let (status, saved) = connection.send("POST", b"/", Some(&first)).await;
    assert_eq!(status, 200, "{saved}");

    let target = "/?mode=save&summary=初回の要約{\"引用\"}";
    let (status, answer) = connection.send("GET", target.as_bytes(), None).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "saved");

    let (status, loaded) = connection.send("GET", b"/?mode=load", None).await;
    assert_eq!(status, 200, "{loaded}");
    let summaries: Vec<&str> = loaded["data"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|thread| thread.as_array().unwrap())
        .map(|entry| entry["summary"].as_str().unwrap())
        .collect();
    assert!(
        summaries.contains(&"本文に 「初回」 と書いた要約"),
        "{loaded}"
    );
    assert!(summaries.contains(&"初回の要約{\"引用\"}"), "{loaded}");
}

#[tokio::test]
async fn a_raw_target_that_is_not_utf8_is_refused_with_json_and_stores_nothing() {
    let app = spawn_app().await;
    let mut connection = Connection::open(&app.base).await;
    let (status, refusal) = connection
        .send("GET", b"/?mode=save&summary=\xff\xfe", None)
        .await;
    assert_eq!(status, 400, "{refusal}");
    assert_eq!(refusal["code"], "malformed_query", "{refusal}");

    let (status, answer) = connection.send("GET", "/記憶".as_bytes(), None).await;
    assert_eq!((status, answer["code"].as_str()), (404, Some("not_found")));

    let loaded = ok_json(
        app.client
            .get(format!("{}/?mode=load", app.base))
            .bearer_auth(ALICE)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(loaded["count"], 0, "{loaded}");
}
