//! README's "Use it" lines, run with bash and curl as a reader would, against a server started
//! as README's "Run it" starts it (no configuration: it generates the token in `data/`). Each
//! command must answer without an error, and the answer README writes under a command is the
//! one it gets: the same fields, the same values, where `…` stands for what differs between
//! runs (an id, a time, more items).

use std::path::Path;
use std::process::Command;

use serde_json::{Map, Value};

use crate::launch::Launch;
use crate::needs;

/// A command of the block (its continuation lines joined), and the answer README shows for it.
struct Step {
    command: String,
    shown: Option<String>,
}

/// The first `sh` block after "## Use it".
fn use_it(readme: &str) -> &str {
    let section = &readme[readme
        .find("## Use it")
        .expect("README has a Use it section")..];
    let start = section
        .find("```sh\n")
        .expect("the section has an sh block")
        + 6;
    let len = section[start..].find("```").expect("the block ends");
    &section[start..start + len]
}

fn steps(block: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut pending = String::new();
    for line in block.lines() {
        if let Some(answer) = line.strip_prefix("# {") {
            let last = steps.last_mut().expect("an answer follows a command");
            last.shown = Some(format!("{{{answer}"));
        } else if line.starts_with('#') || line.trim().is_empty() {
        } else if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head);
        } else {
            pending.push_str(line);
            steps.push(Step {
                command: std::mem::take(&mut pending),
                shown: None,
            });
        }
    }
    steps
}

/// Runs `script` with bash in `dir`; its standard output.
fn bash(dir: &Path, script: &str) -> String {
    let output = Command::new("bash")
        .args(["-c", script])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{script}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// Whether `actual` is what README shows: objects with the same keys, each value matching;
/// a string with `…` or a time matches any string; an array shown ending in `…` matches one
/// that starts with the items shown.
fn matches(shown: &Value, actual: &Value) -> bool {
    match (shown, actual) {
        (Value::Object(shown), Value::Object(actual)) => same_fields(shown, actual),
        (Value::Array(shown), Value::Array(actual)) => {
            let more = shown.last() == Some(&Value::String("…".into()));
            let items = &shown[..shown.len() - usize::from(more)];
            (actual.len() == items.len() || more && actual.len() >= items.len())
                && items.iter().zip(actual).all(|(s, a)| matches(s, a))
        }
        (Value::String(shown), Value::String(actual)) => {
            shown == actual || shown.contains('…') || is_time(shown) && is_time(actual)
        }
        _ => shown == actual,
    }
}

fn same_fields(shown: &Map<String, Value>, actual: &Map<String, Value>) -> bool {
    shown.len() == actual.len()
        && shown
            .iter()
            .all(|(key, value)| actual.get(key).is_some_and(|a| matches(value, a)))
}

fn is_time(text: &str) -> bool {
    chrono::DateTime::parse_from_rfc3339(text).is_ok()
}

/// README's shown answer as JSON: `,…]` (more items) becomes a `"…"` item.
fn shown_json(shown: &str) -> Value {
    serde_json::from_str(&shown.replace(",…]", r#","…"]"#))
        .unwrap_or_else(|e| panic!("README's answer {shown} is not JSON: {e}"))
}

#[test]
fn every_use_it_line_answers_as_readme_shows() {
    if !needs::program("curl") {
        return;
    }
    let readme = include_str!("../../README.md");
    let steps = steps(use_it(readme));
    let launch = Launch::new().unset("API_TOKENS");
    let server = launch.start().unwrap();
    // README runs from the checkout, where the server keeps `data/`.
    let cwd = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(launch.dir(), cwd.path().join("data")).unwrap();

    let (prelude, steps) = steps.split_first().unwrap();
    assert!(prelude.command.starts_with("TOKEN="), "{}", prelude.command);
    let run = |command: &str| {
        let command = command.replace("http://127.0.0.1:8080", &server.base());
        bash(cwd.path(), &format!("{}\n{command}", prelude.command))
    };
    // The first save answers the thread and the time the later lines name.
    let first = run(&steps[0].command);
    let saved: Value = serde_json::from_str(&first).unwrap();
    let shown_first = shown_json(steps[0].shown.as_deref().unwrap());
    let real = |text: &str| {
        let id = |v: &Value| v["thread_id"].as_str().unwrap().to_owned();
        let time = |v: &Value| v["timestamp"].as_str().unwrap().to_owned();
        text.replace(&id(&shown_first), &id(&saved))
            .replace(&time(&shown_first), &time(&saved))
    };
    for (i, step) in steps.iter().enumerate() {
        let answer = if i == 0 {
            first.clone()
        } else {
            run(&real(&step.command))
        };
        let answer: Value = serde_json::from_str(&answer)
            .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {answer}", step.command));
        assert_ne!(answer["status"], "error", "{}: {answer}", step.command);
        if let Some(shown) = &step.shown {
            let shown = shown_json(&real(shown));
            assert!(
                matches(&shown, &answer),
                "{}\nREADME shows {shown}\nbut it answers {answer}",
                step.command
            );
        }
    }
}
