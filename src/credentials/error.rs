//! Why a request was not let in.

/// Why a request was not let in. Neither message echoes what was presented.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("Send `Authorization: Bearer <token>` with a token this server knows.")]
    MissingCredentials,
    #[error(
        "This token is not one this server knows: check the token your client sends as `Authorization: Bearer` (for a GPT, its Action's authentication)."
    )]
    UnknownToken,
    #[error("This token is not an admin token: /admin takes one of KIOKU_ADMIN_TOKENS.")]
    NotAdmin,
    /// An access token of this server's OAuth grants that is unknown, revoked, expired or for
    /// another resource; the message says which. `issued`: it was issued here (expired, or for
    /// another resource), so it is no guess.
    #[error("{description}")]
    InvalidAccessToken {
        description: &'static str,
        issued: bool,
    },
}
