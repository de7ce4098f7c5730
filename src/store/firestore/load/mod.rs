//! A load's reads: a small namespace in one call (at_once.rs, small.rs), a large one newest
//! first until the page is full (ordered.rs, merge.rs), steered by what this instance last saw
//! of the namespace (../shapes.rs).

pub mod at_once;
pub mod merge;
pub mod ordered;
pub mod small;
