//! A thread document as the original function lays it out and kioku keeps it: the names
//! (layout.rs), the `entries` array (entries.rs), the fields kept in step with it (tracked.rs)
//! and its search index (index.rs), Firestore's size limit (size.rs), and the writes that change
//! it (writes.rs). Values only: nothing here calls Firestore.

pub mod entries;
pub mod index;
pub mod layout;
pub mod size;
pub mod tracked;
pub mod writes;
