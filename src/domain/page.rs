//! A load's answer within a size budget. Entries are taken newest first across threads until
//! the JSON answer would pass the budget; what is left out is counted, and a cursor reaches it.

use super::budget::{Budget, cut_to_fit, entry_json_chars, json_chars};
use super::ties::Ties;
use super::{Counts, Located, Profile, Thread, cursor};

/// Threads, most recently saved first, each with its entries oldest first.
#[derive(Debug, Clone, Default)]
pub struct Page {
    pub threads: Vec<Thread>,
    /// Set when the budget left entries out.
    /// What the budget left out: entries, and threads with no entry on the page.
    pub omitted: Option<Counts>,
    /// Where the next page starts: pass it back as `before`.
    pub next_before: Option<String>,
}

/// Builds a [`Page`] from entries in load order.
#[derive(Clone)]
pub struct PageBuilder {
    budget: Budget,
    page: Page,
    /// The index in `page.threads` of each entry taken, in the order taken.
    taken: Vec<usize>,
    ties: Ties<i64>,
    full: bool,
}

impl PageBuilder {
    /// The page of a load that carries `profile` before its threads: the profile takes what
    /// it needs of the budget (at most half: [`Profile::within`]), the page the rest.
    pub fn after_profile(profile: Option<Profile>, budget_chars: usize) -> (Option<Profile>, Self) {
        let (profile, chars) = profile
            .and_then(|p| p.within(budget_chars))
            .map_or((None, 0), |(p, chars)| (Some(p), chars));
        (profile, Self::new(budget_chars - chars))
    }

    pub fn new(budget_chars: usize) -> Self {
        Self {
            budget: Budget::new(budget_chars),
            page: Page::default(),
            taken: Vec::new(),
            ties: Ties::default(),
            full: false,
        }
    }

    /// Adds the next entry; `false` when it does not fit, and the page is full. An entry too
    /// large for an empty page is cut to fit instead.
    pub fn push(&mut self, mut item: Located) -> bool {
        let chars = entry_json_chars(&mut item.entry);
        self.push_measured(item, chars)
    }

    /// [`push`](Self::push) for an entry whose [`entry_json_chars`] the caller has measured
    /// already.
    pub fn push_measured(&mut self, item: Located, entry_chars: usize) -> bool {
        let existing = self
            .page
            .threads
            .iter()
            .position(|t| t.id == item.thread_id);
        // A new thread costs its key, brackets and a comma; an entry, itself and a comma.
        let thread_cost = existing.map_or(json_chars(&item.thread_id) + 4, |_| 0);
        let entry_cost = entry_chars + 1;
        let entry = if self.budget.take(thread_cost + entry_cost) {
            item.entry
        } else if self.page.threads.is_empty() {
            match cut_to_fit(
                &item.entry,
                self.budget.left.saturating_sub(thread_cost + 1),
            ) {
                Some(cut) => {
                    self.budget.left = 0;
                    cut
                }
                None => return self.refuse(item.at),
            }
        } else {
            return self.refuse(item.at);
        };
        self.ties.took(item.at);
        match existing {
            Some(i) => {
                self.taken.push(i);
                self.page.threads[i].entries.push(entry);
            }
            None => {
                self.taken.push(self.page.threads.len());
                self.page.threads.push(Thread {
                    id: item.thread_id,
                    entries: vec![entry],
                });
            }
        }
        true
    }

    /// The page is full; the entries taken at `at`, the refused entry's time, go back unless
    /// they are all the page holds (see [`Ties`]).
    fn refuse(&mut self, at: i64) -> bool {
        self.full = true;
        let back = self.ties.give_back(at, self.taken.len());
        if back > 0 {
            for i in self.taken.drain(self.taken.len() - back..) {
                self.page.threads[i].entries.pop();
            }
            // Only threads the given-back entries began can be empty, and those come last.
            self.page.threads.retain(|t| !t.entries.is_empty());
        }
        false
    }

