//! One saved summary and its time, and a thread of them.

use chrono::{SecondsFormat, Utc};
use chrono_tz::Tz;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Summary, Writer, entry_micros};

/// How long after a save the same summary to the same thread is taken for a retry of it (after
/// a timeout or a 503, the first may have landed) rather than something to store again.
pub const REPEAT_WINDOW_MICROS: i64 = 10 * 60 * 1_000_000;

/// One saved summary, with the field names and string timestamp of the original's layout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Entry {
    /// The text saved.
    pub summary: String,
    /// When it was saved, RFC 3339 with the server's zone, e.g. `2025-08-19T08:39:27.174624+09:00`.
    pub timestamp: String,
    /// Who saved it; absent for what was saved before kioku recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer: Option<Writer>,
}

impl Entry {
    /// Stamps `summary` by `writer` with the current time in `zone`, RFC 3339 with
    /// microseconds, e.g. `2025-08-19T08:39:27.174624+09:00`.
    pub fn now(summary: Summary, zone: Tz, writer: Writer) -> Self {
        Self {
            summary: summary.into_inner(),
            timestamp: now_stamp(zone),
            writer: Some(writer),
        }
    }

    /// Whether saving `self` after `newest`, the thread's newest entry, repeats it: the same
    /// summary, saved within [`REPEAT_WINDOW_MICROS`] before. Then `newest` is the answer and
    /// nothing is stored.
    pub fn repeats(&self, newest: &Entry) -> bool {
        let since = entry_micros(&self.timestamp).saturating_sub(entry_micros(&newest.timestamp));
        self.summary == newest.summary && (0..=REPEAT_WINDOW_MICROS).contains(&since)
    }
}

/// The current time in `zone` as kioku stamps what it stores: RFC 3339 with microseconds.
pub fn now_stamp(zone: Tz) -> String {
    Utc::now()
        .with_timezone(&zone)
        .to_rfc3339_opts(SecondsFormat::Micros, false)
}

/// A thread's entries, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thread {
    pub id: String,
    pub entries: Vec<Entry>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_carry_microseconds_and_the_zone_offset() {
        let summary = Summary::parse(Some("x".into()), 10).unwrap();
        let tokyo = Entry::now(summary.clone(), chrono_tz::Asia::Tokyo, Writer::Import);
        let ts = chrono::DateTime::parse_from_rfc3339(&tokyo.timestamp).unwrap();
        assert_eq!(ts.offset().local_minus_utc(), 9 * 3600);
        assert_eq!(
            tokyo.timestamp.len(),
            "2025-08-19T08:39:27.174624+09:00".len()
        );
        assert!(tokyo.timestamp.ends_with("+09:00"));

        let utc = Entry::now(summary, chrono_tz::UTC, Writer::Import);
        assert!(utc.timestamp.ends_with("+00:00"), "{}", utc.timestamp);
    }

    #[test]
    fn the_same_summary_within_ten_minutes_repeats_the_newest_entry() {
        let at = |summary: &str, timestamp: &str| Entry {
            summary: summary.into(),
            timestamp: timestamp.into(),
            writer: None,
        };
        let newest = at("要約", "2025-08-19T08:00:00.000000+09:00");
        assert!(at("要約", "2025-08-19T08:00:00.000000+09:00").repeats(&newest));
        assert!(at("要約", "2025-08-18T23:10:00.000000Z").repeats(&newest));
        assert!(!at("要約", "2025-08-19T08:10:00.000001+09:00").repeats(&newest));
        assert!(!at("要約 ", "2025-08-19T08:01:00.000000+09:00").repeats(&newest));
        assert!(!at("要約", "2025-08-19T07:59:59.000000+09:00").repeats(&newest));
    }
}
