//! The servers under test, each started as its own process the way it would run in
//! production, and the Firestore emulator the Firestore-backed ones share.

use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::emulator::Emulator;

/// One bearer token per workload, so that workloads never see each other's data.
pub const TOKENS: [(&str, &str); 3] = [
    ("small", "bench-small-0123456789abcdef0123456789"),
    ("save", "bench-save-0123456789abcdef0123456789"),
    ("grow", "bench-grow-0123456789abcdef0123456789"),
];

pub fn token(namespace: &str) -> &'static str {
    TOKENS
        .iter()
        .find(|(name, _)| *name == namespace)
        .map(|(_, token)| *token)
        .expect("a known namespace")
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// actix-web answering every request with one constant body: this machine's ceiling.
    Ceiling,
    /// The ceiling, each request first handed to the blocking pool and back, as kioku's
    /// SQLite reads are: what that hand-off alone leaves of it.
    HandOff,
    KiokuSqlite,
    KiokuFirestore,
    /// The Python function under functions-framework, as Cloud Functions runs it.
    Original,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Ceiling => "constant body (ceiling)",
            Kind::HandOff => "constant body through the blocking pool",
            Kind::KiokuSqlite => "kioku, SQLite",
            Kind::KiokuFirestore => "kioku, Firestore",
            Kind::Original => "original, Firestore",
        }
    }

    pub fn slug(self) -> &'static str {
        match self {
            Kind::Ceiling => "ceiling",
            Kind::HandOff => "ceiling-hand-off",
            Kind::KiokuSqlite => "kioku-sqlite",
            Kind::KiokuFirestore => "kioku-firestore",
            Kind::Original => "original",
        }
    }

    pub fn uses_firestore(self) -> bool {
        matches!(self, Kind::KiokuFirestore | Kind::Original)
    }

    /// Whether it is kioku, which also serves MCP.
    pub fn is_kioku(self) -> bool {
        matches!(self, Kind::KiokuSqlite | Kind::KiokuFirestore)
    }

    /// Whether it stores anything: the ceilings only answer.
    pub fn saves(self) -> bool {
        !matches!(self, Kind::Ceiling | Kind::HandOff)
    }
}

/// Where everything the services need is.
pub struct Setup {
    pub kioku: PathBuf,
    /// This benchmark's own binary, which serves the ceiling.
    pub harness: PathBuf,
    pub ceiling_body: PathBuf,
    pub sqlite_dir: PathBuf,
    pub logs: PathBuf,
    /// The original's directory and the functions-framework to run it with.
    pub original: Option<(PathBuf, PathBuf)>,
}

impl Setup {
    fn command(&self, kind: Kind, port: u16, emulator: Option<&str>) -> Command {
        let program = match kind {
            Kind::Ceiling | Kind::HandOff => &self.harness,
            Kind::KiokuSqlite | Kind::KiokuFirestore => &self.kioku,
            Kind::Original => &self.original.as_ref().expect("the original's directory").1,
        };
        let mut command = Command::new(program);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("PORT", port.to_string());
        if let Some(host) = emulator {
            command
                .env("FIRESTORE_EMULATOR_HOST", host)
                .env("GOOGLE_CLOUD_PROJECT", "demo-kioku-bench");
        }
        match kind {
            Kind::Ceiling | Kind::HandOff => command
                .arg("ceiling")
                .arg(&self.ceiling_body)
                .args((kind == Kind::HandOff).then_some("--through-blocking-pool")),
            Kind::KiokuSqlite | Kind::KiokuFirestore => {
                let store = if kind == Kind::KiokuSqlite {
                    "sqlite"
                } else {
                    "firestore"
                };
                let tokens = TOKENS.map(|(name, token)| format!("{name}:{token}"));
                // As on Cloud Run (JSON logs, one line per request), without a rate limit.
                command
                    .env("K_SERVICE", "kioku-bench")
                    .env("KIOKU_PUBLIC_URL", format!("http://127.0.0.1:{port}"))
                    .env("KIOKU_STORE", store)
                    .env("API_TOKENS", tokens.join(","))
                    .env("KIOKU_RATE_LIMIT", "0")
                    .env("KIOKU_DATA_DIR", &self.sqlite_dir)
            }
            Kind::Original => {
                let dir = &self.original.as_ref().expect("the original's directory").0;
                command
                    .arg("--source")
                    .arg(dir.join("main.py"))
                    .args(["--target", "mngMemory", "--port", &port.to_string()])
                    .env("API_TOKENS", TOKENS.map(|(_, token)| token).join(","))
            }
        };
        command
    }

    /// Where `kind`'s output goes, every start of it appended.
    pub fn log(&self, kind: Kind) -> PathBuf {
        self.logs.join(format!("{}.log", kind.slug()))
    }

    /// Starts `kind` on a free port; its output goes to [`log`](Self::log).
    pub fn spawn(&self, kind: Kind, emulator: Option<&Emulator>) -> Server {
        let port = free_port();
        let log = append(&self.log(kind));
        let child = self
            .command(kind, port, emulator.map(Emulator::host).as_deref())
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("the log file"))
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", kind.name()));
        Server {
            child,
            base: format!("http://127.0.0.1:{port}/"),
        }
    }

    /// A Firestore emulator of its own for one service, so that no service reads through the
    /// documents another left behind.
    pub fn emulator(&self) -> Emulator {
        Emulator::start(0, append(&self.logs.join("emulator.log")))
    }
}

fn append(path: &Path) -> File {
    File::options()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// A running server, stopped with SIGTERM (as Cloud Run stops one) when dropped.
pub struct Server {
    child: Child,
    pub base: String,
}

impl Server {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if !self.has_exited() {
            // SIGTERM lets gunicorn stop its worker too; SIGKILL would orphan it.
            let _ = Command::new("kill")
                .args(["-TERM", &self.pid().to_string()])
                .status();
        }
        let _ = self.child.wait();
    }
}
