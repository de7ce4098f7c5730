//! What the operator does with whole namespaces: lists them with what each holds, and deletes
//! one.

use super::{Memory, MemoryError};
use crate::domain::{Counts, Namespace};
use crate::store::NamespaceStats;

impl Memory {
    /// Every namespace that holds a thread or a profile, with its counts.
    pub async fn namespaces(&self) -> Result<Vec<NamespaceStats>, MemoryError> {
        Ok(self.limit.within(self.store.namespaces()).await?)
    }

    /// Forgets every thread and the profile of `ns`; answers the threads it held.
    pub async fn delete_namespace(&self, ns: &Namespace) -> Result<Counts, MemoryError> {
        Ok(self.limit.within(self.store.delete_namespace(ns)).await?)
    }
}
