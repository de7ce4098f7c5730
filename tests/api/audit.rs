//! Every admin action writes an audit line naming what it touched and who asked, and admin
//! URLs name a bare token's namespace by its label, never the token: the real binary runs
//! them, then stops, and every line it wrote is read.

use reqwest::Method;
use serde_json::{Value, json};

use super::oauth::flow::{authorize_with_token, operator_client};
use crate::helpers::{ADMIN, ALICE, BARE, error_json, ok_json};
use crate::launch::Launch;

#[tokio::test]
async fn admin_actions_are_audited_and_bare_tokens_named_by_label() {
    let launch = Launch::new()
        .set("KIOKU_ADMIN_TOKENS", ADMIN)
        .set("KIOKU_OAUTH", "token");
    let server = launch.start().unwrap();
    let app = server.app();
    let admin = |method: Method, path: &str| app.call(method, path, ADMIN);
    app.save(BARE, Some("t"), "from the bare token").await;
    app.save(ALICE, Some("t"), "from alice").await;

    // The listing says what to name the bare token's namespace by.
    let listed = ok_json(
        admin(Method::GET, "/admin/namespaces")
            .send()
            .await
            .unwrap(),
    )
    .await;
    let labels: Vec<&str> = listed["namespaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|ns| ns["label"].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"bare-token-4") && labels.contains(&"alice"),
        "{listed}"
    );

    // The token itself in a URL is refused, with the label to use instead.
    for path in [
        format!("/admin/namespaces/{BARE}"),
        format!("/admin/export?namespace={BARE}"),
        format!("/admin/namespaces/{BARE}/grants"),
    ] {
        let method = if path.contains("export") || path.ends_with("grants") {
            Method::GET
        } else {
            Method::DELETE
        };
        let refused = admin(method, &path).send().await.unwrap();
        let body = error_json(refused, 400, "token_in_url").await;
        assert!(
            body["message"].as_str().unwrap().contains("bare-token-4"),
            "{body}"
        );
    }
    let exported = admin(Method::GET, "/admin/export?namespace=bare-token-4")
        .send()
        .await
        .unwrap();
    assert_eq!(exported.status(), 200);
    assert!(
        exported
            .text()
            .await
            .unwrap()
            .contains("from the bare token")
    );
    let everything = admin(Method::GET, "/admin/export").send().await.unwrap();
    assert_eq!(everything.status(), 200);
    // Read to its end, when the export logs that it was complete: before the next request's
    // line, which the order below expects.
    everything.text().await.unwrap();

    // OAuth: a client, a later redirect URI, a grant, its revocation.
    let callback = "https://chat.openai.com/aip/g-audit/oauth/callback";
    let (client_id, secret) = operator_client(&app, callback).await;
    let later = "https://chatgpt.com/aip/g-audit/oauth/callback";
    let path = format!("/admin/oauth/clients/{client_id}/redirect_uris");
    let added = admin(Method::POST, &path)
        .json(&json!({ "redirect_uri": later }))
        .send()
        .await
        .unwrap();
    assert_eq!(added.status(), 200);
    let params = [
        ("response_type", "code"),
        ("client_id", client_id.as_str()),
        ("redirect_uri", later),
    ];
    authorize_with_token(&app, &params, ALICE).await;
    let grants = admin(Method::GET, "/admin/namespaces/alice/grants").send();
    let grants = ok_json(grants.await.unwrap()).await;
    let grant = grants["grants"][0]["id"].as_str().unwrap().to_owned();
    let path = format!("/admin/oauth/grants/{grant}");
    let revoked = admin(Method::DELETE, &path).send().await.unwrap();
    assert_eq!(revoked.status(), 200);

    let deleted = admin(Method::DELETE, "/admin/namespaces/bare-token-4").send();
    let deleted = ok_json(deleted.await.unwrap()).await;
    assert_eq!(
        (
            &deleted["namespace"],
            &deleted["threads"],
            &deleted["entries"]
        ),
        (&json!("bare-token-4"), &json!(1), &json!(1))
    );
    assert_eq!(app.load(BARE).await["status"], "empty");
    assert_eq!(app.load(ALICE).await["count"], 1);
    let (_, log) = server.stop_and_collect();

    let lines: Vec<Value> = log
        .iter()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    let audits: Vec<&Value> = lines.iter().filter(|l| l["audit"] == true).collect();
    for line in &audits {
        assert_eq!(line["remote_ip"], "127.0.0.1", "{line}");
    }
    let touched: Vec<Value> = audits
        .iter()
        .map(|l| {
            let keep = [
                "namespace",
                "threads",
                "entries",
                "client_id",
                "redirect_uri",
                "grant_id",
            ];
            let mut fields = json!({ "action": l["action"] });
            for key in keep {
                if !l[key].is_null() {
                    fields[key] = l[key].clone();
                }
            }
            fields
        })
        .collect();
    assert_eq!(
        touched,
        [
            json!({"action": "export", "namespace": "bare-token-4", "threads": 1, "entries": 1}),
            json!({"action": "export", "namespace": "(every namespace)", "threads": 2,
                   "entries": 2}),
            json!({"action": "add OAuth client", "client_id": client_id}),
            json!({"action": "add redirect URI", "client_id": client_id, "redirect_uri": later}),
            json!({"action": "revoke grant", "grant_id": grant}),
            json!({"action": "delete namespace", "namespace": "bare-token-4", "threads": 1,
                   "entries": 1}),
        ],
        "{audits:?}"
    );
    for line in &log {
        for secret in [BARE, ALICE, ADMIN, secret.as_str()] {
            assert!(!line.contains(secret), "a secret in the log: {line}");
        }
    }
}
