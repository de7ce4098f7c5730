//! The kioku plugin: the package that installs a deployment's memory in ChatGPT and Codex
//! (the Agent Plugins layout, with OpenAI's presentation) and in Claude Code (its own
//! manifest beside it), each with the MCP server and the memory skill. The skill is the usage
//! guide itself (`guide`), so the plugin, the GPT's instructions and the MCP server's cannot
//! say different things.

mod manifests;

use std::path::{Path, PathBuf};

use url::Url;

use crate::domain::{Door, is_loopback_host};
use crate::guide::{self, Language};

/// The memory skill's name, which is also its folder's (Agent Skills).
pub const SKILL: &str = "memory";

/// One file of the package: its path inside the plugin's folder, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginFile {
    pub path: &'static str,
    pub text: String,
}

#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    #[error(
        "--url must be the deployment's address, https (or http on this machine), with no \
         path, query or fragment, e.g. https://kioku.example.com; got {0:?}"
    )]
    Url(String),
    #[error("the plugin could not be written to {}", .0.display())]
    Write(PathBuf, #[source] std::io::Error),
}

/// The deployment at `base` (its public URL), as a URL a plugin may name: https, or http on
/// this machine for a local run; nothing after the host but a `/`.
pub fn deployment(base: &str) -> Result<Url, PluginError> {
    let refused = || PluginError::Url(base.to_owned());
    let url = Url::parse(base).map_err(|_| refused())?;
    let fits = (url.scheme() == "https" || (url.scheme() == "http" && is_loopback_host(&url)))
        && url.path() == "/"
        && url.query().is_none()
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none();
    fits.then_some(url).ok_or_else(refused)
}

/// Every file of the plugin for the deployment at `base`.
pub fn package(base: &Url) -> Vec<PluginFile> {
    let base = base.as_str().trim_end_matches('/');
    let mcp = format!("{base}/mcp");
    vec![
        PluginFile {
            path: "plugin.json",
            text: manifests::agent_plugin(base),
        },
        PluginFile {
            path: "mcp.json",
            text: manifests::agent_mcp(&mcp),
        },
        PluginFile {
            path: ".codex-plugin/plugin.json",
            text: manifests::codex_plugin(base),
        },
        PluginFile {
            path: ".claude-plugin/plugin.json",
            text: manifests::claude_plugin(base),
        },
        PluginFile {
            path: ".mcp.json",
            text: manifests::claude_mcp(&mcp),
        },
        PluginFile {
            path: "skills/memory/SKILL.md",
            text: skill(),
        },
        PluginFile {
            path: "skills/memory/guide.ja.md",
            text: guide::render(Language::Japanese, Door::Mcp),
        },
        PluginFile {
            path: "README.md",
            text: manifests::readme(base),
        },
    ]
}

/// What tells a model when the skill applies: the words people use for each part of the
/// guide, in both its languages.
const SKILL_DESCRIPTION: &str = "The user's long-term memory across chats and assistants \
    (kioku): a profile and summaries of past conversations. Use it at the start of a \
    conversation that may build on earlier ones; when the user says save, remember this, \
    セーブ or 覚えておいて; when they refer to an earlier conversation (continue where we left \
    off, do you remember, 前回の続き); when they tell you something lasting about \
    themselves; or when they ask to forget something.";

/// The memory skill: the whole guide for MCP tools in English, and where the Japanese one is.
fn skill() -> String {
    let guide = guide::render(Language::English, Door::Mcp);
    format!(
        "---\nname: {SKILL}\ndescription: \"{SKILL_DESCRIPTION}\"\n---\n\n{guide}\n\
         **日本語で話すユーザーには**: the same guide in Japanese, with the words Japanese \
         users say (「セーブ」), is [guide.ja.md](guide.ja.md).\n"
    )
}

/// Writes `files` under `dir`, making the folders they need.
pub fn write(dir: &Path, files: &[PluginFile]) -> Result<(), PluginError> {
    for file in files {
        let path = dir.join(file.path);
        let failed = |err| PluginError::Write(path.clone(), err);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(failed)?;
        }
        std::fs::write(&path, &file.text).map_err(failed)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deployment_is_https_or_local_http_with_nothing_after_the_host() {
        for good in [
            "https://kioku.example.com",
            "https://kioku.example.com/",
            "https://kioku-abc-an.a.run.app:8443",
            "http://127.0.0.1:8080",
            "http://localhost:8080/",
        ] {
            assert!(deployment(good).is_ok(), "{good}");
        }
        for bad in [
            "http://kioku.example.com",
            "https://kioku.example.com/mcp",
            "https://kioku.example.com/?x=1",
            "https://user:pw@kioku.example.com",
            "kioku.example.com",
            "ftp://kioku.example.com",
        ] {
            assert!(deployment(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_server_entry_points_at_the_deployments_mcp_endpoint() {
        let files = package(&deployment("https://kioku.example.com").unwrap());
        for path in ["mcp.json", ".mcp.json"] {
            let text = &files.iter().find(|f| f.path == path).unwrap().text;
            let json: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(
                json["mcpServers"][manifests::NAME]["url"],
                "https://kioku.example.com/mcp",
                "{path}"
            );
        }
    }

    #[test]
    fn the_skill_opens_with_its_name_and_description_and_holds_the_whole_guide() {
        let skill = skill();
        let front = skill.strip_prefix("---\n").unwrap();
        let (front, body) = front.split_once("\n---\n").unwrap();
        assert!(front.contains(&format!("name: {SKILL}\n")));
        assert!(body.contains(&guide::render(Language::English, Door::Mcp)));
        // Agent Skills: a description of at most 1,024 characters; quoted in YAML as it is.
        assert!(SKILL_DESCRIPTION.chars().count() <= 1024);
        assert!(!SKILL_DESCRIPTION.contains(['"', '\\']));
    }
}
