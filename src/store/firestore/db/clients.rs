//! A Firestore client for each runtime that calls Firestore (each actix worker runs one), so
//! that a request's calls are sent and answered on the thread that serves it.
//!
//! A client's connection runs as tasks of the runtime that opened it. Shared by every worker,
//! the client opened at start would live on the main thread, and every call from a worker would
//! wake that thread and then be woken back: two thread switches per call, a fifth of a small
//! load's CPU on Firestore (BENCHMARKS.md). A runtime's first calls use the client opened at
//! start while its own opens.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use firestore::{FirestoreDb, FirestoreDbOptions};
use tokio::runtime::{Handle, Id};

#[derive(Clone)]
pub(super) struct Clients {
    /// Opened at start: its runtime's client, and every other runtime's until its own opens.
    shared: FirestoreDb,
    options: FirestoreDbOptions,
    open_timeout: Duration,
    by_runtime: Arc<Mutex<HashMap<Id, Local>>>,
}

/// A runtime's client, `None` while it opens. `alive` lasts as long as a task of that runtime
/// holds it: as long as the runtime, whose id another may be given once it has ended.
struct Local {
    db: Option<FirestoreDb>,
    alive: Weak<()>,
}

impl Clients {
    /// `shared` was opened on the current runtime, and is that runtime's client.
    pub fn new(shared: FirestoreDb, options: FirestoreDbOptions, open_timeout: Duration) -> Self {
        let clients = Self {
            shared,
            options,
            open_timeout,
            by_runtime: Arc::default(),
        };
        if let Ok(runtime) = Handle::try_current() {
            let alive = Arc::new(());
            let local = Local {
                db: Some(clients.shared.clone()),
                alive: Arc::downgrade(&alive),
            };
            lock(&clients.by_runtime).insert(runtime.id(), local);
            runtime.spawn(hold(alive));
        }
        clients
    }

    /// The client that does not depend on the calling runtime, for what needs no call: paths.
    pub fn shared(&self) -> &FirestoreDb {
        &self.shared
    }

    /// This runtime's client once it is open; until then, and outside a runtime, the shared one.
    pub fn current(&self) -> FirestoreDb {
        let Ok(runtime) = Handle::try_current() else {
            return self.shared.clone();
        };
        let id = runtime.id();
        let mut by_runtime = lock(&self.by_runtime);
        match by_runtime.get(&id) {
            Some(Local { db, alive }) if alive.strong_count() > 0 => {
                return db.as_ref().unwrap_or(&self.shared).clone();
            }
            // Never opened on this runtime: open one, and forget those of runtimes that ended.
            _ => by_runtime.retain(|_, local| local.alive.strong_count() > 0),
        }
        let alive = Arc::new(());
        let opening = Local {
            db: None,
            alive: Arc::downgrade(&alive),
        };
        by_runtime.insert(id, opening);
        let (options, open_timeout) = (self.options.clone(), self.open_timeout);
        let by_runtime = Arc::clone(&self.by_runtime);
        runtime.spawn(async move {
            let opened =
                tokio::time::timeout(open_timeout, FirestoreDb::with_options(options)).await;
            {
                let mut by_runtime = lock(&by_runtime);
                match opened {
                    Ok(Ok(db)) => {
                        if let Some(local) = by_runtime.get_mut(&id) {
                            local.db = Some(db);
                        }
                    }
                    // Tried again on this runtime's next call.
                    _ => {
                        by_runtime.remove(&id);
                        return;
                    }
                }
            }
            hold(alive).await
        });
        self.shared.clone()
    }
}

/// The clients by runtime. A panic while it was held left nothing half-written: each change
/// is one insert or removal.
fn lock(by_runtime: &Mutex<HashMap<Id, Local>>) -> MutexGuard<'_, HashMap<Id, Local>> {
    by_runtime.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Holds `alive` until the runtime ends, which drops its tasks, this one among them.
async fn hold(alive: Arc<()>) {
    let _alive = alive;
    std::future::pending::<()>().await
}
