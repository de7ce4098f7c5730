//! The kioku binary, started as a process for a test that must signal it, kill it or read its
//! log: [`Launch`] is its data directory and environment, [`Process`] the running server.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;

use crate::helpers::{TestApp, api_tokens};

/// What a test starts kioku with: a data directory of its own and an environment holding the
/// test tokens ([`api_tokens`]) and whatever the test [`set`](Self::set)s; nothing else of the
/// test's environment reaches the process.
pub struct Launch {
    dir: TempDir,
    env: Vec<(&'static str, String)>,
}

impl Launch {
    /// On SQLite, the default store, with the test tokens.
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            env: vec![("API_TOKENS", api_tokens())],
        }
    }

    /// On the Firestore emulator at `host`, with `tokens` in place of the test tokens.
    pub fn on_firestore(tokens: &str, host: &str) -> Self {
        Self::new()
            .set("API_TOKENS", tokens)
            .set("KIOKU_STORE", "firestore")
            .set("GOOGLE_CLOUD_PROJECT", crate::original::PROJECT)
            .set("FIRESTORE_EMULATOR_HOST", host)
    }

    /// As Cloud Run starts it (`K_SERVICE`), at its public URL, on SQLite all the same.
    pub fn on_cloud_run(self) -> Self {
        self.set("K_SERVICE", "kioku")
            .set("KIOKU_PUBLIC_URL", "https://kioku.example")
            .set("KIOKU_STORE", "sqlite")
    }

    /// `name` set to `value`, in place of any value it had.
    pub fn set(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.env.retain(|(set, _)| *set != name);
        self.env.push((name, value.into()));
        self
    }

    /// `name` not set at all.
    pub fn unset(mut self, name: &'static str) -> Self {
        self.env.retain(|(set, _)| *set != name);
        self
    }

    /// Its data directory, kept until the launch is dropped.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The binary with this environment and data directory, to run one of its commands
    /// (`kioku migrate`, `kioku export`).
    pub fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kioku"));
        command
            .env_clear()
            .env("KIOKU_DATA_DIR", self.dir.path())
            .envs(self.env.iter().map(|(name, value)| (name, value)));
        command
    }

    /// Starts the binary and waits for it to listen; or its exit status and every line it
    /// wrote, if it stopped first. Each start of one launch uses the same data directory.
    pub fn start(&self) -> Result<Process, (ExitStatus, Vec<String>)> {
        Process::start(self.dir.path(), &self.env)
    }
}

/// The kioku binary, running with JSON logs; its output is kept for inspection once it stops
/// ([`Process::stop_and_collect`]).
pub struct Process {
    child: Child,
    pub address: SocketAddr,
    output: Arc<Mutex<Vec<String>>>,
    /// The threads draining stdout and stderr into `output`, which end when the process does.
    readers: Vec<JoinHandle<()>>,
}

impl Process {
    /// Starts the binary with only `env` in its environment and waits for its "listening"
    /// line. Returns the exit status and every line instead if it stops before listening.
    fn start(
        data_dir: &Path,
        env: &[(&'static str, String)],
    ) -> Result<Self, (ExitStatus, Vec<String>)> {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kioku"))
            .env_clear()
            .env("PORT", "0")
            .env("KIOKU_LOG_FORMAT", "json")
            .env("KIOKU_DATA_DIR", data_dir)
            .envs(env.iter().map(|(name, value)| (name, value)))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let output = Arc::new(Mutex::new(Vec::new()));
        let (listening, address) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let mut readers = vec![
            collect_lines(stderr, Arc::clone(&output), None),
            collect_lines(stdout, Arc::clone(&output), Some(listening)),
        ];
        match address.recv_timeout(Duration::from_secs(30)) {
            Ok(address) => Ok(Self {
                child,
                address,
                output,
                readers,
            }),
            Err(_) => {
                let _ = child.kill();
                Err(wait_and_drain(&mut child, &mut readers, &output))
            }
        }
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.address.port())
    }

    /// A client of this process, with the requests a [`TestApp`] makes.
    pub fn app(&self) -> TestApp {
        TestApp {
            base: self.base(),
            data_dir: tempfile::tempdir().unwrap(),
            client: reqwest::Client::new(),
        }
    }

    /// SIGKILL: the process dies at once, as in a crash.
    pub fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Stops the process with SIGTERM, as Cloud Run does, and returns its exit status and every
    /// line it wrote, the last included: a check that something is not in the log needs them all.
    pub fn stop_and_collect(mut self) -> (ExitStatus, Vec<String>) {
        let pid = self.child.id().to_string();
        assert!(
            Command::new("kill")
                .args(["-TERM", &pid])
                .status()
                .unwrap()
                .success()
        );
        wait_and_drain(&mut self.child, &mut self.readers, &self.output)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for `child` to exit and `readers` to drain its output; its status and every line.
fn wait_and_drain(
    child: &mut Child,
    readers: &mut Vec<JoinHandle<()>>,
    output: &Mutex<Vec<String>>,
) -> (ExitStatus, Vec<String>) {
    let status = child.wait().unwrap();
    for reader in readers.drain(..) {
        reader.join().unwrap();
    }
    (status, output.lock().unwrap().clone())
}

/// Reads `stream` line by line into `output`; sends the listening address once it is logged.
fn collect_lines(
    stream: impl std::io::Read + Send + 'static,
    output: Arc<Mutex<Vec<String>>>,
    mut listening: Option<mpsc::Sender<SocketAddr>>,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if let Some(address) = listening_address(&line)
                && let Some(tx) = listening.take()
            {
                let _ = tx.send(address);
            }
            output.lock().unwrap().push(line);
        }
    })
}

/// The address of the "listening" line, in the JSON or the text log format.
fn listening_address(line: &str) -> Option<SocketAddr> {
    match serde_json::from_str::<Value>(line) {
        Ok(json) => {
            (json["message"] == "listening").then(|| json["address"].as_str()?.parse().ok())?
        }
        Err(_) => line
            .split_once(" listening address=")?
            .1
            .split_whitespace()
            .next()?
            .parse()
            .ok(),
    }
}
