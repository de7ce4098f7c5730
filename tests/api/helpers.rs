//! Starts kioku for a test: in this process through the same `Application` that `main` uses
//! ([`spawn_app`]); [`crate::launch`] starts the real binary.

use std::path::{Path, PathBuf};

use kioku::config::{Settings, StoreKind};
use kioku::startup::Application;
use reqwest::{RequestBuilder, Response};
use serde_json::Value;
use tempfile::TempDir;

// Each at least 32 characters, as kioku requires of every token.
pub const ALICE: &str = "tok-alice-0123456789-0123456789-abcdef";
pub const ALICE_ROTATED: &str = "tok-alice-rotated-9876543210-9876543210";
pub const BOB: &str = "tok-bob-0123456789-0123456789-abcdefgh";
pub const BARE: &str = "tok-bare-seed-style-0123456789-abcdefgh";
pub const ADMIN: &str = "tok-admin-0123456789-0123456789-abcdef";

pub fn api_tokens() -> String {
    format!("alice:{ALICE},alice:{ALICE_ROTATED},bob:{BOB},{BARE}")
}

/// kioku's own defaults, as a run with no flag and no environment gets them (so a default
/// changed in config.rs is the tests' default too), then what every test server differs in: any
/// port, the test tokens and an administrator, SQLite in `data_dir`, no rate limit.
pub fn settings(data_dir: &Path) -> Settings {
    use clap::{Args, FromArgMatches};
    let defaults = Settings::augment_args(clap::Command::new("kioku"))
        .mut_args(|arg| arg.env(None))
        .try_get_matches_from(["kioku"])
        .expect("kioku runs with no flag");
    Settings {
        port: 0,
        api_tokens: Some(api_tokens().into()),
        store: Some(StoreKind::Sqlite),
        data_dir: data_dir.to_owned(),
        admin_tokens: Some(ADMIN.into()),
        rate_limit: 0,
        ..Settings::from_arg_matches(&defaults).expect("the defaults are settings")
    }
}

/// A server on `store` with, besides the usual tokens, a namespace of this test's own (so
/// tests can share the Firestore emulator) and its token.
pub struct Fresh {
    pub app: TestApp,
    pub ns: String,
    pub token: String,
}

pub async fn spawn_fresh(store: StoreKind, customize: impl FnOnce(&mut Settings)) -> Fresh {
    let id = uuid::Uuid::new_v4();
    let (ns, token) = (format!("ns-{id}"), format!("tok-{id}"));
    let app = spawn_app_with(|s| {
        on_store(s, store);
        s.api_tokens = Some(format!("{},{ns}:{token}", api_tokens()).into());
        customize(s);
    })
    .await;
    Fresh { app, ns, token }
}

/// Points `settings` at `store`: for Firestore, the emulator `scripts/test` started.
pub fn on_store(settings: &mut Settings, store: StoreKind) {
    settings.store = Some(store);
    if store == StoreKind::Firestore {
        crate::original::emulator_host();
        settings.google_cloud_project = Some(crate::original::PROJECT.into());
    }
}

pub struct TestApp {
    pub base: String,
    pub data_dir: TempDir,
    pub client: reqwest::Client,
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

pub async fn spawn_app_with(customize: impl FnOnce(&mut Settings)) -> TestApp {
    let data_dir = tempfile::tempdir().unwrap();
    let mut settings = settings(data_dir.path());
    customize(&mut settings);
    let app = Application::build(settings).await.expect("the app starts");
    let base = format!("http://{}", app.address());
    tokio::spawn(app.run_until_stopped());
    TestApp {
        base,
        data_dir,
        client: reqwest::Client::new(),
    }
}

impl TestApp {
    pub fn get(&self, token: Option<&str>, query: &[(&str, &str)]) -> RequestBuilder {
        authorize(self.client.get(&self.base).query(query), token)
    }

    pub fn post(&self, token: Option<&str>, body: &Value) -> RequestBuilder {
        authorize(self.client.post(&self.base).json(body), token)
    }

    /// A POST of `body` as it is, with `content_type`.
    pub fn post_raw(
        &self,
        token: &str,
        content_type: &str,
        body: impl Into<reqwest::Body>,
    ) -> RequestBuilder {
        self.client
            .post(&self.base)
            .bearer_auth(token)
            .header("content-type", content_type)
            .body(body)
    }

    pub fn path(&self, path: &str) -> RequestBuilder {
        self.client.get(format!("{}{path}", self.base))
    }

    /// A request to `path` with `token`.
    pub fn call(&self, method: reqwest::Method, path: &str, token: &str) -> RequestBuilder {
        let url = format!("{}{path}", self.base);
        self.client.request(method, url).bearer_auth(token)
    }

    /// Saves and returns the 200 response's body.
    pub async fn save(&self, token: &str, thread_id: Option<&str>, summary: &str) -> Value {
        let mut query = vec![("mode", "save"), ("summary", summary)];
        query.extend(thread_id.map(|id| ("thread_id", id)));
        ok_json(self.get(Some(token), &query).send().await.unwrap()).await
    }

    /// Asserts that ALICE's memory holds nothing: what a refused request must leave.
    pub async fn assert_nothing_stored(&self) {
        assert_eq!(
            self.load(ALICE).await,
            serde_json::json!({"status": "empty", "count": 0, "data": {}})
        );
    }

    pub async fn load(&self, token: &str) -> Value {
        ok_json(
            self.get(Some(token), &[("mode", "load")])
                .send()
                .await
                .unwrap(),
        )
        .await
    }
}

pub fn authorize(request: RequestBuilder, token: Option<&str>) -> RequestBuilder {
    match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    }
}

pub async fn ok_json(response: Response) -> Value {
    let status = response.status();
    let body = response.text().await.unwrap();
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// Asserts that `response` says it holds JSON.
pub fn assert_json(response: &Response) {
    let content_type = response.headers()["content-type"].to_str().unwrap();
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}"
    );
}

/// The JSON error body, after checking its status and shape.
/// The seconds a response's `Retry-After` says to wait.
pub fn retry_after(response: &Response) -> u64 {
    let value = response.headers()["retry-after"].to_str().unwrap();
    value
        .parse()
        .unwrap_or_else(|_| panic!("not seconds: {value}"))
}

pub async fn error_json(response: Response, status: u16, code: &str) -> Value {
    assert_eq!(response.status(), status);
    assert_json(&response);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "error", "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| m.len() > 10),
        "{body}"
    );
    body
}

/// The summaries of every thread, in the order loaded.
pub fn summaries(load: &Value) -> Vec<String> {
    load["data"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|entries| entries.as_array().unwrap())
        .map(|e| e["summary"].as_str().unwrap().to_owned())
        .collect()
}

pub fn data_file(dir: &TempDir) -> PathBuf {
    dir.path().join("kioku.sqlite3")
}

/// Runs each scenario, an async function of the store, as a test on SQLite and another on the
/// Firestore emulator (`sqlite::<scenario>` and `firestore::<scenario>`): the one way the HTTP
/// tests run on both stores.
macro_rules! on_both_stores {
    ($($scenario:ident),+ $(,)?) => {
        mod sqlite {
            $(#[tokio::test]
            async fn $scenario() {
                super::$scenario(kioku::config::StoreKind::Sqlite).await;
            })+
        }
        mod firestore {
            $(#[tokio::test]
            async fn $scenario() {
                if $crate::needs::firestore().is_some() {
                    super::$scenario(kioku::config::StoreKind::Firestore).await;
                }
            })+
        }
    };
}

pub(crate) use on_both_stores;
