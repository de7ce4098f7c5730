//! The original function's document layout, which kioku keeps, and Firestore's limits.

/// The original function's layout: `memory/{namespace}/threads/{thread_id}`.
pub const ROOT: &str = "memory";
pub const THREADS: &str = "threads";
/// An array of `{summary, timestamp}` maps, as the original writes it.
pub const ENTRIES: &str = "entries";
/// Set by kioku on every save (the original's documents lack it): the server's time of the
/// thread's last save, which orders threads for `KIOKU_MAX_THREADS`.
pub const UPDATED_AT: &str = "updated_at";
/// With `KIOKU_RETENTION_DAYS`, when the thread is past its age if no save comes first: the
/// field of the thread collection group's TTL policy (docs/deploy.md).
pub const EXPIRE_AT: &str = "expire_at";
/// Writes a commit may carry (the same page of limits).
pub const MAX_WRITES_PER_COMMIT: usize = 500;
