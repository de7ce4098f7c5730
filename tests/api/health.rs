use serde_json::json;

use crate::helpers::{error_json, ok_json, spawn_app};

#[tokio::test]
async fn health_and_readiness_need_no_token() {
    let app = spawn_app().await;
    let health = ok_json(app.path("/healthz").send().await.unwrap()).await;
    assert_eq!(health, json!({"status": "ok"}));
    let ready = ok_json(app.path("/readyz").send().await.unwrap()).await;
    assert_eq!(ready, json!({"status": "ready"}));
}

#[tokio::test]
async fn unknown_paths_get_a_json_404() {
    let app = spawn_app().await;
    error_json(app.path("/nope").send().await.unwrap(), 404, "not_found").await;
}

/// Uptime probes and link checkers ask with HEAD: every public GET answers it, with the GET's
/// status and type and no body.
#[tokio::test]
async fn public_pages_answer_head_as_get() {
    let app = spawn_app().await;
    for path in [
        "/healthz",
        "/readyz",
        "/openapi.json",
        "/openapi.yaml",
        "/prompt?lang=en",
        "/privacy",
        "/assets/page.css",
        "/assets/zone.js",
        "/app",
    ] {
        let get = app.path(path).send().await.unwrap();
        let head = app
            .client
            .head(format!("{}{path}", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(head.status(), get.status(), "{path}");
        assert_eq!(head.status(), 200, "{path}");
        let content_type = |r: &reqwest::Response| r.headers()["content-type"].clone();
        assert_eq!(content_type(&head), content_type(&get), "{path}");
        assert!(head.bytes().await.unwrap().is_empty(), "{path}");
    }
    // Elsewhere HEAD is still no method the endpoint takes.
    let head = app
        .client
        .head(format!("{}/forget", app.base))
        .send()
        .await
        .unwrap();
    assert_ne!(head.status(), 200);
}
