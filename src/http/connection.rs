//! A client's connection as actix-http reads it: its request targets made readable
//! ([`request_target`](super::request_target)) and each request head held to a deadline
//! ([`head_deadline`](super::head_deadline)); what the server writes passes untouched.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::head_deadline::HeadDeadline;
use super::request_target::Targets;

pub(super) struct Connection<T> {
    io: T,
    targets: Targets,
    /// Rewritten bytes that did not fit the reader's buffer, handed over on its next read.
    pending: Vec<u8>,
    head: HeadDeadline,
}

impl<T> Connection<T> {
    /// `io`, each of whose request heads must arrive within `head_limit`.
    pub(super) fn new(io: T, head_limit: Duration) -> Self {
        Self {
            io,
            targets: Targets::new(),
            pending: Vec::new(),
            head: HeadDeadline::new(head_limit),
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Connection<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.pending.is_empty() {
            let n = this.pending.len().min(buf.remaining());
            buf.put_slice(&this.pending[..n]);
            this.pending.drain(..n);
            return Poll::Ready(Ok(()));
        }
        // Polled first, so that a client that goes quiet mid-head is woken for at its deadline.
        if let Poll::Ready(expired) = this.head.poll_expired(cx) {
            return Poll::Ready(Err(expired));
        }
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.io).poll_read(cx, buf))?;
        this.head.read(&buf.filled()[before..]);
        if this.targets.done() {
            return Poll::Ready(Ok(()));
        }
        if let Some(rewritten) = this.targets.rewrite(&buf.filled()[before..]) {
            buf.set_filled(before);
            let n = rewritten.len().min(buf.remaining());
            buf.put_slice(&rewritten[..n]);
            this.pending.extend_from_slice(&rewritten[n..]);
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Connection<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.head.wrote(buf);
        Pin::new(&mut this.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if let Some(first) = bufs.iter().find(|buf| !buf.is_empty()) {
            this.head.wrote(first);
        }
        Pin::new(&mut this.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}
