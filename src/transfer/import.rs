//! Reading an export back: each line held to the API's rules, bad ones reported and skipped,
//! what is held already not added again.

use std::io::BufRead;

use chrono::{DateTime, TimeDelta, Utc};

use super::{ProfileRecord, ThreadRecord, TransferError, counted};
use crate::domain::{
    Entry, Namespace, Profile, Summary, ThreadId, ValidationError, Writer, check_profile,
};
use crate::store::{Maintenance, StoreError};

/// The longest texts an import takes, as a save and a profile rewrite take them.
#[derive(Debug, Clone, Copy)]
pub struct TextLimits {
    pub summary: usize,
    pub profile: usize,
}

/// `--rename OLD:NEW` options: threads of namespace OLD are imported into NEW.
#[derive(Debug, Clone, Default)]
pub struct Renames(Vec<(String, Namespace)>);

impl Renames {
    pub fn parse(specs: &[String]) -> Result<Self, String> {
        specs
            .iter()
            .map(|spec| {
                let (old, new) = spec
                    .split_once(':')
                    .ok_or("--rename takes OLD:NEW, two namespace names")?;
                Ok((old.to_owned(), Namespace::named(new)?))
            })
            .collect::<Result<_, String>>()
            .map(Self)
    }

    fn apply(&self, name: &str) -> Result<Namespace, String> {
        match self.0.iter().find(|(old, _)| old == name) {
            Some((_, new)) => Ok(new.clone()),
            None => Namespace::named(name),
        }
    }
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Lines read, blank ones included.
    pub lines: usize,
    pub threads: u64,
    /// Entries appended.
    pub added: u64,
    /// Entries the store already held, so not appended again.
    pub present: u64,
    /// Profile versions added; those held already are not counted.
    pub profile_versions: u64,
    /// Lines that could not be imported: their numbers (from 1) and why.
    pub bad: Vec<(usize, String)>,
}

impl ImportReport {
    pub fn summary(&self) -> String {
        let bad = self.bad.len() as u64;
        format!(
            "read {}: {}, {} added, {} already present, {} added, {}",
            counted(self.lines as u64, "line", "lines"),
            counted(self.threads, "thread", "threads"),
            counted(self.added, "summary", "summaries"),
            self.present,
            counted(self.profile_versions, "profile version", "profile versions"),
            counted(bad, "bad line", "bad lines"),
        )
    }
}

/// How far ahead of this machine's clock an imported timestamp may be: clocks of two machines
/// differ a little, but an entry from the future would be every load's newest until then and
/// outlive the retention age.
const MAX_CLOCK_SKEW: TimeDelta = TimeDelta::minutes(5);

/// Reads an export from `input` into `store`, holding every field to the API's rules (a
/// summary to [`Summary::parse`], a profile to [`check_profile`], within `limits`). A bad
/// line is reported to `on_bad` and skipped; only a store failure stops the import (run it
/// again: lines already imported change nothing). `on_line` hears how many bytes each line took.
pub async fn import(
    store: &dyn Maintenance,
    input: impl BufRead,
    renames: &Renames,
    limits: TextLimits,
    mut on_line: impl FnMut(usize),
    mut on_bad: impl FnMut(usize, &str),
) -> Result<ImportReport, TransferError> {
    let mut report = ImportReport::default();
    for (index, line) in input.split(b'\n').enumerate() {
        let line = line?;
        let number = index + 1;
        report.lines = number;
        on_line(line.len() + 1);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let outcome = match parse_line(&line, renames, limits, Utc::now()) {
            Ok(Line::Profile(ns, versions)) => {
                report.profile_versions += store.import_profile(&ns, &versions).await?;
                Ok(())
            }
            Ok(Line::Thread(ns, thread, entries)) => {
                match store.import(&ns, &thread, &entries).await {
                    Ok(added) => {
                        report.threads += 1;
                        report.added += added;
                        report.present += entries.len() as u64 - added;
                        Ok(())
                    }
                    Err(StoreError::DocumentTooLarge) => Err(
                        "the thread is larger than the store holds in one thread (1 MiB)".into(),
                    ),
                    Err(err) => return Err(err.into()),
                }
            }
            Err(reason) => Err(reason),
        };
        if let Err(reason) = outcome {
            on_bad(number, &reason);
            report.bad.push((number, reason));
        }
    }
    Ok(report)
}

/// A line of an export, read and checked.
enum Line {
    Thread(Namespace, ThreadId, Vec<Entry>),
    Profile(Namespace, Vec<Profile>),
}

fn parse_line(
    line: &[u8],
    renames: &Renames,
    limits: TextLimits,
    now: DateTime<Utc>,
) -> Result<Line, String> {
    let fields: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(line).map_err(|e| format!("not a JSON object ({e})"))?;
    if fields.contains_key("profile_versions") {
        let record: ProfileRecord = serde_json::from_value(fields.into()).map_err(|e| {
            format!("not a profile record ({e}); expected {{\"namespace\",\"profile_versions\"}}")
        })?;
        let ns = renames.apply(&record.namespace)?;
        let versions = record
            .profile_versions
            .into_iter()
            .map(|version| checked_version(version, limits.profile, now))
            .collect::<Result<_, _>>()?;
        return Ok(Line::Profile(ns, versions));
    }
    let record: ThreadRecord = serde_json::from_value(fields.into()).map_err(|e| {
        format!("not a thread record ({e}); expected {{\"namespace\",\"thread_id\",\"entries\"}}")
    })?;
    let ns = renames.apply(&record.namespace)?;
    let thread = ThreadId::parse(&record.thread_id).map_err(|e| in_file_terms(&e))?;
    let entries = record
        .entries
        .into_iter()
        .enumerate()
        .map(|(index, entry)| {
            checked(entry, limits.summary, now)
                .map_err(|reason| format!("entry {}: {reason}", index + 1))
        })
        .collect::<Result<_, _>>()?;
    Ok(Line::Thread(ns, thread, entries))
}

