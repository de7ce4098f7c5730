//! What a test needs from outside the crate: the Firestore emulator, the embedding model, a
//! browser, pinned tools and npm packages. `scripts/test` installs each and names it in the
//! environment, and sets `KIOKU_TEST_EVERYTHING`: then a missing one fails the test. Under a
//! plain `cargo test` a test missing one ends at once, with a line naming `scripts/test`, so
//! that the tests needing nothing outside the crate still run anywhere.
#![allow(dead_code)] // each test crate uses part of it

use std::io::Write;
use std::path::{Path, PathBuf};

/// The value of `var`, which `scripts/test` sets; `None` once the test is skipped.
pub fn var(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(value) if !value.is_empty() => Some(value),
        _ => missing(&format!("{var} is not set")),
    }
}

/// The address of the Firestore emulator `scripts/test` started; `None` once the test is
/// skipped.
pub fn firestore() -> Option<String> {
    var("FIRESTORE_EMULATOR_HOST")
}

/// The tests' embedding model, the one kioku recommends: multilingual-e5-small
/// (`KIOKU_TEST_MULTILINGUAL_MODEL`), which reads Japanese and English; `None` once the test is
/// skipped.
pub fn model() -> Option<PathBuf> {
    var("KIOKU_TEST_MULTILINGUAL_MODEL").map(PathBuf::from)
}

/// A model that reads English alone, all-MiniLM-L6-v2 (`KIOKU_TEST_EMBEDDING_MODEL`): what
/// kioku does with a text its model cannot read; `None` once the test is skipped.
pub fn english_model() -> Option<PathBuf> {
    var("KIOKU_TEST_EMBEDDING_MODEL").map(PathBuf::from)
}

/// Whether the npm packages of `dir` (relative to the crate, e.g. `tests/mcp-clients`) are
/// installed; `false` once the test is skipped.
pub fn npm_packages(dir: &str) -> bool {
    let modules = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(dir)
        .join("node_modules");
    modules.is_dir() || missing::<()>(&format!("{dir}/node_modules is not installed")).is_some()
}

/// Whether the program `name` runs (`name --version`), as `scripts/test` installs it; `false`
/// once the test is skipped.
pub fn program(name: &str) -> bool {
    let runs = std::process::Command::new(name)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    runs || missing::<()>(&format!("{name} is not installed")).is_some()
}

/// Fails the test under `scripts/test`, which provides everything; otherwise says what was
/// skipped and why, and answers `None`.
fn missing<T>(what: &str) -> Option<T> {
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    if std::env::var_os("KIOKU_TEST_EVERYTHING").is_some() {
        panic!("{what}, though scripts/test provides it");
    }
    // Straight to stderr: the test harness captures `eprintln!` and shows it only on failure.
    let _ = writeln!(
        std::io::stderr(),
        "skipped {test}: {what}; scripts/test installs what it needs and runs every test"
    );
    None
}
