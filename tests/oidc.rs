//! kioku's upstream OpenID Connect client (`kioku::oauth::oidc`) against a real OpenID
//! Provider (`tests/oidc-provider`): a person signs in, is told apart from others by subject,
//! and every way of replaying or tampering with a sign-in is refused.

#[path = "common/listening.rs"]
mod listening;
#[path = "common/needs.rs"]
mod needs;
#[path = "common/oidc.rs"]
mod provider;

use std::error::Error;

use kioku::oauth::oidc::{OidcError, OidcSettings, PendingSignIn, Person, Upstream};
use provider::{OpenIdProvider, sign_in_at_provider};
use reqwest::Url;

const CLIENT_ID: &str = "kioku";
const CLIENT_SECRET: &str = "the-client-secret";
/// Never served: the sign-in stops where the provider sends the browser here.
const CALLBACK: &str = "http://127.0.0.1:1/callback";

fn provider() -> Option<OpenIdProvider> {
    OpenIdProvider::start(CLIENT_ID, CLIENT_SECRET, CALLBACK)
}

fn upstream(provider: &OpenIdProvider) -> Upstream {
    Upstream::new(OidcSettings {
        issuer: provider.issuer().to_owned(),
        client_id: CLIENT_ID.to_owned(),
        client_secret: CLIENT_SECRET.to_owned(),
        redirect_uri: CALLBACK.to_owned(),
    })
    .unwrap()
}

/// A browser of its own for each sign-in, so that no session at the provider carries over.
fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .cookie_store(true)
        .build()
        .unwrap()
}

/// Signs in as `login` up to the callback; returns its code and what kioku kept meanwhile.
async fn code_for(upstream: &Upstream, login: &str) -> (String, PendingSignIn) {
    let (url, pending) = upstream.begin().await.unwrap();
    let callback = Url::parse(&sign_in_at_provider(&browser(), &url, login).await).unwrap();
    assert_eq!(callback.as_str().split('?').next(), Some(CALLBACK));
    let param = |name: &str| {
        let found = callback.query_pairs().find(|(key, _)| key == name);
        found.map(|(_, value)| value.into_owned())
    };
    assert_eq!(param("state").as_deref(), Some(pending.state.as_str()));
    (param("code").expect("the callback has a code"), pending)
}

async fn sign_in(upstream: &Upstream, login: &str) -> Person {
    let (code, pending) = code_for(upstream, login).await;
    upstream.finish(&code, &pending).await.unwrap()
}

/// `error`, and that neither it nor any of its causes shows one of `secrets`.
fn refused(result: Result<Person, OidcError>, secrets: &[&str]) -> OidcError {
    let error = result.expect_err("refused");
    let mut cause: Option<&dyn Error> = Some(&error);
    while let Some(now) = cause {
        for secret in secrets {
            assert!(!now.to_string().contains(secret), "{now} shows a secret");
        }
        cause = now.source();
    }
    error
}

#[tokio::test]
async fn people_are_known_by_issuer_and_subject() {
    let Some(provider) = provider() else { return };
    let upstream = upstream(&provider);
    let alice = sign_in(&upstream, "alice").await;
    assert_eq!(
        alice,
        Person {
            issuer: provider.issuer().to_owned(),
            subject: "sub-alice".to_owned()
        }
    );
    let bob = sign_in(&upstream, "bob").await;
    assert_eq!(bob.issuer, alice.issuer);
    assert_eq!(bob.subject, "sub-bob");
    assert_eq!(sign_in(&upstream, "alice").await, alice);
}

#[tokio::test]
async fn a_replayed_or_tampered_sign_in_is_refused() {
    let Some(provider) = provider() else { return };
    let upstream = upstream(&provider);
    let (_, other) = upstream.begin().await.unwrap();

    // OpenID Connect Core 1.0 §3.1.3.7 rule 11: the ID token carries the nonce of this sign-in.
    let (code, pending) = code_for(&upstream, "alice").await;
    let wrong_nonce = PendingSignIn {
        nonce: other.nonce.clone(),
        ..pending.clone()
    };
    let secrets = [
        code.as_str(),
        &pending.nonce,
        &other.nonce,
        &pending.pkce_verifier,
    ];
    let error = refused(upstream.finish(&code, &wrong_nonce).await, &secrets);
    assert!(matches!(error, OidcError::IdToken(_)), "{error}");

    // RFC 7636 §4.6: the code goes only to whoever holds the verifier of its challenge.
    let (code, pending) = code_for(&upstream, "alice").await;
    let wrong_verifier = PendingSignIn {
        pkce_verifier: other.pkce_verifier.clone(),
        ..pending.clone()
    };
    let secrets = [code.as_str(), &pending.pkce_verifier, &other.pkce_verifier];
    let error = refused(upstream.finish(&code, &wrong_verifier).await, &secrets);
    assert!(matches!(error, OidcError::Exchange(_)), "{error}");

    // RFC 6749 §4.1.2: a code is used once.
    let (code, pending) = code_for(&upstream, "alice").await;
    upstream.finish(&code, &pending).await.unwrap();
    let error = refused(upstream.finish(&code, &pending).await, &[&code]);
    assert!(matches!(error, OidcError::Exchange(_)), "{error}");
}

#[tokio::test]
async fn a_new_signing_key_is_fetched_when_the_provider_rotates_its_keys() {
    let Some(mut provider) = provider() else {
        return;
    };
    let upstream = upstream(&provider);
    let before = sign_in(&upstream, "alice").await;
    // Same issuer, a key the discovered key set does not hold.
    provider.restart();
    assert_eq!(sign_in(&upstream, "alice").await, before);
}
