//! How much a namespace keeps: the operator's limits on entries, threads and age.

use std::num::NonZeroU32;

use chrono::{TimeDelta, Utc};

/// How much a namespace keeps. Every limit is off unless the operator sets it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Retention {
    /// A thread keeps at most this many entries; a save drops the oldest beyond it.
    pub max_entries_per_thread: Option<NonZeroU32>,
    /// A namespace keeps at most this many threads; a save drops the least recently saved.
    pub max_threads: Option<NonZeroU32>,
    /// Entries older than this many days are forgotten: no load shows them from that moment,
    /// and each store deletes them in its own time (SQLite's hourly purge, Firestore's TTL
    /// policy or the thread's next rewrite). A save never reports them as dropped: the save did
    /// not drop them, their age did.
    pub max_age_days: Option<NonZeroU32>,
}

impl Retention {
    /// Microseconds since the epoch before which entries are past their age now.
    pub fn cutoff(&self) -> Option<i64> {
        let days = self.max_age_days?;
        Some((Utc::now() - TimeDelta::days(days.get().into())).timestamp_micros())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cutoff_is_the_age_limit_before_now() {
        assert_eq!(Retention::default().cutoff(), None);
        let week = Retention {
            max_age_days: NonZeroU32::new(7),
            ..Retention::default()
        };
        let expected = (Utc::now() - TimeDelta::days(7)).timestamp_micros();
        assert!((week.cutoff().unwrap() - expected).abs() < 5_000_000);
    }
}
