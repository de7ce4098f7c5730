//! How the memory page writes a time for the person reading it: in the zone they chose (or
//! the server's), as people write dates in their language ("Dec 6, 2026, 3:07 AM",
//! "2026年12月6日 3:07").

use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::Tz;

use crate::http::pages::Text;

/// Zones offered on the page, as examples to pick from; any other IANA name may be typed.
pub const OFFERED_ZONES: [&str; 24] = [
    "Asia/Tokyo",
    "Asia/Seoul",
    "Asia/Shanghai",
    "Asia/Singapore",
    "Asia/Kolkata",
    "Asia/Dubai",
    "Australia/Sydney",
    "Pacific/Auckland",
    "Pacific/Honolulu",
    "America/Anchorage",
    "America/Los_Angeles",
    "America/Denver",
    "America/Chicago",
    "America/New_York",
    "America/Toronto",
    "America/Mexico_City",
    "America/Sao_Paulo",
    "Europe/London",
    "Europe/Paris",
    "Europe/Berlin",
    "Europe/Moscow",
    "Africa/Lagos",
    "Africa/Johannesburg",
    "UTC",
];

/// The reader's zone and their language's way of writing a time.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    pub zone: Tz,
    time_format: &'static str,
    day_format: &'static str,
}

impl Clock {
    pub fn new(t: &Text, zone: Tz) -> Self {
        Self {
            zone,
            time_format: t.app.time_format,
            day_format: t.app.day_format,
        }
    }

    /// A stored timestamp (RFC 3339) to the minute, or as stored if it is not one.
    pub fn time(&self, timestamp: &str) -> String {
        self.written(timestamp, self.time_format)
    }

    /// The day of a stored timestamp.
    pub fn day(&self, timestamp: &str) -> String {
        self.written(timestamp, self.day_format)
    }

    /// An instant kioku keeps in UTC, to the minute.
    pub fn instant(&self, instant: DateTime<Utc>) -> String {
        self.zone
            .from_utc_datetime(&instant.naive_utc())
            .format(self.time_format)
            .to_string()
    }

    fn written(&self, timestamp: &str, format: &str) -> String {
        DateTime::parse_from_rfc3339(timestamp).map_or_else(
            |_| timestamp.to_owned(),
            |time| time.with_timezone(&self.zone).format(format).to_string(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::pages::text::{EN, JA};

    #[test]
    fn times_are_written_in_the_readers_zone_and_language() {
        let stamp = "2026-12-06T03:07:27.174624+09:00";
        let tokyo = Clock::new(&EN, chrono_tz::Asia::Tokyo);
        assert_eq!(tokyo.time(stamp), "Dec 6, 2026, 3:07 AM");
        let new_york = Clock::new(&EN, chrono_tz::America::New_York);
        assert_eq!(new_york.time(stamp), "Dec 5, 2026, 1:07 PM");
        assert_eq!(new_york.day(stamp), "Dec 5, 2026");
        let ja = Clock::new(&JA, chrono_tz::Asia::Tokyo);
        assert_eq!(ja.time(stamp), "2026年12月6日 3:07");
        assert_eq!(ja.day(stamp), "2026年12月6日");
        assert_eq!(ja.time("yesterday"), "yesterday");
        let utc = DateTime::parse_from_rfc3339(stamp).unwrap().to_utc();
        assert_eq!(ja.instant(utc), "2026年12月6日 3:07");
    }

    #[test]
    fn every_offered_zone_is_one() {
        for zone in OFFERED_ZONES {
            assert!(zone.parse::<Tz>().is_ok(), "{zone}");
        }
    }
}
