//! Latency and throughput at a number of connections, measured by wrk (Debian's package).

use std::process::Command;

use serde::Deserialize;

/// Loads; or saves spread over 1,000 threads when KIOKU_BENCH_SUMMARY holds a URL-encoded
/// summary, numbered so that no save repeats the one before it (a repeat stores nothing); or
/// MCP calls when KIOKU_BENCH_MCP holds a JSON-RPC body. `done` prints the figures as one JSON
/// line.
const SCRIPT: &str = r#"
local summary = os.getenv("KIOKU_BENCH_SUMMARY")
local mcp = os.getenv("KIOKU_BENCH_MCP")
request = function()
  if summary then
    saves = (saves or 0) + 1
    return wrk.format(nil, "/?mode=save&thread_id=w" .. math.random(1000) .. "&summary=" .. summary .. "%20" .. saves)
  end
  if mcp then
    -- Headers given to wrk.format replace wrk's own (Host, and Authorization from the
    -- command line), so they are copied first.
    if not mcp_headers then
      mcp_headers = {}
      for name, value in pairs(wrk.headers) do mcp_headers[name] = value end
      mcp_headers["Content-Type"] = "application/json"
      mcp_headers["Accept"] = "application/json, text/event-stream"
      mcp_headers["MCP-Protocol-Version"] = os.getenv("KIOKU_BENCH_MCP_VERSION")
    end
    return wrk.format("POST", "/mcp", mcp_headers, mcp)
  end
  return wrk.format(nil, "/?mode=load")
end
done = function(s, latency, requests)
  local e = s.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"errors":%d,"p50_us":%d,"p99_us":%d}\n',
    s.requests, s.duration, e.status + e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"#;

#[derive(Deserialize)]
struct Done {
    requests: u64,
    duration_us: u64,
    errors: u64,
    p50_us: u64,
    p99_us: u64,
}

pub struct Run {
    pub connections: u32,
    pub per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Failed requests: non-2xx answers, socket errors and timeouts.
    pub errors: u64,
}

/// What a run sends.
#[derive(Clone, Copy)]
pub enum Requests<'a> {
    Loads,
    /// Saves of this summary, URL-encoded.
    Saves(&'a str),
    /// MCP calls with this JSON-RPC body, declaring this protocol version.
    Mcp {
        body: &'a str,
        version: &'a str,
    },
}

/// `seconds` of `requests` over `connections` keep-alive connections to `base` with `token`.
pub fn run(base: &str, token: &str, connections: u32, seconds: u32, requests: Requests) -> Run {
    let script = std::env::temp_dir().join(format!("kioku-bench-{}.lua", std::process::id()));
    std::fs::write(&script, SCRIPT).expect("the wrk script is written");
    let mut command = Command::new("wrk");
    command
        .arg(format!("--threads={}", connections.min(2)))
        .arg(format!("--connections={connections}"))
        .arg(format!("--duration={seconds}s"))
        .arg("--timeout=30s")
        .arg(format!("--script={}", script.display()))
        .arg(format!("--header=Authorization: Bearer {token}"))
        .arg(base)
        .env_remove("KIOKU_BENCH_SUMMARY")
        .env_remove("KIOKU_BENCH_MCP");
    match requests {
        Requests::Loads => {}
        Requests::Saves(summary) => {
            command.env("KIOKU_BENCH_SUMMARY", summary);
        }
        Requests::Mcp { body, version } => {
            command
                .env("KIOKU_BENCH_MCP", body)
                .env("KIOKU_BENCH_MCP_VERSION", version);
        }
    }
    let output = command.output().expect("wrk runs (apt-get install wrk)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with('{'))
        .unwrap_or_else(|| panic!("wrk printed no result: {stdout}"));
    let done: Done = serde_json::from_str(line).expect("wrk's result is JSON");
    Run {
        connections,
        per_second: done.requests as f64 / (done.duration_us as f64 / 1e6),
        p50_ms: done.p50_us as f64 / 1e3,
        p99_ms: done.p99_us as f64 / 1e3,
        errors: done.errors,
    }
}
