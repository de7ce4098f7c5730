//! What may name a namespace or a thread: each is a Firestore document id.

/// The longest thread id accepted, in characters.
pub const MAX_THREAD_ID_CHARS: usize = 256;

/// Why `id` cannot name a Firestore document, if it cannot.
/// Rules: <https://firebase.google.com/docs/firestore/quotas#collections_documents_and_fields>.
pub fn document_id_problem(id: &str) -> Option<&'static str> {
    if id.is_empty() {
        Some("is empty")
    } else if id.len() > 1_500 {
        Some("is longer than 1,500 bytes")
    } else if id.contains('/') {
        Some("must not contain `/`")
    } else if id == "." || id == ".." {
        Some("must not be `.` or `..`")
    } else if id.len() >= 4 && id.starts_with("__") && id.ends_with("__") {
        Some("must not start and end with `__`")
    } else if id.chars().any(char::is_control) {
        Some("must not contain control characters")
    } else {
        None
    }
}
