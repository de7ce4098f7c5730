//! The upstream OpenID Provider that sign-in can be delegated to: where to send the person
//! (the authorization code flow with PKCE and a nonce), and who came back, from a verified ID
//! token. It knows nothing of HTTP serving; the caller keeps a [`PendingSignIn`] between
//! [`Upstream::begin`] and [`Upstream::finish`], found again by its `state`.

use std::sync::{PoisonError, RwLock};
use std::time::Duration;

use openidconnect::core::{
    CoreAuthenticationFlow, CoreClient, CoreErrorResponseType, CoreJsonWebKeySet,
    CoreProviderMetadata,
};
use openidconnect::url::{Host, Url};
use openidconnect::{
    AuthorizationCode, ClaimsVerificationError, ClientId, ClientSecret, CsrfToken, DiscoveryError,
    EndpointMaybeSet, EndpointNotSet, EndpointSet, HttpClientError, IssuerUrl, Nonce,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, RequestTokenError,
    SignatureVerificationError, StandardErrorResponse, TokenResponse, TokenUrl,
};
use serde::{Deserialize, Serialize};
use tokio::sync::OnceCell;

/// Longest any one call to the provider may take, so that a slow provider cannot hold a
/// sign-in (and the worker serving it) indefinitely.
const HTTP_TIMEOUT: Duration = Duration::from_secs(10);

/// How kioku is registered at the provider.
#[derive(Clone)]
pub struct OidcSettings {
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
    /// kioku's callback, exactly as registered at the provider.
    pub redirect_uri: String,
}

/// What the caller keeps while the person is at the provider; secret, so it is neither shown
/// nor logged.
#[derive(Clone, Serialize, Deserialize)]
pub struct PendingSignIn {
    /// Comes back on the callback; the caller finds this record by it (RFC 6749 §10.12).
    pub state: String,
    /// Must come back inside the ID token (OpenID Connect Core 1.0 §3.1.2.1, §3.1.3.7 rule 11).
    pub nonce: String,
    /// Proves at the token endpoint that whoever began the sign-in finishes it (RFC 7636 §4.5).
    pub pkce_verifier: String,
}

/// Who signed in: the pair that identifies a person, since `sub` is unique only within its
/// issuer (OpenID Connect Core 1.0 §2). Nothing else (an email address, say) is an identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    pub issuer: String,
    pub subject: String,
}

type HttpError = HttpClientError<reqwest::Error>;
type TokenError = RequestTokenError<HttpError, StandardErrorResponse<CoreErrorResponseType>>;

