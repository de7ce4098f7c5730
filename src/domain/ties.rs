//! The run of items at the end of a page that share its cursor position. A cursor says where
//! the next page starts by position alone, so a page that ends inside such a run would leave
//! the run's remaining items behind its own cursor: it gives the run back instead.

/// The position of the items taken last, and how many of them share it.
#[derive(Debug, Clone, Copy)]
pub struct Ties<K> {
    last: Option<K>,
    /// `last` before the run at `last` began.
    before: Option<K>,
    run: usize,
}

impl<K> Default for Ties<K> {
    fn default() -> Self {
        Self {
            last: None,
            before: None,
            run: 0,
        }
    }
}

impl<K: Copy + PartialEq> Ties<K> {
    /// Notes an item taken at `key`.
    pub fn took(&mut self, key: K) {
        if self.last != Some(key) {
            self.before = self.last;
            self.run = 0;
        }
        self.run += 1;
        self.last = Some(key);
    }

    /// The position of the last item kept: where the next page starts.
    pub fn last(&self) -> Option<K> {
        self.last
    }

    /// An item at `key` was refused after `taken` were taken: how many of the last taken to
    /// give back so that no run is parted: none when the run is the whole page, which must
    /// show something; then the rest of the run is out of the cursor's reach.
    pub fn give_back(&mut self, key: K, taken: usize) -> usize {
        if self.last != Some(key) || self.run >= taken {
            return 0;
        }
        self.last = self.before;
        std::mem::take(&mut self.run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn took(keys: &[i64]) -> Ties<i64> {
        let mut ties = Ties::default();
        for &key in keys {
            ties.took(key);
        }
        ties
    }

    #[test]
    fn a_refusal_inside_a_run_gives_the_run_back() {
        let mut ties = took(&[9, 8, 5, 5]);
        assert_eq!(ties.give_back(5, 4), 2);
        assert_eq!(ties.last(), Some(8));
    }

    #[test]
    fn a_refusal_after_a_run_gives_nothing_back() {
        let mut ties = took(&[9, 5, 5]);
        assert_eq!(ties.give_back(4, 3), 0);
        assert_eq!(ties.last(), Some(5));
    }

    #[test]
    fn a_run_that_is_the_whole_page_is_kept() {
        let mut ties = took(&[5, 5]);
        assert_eq!(ties.give_back(5, 2), 0);
        assert_eq!(ties.last(), Some(5));
    }
}
