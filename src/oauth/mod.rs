//! kioku's OAuth 2.1 authorization server, and the upstream OpenID Provider that sign-in can
//! be delegated to ([`oidc`]).

pub mod oidc;
