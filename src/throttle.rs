//! Counts per client address of what only a few may do in a [`WINDOW`]: past its limit, an
//! address is refused until the window ends. Two kinds are counted: failed sign-ins (past
//! [`FAILURES_PER_WINDOW`] an address's wrong credentials are refused with a wait instead of a
//! plain refusal, so that guessing tokens is slowed; its right ones still pass), and records
//! stored for someone not signed in yet
//! (past [`UNSIGNED_WRITES_PER_WINDOW`] an address registers no more clients and begins no more
//! sign-ins at the OpenID Provider, so that it cannot fill the store; these count as they are
//! admitted, so that requests sent together cannot pass the limit). Each kind is a type of its
//! own ([`FailedSignIns`], [`UnsignedWrites`]) offering only how it counts. In memory, so per
//! instance.
//!
//! Not `governor`, as [`crate::rate_limit`] is: its buckets cannot be looked at without taking
//! from them, and here every attempt is looked at first while only some count; its keys are
//! never forgotten, and addresses are countless; and the audit line wants the count.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::domain::Door;

/// Failures an address may make in a window: far above a person mistyping a token, or a
/// client retrying with a stale one; at most 14,400 guesses a day, nothing against a token of
/// 32 characters or more.
pub const FAILURES_PER_WINDOW: u32 = 10;
/// Records an address may have stored before anyone signs in: a person connects a few apps at
/// a time, and an assistant's servers register each of their users' connections from a few
/// addresses; a flood of registrations is refused.
pub const UNSIGNED_WRITES_PER_WINDOW: u32 = 30;
pub const WINDOW: Duration = Duration::from_secs(60);
/// Addresses counted at once. Beyond it, addresses new to the count are not counted: no more
/// memory, and no one locked out for others; guessing from that many addresses at once is for
/// a deployment's Cloud Armor (SECURITY.md).
const MAX_COUNTED: usize = 100_000;

/// Whom a count is kept for: an IPv4 address, or an IPv6 address's /64 network, since one
/// host is commonly given a whole /64 to pick addresses from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Client {
    V4(Ipv4Addr),
    V6Network(u64),
}

impl From<IpAddr> for Client {
    fn from(address: IpAddr) -> Self {
        match address.to_canonical() {
            IpAddr::V4(v4) => Self::V4(v4),
            IpAddr::V6(v6) => Self::V6Network((v6.to_bits() >> 64) as u64),
        }
    }
}

/// An address's count in its current window, which starts at the first it made.
struct Tally {
    since: Instant,
    count: u32,
}

impl Tally {
    fn current(&self, now: Instant) -> bool {
        now < self.since + WINDOW
    }
}

/// Each client's tally, and when the tallies of ended windows were last dropped.
#[derive(Default)]
struct ByClient {
    by_client: HashMap<Client, Tally>,
    /// When windows that ended were last dropped.
    swept: Option<Instant>,
}

/// Failed sign-ins: only a failure is counted, once it is known, and past the limit only a
/// failure is refused, with the wait. A right credential passes, so that guesses from a shared
/// address (a GPT's, an assistant's servers) lock out no one who holds the right one: tokens of
/// 32 characters or more are not found by guessing however fast, and a guess costs at most one
/// credential read. Where weak tokens are carried over, an address past its limit is refused
/// before anything it presents is looked at, right tokens too: ten guesses a minute could find
/// a weak one.
pub struct FailedSignIns {
    counts: Throttle,
    weak_tokens: bool,
}

impl FailedSignIns {
    /// `weak_tokens`: some configured token is shorter than the minimum.
    pub fn new(weak_tokens: bool) -> Self {
        Self {
            counts: Throttle::new(FAILURES_PER_WINDOW),
            weak_tokens,
        }
    }

    /// Whether `client` may present a credential now; if not, how long until it may. Only
    /// where weak tokens are carried over is anyone refused here.
    pub fn admit(&self, client: IpAddr) -> Result<(), Duration> {
        if !self.weak_tokens {
            return Ok(());
        }
        self.counts.admit_at(client, Instant::now())
    }

