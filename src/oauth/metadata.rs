//! What a client discovers: the authorization server's metadata (RFC 8414) and each protected
//! resource's (RFC 9728).

use serde_json::{Value, json};

use super::request::SCOPE;

/// Where each endpoint is, relative to the issuer.
pub const AUTHORIZE_PATH: &str = "/oauth/authorize";
pub const TOKEN_PATH: &str = "/oauth/token";
pub const REGISTER_PATH: &str = "/oauth/register";
pub const REVOKE_PATH: &str = "/oauth/revoke";
pub const CALLBACK_PATH: &str = "/oauth/callback";

/// RFC 8414, section 2.
pub fn authorization_server(issuer: &str) -> Value {
    let auth_methods = ["client_secret_basic", "client_secret_post", "none"];
    json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}{AUTHORIZE_PATH}"),
        "token_endpoint": format!("{issuer}{TOKEN_PATH}"),
        "registration_endpoint": format!("{issuer}{REGISTER_PATH}"),
        "revocation_endpoint": format!("{issuer}{REVOKE_PATH}"),
        "scopes_supported": [SCOPE],
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": auth_methods,
        "revocation_endpoint_auth_methods_supported": auth_methods,
        "code_challenge_methods_supported": ["S256"],
        // RFC 9207: the redirect names its issuer.
        "authorization_response_iss_parameter_supported": true,
        // A client_id may be the URL of the client's metadata document (MCP 2025-11-25).
        "client_id_metadata_document_supported": true,
    })
}

/// RFC 9728, section 2: `resource` takes bearer tokens in the `Authorization` header, from
/// `issuer` when OAuth is on.
pub fn protected_resource(resource: &str, issuer: Option<&str>) -> Value {
    let mut metadata = json!({
        "resource": resource,
        "bearer_methods_supported": ["header"],
        "resource_name": "kioku",
    });
    if let Some(issuer) = issuer {
        metadata["authorization_servers"] = json!([issuer]);
        metadata["scopes_supported"] = json!([SCOPE]);
    }
    metadata
}
