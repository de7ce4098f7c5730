//! `/mcp` against the MCP project's own checks: the conformance suite's server scenarios that
//! apply to a stateless server of tools (each other scenario it lists is named here with why it
//! does not apply, so that a new one is noticed), and the MCP Inspector's `--strict` check of
//! the tools' schemas.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::helpers::{ALICE, spawn_app};
use crate::needs;

/// The scenarios a server of tools, stateless and without prompts or resources, must pass.
const APPLICABLE: [&str; 4] = [
    "server-initialize",
    "ping",
    "tools-list",
    "dns-rebinding-protection",
];

/// The rest: each calls the suite's reference server's own test tools (`test_simple_text`,
/// `test_image_content`, ...), prompts or resources, or needs what kioku does not offer
/// (logging, completions, sampling, elicitation, a session with its event streams).
const NOT_APPLICABLE: [&str; 28] = [
    "logging-set-level",
    "completion-complete",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "json-schema-2020-12",
    "elicitation-sep1034-defaults",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "elicitation-sep1330-enums",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
];

const DIR: &str = "tests/mcp-conformance";

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(DIR)
}

/// The server runs on this test's runtime, so a program is waited for off it.
async fn run(mut command: Command) -> Output {
    tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .unwrap()
}

fn said(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr)
}

#[tokio::test]
async fn the_conformance_suites_applicable_server_scenarios_pass() {
    let Some(node) = needs::var("KIOKU_CONFORMANCE_NODE") else {
        return;
    };
    if !needs::npm_packages(DIR) {
        return;
    }
    let suite = dir().join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let mut list = Command::new(&node);
    list.arg(&suite).args(["list", "--server"]);
    let listed = run(list).await;
    assert!(listed.status.success(), "{}", said(&listed));
    let mut scenarios: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(|line| line.split(' ').next().unwrap().to_owned())
        .collect();
    scenarios.sort();
    let mut known: Vec<String> = APPLICABLE
        .iter()
        .chain(&NOT_APPLICABLE)
        .map(|s| s.to_string())
        .collect();
    known.sort();
    assert_eq!(scenarios, known, "the suite lists other scenarios now");

    // Without a public URL, as a developer runs it: the suite's localhost checks apply.
    let app = spawn_app().await;
    let url = format!("{}/mcp", app.base);
    for scenario in APPLICABLE {
        let mut command = Command::new(&node);
        command
            .current_dir(dir())
            .args(["--import", "./inject-auth.mjs"])
            .arg(&suite)
            .args(["server", "--url", &url, "--scenario", scenario])
            .env("KIOKU_TOKEN", ALICE);
        let output = run(command).await;
        let report = said(&output);
        assert!(output.status.success(), "{scenario}: {report}");
        assert!(
            report.contains(" 0 failed, 0 warnings"),
            "{scenario}: {report}"
        );
    }
}

#[tokio::test]
async fn the_mcp_inspector_finds_nothing_to_fault_in_the_tool_schemas() {
    if !needs::npm_packages(DIR) {
        return;
    }
    let app = spawn_app().await;
    let home = tempfile::TempDir::new().unwrap();
    let mut command = Command::new(dir().join("node_modules/.bin/mcp-inspector"));
    command
        .args(["--cli", "--transport", "http", "--server-url"])
        .arg(format!("{}/mcp", app.base))
        .args(["--header", &format!("Authorization: Bearer {ALICE}")])
        .args(["--method", "tools/list", "--strict"])
        // It keeps its state at home.
        .env("HOME", home.path());
    let output = run(command).await;
    let report = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}", said(&output));
    // Neither an error (which fails the run) nor a warning (which does not).
    assert!(
        !report.contains("Warning") && !report.contains("Error"),
        "{report}"
    );
    let listed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(listed["tools"].as_array().unwrap().len(), 5, "{listed}");
}
