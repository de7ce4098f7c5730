//! The read-then-write loop that makes a change safe under concurrent writers, and the
//! commits that may lose a race to one.

use std::time::Duration;

use firestore::gcloud_sdk::google::firestore::v1::{Document, Write};

use super::Db;
use super::failure::{commit_error, lost_race};
use crate::store::StoreError;
use crate::store::firestore::document::layout::MAX_WRITES_PER_COMMIT;
use crate::store::firestore::document::writes::{delete_write, unchanged};

/// Tries at a read-then-write change before giving up on a thread that keeps changing; with
/// the waits between them, well within the store's time limit.
const ATTEMPTS: u32 = 12;
/// The longest wait between two tries.
const MAX_BACKOFF: Duration = Duration::from_millis(200);

impl Db {
    /// Reads the document `name`, lets `plan` choose a write from what it holds, and commits
    /// the write only if the document is still as read; reads again when another write came
    /// between. `plan` answers no write when nothing needs to change.
    pub async fn change<T>(
        &self,
        name: &str,
        plan: impl FnMut(Option<&Document>) -> Result<(Option<Write>, T), StoreError>,
    ) -> Result<T, StoreError> {
        self.change_along(name, &[], plan).await
    }

    /// [`change`](Self::change), committing `along` in the same commit as the write.
    pub async fn change_along<T>(
        &self,
        name: &str,
        along: &[Write],
        mut plan: impl FnMut(Option<&Document>) -> Result<(Option<Write>, T), StoreError>,
    ) -> Result<T, StoreError> {
        let mut tries = Tries::default();
        while tries.next().await {
            let current = self.get(name).await?;
            let (write, outcome) = plan(current.as_ref())?;
            let Some(write) = write else {
                return Ok(outcome);
            };
            let write = Write {
                current_document: Some(unchanged(current.as_ref())),
                ..write
            };
            let writes = [&[write], along].concat();
            if let Some(outcome) = self.commit_unless_lost(writes, outcome).await? {
                return Ok(outcome);
            }
        }
        Err(StoreError::Contended)
    }

    /// Commits `writes` and answers `outcome`; `None` when a precondition failed because
    /// another writer came first.
    pub async fn commit_unless_lost<T>(
        &self,
        writes: Vec<Write>,
        outcome: T,
    ) -> Result<Option<T>, StoreError> {
        match self.commit(writes).await {
            Ok(()) => Ok(Some(outcome)),
            Err(status) if lost_race(&status) => Ok(None),
            Err(status) => Err(commit_error(status)),
        }
    }

    /// Deletes the documents `names`, as many to a commit as Firestore takes.
    pub async fn delete_all(&self, names: &[String]) -> Result<(), StoreError> {
        for chunk in names.chunks(MAX_WRITES_PER_COMMIT) {
            let writes = chunk.iter().map(|name| delete_write(name)).collect();
            self.commit(writes).await.map_err(commit_error)?;
        }
        Ok(())
    }
}

/// The tries of a write that may lose a race to another writer: each after the first waits a
/// little longer, so that writers who collided spread out; they end, well within the store's
/// time limit, on a document that keeps changing.
#[derive(Default)]
pub struct Tries(u32);

impl Tries {
    /// Waits for the next try; `false` when none is left.
    pub async fn next(&mut self) -> bool {
        if self.0 >= ATTEMPTS {
            return false;
        }
        if self.0 > 0 {
            tokio::time::sleep(backoff(self.0)).await;
        }
        self.0 += 1;
        true
    }
}

/// How long to wait before try `attempt` (from 1) of a change that lost a race: a random
/// share of an exponentially growing ceiling ("full jitter"), so that writers who collided
/// spread out instead of colliding again.
fn backoff(attempt: u32) -> Duration {
    let ceiling = Duration::from_millis(5)
        .saturating_mul(1 << attempt.min(16))
        .min(MAX_BACKOFF);
    let share = f64::from(getrandom::u32().unwrap_or(u32::MAX / 2)) / f64::from(u32::MAX);
    ceiling.mul_f64(share)
}
