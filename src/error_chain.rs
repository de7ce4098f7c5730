//! A failure as one log line with every cause it carries, for any layer to log with.

use std::fmt;

/// `err` and each of its sources, as one line: `outer: cause: root cause`. What a failure's log
/// line carries, so that no cause is lost between the store and the log.
pub struct ErrorChain<'a>(pub &'a (dyn std::error::Error + 'static));

impl fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}
