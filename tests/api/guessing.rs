//! Guessing tokens gets nowhere: tokens shorter than 32 characters are refused at start (or
//! carried over on purpose, with a warning), and failed sign-ins are throttled per client
//! address, at every door, with an audit line that holds nothing presented.

use kioku::throttle::FAILURES_PER_WINDOW;
use reqwest::{Method, RequestBuilder};
use serde_json::Value;

use super::app::Browser;
use super::oauth::flow::{browser, consent_form, decide, operator_client, spawn_oauth};
use crate::helpers::{ADMIN, ALICE, BOB, api_tokens, error_json, retry_after, spawn_fresh};
use crate::launch::Launch;

/// The lines of a JSON log.
fn parsed(log: &[String]) -> Vec<Value> {
    log.iter()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect()
}

fn audit_lines(log: &[String]) -> Vec<Value> {
    parsed(log)
        .into_iter()
        .filter(|line| line["audit"] == true)
        .collect()
}

#[tokio::test]
async fn weak_tokens_are_refused_at_start() {
    let weak_api = format!("{},bob:weakling-bob-token", api_tokens());
    let weak_admin = format!("{ADMIN},weakling-admin-token");
    for (launch, refused) in [
        (
            Launch::new()
                .set("API_TOKENS", weak_api)
                .set("KIOKU_ADMIN_TOKENS", ADMIN),
            "API_TOKENS entry 5",
        ),
        (
            Launch::new().set("KIOKU_ADMIN_TOKENS", weak_admin),
            "KIOKU_ADMIN_TOKENS entry 2",
        ),
    ] {
        let Err((status, log)) = launch.start() else {
            panic!("started with a weak token: {refused}");
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
    let legacy = "legacy-bare";
    let launch = Launch::new()
        .set("API_TOKENS", format!("{},{legacy}", api_tokens()))
        .set("KIOKU_ALLOW_WEAK_TOKENS", "true");
    for _start in 0..2 {
        let server = launch.start().unwrap();
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

/// A request from `address` as Cloud Run's front end forwards it: after whatever the client
/// put in `X-Forwarded-For`.
fn from(request: RequestBuilder, claimed: Option<&str>, address: &str) -> RequestBuilder {
    let forwarded = match claimed {
        Some(claimed) => format!("{claimed}, {address}"),
        None => address.to_owned(),
    };
    request.header("x-forwarded-for", forwarded)
}

/// On a Cloud-Run-like start, one address guessing at the API and at /mcp is refused once it
/// failed [`FAILURES_PER_WINDOW`] times, a forged `X-Forwarded-For` notwithstanding, while a
/// right token from the same address still gets in (behind a shared address, others' guesses
/// lock no one out); guessing at /admin is throttled the same way. One audit line per throttled
/// address, with the door and the count, none of the guesses.
#[tokio::test]
async fn failed_sign_ins_are_throttled_per_address() {
    let launch = Launch::new()
        .on_cloud_run()
        .set("KIOKU_ADMIN_TOKENS", ADMIN);
    let server = launch.start().unwrap();
    let client = reqwest::Client::new();
    let base = server.base();
    let load = |token: &str| {
        client
            .get(&base)
            .bearer_auth(token)
            .query(&[("mode", "load")])
    };
    let mcp = |token: &str| {
        client
            .post(format!("{base}/mcp"))
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .json(&serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
    };
    let (guesser, other) = ("203.0.113.7", "198.51.100.9");
    let guesses: Vec<String> = (0..FAILURES_PER_WINDOW)
        .map(|n| format!("guess-{n:02}-0123456789-0123456789-abcdef"))
        .collect();

    // Half the guesses at the API, half at /mcp: one budget per address.
    for (n, guess) in guesses.iter().enumerate() {
        let request = if n % 2 == 0 { load(guess) } else { mcp(guess) };
        let response = from(request, None, guesser).send().await.unwrap();
        assert!(
            [401, 403].contains(&response.status().as_u16()),
            "guess {n}: {}",
            response.status()
        );
    }
    // Another guess waits, whatever the client claims to be.
    let another = "guess-xx-0123456789-0123456789-abcdef";
    for request in [
        from(load(another), None, guesser),
        from(load(another), Some(other), guesser),
        from(mcp(another), None, guesser),
    ] {
        let response = request.send().await.unwrap();
        let wait = retry_after(&response);
        assert!((1..=60).contains(&wait), "{wait}");
        error_json(response, 429, "sign_in_throttled").await;
    }
    // A right token from the same address gets in, at every door.
    for request in [
        from(load(ALICE), None, guesser),
        from(mcp(ALICE), None, guesser),
        from(
            client
                .get(format!("{base}/admin/namespaces"))
                .bearer_auth(ADMIN),
            None,
            guesser,
        ),
    ] {
        let response = request.send().await.unwrap();
        assert_eq!(
            response.status(),
            200,
            "a right token from a throttled address"
        );
    }
    // Another address is let in.
    let response = from(load(BOB), None, other).send().await.unwrap();
    assert_eq!(response.status(), 200);

    // Admin tokens are guessed the same way.
    let admin_guesser = "192.0.2.33";
    for n in 0..=FAILURES_PER_WINDOW {
        let guess = format!("admin-guess-{n:02}-0123456789-abcdef");
        let request = client
            .request(Method::DELETE, format!("{base}/admin/namespaces/alice"))
            .bearer_auth(&guess);
        let response = from(request, None, admin_guesser).send().await.unwrap();
        let expected = if n < FAILURES_PER_WINDOW { 403 } else { 429 };
        assert_eq!(response.status(), expected, "admin guess {n}");
    }
    let right = client
        .get(format!("{base}/admin/namespaces"))
        .bearer_auth(ADMIN);
    let response = from(right, None, admin_guesser).send().await.unwrap();
    assert_eq!(
        response.status(),
        200,
        "the right admin token still gets in"
    );
    let (_, log) = server.stop_and_collect();

    let audits = audit_lines(&log);
    let doors: Vec<(&str, &str, u64)> = audits
        .iter()
        .map(|line| {
            assert_eq!(line["severity"], "WARNING", "{line}");
            (
                line["remote_ip"].as_str().unwrap(),
                line["door"].as_str().unwrap(),
                line["failures"].as_u64().unwrap(),
            )
        })
        .collect();
    let count = u64::from(FAILURES_PER_WINDOW);
    assert_eq!(
        doors,
        [(guesser, "mcp", count), (admin_guesser, "admin", count)],
        "{audits:?}"
    );
    for line in &log {
        assert!(!line.contains("guess-"), "a guess in the log: {line}");
        for secret in [ALICE, BOB, ADMIN] {
            assert!(!line.contains(secret), "a token in the log: {line}");
        }
    }
}

/// The consent page's token field is throttled too: past the limit an unknown token gets the
/// page saying to wait, with 429 and `Retry-After`, while a right one still signs in.
#[tokio::test]
async fn tokens_typed_on_the_consent_page_are_throttled() {
    let fresh = spawn_oauth(kioku::config::StoreKind::Sqlite, |_| {}).await;
    let app = &fresh.app;
    let callback = "https://chat.openai.com/aip/g-throttle/oauth/callback";
    let (client_id, _) = operator_client(app, callback).await;
    let browser = browser();
    let params = [("response_type", "code"), ("client_id", client_id.as_str())];
    let form = consent_form(app, &browser, &params).await;
    for n in 0..FAILURES_PER_WINDOW {
        let guess = format!("typed-guess-{n:02}-0123456789-abcdef");
        let fields = [("token", guess.as_str()), ("decision", "allow")];
        let answer = decide(app, &browser, &form, &fields).await;
        assert_eq!(answer.status(), 401, "guess {n}");
    }
    let fields = [
        ("token", "typed-guess-xx-0123456789-abcdef"),
        ("decision", "allow"),
    ];
    let answer = decide(app, &browser, &form, &fields).await;
    assert_eq!(answer.status(), 429);
    assert!(answer.headers().contains_key("retry-after"));
    let page = answer.text().await.unwrap();
    assert!(
        page.contains("Wait a minute") || page.contains("1 分ほど待って"),
        "{page}"
    );
    let answer = decide(
        app,
        &browser,
        &form,
        &[("token", &fresh.token), ("decision", "allow")],
    )
    .await;
    assert_eq!(answer.status(), 303, "a right token signs in");
}

/// Where weak tokens are carried over, a right token does not get in from an address past its
/// limit either: ten guesses a minute could find a weak one.
#[tokio::test]
async fn with_weak_tokens_a_throttled_address_is_refused_outright() {
    let strong = "alice:alice-0123456789abcdef0123456789abcdef";
    let launch = Launch::new()
        .on_cloud_run()
        .set("API_TOKENS", format!("{strong},bob:weakling"))
        .set("KIOKU_ALLOW_WEAK_TOKENS", "true");
    let server = launch.start().unwrap();
    let client = reqwest::Client::new();
    let load = |token: &str| {
        let request = client
            .get(server.base())
            .bearer_auth(token)
            .query(&[("mode", "load")]);
        from(request, None, "203.0.113.8")
    };
    for n in 0..FAILURES_PER_WINDOW {
        let response = load(&format!("weak-guess-{n}")).send().await.unwrap();
        assert_eq!(response.status(), 403, "guess {n}");
    }
    for token in ["weakling", "alice-0123456789abcdef0123456789abcdef"] {
        let response = load(token).send().await.unwrap();
        error_json(response, 429, "sign_in_throttled").await;
    }
    server.stop_and_collect();
}

/// The memory page's sign-in form alike: past the limit an unknown token waits (429), a right
/// one signs in.
#[tokio::test]
async fn tokens_typed_on_the_memory_page_are_throttled() {
    let fresh = spawn_fresh(kioku::config::StoreKind::Sqlite, |_| {}).await;
    let browser = Browser::new(&fresh.app.base);
    for n in 0..FAILURES_PER_WINDOW {
        let answer = browser
            .sign_in(&format!("page-guess-{n:02}-0123456789"))
            .await;
        assert_eq!(answer.status(), 401, "guess {n}");
    }
    let answer = browser.sign_in("page-guess-xx-0123456789").await;
    assert_eq!(answer.status(), 429);
    assert!(answer.headers().contains_key("retry-after"));
    let answer = browser.sign_in(&fresh.token).await;
    assert_eq!(answer.status(), 303, "a right token signs in");
}
