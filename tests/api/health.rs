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