/// Why a sign-in through the provider failed. The messages name the step, never a secret, an
/// authorization code or a token; the cause is kept as the source.
#[derive(Debug, thiserror::Error)]
pub enum OidcError {
    #[error("the OpenID Connect setting {setting} is not a URL")]
    Url {
        setting: &'static str,
        #[source]
        source: openidconnect::url::ParseError,
    },
    #[error("the OpenID Connect setting {setting} {problem}")]
    Setting {
        setting: &'static str,
        problem: &'static str,
    },
    #[error("the HTTP client for the OpenID Provider could not be built")]
    HttpClient(#[source] reqwest::Error),
    #[error("the OpenID Provider's configuration could not be discovered")]
    Discovery(#[source] DiscoveryError<HttpError>),
    #[error("the OpenID Provider announces no token endpoint")]
    NoTokenEndpoint,
    #[error("the OpenID Provider's signing keys could not be fetched")]
    Keys(#[source] DiscoveryError<HttpError>),
    #[error("the authorization code could not be exchanged at the OpenID Provider")]
    Exchange(#[source] TokenError),
    #[error("the OpenID Provider answered without an ID token")]
    NoIdToken,
    #[error("the OpenID Provider's ID token is not valid")]
    IdToken(#[source] ClaimsVerificationError),
}

/// A client that knows the provider's authorization and token endpoints.
type DiscoveredClient = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointSet,
    EndpointMaybeSet,
>;

/// What discovery found (OpenID Connect Discovery 1.0 §4).
struct Discovered {
    /// Its signing keys are fetched again when an ID token names a key they lack: providers
    /// rotate keys, and kioku runs for longer than one key lives.
    metadata: RwLock<CoreProviderMetadata>,
    token_url: TokenUrl,
}

/// The upstream OpenID Provider, discovered on first use.
pub struct Upstream {
    issuer: IssuerUrl,
    client_id: ClientId,
    client_secret: ClientSecret,
    redirect_uri: RedirectUrl,
    http: reqwest::Client,
    /// Lazy, so that kioku starts while the provider is unreachable; a failed discovery leaves
    /// it empty, and the next sign-in tries again.
    discovered: OnceCell<Discovered>,
}

impl Upstream {
    pub fn new(settings: OidcSettings) -> Result<Self, OidcError> {
        let issuer = checked_url("issuer", &settings.issuer)?;
        // The issuer is compared as a string with the `iss` of every ID token, and discovery
        // appends to it: no query or fragment (OpenID Connect Discovery 1.0 §3).
        if issuer.query().is_some() || issuer.fragment().is_some() {
            return Err(setting("issuer", "must have no query or fragment"));
        }
        // RFC 6749 §3.1.2: the redirection endpoint has no fragment.
        if checked_url("redirect_uri", &settings.redirect_uri)?
            .fragment()
            .is_some()
        {
            return Err(setting("redirect_uri", "must have no fragment"));
        }
        if settings.client_id.is_empty() {
            return Err(setting("client_id", "is empty"));
        }
        // A confidential client authenticates at the token endpoint (RFC 6749 §2.3).
        if settings.client_secret.is_empty() {
            return Err(setting("client_secret", "is empty"));
        }
        let http = reqwest::Client::builder()
            // Following redirects would let a provider's answer send kioku's requests anywhere
            // (server-side request forgery), as the openidconnect crate warns.
            .redirect(reqwest::redirect::Policy::none())
            .timeout(HTTP_TIMEOUT)
            .build()
            .map_err(OidcError::HttpClient)?;
        Ok(Self {
            // The settings were parsed above, so these constructors cannot fail.
            issuer: IssuerUrl::new(settings.issuer).map_err(url_error("issuer"))?,
            client_id: ClientId::new(settings.client_id),
            client_secret: ClientSecret::new(settings.client_secret),
            redirect_uri: RedirectUrl::new(settings.redirect_uri)
                .map_err(url_error("redirect_uri"))?,
            http,
            discovered: OnceCell::new(),
        })
    }

    pub fn issuer(&self) -> &str {
        self.issuer.as_str()
    }

    /// Where to send the person (authorization code flow, scope openid, PKCE S256, nonce,
    /// state), and what to keep until they come back.
    pub async fn begin(&self) -> Result<(String, PendingSignIn), OidcError> {
        let client = self.client(self.discovered().await?);
        // RFC 7636 §4.2: S256, never `plain`.
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        // The client adds the `openid` scope itself (OpenID Connect Core 1.0 §3.1.2.1).
        let (url, state, nonce) = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .set_pkce_challenge(challenge)
            .url();
        let pending = PendingSignIn {
            state: state.into_secret(),
            nonce: nonce.secret().clone(),
            pkce_verifier: verifier.into_secret(),
        };
        Ok((url.into(), pending))
    }

    /// Exchanges the code (with the PKCE verifier), verifies the ID token (signature, issuer,
    /// audience, nonce, expiry) and returns who signed in. The caller has already matched the
    /// callback's `state` to `pending`.
    pub async fn finish(&self, code: &str, pending: &PendingSignIn) -> Result<Person, OidcError> {
        let discovered = self.discovered().await?;
        let mut client = self.client(discovered);
        // OpenID Connect Core 1.0 §3.1.3.1, with the verifier of RFC 7636 §4.5; the client
        // authenticates with its secret (§9, client_secret_basic).
        let response = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .set_pkce_verifier(PkceCodeVerifier::new(pending.pkce_verifier.clone()))
            .request_async(&self.http)
            .await
            .map_err(|error| OidcError::Exchange(without_body(error)))?;
        let id_token = response.id_token().ok_or(OidcError::NoIdToken)?;
        let nonce = Nonce::new(pending.nonce.clone());
        // The verifier applies OpenID Connect Core 1.0 §3.1.3.7: the signature with the
        // provider's keys and an announced algorithm, never `none` (rules 6-8), `iss` equal to
        // the issuer (rule 2), `aud` holding the client id and `azp` when there are others
        // (rules 3-5), `exp` in the future (rule 9) and the nonce (rule 11).
        let mut verified = id_token.claims(&client.id_token_verifier(), &nonce);
        if let Err(ClaimsVerificationError::SignatureVerification(
            SignatureVerificationError::NoMatchingKey,
        )) = verified
        {
            client = self.refresh_keys(discovered).await?;
            verified = id_token.claims(&client.id_token_verifier(), &nonce);
        }
        let claims = verified.map_err(OidcError::IdToken)?;
        Ok(Person {
            issuer: claims.issuer().to_string(),
            subject: claims.subject().to_string(),
        })
    }

    async fn discovered(&self) -> Result<&Discovered, OidcError> {
        self.discovered
            .get_or_try_init(|| async {
                // Also checks that the document's issuer is ours (OpenID Connect Discovery 1.0
                // §4.3), and fetches the signing keys.
                let metadata =
                    CoreProviderMetadata::discover_async(self.issuer.clone(), &self.http)
                        .await
                        .map_err(OidcError::Discovery)?;
                let token_url = metadata
                    .token_endpoint()
                    .cloned()
                    .ok_or(OidcError::NoTokenEndpoint)?;
                Ok(Discovered {
                    metadata: RwLock::new(metadata),
                    token_url,
                })
            })
            .await
    }

    fn client(&self, discovered: &Discovered) -> DiscoveredClient {
        let metadata = discovered
            .metadata
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        CoreClient::from_provider_metadata(
            metadata,
            self.client_id.clone(),
            Some(self.client_secret.clone()),
        )
        .set_token_uri(discovered.token_url.clone())
        .set_redirect_uri(self.redirect_uri.clone())
    }

    /// Fetches the provider's signing keys anew (OpenID Connect Core 1.0 §10.1.1: a provider
    /// rotates keys by publishing new ones at its `jwks_uri`).
    async fn refresh_keys(&self, discovered: &Discovered) -> Result<DiscoveredClient, OidcError> {
        let jwks_uri = discovered
            .metadata
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .jwks_uri()
            .clone();
        let keys = CoreJsonWebKeySet::fetch_async(&jwks_uri, &self.http)
            .await
            .map_err(OidcError::Keys)?;
        {
            let mut metadata = discovered
                .metadata
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            *metadata = metadata.clone().set_jwks(keys);
        }
        Ok(self.client(discovered))
    }
}

/// `value` parsed, and served over TLS unless it is on this machine: the issuer is
/// `https` (OpenID Connect Discovery 1.0 §3) and so is the redirection endpoint (RFC 6749
/// §3.1.2.1); plain `http` on a loopback address is for local runs and tests.
fn checked_url(name: &'static str, value: &str) -> Result<Url, OidcError> {
    let url = Url::parse(value).map_err(url_error(name))?;
    let loopback = match url.host() {
        Some(Host::Domain(domain)) => domain == "localhost",
        Some(Host::Ipv4(address)) => address.is_loopback(),
        Some(Host::Ipv6(address)) => address.is_loopback(),
        None => false,
    };
    match url.scheme() {
        "https" => Ok(url),
        "http" if loopback => Ok(url),
        _ => Err(setting(
            name,
            "must use https (or http on a loopback address)",
        )),
    }
}

fn url_error(setting: &'static str) -> impl Fn(openidconnect::url::ParseError) -> OidcError {
    move |source| OidcError::Url { setting, source }
}

fn setting(setting: &'static str, problem: &'static str) -> OidcError {
    OidcError::Setting { setting, problem }
}

/// `error` without the response body it may carry: a token response that failed to parse can
/// still hold tokens, which would show in the error's `Debug`.
fn without_body(error: TokenError) -> TokenError {
    match error {
        RequestTokenError::Parse(source, _body) => RequestTokenError::Parse(source, Vec::new()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(issuer: &str, redirect_uri: &str) -> OidcSettings {
        OidcSettings {
            issuer: issuer.to_owned(),
            client_id: "kioku".to_owned(),
            client_secret: "a-client-secret".to_owned(),
            redirect_uri: redirect_uri.to_owned(),
        }
    }

    fn refusal(issuer: &str, redirect_uri: &str) -> String {
        match Upstream::new(settings(issuer, redirect_uri)) {
            Ok(_) => panic!("{issuer} and {redirect_uri} were accepted"),
            Err(error) => error.to_string(),
        }
    }

    const CALLBACK: &str = "https://kioku.example/oauth/callback";

    #[test]
    fn https_urls_and_loopback_http_are_accepted() {
        let upstream = Upstream::new(settings("https://accounts.example", CALLBACK)).unwrap();
        assert_eq!(upstream.issuer(), "https://accounts.example");
        for local in [
            "http://127.0.0.1:8080",
            "http://localhost:8080",
            "http://[::1]:8080",
        ] {
            Upstream::new(settings(local, &format!("{local}/callback"))).unwrap();
        }
    }

    #[test]
    fn settings_that_cannot_work_are_refused_by_name() {
        assert!(refusal("accounts.example", CALLBACK).contains("issuer is not a URL"));
        assert!(refusal("http://accounts.example", CALLBACK).contains("issuer must use https"));
        assert!(refusal("https://a.example/?tenant=1", CALLBACK).contains("no query"));
        assert!(refusal("https://a.example/#x", CALLBACK).contains("no query or fragment"));
        let issuer = "https://accounts.example";
        assert!(refusal(issuer, "http://kioku.example/cb").contains("redirect_uri must use https"));
        assert!(refusal(issuer, "https://kioku.example/cb#x").contains("no fragment"));
        let mut empty = settings(issuer, CALLBACK);
        empty.client_secret.clear();
        let error = Upstream::new(empty).err().unwrap().to_string();
        assert!(error.contains("client_secret is empty"), "{error}");
    }

    #[tokio::test]
    async fn an_unreachable_provider_fails_each_sign_in_and_is_tried_again() {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let upstream = Upstream::new(settings("http://127.0.0.1:1", CALLBACK)).unwrap();
        for _ in 0..2 {
            let error = upstream.begin().await.err().unwrap();
            assert!(matches!(error, OidcError::Discovery(_)), "{error}");
        }
        let pending = PendingSignIn {
            state: "the-state".to_owned(),
            nonce: "the-nonce".to_owned(),
            pkce_verifier: "the-verifier".to_owned(),
        };
        let error = upstream.finish("the-code", &pending).await.err().unwrap();
        assert!(matches!(error, OidcError::Discovery(_)), "{error}");
        assert!(!error.to_string().contains("the-code"));
    }
}
