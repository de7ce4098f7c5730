//! A deadline for every request head a connection sends, not only its first: actix-http times
//! a connection's first head alone, so a kept-alive connection could send its next head a
//! byte every few seconds and hold its place for as long as it liked.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::{Sleep, sleep};

/// Where a connection is: reading a head (from its first byte to its blank line, within the
/// deadline), or past it (a body, the server's work, its answer), when actix-http's own limits
/// apply.
pub(super) struct HeadDeadline {
    limit: Duration,
    reading_head: bool,
    /// Set at a head's first byte.
    deadline: Option<Pin<Box<Sleep>>>,
    /// How much of `\r\n\r\n` the bytes read so far end with.
    matched: usize,
}

const BLANK_LINE: &[u8] = b"\r\n\r\n";

impl HeadDeadline {
    pub fn new(limit: Duration) -> Self {
        Self {
            limit,
            reading_head: true,
            deadline: None,
            matched: 0,
        }
    }

    /// Whether the head being read is past its deadline (and, if not, a wake-up at it).
    pub fn poll_expired(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        match self
            .deadline
            .as_mut()
            .map(|deadline| deadline.as_mut().poll(cx))
        {
            Some(Poll::Ready(())) => Poll::Ready(io::Error::new(
                io::ErrorKind::TimedOut,
                "a request head took longer than its deadline",
            )),
            _ => Poll::Pending,
        }
    }

    /// Notes bytes the client sent: a head's first starts its deadline, its blank line ends it.
    pub fn read(&mut self, bytes: &[u8]) {
        if !self.reading_head || bytes.is_empty() {
            return;
        }
        if self.deadline.is_none() {
            self.deadline = Some(Box::pin(sleep(self.limit)));
        }
        for byte in bytes {
            self.matched = match (*byte, self.matched) {
                (b'\r', 0 | 2) => self.matched + 1,
                (b'\n', 1 | 3) => self.matched + 1,
                (b'\r', _) => 1,
                _ => 0,
            };
            if self.matched == BLANK_LINE.len() {
                self.reading_head = false;
                self.deadline = None;
                self.matched = 0;
                // What follows is the head's body, and no head comes before the next answer.
                return;
            }
        }
    }

    /// Notes bytes the server wrote: after an answer (not a `1xx` interim one), the next bytes
    /// the client sends are a head.
    pub fn wrote(&mut self, bytes: &[u8]) {
        if bytes.starts_with(b"HTTP/1.1 1") || bytes.starts_with(b"HTTP/1.0 1") {
            return;
        }
        if bytes.starts_with(b"HTTP/") {
            self.reading_head = true;
            self.deadline = None;
            self.matched = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_head_is_read_from_its_first_byte_to_its_blank_line_after_each_answer() {
        let mut head = HeadDeadline::new(Duration::from_secs(5));
        head.read(b"GET / HTTP/1.1\r\nHost: a\r");
        assert!(head.reading_head);
        head.read(b"\n\r\nbody");
        assert!(!head.reading_head && head.deadline.is_none());
        head.read(b"more body, no deadline");
        assert!(head.deadline.is_none());
        head.wrote(b"HTTP/1.1 100 Continue\r\n\r\n");
        assert!(!head.reading_head, "an interim answer is no answer");
        head.wrote(b"HTTP/1.1 200 OK\r\n");
        assert!(head.reading_head && head.deadline.is_none());
        head.read(b"G");
        assert!(
            head.deadline.is_some(),
            "the next head's first byte starts its deadline"
        );
        head.read(b"ET / HTTP/1.1\r\n\r\r\n");
        assert!(head.reading_head, "\\r\\n\\r\\r\\n is no blank line");
        head.read(b"\r\n");
        assert!(!head.reading_head);
    }
}
