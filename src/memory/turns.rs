//! Each namespace's turns at the work that holds the store's readers or the model's cores for
//! long, a search and a save the model embeds: at most [`TURNS`] of a namespace's run at once,
//! the rest wait for a turn within their own time limit. Readers (SQLite keeps four) and cores
//! are served first come, first served; without turns, one namespace's burst of searches,
//! within its rate limit, held them all, and another namespace's small loads waited seconds
//! behind it. A plain load or save takes microseconds of them and no turn: one namespace's
//! many loads at once still run side by side, as a benchmark's do.
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::domain::Namespace;

/// Operations of one namespace at once: half of SQLite's readers, as many as this machine's
/// two cores, so that another namespace always finds the rest free.
pub const TURNS: usize = 2;

/// The namespaces with an operation running or waiting, each with its turns: an entry lives
/// only while one is, so the map holds no more than the operations in flight.
#[derive(Default)]
pub struct Turns(Mutex<HashMap<String, Arc<Semaphore>>>);

impl Turns {
    /// A turn of `ns`, once one is free; held until dropped.
    pub async fn take(&self, ns: &Namespace) -> Option<OwnedSemaphorePermit> {
        let turns = {
            let mut by_namespace = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            // A semaphore only the map holds has no operation running or waiting.
            by_namespace.retain(|_, turns| Arc::strong_count(turns) > 1);
            let turns = by_namespace
                .entry(ns.name().to_owned())
                .or_insert_with(|| Arc::new(Semaphore::new(TURNS)));
            Arc::clone(turns)
        };
        // Never closed, so a turn always comes.
        turns.acquire_owned().await.ok()
    }

    /// Namespaces with an operation running or waiting, and this one's turns in use.
    #[cfg(test)]
    fn in_use(&self, ns: &Namespace) -> (usize, usize) {
        let by_namespace = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let used = (by_namespace.get(ns.name())).map_or(0, |t| TURNS - t.available_permits());
        (by_namespace.len(), used)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_namespace_runs_at_most_its_turns_and_leaves_no_trace() {
        let turns = Arc::new(Turns::default());
        let (alice, bob) = (
            Namespace::named("alice").unwrap(),
            Namespace::named("bob").unwrap(),
        );
        let held: Vec<_> = [turns.take(&alice).await, turns.take(&alice).await].into();
        assert_eq!(turns.in_use(&alice), (1, TURNS));

        let third = tokio::spawn({
            let (turns, alice) = (Arc::clone(&turns), alice.clone());
            async move { turns.take(&alice).await.is_some() }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!third.is_finished(), "a third waits for a turn");
        // Another namespace is not kept waiting by alice's.
        let bobs = tokio::time::timeout(Duration::from_secs(1), turns.take(&bob)).await;
        assert!(bobs.unwrap().is_some());

        drop(held);
        assert!(third.await.unwrap(), "the third runs once a turn is free");
        turns.take(&bob).await;
        assert_eq!(
            turns.in_use(&alice),
            (1, 0),
            "only the last taken's entry is left"
        );
    }
}
