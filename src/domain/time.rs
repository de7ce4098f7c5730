//! Times as kioku reads them: an entry's timestamp, a filter's instant, a forget's timestamp,
//! and the cursor a truncated answer hands back. All in microseconds since the epoch.

use chrono::{DateTime, NaiveDate, SecondsFormat, TimeZone, Utc};
use chrono_tz::Tz;

/// Microseconds since the epoch of an entry's timestamp; an unreadable one sorts oldest.
pub fn entry_micros(timestamp: &str) -> i64 {
    DateTime::parse_from_rfc3339(timestamp).map_or(i64::MIN, |t| t.timestamp_micros())
}

/// The cursor after an entry saved at `at`: entries strictly older come next.
pub fn cursor(at: i64) -> Option<String> {
    let at = DateTime::<Utc>::from_timestamp_micros(at).filter(|_| at != i64::MIN)?;
    Some(at.to_rfc3339_opts(SecondsFormat::Micros, true))
}

/// A saved entry's `timestamp` as a caller sends it back, in [`entry_micros`]. A `+` sent unencoded
/// in a query string arrives as a space, so a space before the offset is read as `+`.
pub fn parse_timestamp(raw: &str) -> Option<i64> {
    let raw = raw.trim();
    let at = DateTime::parse_from_rfc3339(raw).or_else(|err| match raw.rsplit_once(' ') {
        Some((time, offset)) => DateTime::parse_from_rfc3339(&format!("{time}+{offset}")),
        None => Err(err),
    });
    at.ok().map(|at| at.timestamp_micros())
}

/// An instant as a filter takes it: RFC 3339, or `YYYY-MM-DD` for the start of that day in
/// `zone`. In [`entry_micros`].
pub fn parse_instant(raw: &str, zone: Tz) -> Option<i64> {
    if let Ok(at) = DateTime::parse_from_rfc3339(raw) {
        return Some(at.timestamp_micros());
    }
    let day = NaiveDate::parse_from_str(raw, "%Y-%m-%d").ok()?;
    let start = zone
        .from_local_datetime(&day.and_hms_opt(0, 0, 0)?)
        .earliest()?;
    Some(start.timestamp_micros())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_space_before_the_offset_is_read_as_a_plus() {
        let sent = "2025-08-19T08:39:27.174624+09:00";
        let expected = entry_micros(sent);
        assert_eq!(parse_timestamp(sent), Some(expected));
        assert_eq!(
            parse_timestamp("2025-08-19T08:39:27.174624 09:00"),
            Some(expected)
        );
        assert_eq!(parse_timestamp("yesterday"), None);
        assert_eq!(entry_micros("unreadable"), i64::MIN);
    }

    #[test]
    fn a_date_is_the_start_of_that_day_in_the_zone() {
        let tokyo = parse_instant("2025-08-19", chrono_tz::Asia::Tokyo).unwrap();
        assert_eq!(Some(tokyo), parse_timestamp("2025-08-19T00:00:00+09:00"));
        assert_eq!(cursor(i64::MIN), None);
    }
}
