//! The text of one saved memory, validated; and the rules every stored text keeps.

use super::{TextField, ValidationError};

/// The text of one saved memory: not blank, within the configured length, and free of
/// control characters other than tab, newline and carriage return (see [`is_forbidden`]).
/// Kept exactly as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary(String);

impl Summary {
    /// `max_chars` counts Unicode scalar values, as a person counts characters.
    pub fn parse(raw: Option<String>, max_chars: usize) -> Result<Self, ValidationError> {
        let text = raw.ok_or(ValidationError::MissingSummary)?;
        check_text(&text, TextField::Summary, max_chars)?;
        Ok(Self(text))
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

/// The rules of every text kioku stores (a summary, a profile): not blank, at most `max_chars`
/// Unicode scalar values (as a person counts characters), and no [forbidden](is_forbidden)
/// character.
pub(super) fn check_text(
    text: &str,
    field: TextField,
    max_chars: usize,
) -> Result<(), ValidationError> {
    if text.trim().is_empty() {
        return Err(ValidationError::Blank(field));
    }
    if let Some(c) = text.chars().find(|&c| is_forbidden(c)) {
        return Err(ValidationError::ControlCharacter(field, c.into()));
    }
    let actual = text.chars().count();
    if actual > max_chars {
        return Err(ValidationError::TooLong {
            field,
            actual,
            limit: max_chars,
        });
    }
    Ok(())
}

/// C0 and C1 controls and DEL, which terminals and logs act on; and the bidirectional
/// overrides and isolates, which make text read differently from what it holds (a summary
/// shown to a model or a person could hide what it says). The bidi marks (U+200E, U+200F,
/// U+061C) stay: right-to-left text needs them, and they reorder nothing past a character.
pub fn is_forbidden(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// What a name shown as who someone is (an app's, on the consent page and the list of connected
/// apps) may not hold: what no stored text may, and the invisible characters that split a word
/// without a trace (zero-width space, word joiner, byte-order mark), with which one name can pass
/// for another. The zero-width joiner and non-joiner stay: scripts and emoji need them.
pub fn is_forbidden_in_a_name(c: char) -> bool {
    is_forbidden(c) || matches!(c, '\u{200b}' | '\u{2060}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str, max: usize) -> Result<Summary, ValidationError> {
        Summary::parse(Some(s.to_owned()), max)
    }

    #[test]
    fn keeps_text_exactly() {
        let text = "  要約\tです\r\n🎌 \u{200f}עברית\u{200b} ";
        assert_eq!(parse(text, 100).unwrap().into_inner(), text);
    }

    #[test]
    fn refuses_missing_and_blank() {
        assert_eq!(
            Summary::parse(None, 10),
            Err(ValidationError::MissingSummary)
        );
        assert_eq!(
            parse("", 10),
            Err(ValidationError::Blank(TextField::Summary))
        );
        assert_eq!(
            parse(" \n\t\u{3000}", 10),
            Err(ValidationError::Blank(TextField::Summary))
        );
    }

    #[test]
    fn counts_characters_not_bytes() {
        assert!(parse(&"あ".repeat(5), 5).is_ok());
        assert_eq!(
            parse(&"あ".repeat(6), 5),
            Err(ValidationError::TooLong {
                field: TextField::Summary,
                actual: 6,
                limit: 5
            })
        );
    }

    #[test]
    fn refuses_del_c1_controls_and_bidi_overrides_and_isolates() {
        let refused = [
            '\u{7f}', '\u{80}', '\u{85}', '\u{9f}', '\u{202a}', '\u{202e}',
        ]
        .into_iter()
        .chain(['\u{2066}', '\u{2069}']);
        for c in refused {
            assert_eq!(
                parse(&format!("a{c}b"), 10),
                Err(ValidationError::ControlCharacter(
                    TextField::Summary,
                    c.into()
                )),
                "{c:?}"
            );
        }
        for kept in [
            '\u{a0}', '\u{200e}', '\u{200f}', '\u{61c}', '\u{2029}', '\u{2065}',
        ] {
            assert!(parse(&format!("a{kept}b"), 10).is_ok(), "{kept:?}");
        }
    }

    #[test]
    fn refuses_c0_controls_but_tab_newline_and_return() {
        for c in (0u8..0x20).map(char::from) {
            let allowed = matches!(c, '\t' | '\n' | '\r');
            assert_eq!(parse(&format!("a{c}b"), 10).is_ok(), allowed, "{c:?}");
        }
        assert_eq!(
            parse("a\0b", 10),
            Err(ValidationError::ControlCharacter(TextField::Summary, 0))
        );
    }
}
