//! Nothing the OAuth server issues or is shown reaches the log: the real binary runs a whole
//! flow, then stops, and every line it wrote is read.

use serde_json::Value;

use super::flow::{authorize_with_token, operator_client, param, token_request, tokens};
use crate::helpers::{ADMIN, ALICE};
use crate::launch::Launch;

#[tokio::test]
async fn no_oauth_secret_is_logged() {
    let launch = Launch::new()
        .set("KIOKU_ADMIN_TOKENS", ADMIN)
        .set("KIOKU_OAUTH", "token");
    let server = launch.start().unwrap();
    let app = server.app();
    let callback = "https://chat.openai.com/aip/g-log/oauth/callback";
    let (client_id, secret) = operator_client(&app, callback).await;
    let back = authorize_with_token(
        &app,
        &[
            ("response_type", "code"),
            ("client_id", &client_id),
            ("state", "st"),
        ],
        ALICE,
    )
    .await;
    let code = param(&back, "code").unwrap();
    let form = [("grant_type", "authorization_code"), ("code", &code)];
    let issued = tokens(token_request(&app, &form, Some((&client_id, &secret))).await).await;
    let access = issued["access_token"].as_str().unwrap();
    let refresh = issued["refresh_token"].as_str().unwrap();
    let summary = "a-summary-saved-with-an-access-token";
    let saved = app
        .get(Some(access), &[("mode", "save"), ("summary", summary)])
        .send()
        .await
        .unwrap();
    assert_eq!(saved.status(), 200);
    // Refused attempts log too: a replayed code, an unknown token typed.
    let replay = token_request(&app, &form, Some((&client_id, &secret))).await;
    assert_eq!(replay.status(), 400);
    let refused = app
        .get(Some("kioku_at_unknown"), &[("mode", "load")])
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let (_, log) = server.stop_and_collect();

    let lines: Vec<Value> = log
        .iter()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let logged = |path: &str| lines.iter().any(|l| l["httpRequest"]["requestUrl"] == path);
    assert!(
        logged("/oauth/token") && logged("/oauth/authorize"),
        "{log:?}"
    );
    for line in &log {
        for secret in [
            ALICE,
            ADMIN,
            secret.as_str(),
            code.as_str(),
            access,
            refresh,
            summary,
        ] {
            assert!(!line.contains(secret), "a secret in the log: {line}");
        }
    }
}