/// `entry` if a save could have made it: its summary as a save takes one, its timestamp a
/// [`past_time`].
fn checked(entry: Entry, max_summary_chars: usize, now: DateTime<Utc>) -> Result<Entry, String> {
    let summary = Summary::parse(Some(entry.summary), max_summary_chars)
        .map_err(|e| in_file_terms(&e))?
        .into_inner();
    past_time("timestamp", &entry.timestamp, now)?;
    Ok(Entry {
        summary,
        timestamp: entry.timestamp,
        writer: Some(imported(entry.writer)?),
    })
}

/// Why a value of a line was refused, as someone fixing the file reads it: what is wrong with
/// it, without what an API caller is told to send instead.
fn in_file_terms(refusal: &ValidationError) -> String {
    match refusal {
        ValidationError::InvalidThreadId(problem) => {
            format!("`thread_id` {problem}: a line names its thread by the id an export wrote")
        }
        ValidationError::Blank(field) => {
            format!("`{field}` is blank: there is nothing to keep; remove it from the line")
        }
        ValidationError::TooLong {
            field,
            actual,
            limit,
        } => format!(
            "`{field}` is {actual} characters long; this server keeps at most {limit} \
             (KIOKU_MAX_{}_CHARS)",
            field.to_string().to_uppercase()
        ),
        other => other.to_string(),
    }
}

/// Who wrote what is imported: the writer its export recorded, or the import itself.
fn imported(writer: Option<Writer>) -> Result<Writer, String> {
    match writer {
        Some(writer) if writer.is_plausible() => Ok(writer),
        Some(_) => Err(
            "its writer's name or client_id is empty, too long or holds control \
                        characters"
                .into(),
        ),
        None => Ok(Writer::Import),
    }
}

/// `version` if a rewrite could have made it: its text as a rewrite takes one, numbered from 1,
/// written at a [`past_time`].
fn checked_version(
    version: Profile,
    max_chars: usize,
    now: DateTime<Utc>,
) -> Result<Profile, String> {
    let fail = |reason: String| format!("profile version {}: {reason}", version.version);
    check_profile(&version.profile, max_chars).map_err(|e| fail(in_file_terms(&e)))?;
    if version.version == 0 {
        return Err(fail("versions are numbered from 1.".into()));
    }
    past_time("updated_at", &version.updated_at, now).map_err(fail)?;
    let writer = imported(version.writer.clone()).map_err(fail)?;
    Ok(Profile {
        writer: Some(writer),
        ..version
    })
}

/// Checks that `value` is an RFC 3339 time no later than `now` (give or take
/// [`MAX_CLOCK_SKEW`]).
fn past_time(name: &str, value: &str, now: DateTime<Utc>) -> Result<(), String> {
    let at = DateTime::parse_from_rfc3339(value).map_err(|_| {
        format!(
            "`{name}` {value:?} is not an RFC 3339 time such as 2025-08-19T08:39:27.174624+09:00."
        )
    })?;
    if at > now + MAX_CLOCK_SKEW {
        return Err(format!(
            "`{name}` {value} is in the future (this machine's clock says {}); correct it, or \
             this machine's clock.",
            now.to_rfc3339()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(summary: &str, timestamp: &str) -> Entry {
        Entry {
            summary: summary.into(),
            timestamp: timestamp.into(),
            writer: None,
        }
    }

    #[test]
    fn imported_entries_meet_the_rules_of_a_save() {
        let now = DateTime::parse_from_rfc3339("2025-08-19T00:00:00Z")
            .unwrap()
            .to_utc();
        let fine = entry("要約", "2025-08-19T08:59:00+09:00");
        let marked = Entry {
            writer: Some(Writer::Import),
            ..fine.clone()
        };
        assert_eq!(checked(fine, 10, now), Ok(marked.clone()));
        let written = Entry {
            writer: Some(Writer::Token {
                label: "alice".into(),
            }),
            ..marked.clone()
        };
        assert_eq!(checked(written.clone(), 10, now), Ok(written));
        let forged = Entry {
            writer: Some(Writer::App {
                client_id: "x".repeat(2049),
                name: "App".into(),
            }),
            ..marked
        };
        for (bad, reason) in [
            (forged, "writer"),
            (entry("a\u{202e}b", "2025-08-19T00:00:00Z"), "U+202E"),
            (entry("  ", "2025-08-19T00:00:00Z"), "blank"),
            (
                entry(&"x".repeat(11), "2025-08-19T00:00:00Z"),
                "keeps at most 10",
            ),
            (entry("s", "yesterday"), "not an RFC 3339 time"),
            (entry("s", "2025-08-19T09:05:01+09:00"), "in the future"),
        ] {
            let refused = checked(bad.clone(), 10, now).unwrap_err();
            assert!(refused.contains(reason), "{bad:?}: {refused}");
        }
    }
}
