//! The first line a helper process prints once it is ready (`listening <address>`), waited for
//! with a time limit; shared by the launchers of the Firestore emulator and the OpenID Provider.

use std::io::{BufRead, BufReader};
use std::process::Child;
use std::sync::mpsc;
use std::time::Duration;

/// What follows `listening ` on `child`'s first stdout line, if it prints one within
/// `timeout`; the rest of its stdout is drained, so it never blocks on a full pipe.
pub fn listening_line(child: &mut Child, timeout: Duration) -> Result<String, Option<String>> {
    let mut lines = BufReader::new(child.stdout.take().expect("stdout is piped")).lines();
    let (first_tx, first_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = first_tx.send(lines.next().and_then(Result::ok));
        lines.for_each(drop);
    });
    let first = first_rx.recv_timeout(timeout).ok().flatten();
    match first
        .as_deref()
        .and_then(|line| line.strip_prefix("listening "))
    {
        Some(address) => Ok(address.to_owned()),
        None => Err(first),
    }
}
