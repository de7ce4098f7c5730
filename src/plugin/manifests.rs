//! The plugin's manifests and MCP configurations, one per client family: Agent Plugins 1.0.0
//! (ChatGPT and Codex read it, with OpenAI's presentation under `extensions.com.openai`),
//! Codex's earlier `.codex-plugin` manifest as its fallback, and Claude Code's.

use serde_json::{Map, Value, json};

/// The plugin's name, and its server's in every MCP configuration.
pub const NAME: &str = "kioku";

/// Agent Plugins 1.0.0's schemas, which its manifests name (clients recognise them by name).
pub const PLUGIN_SCHEMA: &str = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json";
pub const MCP_SCHEMA: &str = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json";

const VERSION: &str = env!("CARGO_PKG_VERSION");
const DESCRIPTION: &str = "A memory that outlives the chat: saves summaries of your \
    conversations and a short profile, and brings them back in any later chat, in ChatGPT, \
    Codex, Claude or any MCP client.";
const KEYWORDS: [&str; 4] = ["memory", "mcp", "profile", "custom-gpt"];

/// Agent Plugins' root `plugin.json`.
pub fn agent_plugin(base: &str) -> String {
    manifest(
        base,
        json!({"$schema": PLUGIN_SCHEMA}),
        json!({"extensions": {"com.openai": {"interface": interface(base)}}}),
    )
}

/// Agent Plugins' `mcp.json`: the deployment's MCP endpoint. Sign-in is the client's to
/// negotiate (the server's OAuth metadata, or a token the person adds).
pub fn agent_mcp(mcp: &str) -> String {
    pretty(&json!({
        "$schema": MCP_SCHEMA,
        "mcpServers": {NAME: {"type": "streamable-http", "url": mcp}},
    }))
}

/// Codex's `.codex-plugin/plugin.json`, read where the root manifest carries no
/// `extensions.com.openai`: the same presentation, with its components named.
pub fn codex_plugin(base: &str) -> String {
    manifest(
        base,
        json!({}),
        json!({
            "skills": "./skills/",
            "mcpServers": "./.mcp.json",
            "interface": interface(base),
        }),
    )
}

/// Claude Code's `.claude-plugin/plugin.json`; it finds `skills/` and `.mcp.json` itself.
pub fn claude_plugin(base: &str) -> String {
    manifest(
        base,
        json!({}),
        json!({"privacyPolicyUrl": format!("{base}/privacy")}),
    )
}

/// A manifest: `first` (what its format puts ahead), the plugin as every manifest names it,
/// then `own` (what its format adds).
fn manifest(base: &str, first: Value, own: Value) -> String {
    let named = json!({
        "name": NAME,
        "version": VERSION,
        "description": DESCRIPTION,
        "author": author(base),
        "homepage": base,
        "license": "MIT",
        "keywords": KEYWORDS,
    });
    let mut manifest = Map::new();
    for part in [first, named, own] {
        if let Value::Object(fields) = part {
            manifest.extend(fields);
        }
    }
    pretty(&Value::Object(manifest))
}

/// Claude Code's and Codex's `.mcp.json`, whose remote type is `http`.
pub fn claude_mcp(mcp: &str) -> String {
    pretty(&json!({"mcpServers": {NAME: {"type": "http", "url": mcp}}}))
}

/// Who offers the plugin: the deployment, whose operator answers for the memory it keeps.
fn author(base: &str) -> Value {
    json!({"name": "kioku", "url": base})
}

/// How ChatGPT and Codex present the plugin.
fn interface(base: &str) -> Value {
    json!({
        "displayName": "kioku",
        "shortDescription": "Memory that outlives the chat",
        "longDescription": DESCRIPTION,
        "developerName": "kioku",
        "category": "Productivity",
        "capabilities": ["Read", "Write"],
        "websiteURL": format!("{base}/app"),
        "privacyPolicyURL": format!("{base}/privacy"),
        "defaultPrompt": [
            "What did we talk about last time?",
            "Save this conversation",
            "前回の続きから始めよう",
        ],
    })
}

/// The package's README: what it is and how each client installs it.
pub fn readme(base: &str) -> String {
    format!(
        "# kioku plugin\n\n\
         Installs the memory at {base} in ChatGPT, Codex and Claude Code: its MCP server \
         ({base}/mcp) and the `memory` skill, which tells the assistant when to save, load, \
         search and forget.\n\n\
         - ChatGPT and Codex read `plugin.json` and `mcp.json` (Agent Plugins 1.0), or \
         `.codex-plugin/plugin.json`.\n\
         - Claude Code reads `.claude-plugin/plugin.json` and `.mcp.json`: \
         `claude plugin install` from a marketplace that lists this folder, or \
         `claude --plugin-dir .` to try it.\n\n\
         The first call asks you to sign in to kioku: with an API token, you reach the same \
         memory as the custom GPT that uses that token. Your memory page: {base}/app. \
         Privacy: {base}/privacy.\n"
    )
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("manifests serialize");
    text.push('\n');
    text
}
