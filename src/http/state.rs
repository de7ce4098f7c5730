//! What every handler shares.

use std::sync::Arc;

use crate::memory::Memory;
use crate::store::MemoryStore;

pub struct AppState {
    /// What the GPT's operations do.
    pub memory: Memory,
    /// The store itself, for the operator's endpoints and the readiness check.
    pub store: Arc<dyn MemoryStore>,
    /// The URL the schema names in `servers`, when the operator set one.
    pub public_url: Option<String>,
    /// Whether the schema lists `POST /`.
    pub schema_post: bool,
}
