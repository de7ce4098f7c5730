//! The profile: one short text per namespace about the person (who they are, what they prefer,
//! their goals, how they like to be answered), rewritten whole; its last versions are kept so
//! that a bad rewrite can be undone.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::budget::{ENVELOPE_CHARS, cut_text, json_chars};
use super::summary::check_text;
use super::{TextField, ValidationError, Writer, entry_micros, now_stamp};
use chrono_tz::Tz;

/// Versions of a profile a store keeps: the newest this many.
pub const KEPT_PROFILE_VERSIONS: u64 = 20;

/// One version of the user's profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Profile {
    /// The text: durable facts about the person, their preferences, goals and tone.
    pub profile: String,
    /// Counts the profile's rewrites, from 1. Send it as `expected_version` with the next
    /// rewrite, or as `version` to read this one again.
    pub version: u64,
    /// When this version was written, as a summary's `timestamp`.
    pub updated_at: String,
    /// Who wrote this version; absent for one written before kioku recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer: Option<Writer>,
}

/// A rewrite of the profile, validated, before a store numbers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileDraft {
    pub text: String,
    pub updated_at: String,
    /// The version the writer read (0: none), when it asks that no other be current.
    pub expected_version: Option<u64>,
    pub writer: Writer,
}

impl ProfileDraft {
    /// Reads a rewrite `writer` sent: `text` under the same rules as a summary, stamped now
    /// in `zone`; `expected_version` a whole number from 0, or absent.
    pub fn parse(
        text: &str,
        expected_version: Option<&str>,
        max_chars: usize,
        zone: Tz,
        writer: Writer,
    ) -> Result<Self, ValidationError> {
        check_profile(text, max_chars)?;
        Ok(Self {
            text: text.to_owned(),
            updated_at: now_stamp(zone),
            expected_version: parse_version(expected_version, "expected_version", 0)?,
            writer,
        })
    }

    /// What this draft makes of a profile whose newest version is `newest`: the version after
    /// it, to store; or, when the draft may not replace the current version (the newest, unless
    /// written before `not_before`), a conflict with that one.
    pub fn after(&self, newest: Option<Profile>, not_before: Option<i64>) -> ProfileWrite {
        let number = newest.as_ref().map_or(0, |p| p.version);
        let current = newest.filter(|p| p.written_since(not_before));
        let expected = self.expected_version;
        if expected.is_some_and(|expected| expected != current.as_ref().map_or(0, |p| p.version)) {
            return ProfileWrite::Conflict(current);
        }
        ProfileWrite::Written(Profile {
            profile: self.text.clone(),
            version: number + 1,
            updated_at: self.updated_at.clone(),
            writer: Some(self.writer.clone()),
        })
    }
}

/// Checks `text` as a profile's: the rules of every stored text, within `max_chars`.
pub fn check_profile(text: &str, max_chars: usize) -> Result<(), ValidationError> {
    check_text(text, TextField::Profile, max_chars)
}

/// What writing a profile did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileWrite {
    Written(Profile),
    /// Another version than the expected one is current (none: no profile is): nothing was
    /// written.
    Conflict(Option<Profile>),
}

impl Profile {
    /// Whether this version was written at or after `not_before` (in [`entry_micros`]): a
    /// version past its age is no reader's, and so not current.
    pub fn written_since(&self, not_before: Option<i64>) -> bool {
        not_before.is_none_or(|at| entry_micros(&self.updated_at) >= at)
    }

    /// The profile as a load's answer carries it within `budget_chars`, and the characters it
    /// takes there: at most half the budget, so the threads keep the other half; cut to fit
    /// otherwise.
    pub fn within(self, budget_chars: usize) -> Option<(Self, usize)> {
        // `"profile":` and a comma.
        const KEY_CHARS: usize = 11;
        let room = budget_chars.saturating_sub(ENVELOPE_CHARS) / 2;
        let fitted = if json_chars(&self) + KEY_CHARS <= room {
            self
        } else {
            cut_text(&self.profile, room.saturating_sub(KEY_CHARS), |profile| {
                Self {
                    profile,
                    ..self.clone()
                }
            })?
        };
        let chars = json_chars(&fitted) + KEY_CHARS;
        Some((fitted, chars))
    }
}

