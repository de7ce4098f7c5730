//! A real OpenID Provider for the tests (`tests/oidc-provider/server.mjs`, the certified
//! `oidc-provider`, which `scripts/test` installs), stopped when dropped, and a person signing
//! in at it as a browser would.
#![allow(dead_code)] // each test crate uses part of it

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::{StatusCode, Url};

/// How long the provider may take to print its `listening` line.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// Most requests one sign-in takes: authorize, form, post, resume, and some to spare.
const MAX_HOPS: usize = 10;

pub struct OpenIdProvider {
    child: Child,
    issuer: String,
    /// The client id, the client secret and the redirect URI it was started with.
    client: [String; 3],
}

impl OpenIdProvider {
    /// Starts a provider on a free port of 127.0.0.1 that knows one confidential client, and
    /// waits until it accepts connections; `None` once the test is skipped for want of it.
    pub fn start(client_id: &str, client_secret: &str, redirect_uri: &str) -> Option<Self> {
        if !crate::needs::npm_packages("tests/oidc-provider") {
            return None;
        }
        let client = [client_id, client_secret, redirect_uri].map(str::to_owned);
        let (child, issuer) = spawn(&client, 0);
        Some(Self {
            child,
            issuer,
            client,
        })
    }

    /// Its issuer identifier, `http://127.0.0.1:<port>`.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Stops it and starts it again at the same issuer with a new signing key, as a provider
    /// rotating its keys. Its sessions and codes are gone.
    pub fn restart(&mut self) {
        stop(&mut self.child);
        let port = Url::parse(&self.issuer).unwrap().port().unwrap();
        let (child, issuer) = spawn(&self.client, port);
        assert_eq!(issuer, self.issuer);
        self.child = child;
    }
}

impl Drop for OpenIdProvider {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

fn spawn(client: &[String; 3], port: u16) -> (Child, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oidc-provider");
    let mut child = Command::new("node")
        .arg(dir.join("server.mjs"))
        .args(client)
        .arg(port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node runs the OpenID Provider");
    match crate::listening::listening_line(&mut child, START_TIMEOUT) {
        Ok(issuer) => (child, issuer),
        Err(first) => {
            stop(&mut child);
            panic!("the OpenID Provider did not start: {first:?}");
        }
    }
}

fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Signs in at the provider as `login`, from `authorize_url` on, the way a browser would, and
/// returns the URL the provider then sends the browser to: the relying party's callback, with
/// `code` and `state`.
///
/// `client` is the browser: built with `redirect::Policy::none()` (each hop is followed here,
/// to stop at the callback) and a cookie store of its own, since a browser that is already
/// signed in at the provider would not be asked who it is.
pub async fn sign_in_at_provider(
    client: &reqwest::Client,
    authorize_url: &str,
    login: &str,
) -> String {
    let provider = Url::parse(authorize_url).unwrap().origin();
    let mut response = client.get(authorize_url).send().await.unwrap();
    let mut signed_in = false;
    for _ in 0..MAX_HOPS {
        let here = response.url().clone();
        let status = response.status();
        if status.is_redirection() {
            let location = response.headers()["location"].to_str().unwrap();
            let next = here.join(location).unwrap();
            if next.origin() != provider {
                assert!(
                    signed_in,
                    "the provider sent the browser back without asking who it is"
                );
                return next.into();
            }
            response = client.get(next).send().await.unwrap();
        } else if status == StatusCode::OK && here.path().starts_with("/interaction/") {
            assert!(!signed_in, "the provider asked again after the sign-in");
            // The form posts back to its own address.
            response = client
                .post(here)
                .form(&[("login", login)])
                .send()
                .await
                .unwrap();
            signed_in = true;
        } else {
            let body = response.text().await.unwrap_or_default();
            panic!("the provider answered {status} at {here}: {body}");
        }
    }
    panic!("the sign-in took more than {MAX_HOPS} requests");
}
