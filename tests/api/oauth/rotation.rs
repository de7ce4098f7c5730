//! A grant made by typing an API token ends with that token: once the operator takes it out of
//! `API_TOKENS`, its access and refresh tokens are refused on every instance, even while
//! another token of the same namespace stays.

use kioku::config::StoreKind;
use serde_json::Value;

use super::flow::{connected_client, oauth_error, spawn_oauth, token_request, tokens};
use crate::helpers::on_both_stores;
use crate::helpers::{TestApp, api_tokens, error_json, on_store, spawn_app_with};

on_both_stores!(a_grant_ends_with_its_api_token,);

const LOAD: &[(&str, &str)] = &[("mode", "load")];

/// What a client connected with one token holds.
struct Connected {
    client_id: String,
    issued: Value,
}

impl Connected {
    async fn with(app: &TestApp, token: &str) -> Self {
        let (client_id, issued) = connected_client(app, token).await;
        Self { client_id, issued }
    }

    fn access(&self) -> &str {
        self.issued["access_token"].as_str().unwrap()
    }

    /// A refresh at `app`'s token endpoint.
    async fn refresh(&self, app: &TestApp) -> reqwest::Response {
        let form = [
            ("grant_type", "refresh_token"),
            (
                "refresh_token",
                self.issued["refresh_token"].as_str().unwrap(),
            ),
            ("client_id", &self.client_id),
        ];
        token_request(app, &form, None).await
    }
}

async fn a_grant_ends_with_its_api_token(store: StoreKind) {
    let fresh = spawn_oauth(store, |_| {}).await;
    let rotated_out = fresh.token.clone();
    let kept = format!("kept-{}", uuid::Uuid::new_v4());
    let ns = fresh.ns.clone();
    // One instance knows both tokens of the namespace; a client connects with each.
    let both = format!("{},{ns}:{rotated_out},{ns}:{kept}", api_tokens());
    let before = instance(&fresh.app, store, both).await;
    let old = Connected::with(&before, &rotated_out).await;
    let current = Connected::with(&before, &kept).await;
    assert_eq!(
        before
            .get(Some(old.access()), LOAD)
            .send()
            .await
            .unwrap()
            .status(),
        200
    );

    // The operator rotates the first token out; the next start on the same store knows only
    // the other one.
    let after = instance(&fresh.app, store, format!("{},{ns}:{kept}", api_tokens())).await;
    let refused = after.get(Some(old.access()), LOAD).send().await.unwrap();
    assert_eq!(refused.status(), 401);
    let body = error_json(refused, 401, "invalid_token").await;
    assert!(body.to_string().contains("no longer configured"), "{body}");
    oauth_error(old.refresh(&after).await, 400, "invalid_grant").await;

    let status = after
        .get(Some(current.access()), LOAD)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 200, "a grant of a token still configured stands");
    tokens(current.refresh(&after).await).await;
}

/// A server on `fresh`'s store (its SQLite file, or the same Firestore project) with `tokens`
/// and token sign-in, at the one public URL every instance of a deployment shares (the issuer
/// and audience of what it issues).
async fn instance(fresh: &TestApp, store: StoreKind, tokens: String) -> TestApp {
    let data_dir = fresh.data_dir.path().to_owned();
    spawn_app_with(move |s| {
        on_store(s, store);
        s.data_dir = data_dir;
        s.public_url = Some("http://kioku.test".into());
        s.api_tokens = Some(tokens.into());
        s.oauth.modes = vec![kioku::config::SignInMode::Token];
    })
    .await
}
