//! What one request cost the store, for its log line: the Firestore calls it made, and the
//! documents they read and wrote, counted as Firestore bills them
//! (<https://firebase.google.com/docs/firestore/pricing#operations>).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

tokio::task_local! {
    static USAGE: Arc<Usage>;
}

/// The store calls made within [`Usage::scope`], and the documents they read and wrote.
#[derive(Debug, Default)]
pub struct Usage {
    counted: AtomicBool,
    calls: AtomicU64,
    reads: AtomicU64,
    writes: AtomicU64,
}

/// What [`Usage::firestore`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Billed {
    pub calls: u64,
    pub reads: u64,
    pub writes: u64,
}

impl Usage {
    /// Runs `work`, counting what its store calls cost into `self`.
    pub async fn scope<F: Future>(self: Arc<Self>, work: F) -> F::Output {
        USAGE.scope(self, work).await
    }

    /// The usage being counted where this is called, to carry into a task of its own.
    pub fn current() -> Option<Arc<Self>> {
        USAGE.try_with(Arc::clone).ok()
    }

    /// What was billed, when a call was counted: a request that reached no Firestore call
    /// has none.
    pub fn firestore(&self) -> Option<Billed> {
        self.counted.load(Ordering::Relaxed).then(|| Billed {
            calls: self.calls.load(Ordering::Relaxed),
            reads: self.reads.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
        })
    }
}

/// Counts one call of the current request, if one is counting, that read `documents`.
pub(crate) fn read(documents: u64) {
    count(|usage| usage.reads.fetch_add(documents, Ordering::Relaxed));
}

/// Counts one call of the current request, if one is counting, that wrote (or deleted)
/// `documents`.
pub(crate) fn wrote(documents: u64) {
    count(|usage| usage.writes.fetch_add(documents, Ordering::Relaxed));
}

fn count(add: impl FnOnce(&Usage) -> u64) {
    let _ = USAGE.try_with(|usage| {
        usage.counted.store(true, Ordering::Relaxed);
        usage.calls.fetch_add(1, Ordering::Relaxed);
        add(usage)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn calls_are_counted_within_the_scope_only() {
        read(5);
        let usage = Arc::new(Usage::default());
        assert_eq!(usage.firestore(), None);
        Arc::clone(&usage)
            .scope(async {
                read(2);
                wrote(1);
                let inner = Usage::current().unwrap();
                tokio::spawn(inner.scope(async { read(3) })).await.unwrap();
            })
            .await;
        let billed = Billed {
            calls: 3,
            reads: 5,
            writes: 1,
        };
        assert_eq!(usage.firestore(), Some(billed));
    }
}
