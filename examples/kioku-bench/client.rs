//! The requests the benchmark sends itself, one at a time or a few at once: filling
//! namespaces, cold starts and loads as a namespace grows.

use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt};

use crate::costs;
use crate::services::Server;
use crate::text;

/// Characters of each summary saved: a conversation's summary of a few paragraphs.
pub const SUMMARY_CHARS: usize = 500;

pub fn summary(thread: usize) -> String {
    text::summary(thread, 0, SUMMARY_CHARS, false)
}

/// A client that drops idle connections before any of the servers would (gunicorn closes them
/// after 2 s), so that no request is sent on a connection the server is closing.
pub fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_idle_timeout(Duration::from_secs(1))
        .build()
        .expect("an HTTP client")
}

async fn ok_body(request: reqwest::RequestBuilder) -> Result<String, String> {
    let failed = |e: reqwest::Error| format!("{:?}", e.without_url());
    let response = request.send().await.map_err(failed)?;
    let status = response.status();
    let body = response.text().await.map_err(failed)?;
    if status.is_success() {
        Ok(body)
    } else {
        Err(format!("{status}: {body}"))
    }
}

pub async fn save(client: &reqwest::Client, base: &str, token: &str, thread: &str, text: &str) {
    let query = [("mode", "save"), ("thread_id", thread), ("summary", text)];
    if let Err(e) = ok_body(client.get(base).bearer_auth(token).query(&query)).await {
        panic!("a save to {base} failed: {e}");
    }
}

/// The JSON-RPC body of an MCP `load_memories` call with no arguments: the same load as
/// `GET /?mode=load`.
pub const MCP_LOAD: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"load_memories","arguments":{}}}"#;
/// The protocol version the MCP calls declare (stateless: no `initialize` first).
pub const MCP_PROTOCOL_VERSION: &str = "2025-11-25";

/// The same call as a 2026-07-28 client sends it: its context in the request's `_meta`.
const MCP_LOAD_STATELESS: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"load_memories","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"kioku-bench","version":"1.0.0"}}}}"#;

/// The protocol an MCP call is sent under.
#[derive(Debug, Clone, Copy)]
pub enum Mcp {
    /// [`MCP_PROTOCOL_VERSION`]: a call needs nothing negotiated.
    Plain,
    /// 2026-07-28: each call carries its context, and SEP-2243's `Mcp-Method` and `Mcp-Name`.
    Stateless,
}

/// An MCP `load_memories` call, through `/mcp`, under `protocol`.
pub async fn mcp_load(client: &reqwest::Client, base: &str, token: &str, protocol: Mcp) {
    let request = client
        .post(format!("{}/mcp", base.trim_end_matches('/')))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    let request = match protocol {
        Mcp::Plain => request
            .header("mcp-protocol-version", MCP_PROTOCOL_VERSION)
            .body(MCP_LOAD),
        Mcp::Stateless => request
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "load_memories")
            .body(MCP_LOAD_STATELESS),
    };
    match ok_body(request).await {
        Ok(body) if body.contains(r#""isError":false"#) => {}
        Ok(body) => panic!("an MCP load from {base} failed: {body}"),
        Err(e) => panic!("an MCP load from {base} failed: {e}"),
    }
}

/// A load's time and answer.
pub async fn load(client: &reqwest::Client, base: &str, token: &str) -> (Duration, String) {
    load_with(client, base, token, &[("mode", "load")]).await
}

/// A load with `query`'s parameters: its time and answer.
async fn load_with(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    query: &[(&str, &str)],
) -> (Duration, String) {
    let started = Instant::now();
    let body = ok_body(client.get(base).bearer_auth(token).query(query))
        .await
        .unwrap_or_else(|e| panic!("a load from {base} failed: {e}"));
    (started.elapsed(), body)
}

/// Saves one summary to each of the threads `g<n>` for n in `threads`, eight at a time.
pub async fn fill(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    threads: std::ops::Range<usize>,
) {
    stream::iter(threads)
        .for_each_concurrent(8, |n| async move {
            save(client, base, token, &format!("g{n:04}"), &summary(n)).await;
        })
        .await;
}

/// Time from `started` (just before the exec) to the first successful authenticated load.
pub async fn until_ready(server: &mut Server, token: &str, started: Instant) -> Duration {
    let client = http();
    loop {
        let request = client
            .get(&server.base)
            .bearer_auth(token)
            .query(&[("mode", "load")])
            .timeout(Duration::from_secs(10));
        if ok_body(request).await.is_ok() {
            return started.elapsed();
        }
        assert!(!server.has_exited(), "the server exited while starting");
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the server did not serve within 2 minutes"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Namespace sizes, in threads, at which loads are timed.
pub const GROWTH: [usize; 8] = [10, 20, 50, 100, 200, 500, 1_000, 2_000];

/// Loads timed at each size.
pub const GROWTH_LOADS: usize = 9;

/// Threads in the first page that kioku's loads at each size also ask for (`limit`), timed
/// apart: as many as the smallest namespace holds, so that its whole load and every first
/// page answer the same number of threads and differ only in what the namespace holds.
pub const FIRST_PAGE: usize = GROWTH[0];

pub struct Step {
    pub threads: usize,
    pub median_ms: f64,
    pub chars: usize,
    /// With `limit`, kioku's: the median first page of [`FIRST_PAGE`] threads.
    pub first_page_ms: Option<f64>,
    /// On Firestore, what its saves and loads were billed.
    pub reads: Option<costs::Reads>,
}

/// Grows a namespace through [`GROWTH`], timing [`GROWTH_LOADS`] loads at each size and then,
/// with `first_pages`, as many first pages of [`FIRST_PAGE`] threads.
pub async fn growth(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    first_pages: bool,
) -> Vec<Step> {
    let limit = FIRST_PAGE.to_string();
    let first_page = [("mode", "load"), ("limit", limit.as_str())];
    let mut steps = Vec::new();
    let mut have = 0;
    for threads in GROWTH {
        fill(client, base, token, have..threads).await;
        have = threads;
        let mut times = Vec::new();
        let mut chars = 0;
        for _ in 0..GROWTH_LOADS {
            let (time, body) = load(client, base, token).await;
            times.push(time);
            chars = body.chars().count();
        }
        let mut pages = Vec::new();
        while first_pages && pages.len() < GROWTH_LOADS {
            pages.push(load_with(client, base, token, &first_page).await.0);
        }
        steps.push(Step {
            threads,
            median_ms: median_ms(times),
            chars,
            first_page_ms: first_pages.then(|| median_ms(pages)),
            reads: None,
        });
    }
    steps
}

fn median_ms(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1e3
}
