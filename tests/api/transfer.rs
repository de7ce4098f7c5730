//! `kioku export` and `kioku import`, run as the binary an operator runs.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::helpers::{ALICE, BARE, BOB, ok_json, spawn_app_with};
use crate::needs;
use crate::original::{PROJECT, emulator_host};

/// Runs `kioku <args>` on the store `env` names, with `input` on stdin.
fn kioku(args: &[&str], env: &[(&str, String)], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kioku"))
        .args(args)
        .env_clear()
        .envs(env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn succeeded(output: Output) -> (Vec<u8>, String) {
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stderr}");
    (output.stdout, stderr)
}

fn sqlite(dir: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("KIOKU_STORE", "sqlite".into()),
        ("KIOKU_DATA_DIR", dir.display().to_string()),
    ]
}

fn firestore() -> Vec<(&'static str, String)> {
    vec![
        ("KIOKU_STORE", "firestore".into()),
        ("GOOGLE_CLOUD_PROJECT", PROJECT.into()),
        ("FIRESTORE_EMULATOR_HOST", emulator_host()),
    ]
}

/// SQLite → Firestore → SQLite gives back the very same export; importing twice adds nothing.
#[tokio::test]
async fn a_round_trip_through_firestore_is_exact_and_imports_are_idempotent() {
    if needs::firestore().is_none() {
        return;
    }
    let source = tempfile::tempdir().unwrap();
    let app = spawn_app_with(|s| s.data_dir = source.path().to_owned()).await;
    app.save(ALICE, Some("t1"), "要約 🎌 \"quoted\"\nnext line")
        .await;
    app.save(ALICE, Some("t1"), "続き").await;
    app.save(ALICE, Some("t2"), "another").await;
    app.save(BOB, Some("t1"), "bob's").await;
    for profile in ["好きな言語は Rust", "好きな言語は Rust と Python"] {
        let rewrite = [("mode", "profile"), ("profile", profile)];
        ok_json(app.get(Some(ALICE), &rewrite).send().await.unwrap()).await;
    }
    let (original, stderr) = succeeded(kioku(&["export"], &sqlite(source.path()), b""));
    assert!(
        stderr.contains("exported 3 threads (4 summaries) and 2 profile versions of 2 namespaces"),
        "{stderr}"
    );
    // Each summary and profile version says who wrote it: here, alice's and bob's tokens.
    let exported = String::from_utf8_lossy(&original);
    let by = |label: &str| format!(r#""writer":{{"by":"token","label":"{label}"}}"#);
    assert_eq!(exported.matches(&by("alice")).count(), 3 + 2, "{exported}");
    assert_eq!(exported.matches(&by("bob")).count(), 1, "{exported}");

    // Namespaces of this test's own on the shared emulator.
    let id = uuid::Uuid::new_v4();
    let (a, b) = (format!("alice-{id}"), format!("bob-{id}"));
    let to_firestore = [format!("alice:{a}"), format!("bob:{b}")];
    let args = [
        "import",
        "--rename",
        &to_firestore[0],
        "--rename",
        &to_firestore[1],
    ];
    let (_, first) = succeeded(kioku(&args, &firestore(), &original));
    assert!(
        first.contains(
            "3 threads, 4 summaries added, 0 already present, 2 profile versions added, 0 bad lines"
        ),
        "{first}"
    );
    let (_, second) = succeeded(kioku(&args, &firestore(), &original));
    assert!(
        second
            .contains("3 threads, 0 summaries added, 4 already present, 0 profile versions added"),
        "{second}"
    );

    let mut through = Vec::new();
    for ns in [&a, &b] {
        let (lines, _) = succeeded(kioku(&["export", "--namespace", ns], &firestore(), b""));
        through.extend(lines);
    }
    let back = tempfile::tempdir().unwrap();
    let to_sqlite = [format!("{a}:alice"), format!("{b}:bob")];
    let args = [
        "import",
        "--rename",
        &to_sqlite[0],
        "--rename",
        &to_sqlite[1],
    ];
    succeeded(kioku(&args, &sqlite(back.path()), &through));
    let (returned, _) = succeeded(kioku(&["export"], &sqlite(back.path()), b""));
    assert_eq!(
        String::from_utf8(returned).unwrap(),
        String::from_utf8(original).unwrap()
    );
}

/// Bad lines are reported by number and skipped; the good ones land. Every field meets the
/// API's rules, the configured summary limit included. `--rename` moves a bare-token namespace
/// (the original's layout) to a named one.
#[tokio::test]
async fn bad_lines_are_reported_and_the_good_ones_imported() {
    let dir = tempfile::tempdir().unwrap();
    let line = |thread: &str, entries: &[(&str, &str)]| {
        let entries: Vec<_> = entries
            .iter()
            .map(|(summary, timestamp)| serde_json::json!({"summary": summary, "timestamp": timestamp}))
            .collect();
        serde_json::json!({"namespace": BARE, "thread_id": thread, "entries": entries}).to_string()
    };
    let at = "2025-08-19T08:39:27.174624+09:00";
    let good = |thread: &str| line(thread, &[("s", at)]);
    let profile = |versions: &[(&str, u64, &str)]| {
        let versions: Vec<_> = versions
            .iter()
            .map(|(profile, version, updated_at)| {
                serde_json::json!({"profile": profile, "version": version, "updated_at": updated_at})
            })
            .collect();
        serde_json::json!({"namespace": BARE, "profile_versions": versions}).to_string()
    };
    let too_long = "x".repeat(101);
    let input = [
        good("first"),
        "not json".into(),
        format!(r#"{{"namespace":"{BARE}","thread_id":"a/b","entries":[]}}"#),
        String::new(),
        line("bidi", &[("s", at), ("a\u{202e}b", at)]),
        line("future", &[("s", "2999-01-01T00:00:00Z")]),
        line("unreadable", &[("s", "2025-08-19 morning")]),
        line("long", &[(&too_long, at)]),
        good("last"),
        profile(&[("a\u{202e}b", 1, at)]),
        profile(&[("the user prefers short answers", 1, at)]),
    ]
    .join("\n");
    let mut env = sqlite(dir.path());
    env.push(("KIOKU_MAX_SUMMARY_CHARS", "100".into()));
    let rename = format!("{BARE}:migrated");
    let output = kioku(&["import", "--rename", &rename], &env, input.as_bytes());
    assert!(
        !output.status.success(),
        "bad lines make the exit status a failure"
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    // In a file's terms: nothing an API caller is told to send.
    assert!(!stderr.contains("Send the thread_id"), "{stderr}");
    assert!(!stderr.contains("save again"), "{stderr}");
    for reported in [
        "line 2: not a JSON object",
        "line 3: `thread_id` must not contain `/`: a line names its thread by the id an export wrote",
        "line 5: entry 2: `summary` contains the control character U+202E",
        "line 6: entry 1: `timestamp` 2999-01-01T00:00:00Z is in the future",
        "line 7: entry 1: `timestamp` \"2025-08-19 morning\" is not an RFC 3339 time",
        "line 8: entry 1: `summary` is 101 characters long; this server keeps at most 100 (KIOKU_MAX_SUMMARY_CHARS)",
        "line 10: profile version 1: `profile` contains the control character U+202E",
    ] {
        assert!(stderr.contains(reported), "{reported}: {stderr}");
    }
    assert!(
        stderr
            .contains("read 11 lines: 2 threads, 2 summaries added, 0 already present, 1 profile version added, 7 bad lines"),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("kioku: 7 bad lines were skipped; fix them and import again\n"),
        "{stderr}"
    );
    assert!(
        !stderr.contains('\u{1b}'),
        "no progress bar when stderr is not a terminal"
    );

    let (exported, _) = succeeded(kioku(&["export"], &env, b""));
    let exported = String::from_utf8(exported).unwrap();
    let threads: Vec<serde_json::Value> = exported
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(threads.len(), 3, "two threads and the profile");
    assert!(
        threads.iter().all(|t| t["namespace"] == "migrated"),
        "{exported}"
    );
    assert_eq!(
        threads[2]["profile_versions"][0]["profile"],
        "the user prefers short answers"
    );
    assert!(
        !exported.contains(BARE),
        "the token no longer names the memories"
    );
}

/// On a terminal the import draws a progress bar. `script` (util-linux) gives it one.
#[test]
fn a_terminal_gets_a_progress_bar() {
    let dir = tempfile::tempdir().unwrap();
    let lines: String = (0..200)
        .map(|i| {
            format!(
                "{{\"namespace\":\"n\",\"thread_id\":\"t{i}\",\"entries\":[{{\"summary\":\"s\",\"timestamp\":\"2025-01-01T00:00:00Z\"}}]}}\n"
            )
        })
        .collect();
    let file = dir.path().join("memories.jsonl");
    std::fs::write(&file, lines).unwrap();
    let command = format!("{} import {}", env!("CARGO_BIN_EXE_kioku"), file.display());
    let output = Command::new("script")
        .args(["--quiet", "--return", "--command", &command, "/dev/null"])
        .env("KIOKU_DATA_DIR", dir.path().join("data"))
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{shown}");
    assert!(shown.contains('█'), "a bar was drawn: {shown:?}");
    assert!(
        shown.contains("200 threads, 200 summaries added"),
        "{shown}"
    );
}

/// A command that cannot start says why on one line, each cause after the last, and fails.
#[test]
fn a_command_that_fails_says_why_with_its_cause() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.jsonl");
    let output = kioku(
        &["import", &missing.display().to_string()],
        &sqlite(dir.path()),
        b"",
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    let expected = format!("kioku: {}: No such file or directory", missing.display());
    assert!(stderr.starts_with(&expected), "{stderr}");
    let output = kioku(
        &["import", "--rename", "no-colon"],
        &sqlite(dir.path()),
        b"",
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.starts_with("kioku: "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// `export --namespace` of a namespace that holds nothing (a typo, most likely) fails and says
/// so, rather than exporting nothing and succeeding; one that holds memories is exported.
#[test]
fn an_export_of_an_unknown_namespace_fails_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let lines = format!(
        "{}\n",
        serde_json::json!({"namespace": "alice", "thread_id": "t-1", "entries": [
            {"summary": "要約", "timestamp": "2026-12-06T12:00:00+09:00"}]})
    );
    succeeded(kioku(&["import"], &sqlite(dir.path()), lines.as_bytes()));
    let (exported, _) = succeeded(kioku(
        &["export", "--namespace", "alice"],
        &sqlite(dir.path()),
        b"",
    ));
    assert!(!exported.is_empty());
    let output = kioku(
        &["export", "--namespace", "alcie"],
        &sqlite(dir.path()),
        b"",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("no namespace named `alcie`"), "{stderr}");
}
