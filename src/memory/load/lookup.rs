//! What a load asks for: a page of threads, or a search.

use crate::domain::Filter;
use crate::search::{Query, SearchCursor};

/// What a load asks for: a page of threads, or search results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Page(Filter),
    Search {
        filter: Filter,
        query: Query,
        after: Option<SearchCursor>,
    },
}

impl Lookup {
    /// A first page of every thread: no search, no thread, no time filter (a limit is fine).
    pub fn is_unfiltered(&self) -> bool {
        matches!(
            self,
            Self::Page(Filter {
                thread: None,
                since: None,
                before: None,
                ..
            })
        )
    }

    /// The same lookup, admitting nothing saved before `cutoff`.
    pub fn not_before(self, cutoff: Option<i64>) -> Self {
        match self {
            Self::Page(filter) => Self::Page(filter.not_before(cutoff)),
            Self::Search {
                filter,
                query,
                after,
            } => Self::Search {
                filter: filter.not_before(cutoff),
                query,
                after,
            },
        }
    }
}
