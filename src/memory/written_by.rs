//! What one app wrote: counted when the person is about to disconnect it, and forgotten with
//! it if they ask. Only summaries are forgotten: the profile is one text all apps rewrite, and
//! its versions stay for the person to restore or forget on the page. Each read and each
//! forget is an operation of its own, within the time limit: the sweep is as long as the memory.

use std::collections::HashMap;

use super::{Memory, MemoryError};
use crate::domain::Counts;
use crate::domain::{Namespace, ThreadId, entry_micros};

/// Threads read at once while looking for an app's summaries.
const THREADS_PER_READ: u32 = 100;

/// An app's summaries in one thread: the times they were saved at.
struct Written {
    thread: ThreadId,
    at: Vec<i64>,
}

impl Memory {
    /// How many summaries of `ns` the app `client_id` saved.
    pub async fn count_written_by(
        &self,
        ns: &Namespace,
        client_id: &str,
    ) -> Result<u64, MemoryError> {
        let written = self.written_by(ns, client_id).await?;
        Ok(written.iter().map(|w| w.at.len() as u64).sum())
    }

    /// Forgets every summary of `ns` the app `client_id` saved; a thread left without
    /// summaries is gone. A summary saved in the same microsecond as another app's in the same
    /// thread is kept: a thread forgets by time, and the other's is not this app's to forget.
    pub async fn forget_written_by(
        &self,
        ns: &Namespace,
        client_id: &str,
    ) -> Result<Counts, MemoryError> {
        let mut forgotten = Counts::default();
        for Written { thread, at } in self.written_by(ns, client_id).await? {
            for at in at {
                let forget = self.store.forget(ns, &thread, Some(at));
                let counts = self.limit.within(forget).await?;
                forgotten.entries += counts.entries;
                forgotten.threads += counts.threads;
            }
        }
        tracing::info!(
            namespace = %ns,
            entries = forgotten.entries,
            threads = forgotten.threads,
            "forgot what a disconnected app saved"
        );
        Ok(forgotten)
    }

    /// Each thread's summaries the app saved, by time, leaving out times it shares with
    /// another writer's summary.
    async fn written_by(
        &self,
        ns: &Namespace,
        client_id: &str,
    ) -> Result<Vec<Written>, MemoryError> {
        let mut found = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let read = self
                .store
                .threads_page(ns, after.as_deref(), THREADS_PER_READ);
            let page = self.limit.within(read).await?;
            let last_page = page.len() < THREADS_PER_READ as usize;
            after = page.last().map(|thread| thread.id.clone());
            for thread in page {
                // Whether each time holds only the app's summaries.
                let mut only_the_apps: HashMap<i64, bool> = HashMap::new();
                for entry in &thread.entries {
                    let mine = entry.writer.as_ref().is_some_and(|w| w.is_app(client_id));
                    let at = entry_micros(&entry.timestamp);
                    *only_the_apps.entry(at).or_insert(mine) &= mine;
                }
                let mut at: Vec<i64> = only_the_apps
                    .into_iter()
                    .filter_map(|(at, only)| only.then_some(at))
                    .collect();
                // The original's thread ids need not parse; it never recorded a writer.
                let Ok(id) = ThreadId::parse(&thread.id) else {
                    continue;
                };
                if !at.is_empty() {
                    at.sort_unstable();
                    found.push(Written { thread: id, at });
                }
            }
            if last_page {
                return Ok(found);
            }
        }
    }
}
