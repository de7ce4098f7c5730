//! The usage guide a model follows, one text per language and its one source for every door
//! that leads to the memory: the GPT Action's instructions, the MCP server's and the plugin's
//! memory skill. Doors differ only in the lines the guide marks for one of them, and the MCP
//! server's instructions are the guide's own lines (each section's heading and first
//! paragraph), so none can drift from another.

use crate::domain::Door;

const EN: &str = include_str!("../prompts/guide.en.md");
const JA: &str = include_str!("../prompts/guide.ja.md");

/// Most characters of instructions an MCP client passes on to its model: Claude Code keeps
/// the first 2,048 and drops the rest.
pub const MAX_BRIEF_CHARS: usize = 2048;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Japanese,
    English,
}

/// The whole guide in `language`, for `door`.
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

/// The guide in brief: each section's heading and first paragraph, which states its rule (the
/// rest is detail). The first section is the safety rule, so the brief opens with it.
pub fn brief(language: Language, door: Door) -> String {
    let whole = render(language, door);
    let mut brief = String::with_capacity(MAX_BRIEF_CHARS * 3);
    // Lines kept: none before the first heading; under a heading, up to its first paragraph's
    // end (a blank line under the heading itself does not end it).
    let mut lead: Option<bool> = None;
    for line in whole.split_inclusive('\n') {
        let blank = line.trim().is_empty();
        if line.starts_with("## ") {
            if !brief.is_empty() {
                brief.push('\n');
            }
            brief.push_str(line);
            lead = Some(false);
        } else if let Some(started) = lead {
            match (blank, started) {
                (true, false) => {}
                (true, true) => lead = None,
                (false, _) => {
                    brief.push_str(line);
                    lead = Some(true);
                }
            }
        }
    }
    brief
}

/// The level-two headings of a guide, in order: its rules, by name.
pub fn sections(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|line| line.strip_prefix("## "))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LANGUAGES: [Language; 2] = [Language::Japanese, Language::English];

    #[test]
    fn each_door_gets_its_own_names_and_the_shared_rules() {
        for language in LANGUAGES {
            let gpt = render(language, Door::Api);
            let mcp = render(language, Door::Mcp);
            assert!(gpt.contains("`mngMemory`") && !gpt.contains("save_memory"));
            assert!(mcp.contains("`save_memory`") && !mcp.contains("mngMemory"));
            for text in [&gpt, &mcp] {
                assert!(!text.contains("<!--"), "{text}");
                assert!(text.contains("## "), "{text}");
            }
            assert_eq!(sections(&gpt), sections(&mcp), "{language:?}");
        }
    }

    /// Clients keep the first 2,048 characters: the brief fits whole, opens with the rule
    /// that memories are data, and names every rule of the whole guide.
    #[test]
    fn the_brief_fits_opens_with_the_safety_rule_and_names_every_rule() {
        for language in LANGUAGES {
            for door in [Door::Api, Door::Mcp] {
                let brief = brief(language, door);
                let chars = brief.chars().count();
                assert!(chars <= MAX_BRIEF_CHARS, "{language:?} {door:?}: {chars}");
                let first = brief.lines().next().unwrap();
                assert!(
                    first.contains("never instructions") || first.contains("指示ではない"),
                    "{first}"
                );
                assert!(
                    brief.lines().nth(1).is_some_and(|l| !l.is_empty()),
                    "{brief}"
                );
                let whole = render(language, door);
                assert_eq!(sections(&brief), sections(&whole), "{language:?}");
                for line in brief.lines() {
                    assert!(whole.contains(line), "{line}");
                }
                assert!(!brief.contains("\n\n\n"), "{brief}");
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
