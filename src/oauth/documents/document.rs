//! What a client ID metadata document must be (draft-ietf-oauth-client-id-metadata-document,
//! sections 3 and 4): its URL, and the client it describes.

use chrono::Utc;
use serde::Deserialize;
use url::Url;

use crate::domain::is_loopback_host;
use crate::oauth::client::{check_flows, check_name};
use crate::oauth::error::{OAuthCode, OAuthError};
use crate::oauth::redirect_uri;
use crate::store::Client;

/// Longest client ID URL, in bytes.
const MAX_URL_BYTES: usize = 2048;
/// Most redirect URIs a document may list.
const MAX_REDIRECT_URIS: usize = 10;

/// A client ID that is a metadata document's URL: `https`, with a path, in the form a URL
/// parser writes it (so no `.` or `..` segment, no default port, a lowercase host), with no
/// fragment and no user name or password (section 3). With `loopback_http` (a developer's
/// setting), also `http` on a loopback host, so that a document can be tried locally.
pub fn document_url(client_id: &str, loopback_http: bool) -> Option<Url> {
    if client_id.len() > MAX_URL_BYTES {
        return None;
    }
    let url = Url::parse(client_id).ok()?;
    let scheme_fits = match url.scheme() {
        "https" => true,
        "http" => loopback_http && is_loopback_host(&url),
        _ => false,
    };
    let fits = scheme_fits
        && url.as_str() == client_id
        && url.path() != "/"
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none()
        && url.host_str().is_some();
    fits.then_some(url)
}

/// The client a client ID that is a document's URL names at the token endpoint: a public one
/// (section 4.1 forbids shared secrets), which proves itself with PKCE. Its document is not
/// fetched again there: the grant it presents was given to this client ID.
pub fn public_client(client_id: &str, loopback_http: bool) -> Option<Client> {
    let url = document_url(client_id, loopback_http)?;
    Some(Client {
        id: client_id.to_owned(),
        name: host(&url),
        secret_digest: None,
        redirect_uris: Vec::new(),
        registered: true,
        created_at: Utc::now(),
        expires_at: None,
    })
}

/// A client ID metadata document, as section 4.1 has it; other metadata is ignored.
#[derive(Deserialize)]
struct Document {
    client_id: String,
    client_name: Option<String>,
    #[serde(default)]
    redirect_uris: Vec<String>,
    token_endpoint_auth_method: Option<String>,
    /// The methods the client can use besides its preferred one (ChatGPT's documents prefer
    /// `private_key_jwt` and list `none` here).
    token_endpoint_auth_methods_supported: Option<Vec<String>>,
    grant_types: Option<Vec<String>>,
    response_types: Option<Vec<String>>,
    client_secret: Option<serde_json::Value>,
}

/// The client the document at `url` describes, from its bytes. Its name is the one it gives,
/// with the host it was fetched from (section 6.1: the person judges the host).
pub fn client(url: &Url, bytes: &[u8]) -> Result<Client, OAuthError> {
    let invalid = |why: String| Err(OAuthError::refused(OAuthCode::InvalidClientMetadata, why));
    // What the page says names no text of the document's: only what is wrong with it.
    let document: Document = match serde_json::from_slice(bytes) {
        Ok(document) => document,
        Err(_) => return invalid("it is not a JSON client metadata document".into()),
    };
    if document.client_id != url.as_str() {
        return invalid("its client_id is not the URL it was fetched from".into());
    }
    if document.client_secret.is_some() {
        return invalid("it holds a client_secret, which a public document must not".into());
    }
    // A public client, proving itself with PKCE: one that prefers another method is taken
    // when it also offers `none`, as a server that knows only `none` negotiates it.
    let offers_none = (document.token_endpoint_auth_methods_supported.iter())
        .flatten()
        .any(|method| method == "none");
    match document.token_endpoint_auth_method.as_deref() {
        None | Some("none") => {}
        Some(_) if offers_none => {}
        Some(other) => {
            return invalid(format!(
                "its token_endpoint_auth_method is {other:?} and it does not offer none: this \
                 server takes only none (with PKCE)"
            ));
        }
    }
    if check_flows(
        document.grant_types.as_deref(),
        document.response_types.as_deref(),
    )
    .is_err()
    {
        return invalid(
            "its grant_types or response_types ask for more than authorization_code, \
             refresh_token and code"
                .into(),
        );
    }
    if document.redirect_uris.is_empty() || document.redirect_uris.len() > MAX_REDIRECT_URIS {
        return invalid(format!(
            "it must list 1 to {MAX_REDIRECT_URIS} redirect_uris"
        ));
    }
    if document
        .redirect_uris
        .iter()
        .any(|uri| redirect_uri::check(uri).is_err())
    {
        return invalid(
            "one of its redirect_uris is not one this server takes: https, http on a loopback \
             address, or an app's own scheme"
                .into(),
        );
    }
    let host = host(url);
    let name = match document.client_name.as_deref() {
        Some(name) => format!("{} ({host})", check_name(name)?),
        None => host,
    };
    Ok(Client {
        id: url.as_str().to_owned(),
        name,
        secret_digest: None,
        redirect_uris: document.redirect_uris,
        registered: true,
        created_at: Utc::now(),
        expires_at: None,
    })
}

