//! Readiness, answered from the store at most once every few seconds: `/readyz` needs no token,
//! so its cost must not follow how often anyone calls it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use super::{MemoryStore, StoreError, TimeLimit};

/// How long one answer of the store stands for.
const FRESH_FOR: Duration = Duration::from_secs(5);

pub struct Readiness {
    store: Arc<dyn MemoryStore>,
    limit: TimeLimit,
    /// When the store last answered, and whether it was ready. Held while a ping is in flight,
    /// so concurrent checks share one.
    last: Mutex<Option<(Instant, bool)>>,
}

/// The store failed the check that is still fresh.
#[derive(Debug, thiserror::Error)]
#[error("the store failed its readiness check less than {} s ago", FRESH_FOR.as_secs())]
struct StillUnready;

impl Readiness {
    pub fn new(store: Arc<dyn MemoryStore>, limit: TimeLimit) -> Self {
        Self {
            store,
            limit,
            last: Mutex::new(None),
        }
    }

    /// Succeeds when the store can serve requests, by its answer of the last few seconds.
    pub async fn check(&self) -> Result<(), StoreError> {
        let mut last = self.last.lock().await;
        match *last {
            Some((at, true)) if at.elapsed() < FRESH_FOR => Ok(()),
            Some((at, false)) if at.elapsed() < FRESH_FOR => {
                Err(StoreError::failed("the store is not ready", StillUnready))
            }
            _ => {
                let answer = self.limit.within(self.store.ping()).await;
                *last = Some((Instant::now(), answer.is_ok()));
                answer
            }
        }
    }
}
