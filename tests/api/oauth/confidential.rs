//! A GPT Action's client, added by the operator: token sign-in, a code, tokens by secret, the
//! API with the access token, refresh rotation, and a replayed refresh token ending the grant.

use kioku::config::StoreKind;
use serde_json::Value;

use super::flow::{
    authorize_with_token, oauth_error, operator_client, param, spawn_oauth, token_request, tokens,
};
use crate::helpers::on_both_stores;
use crate::helpers::{ADMIN, error_json, ok_json, summaries};

on_both_stores!(a_gpt_action_connects_with_oauth,);

const CALLBACK: &str = "https://chat.openai.com/aip/g-kioku-test/oauth/callback";

async fn a_gpt_action_connects_with_oauth(store: StoreKind) {
    // No window for a client's race (race.rs has one): any replay ends the grant.
    let fresh = spawn_oauth(store, |s| s.oauth.refresh_race_secs = 0).await;
    let app = &fresh.app;
    let (client_id, secret) = operator_client(app, CALLBACK).await;

    // GPT Actions send no PKCE challenge: a confidential client authenticates instead.
    let back = authorize_with_token(
        app,
        &[
            ("response_type", "code"),
            ("client_id", &client_id),
            ("redirect_uri", CALLBACK),
            ("state", "gpt-state-1"),
            ("scope", "memory"),
        ],
        &fresh.token,
    )
    .await;
    assert!(back.as_str().starts_with(CALLBACK), "{back}");
    assert_eq!(param(&back, "state").as_deref(), Some("gpt-state-1"));
    assert_eq!(param(&back, "iss").as_deref(), Some(app.base.as_str()));
    let code = param(&back, "code").unwrap();

    // The GPT editor's default: the client's credentials in the form.
    let issued = tokens(
        token_request(
            app,
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", CALLBACK),
                ("client_id", &client_id),
                ("client_secret", &secret),
            ],
            None,
        )
        .await,
    )
    .await;
    let access = issued["access_token"].as_str().unwrap();
    let refresh = issued["refresh_token"].as_str().unwrap();

    // The access token saves into, and loads from, the namespace of the token typed.
    let saved = ok_json(
        app.get(
            Some(access),
            &[("mode", "save"), ("summary", "saved with OAuth")],
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(saved["status"], "saved", "{saved}");
    assert_eq!(
        summaries(&app.load(&fresh.token).await),
        ["saved with OAuth"]
    );
    assert_eq!(summaries(&app.load(access).await), ["saved with OAuth"]);

    // Refresh, with HTTP Basic this time: a new pair, and the old refresh token is spent.
    let rotated = tokens(
        token_request(
            app,
            &[("grant_type", "refresh_token"), ("refresh_token", refresh)],
            Some((&client_id, &secret)),
        )
        .await,
    )
    .await;
    assert_ne!(rotated["refresh_token"], issued["refresh_token"]);
    let new_access = rotated["access_token"].as_str().unwrap();
    assert_eq!(summaries(&app.load(new_access).await), ["saved with OAuth"]);

    // The operator sees the grant.
    let grants: Value = ok_json(
        app.call(
            reqwest::Method::GET,
            &format!("/admin/namespaces/{}/grants", fresh.ns),
            ADMIN,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(grants["grants"].as_array().unwrap().len(), 1, "{grants}");
    assert_eq!(grants["grants"][0]["client_id"], client_id.as_str());

    // The spent refresh token again: it leaked, so the whole grant goes.
    let replay = token_request(
        app,
        &[("grant_type", "refresh_token"), ("refresh_token", refresh)],
        Some((&client_id, &secret)),
    )
    .await;
    oauth_error(replay, 400, "invalid_grant").await;
    let after = app
        .get(Some(new_access), &[("mode", "load")])
        .send()
        .await
        .unwrap();
    assert_eq!(
        after.headers()["www-authenticate"],
        r#"Bearer error="invalid_token""#
    );
    error_json(after, 401, "invalid_token").await;
    let newest = token_request(
        app,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", rotated["refresh_token"].as_str().unwrap()),
        ],
        Some((&client_id, &secret)),
    )
    .await;
    oauth_error(newest, 400, "invalid_grant").await;
    // API tokens are untouched.
    assert_eq!(
        summaries(&app.load(&fresh.token).await),
        ["saved with OAuth"]
    );
}

/// A redirect URI added after the client: the GPT editor shows its callback only once saved.
#[tokio::test]
async fn a_redirect_uri_can_be_added_later() {
    let fresh = spawn_oauth(StoreKind::Sqlite, |_| {}).await;
    let app = &fresh.app;
    let (client_id, _) = operator_client(app, CALLBACK).await;
    let later = "https://chatgpt.com/aip/g-kioku-test/oauth/callback";
    let added = app
        .call(
            reqwest::Method::POST,
            &format!("/admin/oauth/clients/{client_id}/redirect_uris"),
            ADMIN,
        )
        .json(&serde_json::json!({ "redirect_uri": later }))
        .send()
        .await
        .unwrap();
    let added: Value = ok_json(added).await;
    assert_eq!(added["redirect_uris"], serde_json::json!([CALLBACK, later]));
    let back = authorize_with_token(
        app,
        &[
            ("response_type", "code"),
            ("client_id", &client_id),
            ("redirect_uri", later),
        ],
        &fresh.token,
    )
    .await;
    assert!(back.as_str().starts_with(later), "{back}");
}

/// An operator ends a grant: its tokens stop working at once.
#[tokio::test]
async fn an_operator_revokes_a_grant() {
    let fresh = spawn_oauth(StoreKind::Sqlite, |_| {}).await;
    let app = &fresh.app;
    let (client_id, secret) = operator_client(app, CALLBACK).await;
    let params = [("response_type", "code"), ("client_id", client_id.as_str())];
    let code = param(
        &authorize_with_token(app, &params, &fresh.token).await,
        "code",
    )
    .unwrap();
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
    ];
    let issued = tokens(token_request(app, &form, Some((&client_id, &secret))).await).await;
    let access = issued["access_token"].as_str().unwrap();
    assert_eq!(app.load(access).await["status"], "empty");

    let path = format!("/admin/namespaces/{}/grants", fresh.ns);
    let grants: Value = ok_json(
        app.call(reqwest::Method::GET, &path, ADMIN)
            .send()
            .await
            .unwrap(),
    )
    .await;
    let grant = grants["grants"][0]["id"].as_str().unwrap();
    let revoke = |id: String| {
        app.call(
            reqwest::Method::DELETE,
            &format!("/admin/oauth/grants/{id}"),
            ADMIN,
        )
        .send()
    };
    assert_eq!(revoke(grant.to_owned()).await.unwrap().status(), 200);
    let refused = app
        .get(Some(access), &[("mode", "load")])
        .send()
        .await
        .unwrap();
    error_json(refused, 401, "invalid_token").await;
    assert_eq!(revoke(grant.to_owned()).await.unwrap().status(), 404);
    assert_eq!(revoke("not-a-grant".into()).await.unwrap().status(), 404);
}
