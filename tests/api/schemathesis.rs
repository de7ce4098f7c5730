//! Property-based tests from the served schema: schemathesis (installed by scripts/test) sends
//! thousands of generated requests, valid and invalid, to a live kioku on each store; none may
//! get a 5xx or a response the schema does not describe.

use std::process::Command;

use crate::helpers::{ALICE, api_tokens};
use crate::launch::Launch;
use crate::needs;

/// Generated cases per operation and phase; with both operations, several thousand requests.
const EXAMPLES: &str = "1000";
/// Hooks that keep generated queries within the request target's limit.
const HOOKS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/api/schemathesis_hooks.py"
);

fn run_schemathesis(launch: Launch) {
    let Some(schemathesis) = needs::var("KIOKU_SCHEMATHESIS") else {
        return;
    };
    let launch = launch
        .set("KIOKU_SCHEMA_POST", "true")
        .set("KIOKU_RATE_LIMIT", "0");
    let server = launch.start().unwrap();
    let checks = "not_a_server_error,status_code_conformance,content_type_conformance,\
                  response_schema_conformance,response_headers_conformance,unsupported_method";
    let output = Command::new(schemathesis)
        .args([
            "run",
            &format!("{}/openapi.json", server.base()),
            "--checks",
            checks,
        ])
        .args([
            "--max-examples",
            EXAMPLES,
            "--seed",
            "20261129",
            "--no-color",
        ])
        .args(["--header", &format!("Authorization: Bearer {ALICE}")])
        // Leaves out queries past the request target's limit, which the schema cannot state.
        .env("SCHEMATHESIS_HOOKS", HOOKS)
        // Its example database and reports go to the test's directory, not the repository.
        .current_dir(launch.dir())
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{report}");
    let generated: usize = report
        .lines()
        .find_map(|line| {
            line.trim()
                .split_once(" generated")
                .and_then(|(n, _)| n.trim().parse().ok())
        })
        .unwrap_or_else(|| panic!("no count in the report: {report}"));
    assert!(generated >= 2_000, "only {generated} cases: {report}");
}

#[test]
fn generated_requests_never_break_the_contract_on_sqlite() {
    run_schemathesis(Launch::new());
}

#[test]
fn generated_requests_never_break_the_contract_on_firestore() {
    let Some(host) = needs::firestore() else {
        return;
    };
    run_schemathesis(Launch::on_firestore(&api_tokens(), &host));
}