    /// Counts a failure of `client` at `door`, and answers whether to say it failed (`Ok`) or
    /// to refuse with how long to wait, `client` being past its limit (then it is not counted
    /// again). The failure that reaches the limit writes the audit line: one per address and
    /// window, with the address, the door and the count, never what was presented.
    pub fn failed(&self, client: IpAddr, door: Door) -> Result<(), Duration> {
        if let Some(failures) = self.counts.take_at(client, Instant::now())? {
            tracing::warn!(
                audit = true,
                remote_ip = %client,
                door = door.as_str(),
                failures,
                window_secs = WINDOW.as_secs(),
                "failed sign-ins from one address reached the limit; its failures are refused \
                 until its window ends"
            );
        }
        Ok(())
    }
}

/// Records stored before sign-in: each is counted as it is admitted, whatever its outcome,
/// so that requests sent together cannot all pass the limit. Taking is all it offers.
pub struct UnsignedWrites(Throttle);

impl Default for UnsignedWrites {
    fn default() -> Self {
        Self(Throttle::new(UNSIGNED_WRITES_PER_WINDOW))
    }
}

impl UnsignedWrites {
    /// Admits and counts one write for `client`; if refused, how long until it may write. The
    /// one that reaches the limit writes the audit line, as a failed sign-in's does.
    pub fn take(&self, client: IpAddr, door: Door) -> Result<(), Duration> {
        if let Some(unsigned_writes) = self.0.take_at(client, Instant::now())? {
            tracing::warn!(
                audit = true,
                remote_ip = %client,
                door = door.as_str(),
                unsigned_writes,
                window_secs = WINDOW.as_secs(),
                "writes before sign-in from one address reached the limit; it writes no more \
                 until its window ends"
            );
        }
        Ok(())
    }
}

/// The counts of one kind, of every client address, against its `limit` a window.
struct Throttle {
    limit: u32,
    counts: Mutex<ByClient>,
}

