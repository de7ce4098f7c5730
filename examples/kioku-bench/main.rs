//! kioku against the original function, side by side on this machine: cold start, server CPU
//! per request, memory, latency and throughput, and loads as a namespace grows. Writes the
//! figures into BENCHMARKS.md and a chart. Run it with `scripts/bench` (see BENCHMARKS.md),
//! which installs wrk, the emulator and the original's virtualenv first.

mod chart;
mod client;
mod costs;
mod cpu;
mod growth;
#[path = "../../tests/common/listening.rs"]
mod listening;
mod machine;
mod procfs;
mod report;
mod services;
mod turns;
mod wrk;

#[path = "../../tests/common/emulator.rs"]
mod emulator;
#[path = "../../benches/support/text.rs"]
mod text;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use actix_web::{App, HttpResponse, HttpServer, web};
use clap::{Parser, Subcommand};

use services::{Kind, Setup, token};
use wrk::Requests;

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: Option<Serve>,
    #[command(flatten)]
    args: Args,
}

#[derive(Subcommand)]
enum Serve {
    /// Serves the ceiling: answers every request on $PORT with the bytes of BODY.
    #[command(hide = true)]
    Ceiling {
        body: PathBuf,
        /// Hand each request to the blocking pool and back first, as kioku's SQLite reads do:
        /// what that hand-off alone leaves of the ceiling.
        #[arg(long)]
        through_blocking_pool: bool,
    },
}

#[derive(clap::Args)]
pub struct Args {
    /// The original function's directory (main.py); without it, only kioku is measured.
    #[arg(long)]
    original: Option<PathBuf>,
    /// The functions-framework that runs the original.
    #[arg(long, default_value = "target/bench/peer-venv/bin/functions-framework")]
    functions_framework: PathBuf,
    /// The kioku binary: the release build.
    #[arg(long, default_value = "target/release/kioku")]
    kioku: PathBuf,
    /// Seconds of each latency and throughput run.
    #[arg(long, default_value_t = 10)]
    seconds: u32,
    /// Requests of each kind over which CPU per request is measured, at least: more are sent
    /// until they took a second of the server's CPU.
    #[arg(long, default_value_t = 2_000)]
    requests: usize,
    /// Cold starts per service; the median is reported.
    #[arg(long, default_value_t = 5)]
    starts: usize,
    /// The report, whose measured section is rewritten.
    #[arg(long, default_value = "BENCHMARKS.md")]
    out: PathBuf,
    /// The chart of loads against namespace size.
    #[arg(long, default_value = "docs/benchmarks-growth.svg")]
    chart: PathBuf,
}

/// Connections of each latency and throughput run.
pub const CONNECTIONS: [u32; 3] = [1, 8, 64];
/// Threads in the namespace that the small loads read, one summary each.
const SMALL_THREADS: usize = 10;

/// What one service measured.
pub struct Measured {
    pub kind: Kind,
    pub cold_starts_ms: Vec<f64>,
    pub cpu: cpu::Cpu,
    pub idle_bytes: u64,
    pub peak_bytes: u64,
    pub loads: Vec<wrk::Run>,
    pub saves: Vec<wrk::Run>,
    pub mcp_loads: Vec<wrk::Run>,
    pub growth: Vec<client::Step>,
    pub small_load: String,
}

fn main() {
    let cli = Cli::parse();
    match cli.command {
        Some(Serve::Ceiling {
            body,
            through_blocking_pool,
        }) => serve_constant(&body, through_blocking_pool).expect("the ceiling serves"),
        None => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
            .block_on(run(cli.args)),
    }
}

/// The ceiling: actix-web with the same defaults as kioku (one worker per core), answering
/// the bytes of a kioku answer without doing anything else, or only a round trip through the
/// blocking pool.
fn serve_constant(body: &Path, through_blocking_pool: bool) -> std::io::Result<()> {
    let body = web::Bytes::from(std::fs::read(body)?);
    let port: u16 = std::env::var("PORT").map_or(8080, |p| p.parse().expect("PORT is a port"));
    actix_web::rt::System::new().block_on(async move {
        HttpServer::new(move || {
            let body = body.clone();
            App::new().default_service(web::to(move || {
                let body = body.clone();
                async move {
                    if through_blocking_pool {
                        web::block(|| ()).await.expect("the blocking pool runs");
                    }
                    HttpResponse::Ok()
                        .content_type("application/json")
                        .body(body)
                }
            }))
        })
        .bind(("127.0.0.1", port))?
        .run()
        .await
    })
}

