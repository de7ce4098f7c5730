//! The handlers of the API, MCP, OAuth's machine endpoints and the operator's (the pages are
//! in `pages`), one module per resource; each registers its own routes. Handlers are thin:
//! they read the request, call `memory` (or an export, the OAuth server) and answer.

mod admin;
mod admin_export;
mod admin_oauth;
mod docs;
pub(super) mod export_stream;
pub(super) mod fallback;
// The schema names the GPT's operations, in these two.
pub(super) mod forget;
mod get_or_head;
mod gpt_errors;
mod health;
mod mcp;
pub(super) mod memory;
mod oauth;

use actix_web::web;

pub use get_or_head::get_or_head;
pub use mcp::endpoint as mcp_endpoint;

/// The route table of everything but the pages, which `serve` registers first.
pub fn configure(cfg: &mut web::ServiceConfig) {
    memory::register(cfg);
    forget::register(cfg);
    mcp::register(cfg);
    oauth::register(cfg);
    admin::register(cfg);
    health::register(cfg);
    docs::register(cfg);
    cfg.default_service(web::to(fallback::not_found));
}
