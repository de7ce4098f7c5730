//! The OAuth 2.1 authorization server inside kioku, and the resource server's check of the
//! tokens it issues. Every grant opens one namespace: the one of the API token the person
//! typed, or a person's own, from who an OpenID Provider says they are.
//!
//! - [`AuthorizationServer`] (`server`): the issuer, its store, lifetimes and sign-in modes.
//! - `client`: registration (RFC 7591) and operators' clients; `redirect_uri`: the rules
//!   its redirect URIs keep, and which requested one matches (RFC 8252's loopback ports).
//! - `documents`: clients known by the URL of their metadata document, fetched safely.
//! - `request` and `authorize`: the authorization request, the code, sign-in upstream.
//! - `token` and `revoke`: the token endpoint (RFC 6749, PKCE, RFC 8707) and RFC 7009;
//!   `rotation`: a refresh token's rotation, kept sealed for a client's race.
//! - `access`: an access token presented to the API or to `/mcp`.
//! - [`connected`]: a namespace's grants as the memory page shows them, and disconnecting one.
//! - [`metadata`]: RFC 8414 and RFC 9728 documents. [`oidc`]: the OpenID Provider's client.
//! - `secret`, `issued`, `resource`, `error`: what is issued and kept, and why a request was
//!   refused.
//!
//! Nothing here knows HTTP; `http::routes::oauth` reads requests and writes answers.

mod access;
mod authorize;
pub mod client;
pub mod connected;
mod documents;
mod error;
mod issued;
pub mod metadata;
pub mod oidc;
mod operator;
mod pace;
mod redirect_uri;
mod refresh;
mod request;
mod resource;
mod revoke;
mod rotation;
mod secret;
mod server;
mod token;

pub use access::Access;
pub use authorize::{Finished, SignedIn};
pub use documents::{Asker, ClientDocuments, LoopbackDocuments};
pub use error::{OAuthCode, OAuthError};
pub use pace::{APPROVALS_PER_MINUTE, REFRESHES_PER_MINUTE};
pub use request::{AuthorizationParams, AuthorizationRequest, RequestError, SCOPE};
pub use resource::MCP_PATH;
pub use server::{AuthorizationServer, Lifetimes, SignIn};
pub use token::{BasicCredentials, TokenParams, TokenResponse};
