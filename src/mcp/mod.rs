//! The MCP server: kioku's memory as tools for any MCP client (ChatGPT apps, Claude, Cursor,
//! VS Code, Codex). The tools call the same `memory` operations as the HTTP API, in the
//! namespace the HTTP layer authenticated; the protocol itself is the official SDK's (`rmcp`).

mod direct;
mod server;
mod tools;

use crate::domain::Door;
use crate::guide::{self, Language};

pub use direct::{Standard, ToolCall};
pub use server::MemoryServer;

/// What a client is told at `initialize`: the usage guide in brief, in English, for tools;
/// the whole guide is the plugin's memory skill, and the details are in the tools' texts.
pub fn instructions() -> String {
    guide::brief(Language::English, Door::Mcp)
}
