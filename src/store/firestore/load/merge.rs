//! Builds a load's page from threads read newest first: an entry is placed once no thread
//! still unread can hold a newer one, and reading stops as soon as nothing more is needed.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::collections::binary_heap::{BinaryHeap, PeekMut};

use crate::domain::{Counts, Filter, Located, Page, PageBuilder, entry_json_chars};
use crate::store::firestore::shapes::FIRST_READ;

const MOST_READ: u32 = 300;

pub struct Merge<'a> {
    filter: &'a Filter,
    page: PageBuilder,
    /// Entries read and admitted, waiting until no unread thread can come before them.
    waiting: BinaryHeap<Waiting>,
    waiting_chars: usize,
    /// Threads with an entry placed, and how many entries were placed (past a full page too,
    /// to count what the page left out).
    placed_threads: HashSet<String>,
    placed: u64,
    /// Of the threads read: entries the filter left out, and threads it left wholly out.
    left_out: Counts,
    read_threads: u64,
    read_chars: usize,
    ended: bool,
}

impl<'a> Merge<'a> {
    pub fn new(filter: &'a Filter, page: PageBuilder) -> Self {
        Self {
            filter,
            page,
            waiting: BinaryHeap::new(),
            waiting_chars: 0,
            placed_threads: HashSet::new(),
            placed: 0,
            left_out: Counts {
                threads: 0,
                entries: 0,
            },
            read_threads: 0,
            read_chars: 0,
            ended: false,
        }
    }

    /// How many threads to read next; `None` once the page and its totals are known. Without
    /// `since` and `limit`, a [`Counts`] gives the totals of a full page, so reading stops at
    /// once; with them, the totals count what reading finds.
    /// With `limit`, no query asks for more than the threads still to place and one more: the
    /// one whose newest entry tells that nothing unread comes before the last of them.
    pub fn wants(&self) -> Option<u32> {
        let left = self.filter.limit.map_or(usize::MAX, |limit| {
            limit.saturating_sub(self.placed_threads.len())
        });
        if self.ended || left == 0 || (self.page.is_full() && self.needs_census()) {
            return None;
        }
        let wanted = if self.read_threads == 0 {
            FIRST_READ as usize
        } else if self.page.is_full() {
            left
        } else {
            let per_thread = (self.read_chars / self.read_threads as usize).max(1);
            let room = self.page.room().saturating_sub(self.waiting_chars);
            room / per_thread + 1
        };
        Some(
            wanted
                .min(left.saturating_add(1))
                .clamp(1, MOST_READ as usize) as u32,
        )
    }

    /// Whether a full page's totals come from a [`Counts`].
    pub fn needs_census(&self) -> bool {
        self.filter.since.is_none() && self.filter.limit.is_none()
    }

    /// Takes one thread's entries, read.
    pub fn read(&mut self, entries: Vec<Located>) {
        self.read_threads += 1;
        let held = entries.len() as u64;
        let admitted: Vec<Located> = entries
            .into_iter()
            .filter(|item| self.filter.admits(item))
            .collect();
        self.left_out.entries += held - admitted.len() as u64;
        self.left_out.threads += u64::from(admitted.is_empty());
        for mut item in admitted {
            let chars = entry_json_chars(&mut item.entry);
            self.read_chars += chars;
            self.waiting_chars += chars;
            self.waiting.push(Waiting { item, chars });
        }
    }

    /// Places the entries waiting that come before any entry at or before `bound`, the newest
    /// entry any unread thread may hold; every one, with `None`: no thread is left unread.
    pub fn release(&mut self, bound: Option<i64>) {
        self.ended |= bound.is_none();
        loop {
            let Some(next) = self.waiting.peek_mut() else {
                break;
            };
            if bound.is_some_and(|bound| next.item.at <= bound) {
                break;
            }
            let Waiting { item, chars } = PeekMut::pop(next);
            self.waiting_chars -= chars;
            self.place(item, chars);
        }
    }

    fn place(&mut self, item: Located, chars: usize) {
        if !self.placed_threads.contains(&item.thread_id) {
            if self
                .filter
                .limit
                .is_some_and(|limit| self.placed_threads.len() >= limit)
            {
                return;
            }
            self.placed_threads.insert(item.thread_id.clone());
        }
        self.placed += 1;
        if !self.page.is_full() {
            self.page.push_measured(item, chars);
        }
    }

    /// The page; `census` is needed when [`needs_census`](Self::needs_census) and the page is
    /// full.
    pub fn finish(mut self, census: Option<Counts>) -> Page {
        // Reading stopped: what still waits is of threads read whole, so nothing unread comes
        // before it (with a limit reached, only the chosen threads' entries are placed).
        self.release(None);
        let totals = if self.needs_census() {
            // Every thread not read holds only entries the filter admits.
            census.map(|all| {
                (
                    all.entries.saturating_sub(self.left_out.entries),
                    all.threads.saturating_sub(self.left_out.threads),
                )
            })
        } else {
            Some((self.placed, self.placed_threads.len() as u64))
        };
        self.page.finish(totals)
    }
}

/// An entry waiting, and its size in the answer: the heap's greatest is the first in load
/// order.
struct Waiting {
    item: Located,
    chars: usize,
}

impl Ord for Waiting {
    fn cmp(&self, other: &Self) -> Ordering {
        Located::load_order(&other.item, &self.item)
    }
}

impl PartialOrd for Waiting {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Waiting {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Waiting {}
