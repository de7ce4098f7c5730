//! The served OpenAPI schema: GPT Action rules, an independent validator, and real responses
//! (errors included) checked against it.

use std::path::Path;
use std::process::Command;

use reqwest::Response;
use serde_json::{Value, json};

use crate::helpers::{ALICE, BOB, TestApp, data_file, spawn_app, spawn_app_with};
use crate::needs;

async fn served_schema(app: &TestApp) -> Value {
    let response = app.path("/openapi.json").send().await.unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

fn operations(schema: &Value) -> Vec<(String, String, &Value)> {
    let mut found = Vec::new();
    for (path, item) in schema["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            found.push((path.clone(), method.clone(), operation));
        }
    }
    found
}

#[tokio::test]
async fn the_schema_follows_the_gpt_action_rules() {
    for include_post in [false, true] {
        let app = spawn_app_with(|s| s.schema_post = include_post).await;
        let schema = served_schema(&app).await;
        assert_eq!(schema["openapi"], "3.1.0");
        assert_eq!(
            schema["components"]["securitySchemes"]["bearer"],
            json!({"type": "http", "scheme": "bearer"})
        );
        let operations = operations(&schema);
        let methods: Vec<_> = operations
            .iter()
            .map(|(path, method, _)| format!("{method} {path}"))
            .collect();
        let expected = if include_post {
            vec!["get /", "post /", "get /forget"]
        } else {
            vec!["get /", "get /forget"]
        };
        assert_eq!(methods, expected, "/admin is not for GPTs");
        for (path, method, operation) in &operations {
            let name = format!("{method} {path}");
            assert!(
                operation["operationId"]
                    .as_str()
                    .is_some_and(|id| !id.is_empty()),
                "{name}"
            );
            for field in ["summary", "description"] {
                let text = operation[field].as_str().unwrap_or_default();
                assert!(
                    !text.is_empty() && text.chars().count() <= 300,
                    "{name} {field}: {text}"
                );
            }
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                let text = parameter["description"].as_str().unwrap();
                assert!(text.chars().count() <= 700, "{name} {}", parameter["name"]);
            }
            // Only forgetting deletes, so only it has ChatGPT ask the user first.
            let consequential = path == "/forget";
            assert_eq!(
                operation["x-openai-isConsequential"], consequential,
                "{name}"
            );
            assert_eq!(operation["security"], json!([{"bearer": []}]), "{name}");
        }
        assert_eq!(schema["paths"]["/"]["get"]["operationId"], "mngMemory");
        assert_eq!(
            schema["paths"]["/forget"]["get"]["operationId"],
            "forgetMemory"
        );
    }
}

#[tokio::test]
async fn servers_holds_this_servers_public_url() {
    let app = spawn_app().await;
    let schema: Value = app
        .path("/openapi.json")
        .header("host", "kioku-abc123-an.a.run.app")
        .header("x-forwarded-proto", "https")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        schema["servers"],
        json!([{"url": "https://kioku-abc123-an.a.run.app"}])
    );

    let configured =
        spawn_app_with(|s| s.public_url = Some("https://memory.example.org".into())).await;
    let yaml = configured
        .path("/openapi.yaml")
        .header("host", "elsewhere")
        .send()
        .await
        .unwrap();
    assert!(
        yaml.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/yaml")
    );
    let yaml = yaml.text().await.unwrap();
    assert!(
        yaml.contains("- url: https://memory.example.org\n"),
        "{yaml}"
    );
    assert_eq!(yaml.matches("- url:").count(), 1);
}

/// openapi-spec-validator, installed by scripts/test, accepts both variants of the schema.
#[tokio::test]
async fn an_independent_validator_accepts_the_schema() {
    let Some(validator) = needs::var("KIOKU_OPENAPI_SPEC_VALIDATOR") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for include_post in [false, true] {
        let app = spawn_app_with(|s| s.schema_post = include_post).await;
        for format in ["json", "yaml"] {
            let text = app
                .path(&format!("/openapi.{format}"))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            let file = dir.path().join(format!("openapi-{include_post}.{format}"));
            std::fs::write(&file, text).unwrap();
            files.push(file);
        }
    }
    // Validated once every schema is fetched: a slow validator would outlast the server's
    // keep-alive, and the next fetch would meet a closed connection.
    for file in files {
        let output = Command::new(&validator).arg(&file).output().unwrap();
        let report = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{}: {report}", file.display());
    }
}

#[test]
fn the_committed_schema_is_current() {
    let output = Command::new(env!("CARGO_BIN_EXE_kioku"))
        .arg("openapi")
        .env_clear()
        .output()
        .unwrap();
    assert!(output.status.success());
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi/openapi.yaml");
    let committed = std::fs::read_to_string(committed).unwrap_or_default();
    assert!(
        committed == String::from_utf8(output.stdout).unwrap(),
        "openapi/openapi.yaml is stale: run `cargo run -- openapi > openapi/openapi.yaml`"
    );
}

