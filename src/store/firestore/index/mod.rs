//! The search index on the thread documents: a search's reads from it (search.rs), and the
//! backfill that sets it, with the tracked fields, on threads that lack them (backfill.rs).

pub mod backfill;
pub mod search;
