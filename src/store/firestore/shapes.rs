//! What this instance last saw of each namespace it loaded: more than [`FIRST_READ`] threads,
//! or at most that many, how many, and its profile's newest version (or none). A load goes by
//! it: straight to the read in order for a large namespace (load/ordered.rs), one call for a small
//! one without a profile (load/at_once.rs). It is only a hint, which other instances' writes make
//! stale: every answer it leads to is checked by the read itself, so that a stale hint costs a
//! call, never a wrong answer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::domain::Namespace;

/// Threads the first query of a load reads: most namespaces hold fewer, and are read in one
/// query; one of large threads reads at most 15 more than its page needs, once. Each later
/// query reads as many as the budget left seems to need, from the size of those read so far.
pub const FIRST_READ: u32 = 16;

/// Namespaces remembered at most; past that, the memory starts again, so that it cannot grow
/// the heap.
const MOST_REMEMBERED: usize = 4_096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Large,
    /// The profile's newest version then, `None` when there was no profile, and the threads.
    Small {
        newest_version: Option<u64>,
        threads: u32,
    },
}

#[derive(Clone, Default)]
pub struct Shapes(Arc<Mutex<HashMap<String, Shape>>>);

impl Shapes {
    pub fn of(&self, ns: &Namespace) -> Option<Shape> {
        self.0.lock().ok()?.get(ns.name()).copied()
    }

    pub fn saw(&self, ns: &Namespace, shape: Shape) {
        if let Ok(mut shapes) = self.0.lock() {
            if shapes.len() >= MOST_REMEMBERED && !shapes.contains_key(ns.name()) {
                shapes.clear();
            }
            shapes.insert(ns.name().to_owned(), shape);
        }
    }

    /// Keeps `newest_version` as the profile's newest of `ns`, which this instance just wrote
    /// or forgot, when it saw `ns` small.
    pub fn profile_now(&self, ns: &Namespace, newest_version: Option<u64>) {
        if let Ok(mut shapes) = self.0.lock()
            && let Some(Shape::Small {
                newest_version: newest,
                ..
            }) = shapes.get_mut(ns.name())
        {
            *newest = newest_version;
        }
    }

    /// Forgets that `ns`, counted at `threads`, was large, once it is small again.
    pub fn counted(&self, ns: &Namespace, threads: u64) {
        if threads <= u64::from(FIRST_READ)
            && let Ok(mut shapes) = self.0.lock()
            && shapes.get(ns.name()) == Some(&Shape::Large)
        {
            shapes.remove(ns.name());
        }
    }
}
