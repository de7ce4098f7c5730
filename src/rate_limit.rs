//! How many requests one namespace may make: a token bucket per namespace, in memory (so per
//! instance).

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::domain::Namespace;

/// A token bucket per namespace: `per_minute` requests a minute, in bursts of up to as many.
pub struct RateLimit {
    limiter: Option<DefaultKeyedRateLimiter<String>>,
}

impl RateLimit {
    /// `0` turns rate limiting off.
    pub fn per_minute(per_minute: u32) -> Self {
        Self {
            limiter: NonZeroU32::new(per_minute).map(|n| RateLimiter::keyed(Quota::per_minute(n))),
        }
    }

    /// Takes one request from the namespace's bucket, or says how long until one is free.
    pub fn check(&self, ns: &Namespace) -> Result<(), Duration> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        limiter
            .check_key(&ns.name().to_owned())
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_namespace_has_its_own_bucket() {
        let limit = RateLimit::per_minute(2);
        let (a, b) = (
            Namespace::named("a").unwrap(),
            Namespace::named("b").unwrap(),
        );
        assert!(limit.check(&a).is_ok() && limit.check(&a).is_ok());
        let wait = limit.check(&a).unwrap_err();
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        assert!(limit.check(&b).is_ok());
    }

    #[test]
    fn zero_turns_it_off() {
        let limit = RateLimit::per_minute(0);
        let ns = Namespace::named("a").unwrap();
        assert!((0..1_000).all(|_| limit.check(&ns).is_ok()));
    }
}
