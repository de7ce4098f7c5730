//! A search run against a store: the store counts the question's terms and reads the entries
//! holding its rarer ones, and the vectors nearest its meaning; the ranking, the fusion and the
//! page within the budget are [`search`](crate::search)'s, the same for every store.

use crate::domain::{Embedded, Filter, Namespace};
use crate::error_chain::ErrorChain;
use crate::search::{Query, Results, SearchCursor, drivers, fuse, rank, take};
use crate::store::{MemoryStore, StoreError, off_workers};

/// The entries of `ns` holding the query's rarer terms ([`drivers`]), ranked by [`rank`]; with
/// `meaning` (the query's vector), [`fuse`]d with the entries nearest it. The two rankings' reads
/// run at once. Scoring a thousand entries would hold up an async worker, and every request it
/// serves, so it runs on the blocking pool, and stops once the caller gave up.
pub async fn search(
    store: &dyn MemoryStore,
    ns: &Namespace,
    filter: &Filter,
    query: &Query,
    meaning: Option<&Embedded>,
    after: Option<SearchCursor>,
    budget_chars: usize,
) -> Result<Results, StoreError> {
    let lexical = async {
        let counts = store.term_counts(ns, query).await?;
        let drivers = drivers(query, &counts);
        let candidates = if drivers.is_empty() {
            Vec::new()
        } else {
            store.candidates(ns, filter, &drivers).await?
        };
        Ok::<_, StoreError>((counts, candidates))
    };
    let by_meaning = async {
        let meaning = meaning?;
        match store.nearest(ns, filter, meaning).await {
            Ok(nearest) => Some(Ok(nearest)),
            Err(StoreError::GivenUp) => Some(Err(StoreError::GivenUp)),
            // Search by words stays correct without the vectors (Firestore's index may not
            // exist yet: its refusal says which to create).
            Err(err) => {
                tracing::warn!(error = %ErrorChain(&err), "search by meaning failed; ranked by words alone");
                None
            }
        }
    };
    let (lexical, nearest) = tokio::join!(lexical, by_meaning);
    let (counts, candidates) = lexical?;
    let nearest = nearest.transpose()?;
    let (query, filter) = (query.clone(), filter.clone());
    off_workers(move |given_up| {
        let given_up = || given_up.is_set();
        let ranked = rank(candidates, &query, &counts, &filter, &given_up)?;
        let ranked = match nearest {
            Some(nearest) => fuse(ranked, nearest, &filter),
            None => ranked,
        };
        Some(take(ranked, &filter, after, budget_chars))
    })
    .await?
    .ok_or(StoreError::GivenUp)
}
