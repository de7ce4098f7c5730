//! A load's optional parameters, read into what it asks for: a page of threads, or a search.

use chrono_tz::Tz;

use super::{Filter, Query, SearchCursor, ThreadId, ValidationError, parse_instant};

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
    /// Reads a load's optional parameters; empty ones count as absent. Dates are read in `zone`.
    pub fn parse(
        thread_id: Option<&str>,
        q: Option<&str>,
        since: Option<&str>,
        before: Option<&str>,
        limit: Option<&str>,
        zone: Tz,
    ) -> Result<Self, ValidationError> {
        let invalid = |name, expected| ValidationError::InvalidFilter { name, expected };
        let time = "an RFC 3339 time or a YYYY-MM-DD date";
        let filter = Filter {
            thread: thread_id
                .filter(|id| !id.is_empty())
                .map(ThreadId::parse)
                .transpose()?,
            since: present(since)
                .map(|raw| parse_instant(raw, zone).ok_or(invalid("since", time)))
                .transpose()?,
            before: None,
            limit: present(limit)
                .map(|raw| {
                    raw.parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or(invalid("limit", "a whole number from 1"))
                })
                .transpose()?,
        };
        let before = present(before);
        Ok(match present(q).map(Query::parse).transpose()?.flatten() {
            Some(query) => Self::Search {
                after: before
                    .map(|raw| {
                        SearchCursor::parse(raw)
                            .ok_or(invalid("before", "the next_before of an earlier search"))
                    })
                    .transpose()?,
                filter,
                query,
            },
            None => Self::Page(Filter {
                before: before
                    .map(|raw| parse_instant(raw, zone).ok_or(invalid("before", time)))
                    .transpose()?,
                ..filter
            }),
        })
    }

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

/// A parameter's value, trimmed; an empty one counts as absent.
fn present(raw: Option<&str>) -> Option<&str> {
    raw.map(str::trim).filter(|r| !r.is_empty())
}