/// A profile version number as sent: a whole number from `min`; empty counts as absent.
pub fn parse_version(
    raw: Option<&str>,
    name: &'static str,
    min: u64,
) -> Result<Option<u64>, ValidationError> {
    let Some(raw) = raw.map(str::trim).filter(|raw| !raw.is_empty()) else {
        return Ok(None);
    };
    let expected = if min == 0 {
        "a whole number from 0 (0: no profile was read)"
    } else {
        "a whole number from 1, a version a profile read showed"
    };
    raw.parse()
        .ok()
        .filter(|n| *n >= min)
        .map(Some)
        .ok_or(ValidationError::InvalidFilter { name, expected })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(expected: Option<&str>) -> ProfileDraft {
        ProfileDraft::parse(
            "好きな言語は Rust",
            expected,
            100,
            chrono_tz::Asia::Tokyo,
            Writer::Page,
        )
        .unwrap()
    }

    #[test]
    fn a_draft_keeps_the_rules_of_a_summary() {
        let parse = |text: &str| ProfileDraft::parse(text, None, 5, chrono_tz::UTC, Writer::Page);
        assert_eq!(
            parse(" \n"),
            Err(ValidationError::Blank(TextField::Profile))
        );
        assert_eq!(
            parse("a\u{202e}b"),
            Err(ValidationError::ControlCharacter(
                TextField::Profile,
                0x202e
            ))
        );
        assert_eq!(
            parse("ありがとうね"),
            Err(ValidationError::TooLong {
                field: TextField::Profile,
                actual: 6,
                limit: 5
            })
        );
    }

    #[test]
    fn the_expected_version_decides_what_a_draft_may_replace() {
        let written = |write: ProfileWrite| match write {
            ProfileWrite::Written(p) => p,
            conflict => panic!("{conflict:?}"),
        };
        let current = written(draft(None).after(None, None));
        assert_eq!(current.version, 1);
        let current = written(draft(None).after(Some(current), None));
        assert_eq!(current.version, 2);
        assert_eq!(
            written(draft(Some("2")).after(Some(current.clone()), None)).version,
            3
        );
        for stale in ["0", "1", "3"] {
            assert_eq!(
                draft(Some(stale)).after(Some(current.clone()), None),
                ProfileWrite::Conflict(Some(current.clone()))
            );
        }
        assert_eq!(
            draft(Some("1")).after(None, None),
            ProfileWrite::Conflict(None)
        );
        // A version past its age is no reader's: 0 expects it gone, and numbers go on after it.
        let after_aged = draft(Some("0")).after(Some(current.clone()), Some(i64::MAX));
        assert_eq!(written(after_aged).version, 3);
    }

    #[test]
    fn a_load_gives_the_profile_at_most_half_its_budget() {
        let long = Profile {
            profile: "記".repeat(2_000),
            version: 1,
            updated_at: "2025-08-19T08:39:27.174624+09:00".into(),
            writer: None,
        };
        let (whole, chars) = long.clone().within(10_000).unwrap();
        assert_eq!(
            (whole.profile.as_str(), chars),
            (long.profile.as_str(), json_chars(&long) + 11)
        );
        let (cut, chars) = long.clone().within(2_000).unwrap();
        assert!(
            cut.profile.ends_with("of 2000 characters shown]"),
            "{}",
            cut.profile
        );
        assert!(chars <= (2_000 - ENVELOPE_CHARS) / 2, "{chars}");
        assert_eq!(long.within(ENVELOPE_CHARS), None);
    }

    #[test]
    fn versions_are_whole_numbers_from_their_minimum() {
        assert_eq!(parse_version(Some(" 7 "), "version", 1), Ok(Some(7)));
        assert_eq!(parse_version(Some(""), "version", 1), Ok(None));
        assert_eq!(parse_version(Some("0"), "expected_version", 0), Ok(Some(0)));
        for bad in ["0", "-1", "1.5", "two"] {
            assert!(parse_version(Some(bad), "version", 1).is_err(), "{bad}");
        }
    }
}
