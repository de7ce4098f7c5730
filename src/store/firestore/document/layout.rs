//! The original function's document layout, which kioku keeps; the OAuth server's collections
//! beside it; and Firestore's limits.

/// The original function's layout: `memory/{namespace}/threads/{thread_id}`.
pub const ROOT: &str = "memory";
pub const THREADS: &str = "threads";
/// An array of `{summary, timestamp}` maps, as the original writes it.
pub const ENTRIES: &str = "entries";
/// Who wrote an entry or a profile version: a map of strings beside its other fields, which
/// the original function never reads.
pub const WRITER: &str = "writer";
/// Set by kioku on every save (the original's documents lack it): the server's time of the
/// thread's last save, which orders threads for `KIOKU_MAX_THREADS`.
pub const UPDATED_AT: &str = "updated_at";
/// Kept in step with `entries` by every kioku write (tracked.rs), so that loads can read a
/// namespace's threads newest first and stop once the budget is full: the time of the thread's
/// newest entry, in microseconds since the epoch, and how many entries it holds. The original's
/// threads lack both until the backfill (index/backfill.rs) sets them.
pub const NEWEST_MICROS: &str = "newest_micros";
pub const ENTRY_COUNT: &str = "entry_count";
/// What a load reads of a thread: its entries, and the tracked fields that tell they are whole.
pub const LOADED: [&str; 3] = [ENTRIES, NEWEST_MICROS, ENTRY_COUNT];
/// Kept in step with `entries` by every kioku write (index.rs), so that a search reads only the
/// threads holding its terms: the distinct [`terms`](crate::search::terms) of the thread's
/// entries (an array, which `array-contains` and `array-contains-any` query), and the
/// [`TERMS_VERSION`](crate::search::TERMS_VERSION) that wrote them. The original's threads lack
/// both until the backfill sets them.
pub const SEARCH_TERMS: &str = "search_terms";
pub const TERMS_VERSION: &str = "terms_version";
/// With `KIOKU_RETENTION_DAYS`, when the thread is past its age if no save comes first: the
/// field of the thread collection group's TTL policy (docs/deploy.md).
pub const EXPIRE_AT: &str = "expire_at";
/// Each entry's vector, for search by meaning, a document per entry (vectors/):
/// `memory/{namespace}/vectors/{id}`, beside the threads, since `findNearest` searches one
/// vector field per document. The original never reads it. Its fields: the entry's thread id
/// and time (in microseconds), the model's id, the vector, and the thread's `expire_at` when
/// the vector was written (a TTL policy on the collection group deletes it with its thread).
pub const VECTORS: &str = "vectors";
pub const THREAD: &str = "thread";
pub const AT_MICROS: &str = "at_us";
pub const MODEL: &str = "model";
pub const EMBEDDING: &str = "embedding";
/// On a thread, the model of which every entry has a vector, as far as kioku's writes know;
/// `""` when some entry may lack one. Set on every thread kioku writes or tracks, so that the
/// backfill asks only for the threads it must read (`embedded_by != model`).
pub const EMBEDDED_BY: &str = "embedded_by";
/// Each namespace's profile, a document per kept version (profiles.rs):
/// `memory/{namespace}/profile_versions/{version}`. The original never reads it. Its name sorts
/// before `threads`, and `vectors` after, which lets one listing read a small namespace's
/// threads and any version written since it had none (load/at_once.rs).
pub const PROFILE_VERSIONS: &str = "profile_versions";
/// A version's number, which orders them; its text and the client's time of the write
/// (`updated_at`, as on threads).
pub const VERSION: &str = "version";
pub const PROFILE: &str = "profile";
/// Writes a commit may carry (the same page of limits).
pub const MAX_WRITES_PER_COMMIT: usize = 500;

/// The OAuth server's root collections, apart from the original's `memory`: clients and
/// grants by id, credentials by the digest of their value (grants/records.rs has their fields).
pub const CLIENTS: &str = "kioku_oauth_clients";
pub const GRANTS: &str = "kioku_oauth_grants";
pub const CREDENTIALS: &str = "kioku_oauth_credentials";
/// The fields of those records that calls query or change on their own. `expires_at` is a
/// timestamp, so a TTL policy may delete expired records too.
pub const NAMESPACE: &str = "namespace";
pub const GRANT_ID: &str = "grant_id";
pub const EXPIRES_AT: &str = "expires_at";
pub const USED: &str = "used";
