//! Work that would hold up an async worker (a blocking SQLite call, the ranking of a search)
//! runs on tokio's blocking pool instead, and stops once nobody waits for it any more.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::StoreError;

/// Set once the caller of some blocking work has stopped waiting for it: its time limit
/// passed, so [`TimeLimit`](super::TimeLimit) dropped the operation. Nobody will read the work's
/// result, so the work should stop; dropping a future cannot stop a blocking thread.
#[derive(Clone, Default)]
pub struct GivenUp(Arc<AtomicBool>);

impl GivenUp {
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Sets the flag when the future awaiting the work is dropped (or the work is done, when
/// nobody looks at it any more).
struct SetOnDrop(GivenUp);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `work` on the blocking pool; `work` sees its [`GivenUp`] set once the returned future
/// is dropped unfinished.
pub async fn off_workers<T: Send + 'static>(
    work: impl FnOnce(&GivenUp) -> T + Send + 'static,
) -> Result<T, StoreError> {
    let given_up = GivenUp::default();
    let _set_on_drop = SetOnDrop(given_up.clone());
    tokio::task::spawn_blocking(move || work(&given_up))
        .await
        .map_err(|e| StoreError::failed("a blocking task did not finish", e))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn work_whose_caller_stopped_waiting_sees_it() {
        let (seen, seen_rx) = std::sync::mpsc::channel();
        let call = off_workers(move |given_up| {
            while !given_up.is_set() {
                std::thread::sleep(Duration::from_millis(1));
            }
            seen.send(()).unwrap();
        });
        assert!(
            tokio::time::timeout(Duration::from_millis(50), call)
                .await
                .is_err()
        );
        seen_rx.recv_timeout(Duration::from_secs(5)).unwrap();
    }
}