async fn run(args: Args) {
    let work = PathBuf::from("target/bench");
    let setup = Setup {
        kioku: args.kioku.clone(),
        harness: std::env::current_exe().expect("this program's path"),
        ceiling_body: work.join("ceiling-body.json"),
        sqlite_dir: work.join("sqlite"),
        logs: work.join("logs"),
        original: args
            .original
            .clone()
            .map(|dir| (dir, args.functions_framework.clone())),
    };
    for dir in [&setup.sqlite_dir, &setup.logs] {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).expect("a working directory under target/bench");
    }
    let machine = machine::Machine::now();
    let mut kinds = vec![
        Kind::KiokuSqlite,
        Kind::Ceiling,
        Kind::HandOff,
        Kind::KiokuFirestore,
    ];
    if setup.original.is_some() {
        kinds.push(Kind::Original);
    }
    let mut measured = Vec::new();
    for kind in kinds {
        eprintln!("kioku-bench: {}", kind.name());
        let result = measure(&setup, kind, &args).await;
        if kind == Kind::KiokuSqlite {
            // The ceiling answers exactly what kioku answers to a small load.
            std::fs::write(&setup.ceiling_body, &result.small_load).expect("the ceiling body");
        }
        measured.push(result);
    }
    eprintln!("kioku-bench: small loads against the ceilings, in turns");
    let turns = turns::measure(&setup).await;
    let machine = machine.finished();
    std::fs::write(&args.chart, chart::svg(&measured)).expect("the chart is written");
    report::write(&args.out, &args.chart, &machine, &measured, &turns, &args);
    eprintln!(
        "kioku-bench: wrote {} and {}",
        args.out.display(),
        args.chart.display()
    );
}

/// The original, running beside a kioku service so that their CPU per request is timed in
/// turns, on a Firestore emulator of its own.
struct Beside {
    server: services::Server,
    _emulator: emulator::Emulator,
}

impl Beside {
    async fn start(setup: &Setup, http: &reqwest::Client) -> Self {
        let emulator = setup.emulator();
        let mut server = setup.spawn(Kind::Original, Some(&emulator));
        client::until_ready(&mut server, token("small"), Instant::now()).await;
        client::fill(http, &server.base, token("small"), 0..SMALL_THREADS).await;
        Self {
            server,
            _emulator: emulator,
        }
    }

    fn side(&self) -> cpu::Side<'_> {
        cpu::Side {
            pid: self.server.pid(),
            base: &self.server.base,
        }
    }
}

async fn measure(setup: &Setup, kind: Kind, args: &Args) -> Measured {
    let emulator = kind.uses_firestore().then(|| setup.emulator());
    let mut server = setup.spawn(kind, emulator.as_ref());
    let pid = server.pid();
    let base = server.base.clone();
    client::until_ready(&mut server, token("small"), Instant::now()).await;
    let http = client::http();
    if kind.saves() {
        client::fill(&http, &base, token("small"), 0..SMALL_THREADS).await;
    }
    let (_, small_load) = client::load(&http, &base, token("small")).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle_bytes = procfs::rss_bytes(pid);

    let beside = if kind.is_kioku() && setup.original.is_some() {
        Some(Beside::start(setup, &http).await)
    } else {
        None
    };
    let ours = cpu::Side { pid, base: &base };
    let theirs = beside.as_ref().map(Beside::side);
    let cpu = cpu::measure(&http, kind, ours, theirs, args.requests).await;
    drop(beside);

    let text = client::summary(0);
    let (http, base, text) = (&http, base.as_str(), text.as_str());
    let peak = procfs::PeakRss::watch(pid);
    let loads: Vec<wrk::Run> = CONNECTIONS
        .map(|c| wrk::run(base, token("small"), c, args.seconds, Requests::Loads))
        .into();
    // `=<summary, URL-encoded>`, for wrk to put in each save's query.
    let encoded = serde_urlencoded::to_string([("", text)]).expect("encodes")[1..].to_owned();
    let saves: Vec<wrk::Run> = if kind.saves() {
        CONNECTIONS
            .map(|c| {
                wrk::run(
                    base,
                    token("save"),
                    c,
                    args.seconds,
                    Requests::Saves(&encoded),
                )
            })
            .into()
    } else {
        Vec::new()
    };
    let mcp = Requests::Mcp {
        body: client::MCP_LOAD,
        version: client::MCP_PROTOCOL_VERSION,
    };
    let mcp_loads: Vec<wrk::Run> = if kind.is_kioku() {
        CONNECTIONS
            .map(|c| wrk::run(base, token("small"), c, args.seconds, mcp))
            .into()
    } else {
        Vec::new()
    };
    let peak_bytes = peak.peak();

    let mut growth = if kind.saves() {
        client::growth(http, base, token("grow"), kind.is_kioku()).await
    } else {
        Vec::new()
    };
    drop(server);
    if kind == Kind::KiokuFirestore {
        let loads = client::GROWTH_LOADS;
        let reads = costs::by_step(&setup.log(kind), "grow", loads, loads);
        for (step, reads) in growth.iter_mut().zip(reads) {
            step.reads = Some(reads);
        }
    }

    let mut cold_starts_ms = Vec::new();
    for _ in 0..args.starts {
        let started = Instant::now();
        let mut server = setup.spawn(kind, emulator.as_ref());
        let time = client::until_ready(&mut server, token("small"), started).await;
        cold_starts_ms.push(time.as_secs_f64() * 1e3);
    }
    cold_starts_ms.sort_by(f64::total_cmp);
    Measured {
        kind,
        cold_starts_ms,
        cpu,
        idle_bytes,
        peak_bytes,
        loads,
        saves,
        mcp_loads,
        growth,
        small_load,
    }
}
