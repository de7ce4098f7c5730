//! The doors a request comes in by, named once: the usage guide writes lines for some, an
//! access token covers some, and the gate counts and audits attempts at each.

/// Where a request came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// The GPT Action's API: `/` and `/forget`.
    Api,
    /// The MCP endpoint, `/mcp`.
    Mcp,
    /// The operator's endpoints, `/admin`.
    Admin,
    /// The OAuth consent page, where a person may type an API token.
    Consent,
    /// The memory page's sign-in.
    Page,
    /// Dynamic client registration.
    Register,
    /// A sign-in begun at the OpenID Provider.
    Provider,
    /// A client metadata document fetched for an authorization request.
    ClientDocument,
    /// The token endpoint, where a client presents a refresh token.
    Token,
}

impl Door {
    /// The door's name in audit lines.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Api => "api",
            Self::Mcp => "mcp",
            Self::Admin => "admin",
            Self::Consent => "consent",
            Self::Page => "page",
            Self::Register => "register",
            Self::Provider => "provider",
            Self::ClientDocument => "client_document",
            Self::Token => "token",
        }
    }
}
