//! Guessing tokens gets nowhere: tokens shorter than 32 characters are refused at start (or
//! carried over on purpose, with a warning).

use serde_json::Value;

use crate::helpers::{ADMIN, Process, api_tokens};

/// The lines of a JSON log.
fn parsed(log: &[String]) -> Vec<Value> {
    log.iter()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect()
}

#[tokio::test]
async fn weak_tokens_are_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = api_tokens();
    let weak_api = format!("{tokens},bob:weakling-bob-token");
    let weak_admin = format!("{ADMIN},weakling-admin-token");
    for (env, refused) in [
        (
            [
                ("API_TOKENS", weak_api.as_str()),
                ("KIOKU_ADMIN_TOKENS", ADMIN),
            ],
            "API_TOKENS entry 5",
        ),
        (
            [
                ("API_TOKENS", tokens.as_str()),
                ("KIOKU_ADMIN_TOKENS", weak_admin.as_str()),
            ],
            "KIOKU_ADMIN_TOKENS entry 2",
        ),
    ] {
        let Err((status, log)) = Process::start(dir.path(), &env) else {
            panic!("started with a weak token: {env:?}");
        };
        assert!(!status.success());
        let error = log
            .iter()
            .find(|line| line.contains(refused))
            .unwrap_or_else(|| panic!("no line names {refused}: {log:?}"));
        assert!(error.contains("kioku token"), "{error}");
        for line in &log {
            assert!(
                !line.contains("weakling"),
                "a weak token in the log: {line}"
            );
        }
    }
}

/// `KIOKU_ALLOW_WEAK_TOKENS` carries a weak legacy token over, as an original function's
/// deployment may need: it works, and every start warns by its position, never the token.
#[tokio::test]
async fn a_weak_legacy_token_is_carried_over_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let legacy = "legacy-bare";
    let tokens = format!("{},{legacy}", api_tokens());
    let env = [
        ("API_TOKENS", tokens.as_str()),
        ("KIOKU_ALLOW_WEAK_TOKENS", "true"),
    ];
    for _start in 0..2 {
        let server = Process::start(dir.path(), &env).unwrap();
        let response = reqwest::Client::new()
            .get(server.base())
            .bearer_auth(legacy)
            .query(&[("mode", "load")])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let (_, log) = server.stop_and_collect();
        let warned = parsed(&log).into_iter().any(|line| {
            line["severity"] == "WARNING" && line["setting"] == "API_TOKENS" && line["entry"] == 5
        });
        assert!(warned, "no warning naming entry 5: {log:?}");
        for line in &log {
            assert!(!line.contains(legacy), "the weak token in the log: {line}");
        }
    }
}