/// The schema documents each response's status, and the body matches the schema given.
async fn assert_documented(schema: &Value, method: &str, response: Response) -> Value {
    let status = response.status().as_str().to_owned();
    let headers = response.headers().clone();
    let body: Value = response.json().await.unwrap();
    let documented = &schema["paths"]["/"][method]["responses"][&status];
    assert!(
        documented.is_object(),
        "{method} / answered {status}, which the schema does not list: {body}"
    );
    for header in documented["headers"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, _)| name)
    {
        assert!(
            headers.contains_key(header.as_str()),
            "{method} / {status} lacks {header}"
        );
    }
    let mut body_schema = documented["content"]["application/json"]["schema"].clone();
    body_schema["components"] = schema["components"].clone();
    let validator = jsonschema::draft202012::new(&body_schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&body)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{method} / {status} {body} breaks the schema: {errors:?}"
    );
    body
}

#[tokio::test]
async fn every_response_matches_the_served_schema() {
    let app = spawn_app_with(|s| {
        s.schema_post = true;
        s.store_timeout_secs = 1;
        s.load_budget_chars = 1_000;
    })
    .await;
    let schema = served_schema(&app).await;
    let get = |token: Option<&str>, query: &[(&str, &str)]| app.get(token, query).send();

    let empty = assert_documented(
        &schema,
        "get",
        get(Some(BOB), &[("mode", "load")]).await.unwrap(),
    )
    .await;
    assert_eq!(empty["status"], "empty");
    assert_documented(
        &schema,
        "get",
        get(Some(ALICE), &[("mode", "save"), ("summary", "x")])
            .await
            .unwrap(),
    )
    .await;
    assert_documented(
        &schema,
        "get",
        get(Some(ALICE), &[("mode", "load")]).await.unwrap(),
    )
    .await;
    for (token, query) in [
        (None, &[("mode", "load")][..]),
        (Some("nope"), &[("mode", "load")]),
        (Some(ALICE), &[]),
        (
            Some(ALICE),
            &[("mode", "save"), ("summary", &"x".repeat(5_001))],
        ),
        (
            Some(ALICE),
            &[("mode", "save"), ("summary", "x"), ("thread_id", "a/b")],
        ),
        (Some(ALICE), &[("mode", "load"), ("mode", "save")]),
        (Some(ALICE), &[("mode", "load"), ("since", "soon")]),
    ] {
        assert_documented(&schema, "get", get(token, query).await.unwrap()).await;
    }

    let post = |body: &'static str, content_type: &'static str| {
        app.post_raw(ALICE, content_type, body).send()
    };
    for (body, content_type) in [
        (
            r#"{"mode":"save","summary":"via POST","thread_id":null}"#,
            "application/json",
        ),
        (r#"{"mode":"load"}"#, "application/json"),
        (r#"{"mode":"#, "application/json"),
        (r#"{"mode":"load"}"#, "text/plain"),
    ] {
        assert_documented(&schema, "post", post(body, content_type).await.unwrap()).await;
    }
    let huge = json!({"mode": "save", "summary": "x".repeat(1_000_000)});
    assert_documented(
        &schema,
        "post",
        app.post(Some(ALICE), &huge).send().await.unwrap(),
    )
    .await;

    let locker = rusqlite::Connection::open(data_file(&app.data_dir)).unwrap();
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let unavailable = get(Some(ALICE), &[("mode", "save"), ("summary", "x")])
        .await
        .unwrap();
    assert_eq!(
        assert_documented(&schema, "get", unavailable).await["code"],
        "store_unavailable"
    );
}

#[tokio::test]
async fn the_sample_instructions_are_served_in_both_languages() {
    let app = spawn_app().await;
    let english = "When the user says \"save\"";
    // Without `lang`, the browser's language decides, and Japanese without one.
    for (query, accept, marker) in [
        ("", None, "セーブ"),
        ("", Some("en-US,en;q=0.9"), english),
        ("", Some("fr-FR, ja;q=0.5, en;q=0.3"), "セーブ"),
        ("?lang=ja", Some("en"), "セーブ"),
        ("?lang=en", None, english),
    ] {
        let mut request = app.path(&format!("/prompt{query}"));
        if let Some(accept) = accept {
            request = request.header("accept-language", accept);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["vary"], "Accept-Language");
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/markdown")
        );
        let text = response.text().await.unwrap();
        assert!(
            text.contains(marker) && text.contains("`mngMemory`"),
            "{query}: {text}"
        );
        assert!(text.chars().count() < 8_000, "fits in a GPT's Instructions");
    }
    let response = app.path("/prompt?lang=fr").send().await.unwrap();
    crate::helpers::error_json(response, 400, "unknown_language").await;
}
