//! A Firestore client for each thread that calls Firestore, so that a request's calls are sent
//! and answered on the thread that serves it.
//!
//! A client's connection runs as tasks of the runtime that opened it. Opened once at start, it
//! would live on the main thread, and every call from an actix worker would wake that thread and
//! then be woken back: two thread switches per call, a fifth of a small load's CPU on Firestore
//! (BENCHMARKS.md). Each thread's first calls use the shared client while its own opens.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::thread::ThreadId;
use std::time::Duration;

use firestore::{FirestoreDb, FirestoreDbOptions};

#[derive(Clone)]
pub(super) struct Clients {
    shared: FirestoreDb,
    options: FirestoreDbOptions,
    open_timeout: Duration,
    by_thread: Arc<Mutex<HashMap<ThreadId, Local>>>,
}

/// A thread's client, `None` while it opens. `alive` lasts as long as the task that opens the
/// client and then keeps it: as long as the runtime its connection runs on.
struct Local {
    db: Option<FirestoreDb>,
    alive: Weak<()>,
}

impl Clients {
    pub fn new(shared: FirestoreDb, options: FirestoreDbOptions, open_timeout: Duration) -> Self {
        Self {
            shared,
            options,
            open_timeout,
            by_thread: Arc::default(),
        }
    }

    /// The client that does not depend on the calling thread, for what needs no call: paths.
    pub fn shared(&self) -> &FirestoreDb {
        &self.shared
    }

    /// This thread's client once it is open; until then, and outside a runtime, the shared one.
    pub fn current(&self) -> FirestoreDb {
        let thread = std::thread::current().id();
        let mut by_thread = self.by_thread.lock().unwrap_or_else(|e| e.into_inner());
        match by_thread.get(&thread) {
            Some(Local { db, alive }) if alive.strong_count() > 0 => {
                return db.as_ref().unwrap_or(&self.shared).clone();
            }
            // Never opened here, or its runtime has ended: open one on this thread's runtime.
            _ => {}
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return self.shared.clone();
        };
        let alive = Arc::new(());
        let opening = Local {
            db: None,
            alive: Arc::downgrade(&alive),
        };
        by_thread.insert(thread, opening);
        let (options, open_timeout) = (self.options.clone(), self.open_timeout);
        let by_thread = Arc::clone(&self.by_thread);
        runtime.spawn(async move {
            let opened =
                tokio::time::timeout(open_timeout, FirestoreDb::with_options(options)).await;
            {
                let mut by_thread = by_thread.lock().unwrap_or_else(|e| e.into_inner());
                match opened {
                    Ok(Ok(db)) => {
                        if let Some(local) = by_thread.get_mut(&thread) {
                            local.db = Some(db);
                        }
                    }
                    // Tried again on this thread's next call.
                    _ => {
                        by_thread.remove(&thread);
                        return;
                    }
                }
            }
            // Held until the runtime ends, which drops its tasks, this one among them.
            let _alive = alive;
            std::future::pending::<()>().await
        });
        self.shared.clone()
    }
}