    /// The characters left in the budget.
    pub fn room(&self) -> usize {
        self.budget.left
    }

    /// Whether an entry was refused: then [`finish`](Self::finish) needs the totals.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// The page. `totals` (entries, threads) are of everything the filters let through, and
    /// needed only when the page [`is_full`](Self::is_full).
    pub fn finish(mut self, totals: Option<(u64, u64)>) -> Page {
        for thread in &mut self.page.threads {
            thread.entries.reverse();
        }
        if let Some((entries, threads)) = totals.filter(|_| self.full) {
            self.page.omitted = Some(Counts {
                entries: entries.saturating_sub(self.taken.len() as u64),
                threads: threads.saturating_sub(self.page.threads.len() as u64),
            });
            self.page.next_before = self.ties.last().and_then(cursor);
        }
        self.page
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Entry;
    use crate::domain::budget::ENVELOPE_CHARS;

    fn located(thread: &str, summary: &str, at: i64) -> Located {
        let timestamp = cursor(at).unwrap();
        Located {
            thread_id: thread.into(),
            entry: Entry {
                summary: summary.into(),
                timestamp,
                writer: None,
            },
            at,
            seq: at,
        }
    }

    #[test]
    fn regroups_newest_first_entries_by_thread_oldest_first() {
        let mut page = PageBuilder::new(10_000);
        for (thread, summary, at) in [
            ("b", "b2", 4),
            ("a", "a2", 3),
            ("b", "b1", 2),
            ("a", "a1", 1),
        ] {
            assert!(page.push(located(thread, summary, at)));
        }
        let page = page.finish(None);
        let got: Vec<(&str, Vec<&str>)> = page
            .threads
            .iter()
            .map(|t| {
                (
                    t.id.as_str(),
                    t.entries.iter().map(|e| e.summary.as_str()).collect(),
                )
            })
            .collect();
        assert_eq!(got, [("b", vec!["b1", "b2"]), ("a", vec!["a1", "a2"])]);
        assert_eq!((page.omitted, page.next_before), (None, None));
    }

    #[test]
    fn a_full_page_reports_a_cursor_at_its_oldest_entry() {
        let mut page = PageBuilder::new(ENVELOPE_CHARS + 120);
        assert!(page.push(located("a", "x", 2_000_000)));
        assert!(!page.push(located("a", &"y".repeat(100), 1_000_000)));
        let page = page.finish(Some((2, 1)));
        assert_eq!(
            page.next_before.as_deref(),
            Some("1970-01-01T00:00:02.000000Z")
        );
        assert_eq!(
            page.omitted,
            Some(Counts {
                entries: 1,
                threads: 0
            })
        );
    }

    /// The entry that does not fit was saved at the same instant as the last one taken: that
    /// one goes back too, with the thread it began, and the cursor stops before both.
    #[test]
    fn a_full_page_gives_back_the_entries_at_the_instant_it_stopped_in() {
        let mut page = PageBuilder::new(ENVELOPE_CHARS + 150);
        assert!(page.push(located("a", "a2", 3_000_000)));
        assert!(page.push(located("b", "b1", 2_000_000)));
        assert!(!page.push(located("c", &"c".repeat(100), 2_000_000)));
        let page = page.finish(Some((3, 3)));
        let threads: Vec<&str> = page.threads.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(threads, ["a"]);
        assert_eq!(
            page.next_before.as_deref(),
            Some("1970-01-01T00:00:03.000000Z")
        );
        assert_eq!(
            page.omitted,
            Some(Counts {
                entries: 2,
                threads: 2
            })
        );
    }

    #[test]
    fn an_entry_larger_than_the_budget_is_cut_with_a_marker() {
        let mut page = PageBuilder::new(ENVELOPE_CHARS + 500);
        assert!(page.push(located("a", &"記".repeat(10_000), 1)));
        let summary = &page.finish(None).threads[0].entries[0].summary;
        assert!(summary.ends_with("characters shown]"), "{summary}");
        assert!(summary.contains("of 10000"));
    }
}
