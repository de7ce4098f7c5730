//! The MCP server: kioku's memory as tools for any MCP client (ChatGPT apps, Claude, Cursor,
//! VS Code, Codex). The tools call the same `memory` operations as the HTTP API, in the
//! namespace the HTTP layer authenticated; the protocol itself is the official SDK's (`rmcp`).
//! Hosts that show MCP Apps also get a view of what a load found (`view`).

mod direct;
mod server;
mod tools;
mod view;

use crate::domain::Door;
use crate::guide::{self, Language};

pub use direct::{Standard, ToolCall};
pub use server::MemoryServer;
pub use view::PageUrl;

/// What a client is told at `initialize`: the usage guide in brief, in English, for tools;
/// the whole guide is the plugin's memory skill, and the details are in the tools' texts.
pub fn instructions() -> String {
    guide::brief(Language::English, Door::Mcp)
}
