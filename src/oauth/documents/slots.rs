//! How many document fetches run at once, shared fairly: a few in all, and two at a time for
//! each client address and for each host, so that nobody holds every fetch by naming hosts
//! that never answer.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// Most fetches at once in all, for one client address, and to one host.
const MAX_FETCHES: usize = 16;
const PER_ADDRESS: usize = 2;
const PER_HOST: usize = 2;

#[derive(Default)]
pub(super) struct Slots(Arc<Mutex<Running>>);

#[derive(Default)]
struct Running {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
    by_host: HashMap<String, usize>,
}

/// One fetch's place, given back when dropped.
pub(super) struct Slot {
    running: Arc<Mutex<Running>>,
    address: IpAddr,
    host: String,
}

impl Slots {
    /// A place for a fetch that `address` asks for from `host`, if one is free.
    pub fn take(&self, address: IpAddr, host: &str) -> Option<Slot> {
        let mut running = self.0.lock().expect("the fetch slots are never poisoned");
        let of_address = running.by_address.get(&address).copied().unwrap_or(0);
        let of_host = running.by_host.get(host).copied().unwrap_or(0);
        if running.total >= MAX_FETCHES || of_address >= PER_ADDRESS || of_host >= PER_HOST {
            return None;
        }
        running.total += 1;
        *running.by_address.entry(address).or_default() += 1;
        *running.by_host.entry(host.to_owned()).or_default() += 1;
        Some(Slot {
            running: Arc::clone(&self.0),
            address,
            host: host.to_owned(),
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut running = self
            .running
            .lock()
            .expect("the fetch slots are never poisoned");
        running.total -= 1;
        // Counts that reach zero go, so the maps hold only what runs.
        if let Some(n) = running.by_address.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                running.by_address.remove(&self.address);
            }
        }
        if let Some(n) = running.by_host.get_mut(&self.host) {
            *n -= 1;
            if *n == 0 {
                running.by_host.remove(&self.host);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_for_an_address_two_for_a_host_and_all_given_back() {
        let slots = Slots::default();
        let ip = |n: u8| IpAddr::from([203, 0, 113, n]);
        let first = slots.take(ip(1), "slow.example").unwrap();
        let second = slots.take(ip(1), "other.example").unwrap();
        assert!(
            slots.take(ip(1), "third.example").is_none(),
            "two per address"
        );
        let third = slots.take(ip(2), "slow.example").unwrap();
        assert!(slots.take(ip(3), "slow.example").is_none(), "two per host");
        assert!(slots.take(ip(3), "fourth.example").is_some());
        drop((first, second, third));
        let running = slots.0.lock().unwrap();
        assert_eq!(running.total, 0);
        assert!(running.by_address.is_empty() && running.by_host.is_empty());
    }

    #[test]
    fn the_total_is_bounded() {
        let slots = Slots::default();
        let taken: Vec<Slot> = (0..MAX_FETCHES as u8)
            .map(|n| {
                slots
                    .take(IpAddr::from([203, 0, 113, n]), &format!("h{n}"))
                    .unwrap()
            })
            .collect();
        assert!(slots.take(IpAddr::from([203, 0, 114, 1]), "h").is_none());
        drop(taken);
        assert!(slots.take(IpAddr::from([203, 0, 114, 1]), "h").is_some());
    }
}
