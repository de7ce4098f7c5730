//! Who may call: the API tokens of `API_TOKENS` and the namespaces they unlock, the admin
//! tokens of `KIOKU_ADMIN_TOKENS`, the token a local run generates for itself, and the memory
//! page's sessions. Every token is at least 32 characters long (unless an old one is carried
//! over on purpose), held only as a digest and compared in constant time.

mod admin;
mod digest;
mod error;
mod local_token;
mod session;
mod tokens;

pub use admin::AdminTokens;
pub use digest::{MIN_TOKEN_CHARS, WeakTokens, digest, generate_token, hex};
pub use error::AuthError;
pub use local_token::{LOCAL_NAMESPACE, local_token};
pub use session::{SESSION_LIFETIME, Session, Sessions};
pub use tokens::{BareNamed, TokenSignIn, Tokens};
