//! The usage guide a model follows, one text per language for every door that leads to the
//! memory: the GPT Action's instructions and the MCP server's differ only in the lines the
//! guide marks for one door, so the two cannot drift apart.

use crate::domain::Door;

const EN: &str = include_str!("../prompts/guide.en.md");
const JA: &str = include_str!("../prompts/guide.ja.md");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Japanese,
    English,
}

/// The guide in `language`, for `door`.
pub fn render(language: Language, door: Door) -> String {
    let source = match language {
        Language::Japanese => JA,
        Language::English => EN,
    };
    let mut kept = String::with_capacity(source.len());
    let mut only: Option<Door> = None;
    for line in source.split_inclusive('\n') {
        match line.trim_end() {
            "<!-- gpt -->" => only = Some(Door::Api),
            "<!-- mcp -->" => only = Some(Door::Mcp),
            "<!-- both -->" => only = None,
            comment if comment.starts_with("<!--") && comment.ends_with("-->") => {}
            _ if only.is_none_or(|only| only == door) => kept.push_str(line),
            _ => {}
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_door_gets_its_own_names_and_the_shared_rules() {
        for language in [Language::Japanese, Language::English] {
            let gpt = render(language, Door::Api);
            let mcp = render(language, Door::Mcp);
            assert!(gpt.contains("`mngMemory`") && !gpt.contains("save_memory"));
            assert!(mcp.contains("`save_memory`") && !mcp.contains("mngMemory"));
            for text in [&gpt, &mcp] {
                assert!(!text.contains("<!--"), "{text}");
                assert!(text.contains("## "), "{text}");
            }
        }
    }

    /// The committed prompts are what /prompt serves; docs link to them.
    #[test]
    fn the_committed_gpt_prompts_are_current() {
        let committed = [
            (
                Language::Japanese,
                include_str!("../prompts/system_prompt.ja.md"),
            ),
            (
                Language::English,
                include_str!("../prompts/system_prompt.en.md"),
            ),
        ];
        for (language, text) in committed {
            assert_eq!(render(language, Door::Api), text, "{language:?}");
        }
    }
}
