//! Loads of small namespaces in one call: a namespace of at most [`FIRST_READ`] threads is read
//! whole, by name, in one listing. That listing sees every thread, the original function's too,
//! where a read newest first sees only tracked ones and so needs a count beside it
//! (ordered.rs). A namespace found larger is remembered (shapes.rs), so that its next loads
//! here go straight to the read in order.

use std::collections::HashSet;

use firestore::gcloud_sdk::google::firestore::v1::Document;

use crate::domain::{Filter, Located, Namespace, Page, PageBuilder};
use crate::store::StoreError;
use crate::store::firestore::FirestoreStore;
use crate::store::firestore::db::unavailable;
use crate::store::firestore::document::entries::thread_entries;
use crate::store::firestore::document::layout::{LOADED, THREADS};
use crate::store::firestore::document::tracked::tracks;
use crate::store::firestore::shapes::FIRST_READ;
use crate::store::firestore::shapes::Shape;

impl FirestoreStore {
    /// Every thread of `ns` with the fields a load reads, when it holds at most [`FIRST_READ`]
    /// and `filter` names no thread; `None` when it holds more, or was found to before.
    pub(in crate::store::firestore) async fn whole_if_small(
        &self,
        ns: &Namespace,
        filter: &Filter,
    ) -> Result<Option<Vec<Document>>, StoreError> {
        if filter.thread.is_some() || self.shapes.of(ns) == Some(Shape::Large) {
            return Ok(None);
        }
        let (mut documents, mut page_token) = (Vec::new(), String::new());
        // Firestore may answer fewer than a page holds, with a token for the rest.
        loop {
            let wanted = FIRST_READ + 1 - documents.len() as u32;
            let page = self
                .db
                .list_below(
                    self.db.namespace_path(ns),
                    Some(THREADS),
                    wanted,
                    &LOADED,
                    page_token,
                )
                .await
                .map_err(|e| unavailable("reading a namespace's threads failed", e))?;
            documents.extend(page.documents);
            if documents.len() > FIRST_READ as usize || page.next_page_token.is_empty() {
                break;
            }
            page_token = page.next_page_token;
        }
        if documents.len() > FIRST_READ as usize {
            self.shapes.saw(ns, Shape::Large);
            return Ok(None);
        }
        Ok(Some(documents))
    }

    /// The page of `small`, the namespace read whole by [`whole_if_small`](Self::whole_if_small);
    /// without it, of one thread or a larger namespace.
    pub(in crate::store::firestore) async fn page_of(
        &self,
        ns: &Namespace,
        small: Option<Vec<Document>>,
        filter: &Filter,
        page: PageBuilder,
    ) -> Result<Page, StoreError> {
        match small {
            Some(documents) => Ok(self.small_page(ns, &documents, filter, page)),
            None => self.page_of_many(ns, filter, page).await,
        }
    }

    /// The page of a small namespace read whole; a thread without the tracked fields starts the
    /// backfill, which searches need. Each thread's entries are read from its document once.
    pub(in crate::store::firestore) fn small_page(
        &self,
        ns: &Namespace,
        documents: &[Document],
        filter: &Filter,
        page: PageBuilder,
    ) -> Page {
        let (mut items, mut all_tracked) = (Vec::new(), true);
        for doc in documents {
            let entries = thread_entries(doc);
            all_tracked &= tracks(doc, &entries);
            items.extend(entries.into_iter().filter(|item| filter.admits(item)));
        }
        if !all_tracked {
            self.start_backfill(ns);
        }
        whole_page(items, filter, page)
    }
}

/// The page of `items`, every entry a load admits of the threads it read.
pub fn whole_page(mut items: Vec<Located>, filter: &Filter, mut page: PageBuilder) -> Page {
    items.sort_by(Located::load_order);
    filter.limit_threads(&mut items);
    let totals = (items.len() as u64, distinct_threads(&items));
    for item in items {
        if !page.push(item) {
            break;
        }
    }
    let totals = page.is_full().then_some(totals);
    page.finish(totals)
}

fn distinct_threads(items: &[Located]) -> u64 {
    items
        .iter()
        .map(|item| item.thread_id.as_str())
        .collect::<HashSet<_>>()
        .len() as u64
}