/// The host, with its port when it is not https's.
fn host(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_url_is_https_with_a_path_as_a_parser_writes_it() {
        for good in [
            "https://claude.ai/oauth/mcp-oauth-client-metadata",
            "https://vscode.dev/oauth/client-metadata.json",
            "https://app.example:8443/client.json",
        ] {
            assert!(document_url(good, false).is_some(), "{good}");
        }
        for bad in [
            "http://app.example/client.json",
            "https://app.example",
            "https://app.example/",
            "https://app.example/a/../client.json",
            "https://app.example/./client.json",
            "https://APP.example/client.json",
            "https://app.example:443/client.json",
            "https://user:pw@app.example/client.json",
            "https://app.example/client.json#x",
            "0123456789abcdef0123456789abcdef",
        ] {
            assert!(document_url(bad, false).is_none(), "{bad}");
        }
    }

    #[test]
    fn http_on_a_loopback_host_is_a_document_url_only_for_a_developer() {
        for local in [
            "http://127.0.0.1:8000/client.json",
            "http://localhost:8000/client.json",
            "http://[::1]:8000/client.json",
        ] {
            assert!(document_url(local, false).is_none(), "{local}");
            assert!(document_url(local, true).is_some(), "{local}");
        }
        for never in [
            "http://app.example/client.json",
            "http://10.0.0.1/client.json",
            "http://localhost.app.example/client.json",
            "http://127.0.0.1:8000/",
        ] {
            assert!(document_url(never, true).is_none(), "{never}");
        }
    }

    #[test]
    fn a_document_names_its_own_url_lists_redirects_and_keeps_no_secret() {
        let url = Url::parse("https://app.example/client.json").unwrap();
        let read = |json: serde_json::Value| client(&url, json.to_string().as_bytes());
        let good = read(serde_json::json!({
            "client_id": url.as_str(), "client_name": "App",
            "redirect_uris": ["http://127.0.0.1/cb"], "token_endpoint_auth_method": "none",
        }))
        .unwrap();
        assert_eq!(good.name, "App (app.example)");
        assert!(good.secret_digest.is_none());
        // ChatGPT's shape: it prefers private_key_jwt, and offers none.
        let offers_none = read(serde_json::json!({
            "client_id": url.as_str(), "redirect_uris": ["https://app.example/cb"],
            "token_endpoint_auth_method": "private_key_jwt",
            "token_endpoint_auth_methods_supported": ["none", "private_key_jwt"],
        }));
        assert!(offers_none.unwrap().secret_digest.is_none());
        for bad in [
            serde_json::json!({"client_id": "https://other.example/client.json",
                               "redirect_uris": ["https://app.example/cb"]}),
            serde_json::json!({"client_id": url.as_str(), "redirect_uris": []}),
            serde_json::json!({"client_id": url.as_str(), "redirect_uris": ["http://evil.example/cb"]}),
            serde_json::json!({"client_id": url.as_str(), "redirect_uris": ["https://app.example/cb"],
                               "token_endpoint_auth_method": "client_secret_basic"}),
            serde_json::json!({"client_id": url.as_str(), "redirect_uris": ["https://app.example/cb"],
                               "token_endpoint_auth_method": "private_key_jwt",
                               "token_endpoint_auth_methods_supported": ["private_key_jwt"]}),
            serde_json::json!({"client_id": url.as_str(), "redirect_uris": ["https://app.example/cb"],
                               "client_secret": "s"}),
            serde_json::json!({"client_id": url.as_str(), "redirect_uris": ["https://app.example/cb"],
                               "client_name": "\u{202e}ppA"}),
        ] {
            assert!(read(bad.clone()).is_err(), "{bad}");
        }
    }
}
