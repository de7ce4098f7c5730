//! How long one operation may wait for the store, all its calls together.

use std::future::Future;
use std::time::Duration;

use super::StoreError;

/// The time one operation (a save, a search, a token exchange) may take, every store call it
/// makes and all it waits for between them included: a request waits for its operation, not
/// for each call in turn. Past it the operation is dropped and answers
/// [`StoreError::Timeout`]; blocking work it started (a SQLite query, a ranking) learns that
/// nobody waits for it any more ([`GivenUp`](super::blocking::GivenUp)), and stops.
#[derive(Debug, Clone, Copy)]
pub struct TimeLimit(Duration);

impl TimeLimit {
    pub fn new(limit: Duration) -> Self {
        Self(limit)
    }

    pub fn duration(self) -> Duration {
        self.0
    }

    /// Runs `operation` within the limit.
    pub async fn within<T, E: From<StoreError>>(
        self,
        operation: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        match tokio::time::timeout(self.0, operation).await {
            Ok(answer) => answer,
            Err(_) => Err(StoreError::Timeout(self.0.as_secs()).into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn calls_in_turn_share_one_limit() {
        let limit = TimeLimit::new(Duration::from_millis(300));
        let call = || tokio::time::sleep(Duration::from_millis(200));
        let answer: Result<(), StoreError> = limit
            .within(async {
                call().await;
                call().await;
                Ok(())
            })
            .await;
        assert!(matches!(answer, Err(StoreError::Timeout(_))), "{answer:?}");
        let one: Result<(), StoreError> = limit
            .within(async {
                call().await;
                Ok(())
            })
            .await;
        assert!(one.is_ok());
    }
}
