//! How often a grant may be refreshed and a person may approve apps: a token bucket per grant
//! and per namespace, in memory (so per instance). A client refreshes once an access token
//! expires and a person connects a few apps at a time; a loop that refreshes thousands of times
//! a minute, or approves hundreds of grants, is refused with the wait, so that nobody signed in
//! can fill the store through the token endpoint or the consent page.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// Refreshes of one grant a minute, in bursts of up to as many: a client's retries and races
/// fit many times over.
pub const REFRESHES_PER_MINUTE: NonZeroU32 = NonZeroU32::new(10).unwrap();
/// Grants one namespace may approve a minute, by token or at the OpenID Provider.
pub const APPROVALS_PER_MINUTE: NonZeroU32 = NonZeroU32::new(10).unwrap();

pub struct Pace {
    refreshes: DefaultKeyedRateLimiter<String>,
    approvals: DefaultKeyedRateLimiter<String>,
}

impl Default for Pace {
    fn default() -> Self {
        Self {
            refreshes: RateLimiter::keyed(Quota::per_minute(REFRESHES_PER_MINUTE)),
            approvals: RateLimiter::keyed(Quota::per_minute(APPROVALS_PER_MINUTE)),
        }
    }
}

impl Pace {
    /// Takes one refresh of the grant `grant_id`, or says how long until one is free.
    pub fn refresh(&self, grant_id: &str) -> Result<(), Duration> {
        take(&self.refreshes, grant_id)
    }

    /// Takes one approval by the namespace `namespace`, or says how long until one is free.
    pub fn approval(&self, namespace: &str) -> Result<(), Duration> {
        take(&self.approvals, namespace)
    }

    /// Forgets the buckets that are full again, so that grants and namespaces long idle take no
    /// memory; run with the hourly purge.
    pub fn forget_idle(&self) {
        self.refreshes.retain_recent();
        self.approvals.retain_recent();
    }
}

fn take(limiter: &DefaultKeyedRateLimiter<String>, key: &str) -> Result<(), Duration> {
    limiter
        .check_key(&key.to_owned())
        .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_grant_and_namespace_has_its_own_bucket() {
        let pace = Pace::default();
        for _ in 0..REFRESHES_PER_MINUTE.get() {
            pace.refresh("g1").unwrap();
        }
        let wait = pace.refresh("g1").unwrap_err();
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(6),
            "{wait:?}"
        );
        assert!(pace.refresh("g2").is_ok());
        assert!(pace.approval("g1").is_ok(), "approvals are counted apart");
    }
}
