//! The backfills an instance starts on its own (index/backfill.rs): the namespaces under way, and
//! the one permit they take turns with, so that loads never start a crowd of them.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;

/// The backfills an instance runs on its own: one at a time, once per namespace at a time.
#[derive(Clone)]
pub struct Backfills {
    pub running: Arc<Mutex<HashSet<String>>>,
    pub one_at_a_time: Arc<Semaphore>,
}

impl Default for Backfills {
    fn default() -> Self {
        Self {
            running: Arc::default(),
            one_at_a_time: Arc::new(Semaphore::new(1)),
        }
    }
}
