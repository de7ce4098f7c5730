//! Read-only connections beside the one that writes: in WAL mode readers neither wait for the
//! writer nor for each other, so that one namespace's long search holds up no other's load.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use tokio::sync::Semaphore;

use super::schema;

/// Read connections kept open: one per search the server may run at once on a small
/// instance, with one to spare for everything else.
const READERS: usize = 4;

/// The idle read connections, and a permit for each: a reader waits for a permit, which
/// `tokio` hands out in the order asked (fair), and cancels the wait if its caller gives up.
pub struct Readers {
    idle: Mutex<Vec<Connection>>,
    free: Arc<Semaphore>,
}

impl Readers {
    /// Opens the read connections of the (migrated) file at `path`.
    pub fn open(path: &Path, lock_wait: Duration) -> rusqlite::Result<Self> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let idle = (0..READERS)
            .map(|_| {
                let conn = Connection::open_with_flags(path, flags)?;
                conn.busy_timeout(lock_wait)?;
                schema::set_up(&conn)?;
                Ok(conn)
            })
            .collect::<rusqlite::Result<_>>()?;
        Ok(Self {
            idle: Mutex::new(idle),
            free: Arc::new(Semaphore::new(READERS)),
        })
    }

    /// Waits for an idle connection; `None` only if the pool was closed, which it never is.
    pub async fn take(self: &Arc<Self>) -> Option<Lent> {
        let permit = Arc::clone(&self.free).acquire_owned().await.ok()?;
        let conn = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()?;
        Some(Lent {
            conn: Some(conn),
            readers: Arc::clone(self),
            _permit: permit,
        })
    }
}

/// A read connection, back in the pool when dropped (its permit with it).
pub struct Lent {
    conn: Option<Connection>,
    readers: Arc<Readers>,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl Lent {
    pub fn conn(&mut self) -> &mut Connection {
        self.conn
            .as_mut()
            .expect("a lent connection is held until dropped")
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            self.readers
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(conn);
        }
    }
}
