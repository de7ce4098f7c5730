//! Starts a Firestore emulator of the caller's own (`tests/firestore-emulator/server.js`, which
//! `scripts/lib/emulator.sh` installs) and stops it when dropped. Shared by the HTTP tests and
//! the benchmark harness; scripts start theirs with `scripts/lib/emulator.sh`.
#![allow(dead_code)] // the benchmark harness does not pause it

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// How long the emulator may take to print its `listening` line, as in `scripts/lib/emulator.sh`.
const START_TIMEOUT: Duration = Duration::from_secs(60);

pub struct Emulator {
    child: Child,
    pub port: u16,
}

impl Emulator {
    /// Starts on `port` of 127.0.0.1 (0: any free port) and waits for its `listening` line;
    /// what it prints on stderr goes to `stderr`.
    pub fn start(port: u16, stderr: impl Into<Stdio>) -> Self {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/firestore-emulator/server.js");
        let mut child = Command::new("node")
            .arg(script)
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("node runs the Firestore emulator");
        let first = crate::listening::listening_line(&mut child, START_TIMEOUT);
        let port = first
            .as_deref()
            .ok()
            .and_then(|address| address.strip_prefix("127.0.0.1:"))
            .and_then(|port| port.parse().ok());
        match port {
            Some(port) => Self { child, port },
            None => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the Firestore emulator did not start: {first:?}");
            }
        }
    }

    /// Its address, as `FIRESTORE_EMULATOR_HOST` takes it.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Stops it where it stands (SIGSTOP): connections stay open and nothing answers, as
    /// with a store that stalls.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// Lets it go on (SIGCONT) after [`pause`](Self::pause).
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, signal: &str) {
        let sent = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "kill {signal} failed");
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