impl Throttle {
    fn new(limit: u32) -> Self {
        Self {
            limit,
            counts: Mutex::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ByClient> {
        self.counts
            .lock()
            .expect("the throttle's lock is never poisoned")
    }

    fn admit_at(&self, client: IpAddr, now: Instant) -> Result<(), Duration> {
        self.lock().admit(client.into(), self.limit, now)
    }

    /// The count, when this one is the one that reaches the limit. Counting without admitting
    /// is for the tests, which fill a count this way.
    #[cfg(test)]
    fn count_at(&self, client: IpAddr, now: Instant) -> Option<u32> {
        self.lock().count(client.into(), self.limit, now)
    }

    /// Admits and counts under one lock: requests sent together cannot all be admitted before
    /// any is counted.
    fn take_at(&self, client: IpAddr, now: Instant) -> Result<Option<u32>, Duration> {
        let (mut counts, key) = (self.lock(), client.into());
        counts.admit(key, self.limit, now)?;
        Ok(counts.count(key, self.limit, now))
    }
}

impl ByClient {
    fn admit(&self, key: Client, limit: u32, now: Instant) -> Result<(), Duration> {
        match self.by_client.get(&key) {
            Some(tally) if tally.current(now) && tally.count >= limit => {
                Err(tally.since + WINDOW - now)
            }
            _ => Ok(()),
        }
    }

    fn count(&mut self, key: Client, limit: u32, now: Instant) -> Option<u32> {
        // Windows that ended are dropped once a window, so memory follows recent counts.
        if self.swept.is_none_or(|at| now >= at + WINDOW) {
            self.by_client.retain(|_, tally| tally.current(now));
            self.swept = Some(now);
        }
        if self.by_client.len() >= MAX_COUNTED && !self.by_client.contains_key(&key) {
            return None;
        }
        let tally = self.by_client.entry(key).or_insert(Tally {
            since: now,
            count: 0,
        });
        if !tally.current(now) {
            *tally = Tally {
                since: now,
                count: 0,
            };
        }
        tally.count += 1;
        (tally.count == limit).then_some(tally.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_address_is_refused_after_its_failures_until_the_window_ends() {
        let throttle = Throttle::new(FAILURES_PER_WINDOW);
        let (guesser, other) = (addr("203.0.113.7"), addr("198.51.100.9"));
        let start = Instant::now();
        for n in 1..FAILURES_PER_WINDOW {
            assert!(throttle.admit_at(guesser, start).is_ok());
            assert_eq!(throttle.count_at(guesser, start), None, "failure {n}");
        }
        assert_eq!(throttle.count_at(guesser, start), Some(FAILURES_PER_WINDOW));
        let later = start + Duration::from_secs(15);
        assert_eq!(
            throttle.admit_at(guesser, later),
            Err(Duration::from_secs(45))
        );
        assert!(throttle.admit_at(other, later).is_ok());
        // More failures while refused start no second run in the same window.
        assert_eq!(throttle.count_at(guesser, later), None);
        assert!(throttle.admit_at(guesser, start + WINDOW).is_ok());
        assert_eq!(throttle.count_at(guesser, start + WINDOW), None);
    }

    #[test]
    fn records_stored_before_sign_in_have_a_limit_of_their_own() {
        let throttle = Throttle::new(UNSIGNED_WRITES_PER_WINDOW);
        let (client, now) = (addr("203.0.113.7"), Instant::now());
        for n in 1..UNSIGNED_WRITES_PER_WINDOW {
            assert!(throttle.admit_at(client, now).is_ok(), "write {n}");
            assert_eq!(throttle.count_at(client, now), None, "write {n}");
        }
        assert_eq!(
            throttle.count_at(client, now),
            Some(UNSIGNED_WRITES_PER_WINDOW)
        );
        assert!(throttle.admit_at(client, now).is_err());
        assert!(throttle.admit_at(client, now + WINDOW).is_ok());
    }

    #[test]
    fn what_is_taken_is_counted_as_it_is_admitted() {
        let throttle = Throttle::new(UNSIGNED_WRITES_PER_WINDOW);
        let (client, now) = (addr("203.0.113.7"), Instant::now());
        for n in 1..UNSIGNED_WRITES_PER_WINDOW {
            assert_eq!(throttle.take_at(client, now), Ok(None), "write {n}");
        }
        assert_eq!(
            throttle.take_at(client, now),
            Ok(Some(UNSIGNED_WRITES_PER_WINDOW))
        );
        assert_eq!(throttle.take_at(client, now), Err(WINDOW));
        assert!(throttle.admit_at(client, now).is_err());
        assert_eq!(throttle.take_at(client, now + WINDOW), Ok(None));
    }

    #[test]
    fn an_ipv6_network_counts_as_one_client() {
        let throttle = Throttle::new(FAILURES_PER_WINDOW);
        let now = Instant::now();
        for n in 0..FAILURES_PER_WINDOW {
            throttle.count_at(addr(&format!("2001:db8:1:2::{n:x}")), now);
        }
        assert!(throttle.admit_at(addr("2001:db8:1:2::ffff"), now).is_err());
        assert!(throttle.admit_at(addr("2001:db8:1:3::1"), now).is_ok());
        // An IPv4 address written as IPv6 is the same client.
        for _ in 0..FAILURES_PER_WINDOW {
            throttle.count_at(addr("192.0.2.1"), now);
        }
        assert!(throttle.admit_at(addr("::ffff:192.0.2.1"), now).is_err());
    }

    #[test]
    fn ended_windows_are_dropped() {
        let throttle = Throttle::new(FAILURES_PER_WINDOW);
        let now = Instant::now();
        throttle.count_at(addr("192.0.2.1"), now);
        throttle.count_at(addr("192.0.2.2"), now + WINDOW);
        let counts = throttle.counts.lock().unwrap();
        assert_eq!(counts.by_client.len(), 1);
    }
}
