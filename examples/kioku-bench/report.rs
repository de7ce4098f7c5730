//! The measured section of BENCHMARKS.md: the machine, the targets, and a table per workload.

use std::fmt::Write;
use std::path::Path;

use crate::machine::Machine;
use crate::services::Kind;
use crate::turns::{self, Turns};
use crate::{Args, Measured, client, growth, wrk};

const BEGIN: &str = "<!-- kioku-bench:begin -->";
const END: &str = "<!-- kioku-bench:end -->";
/// GPT Actions refuse an answer of this many characters or more.
pub const ACTION_LIMIT: usize = 100_000;

/// Three significant figures, or fewer decimals for large numbers.
pub fn fig(x: f64) -> String {
    match x.abs() {
        x if x >= 100.0 => format!("{x:.0}"),
        x if x >= 10.0 => format!("{x:.1}"),
        x if x >= 1.0 => format!("{x:.2}"),
        _ => format!("{x:.3}"),
    }
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", fig(bytes as f64 / (1024.0 * 1024.0)))
}

/// The middle of `sorted`.
pub fn median(sorted: &[f64]) -> f64 {
    sorted[sorted.len() / 2]
}

/// One workload's latency runs of a service.
type Runs = fn(&Measured) -> &[wrk::Run];

fn loads(m: &Measured) -> &[wrk::Run] {
    &m.loads
}

fn mcp_loads(m: &Measured) -> &[wrk::Run] {
    &m.mcp_loads
}

fn saves(m: &Measured) -> &[wrk::Run] {
    &m.saves
}

/// The most requests a second of `runs`.
pub fn peak_rate(runs: &[wrk::Run]) -> f64 {
    runs.iter().map(|r| r.per_second).fold(0.0, f64::max)
}

fn at(runs: &[wrk::Run], connections: u32) -> Option<&wrk::Run> {
    runs.iter().find(|r| r.connections == connections)
}

/// The ratio cell of `figure` for `m` against the original, if it ran.
fn ratio(
    m: &Measured,
    original: Option<&Measured>,
    figure: impl Fn(&Measured) -> Option<f64>,
) -> String {
    match (m.kind, original.and_then(&figure), figure(m)) {
        (Kind::Ceiling | Kind::HandOff | Kind::Original, ..) => String::new(),
        (_, Some(theirs), Some(ours)) => fig(ours / theirs),
        _ => "–".into(),
    }
}

/// One row of the targets table: what, the figure, and whether it is met.
fn target(out: &mut String, what: &str, figure: Option<f64>, met: impl Fn(f64) -> bool) {
    let (value, verdict) = match figure {
        Some(x) => (fig(x), if met(x) { "met" } else { "**missed**" }),
        None => ("–".into(), "not measured (no original)"),
    };
    writeln!(out, "| {what} | {value} | {verdict} |").unwrap();
}

fn targets(out: &mut String, all: &[Measured], turns: &Turns) {
    let find = |kind| all.iter().find(|m| m.kind == kind);
    let original = find(Kind::Original);
    writeln!(
        out,
        "### Targets\n\n| Target | Measured | |\n| --- | ---: | --- |"
    )
    .unwrap();
    for kioku in [Kind::KiokuFirestore, Kind::KiokuSqlite]
        .into_iter()
        .filter_map(find)
    {
        let name = kioku.kind.name();
        let over =
            |figure: &dyn Fn(&Measured) -> Option<f64>| Some(figure(kioku)? / figure(original?)?);
        let cold = over(&|m: &Measured| Some(median(&m.cold_starts_ms)));
        target(
            out,
            &format!("{name}: cold start ÷ original ≤ 0.1"),
            cold,
            |x| x <= 0.1,
        );
        // Firestore's own targets are #37's; SQLite's, the first ones.
        let (most_per_save, most_per_load) = match kioku.kind {
            Kind::KiokuFirestore => (0.06, 0.07),
            _ => (0.1, 0.1),
        };
        // Each CPU ratio is of the two figures timed in turns, so the original's own run
        // (alone, in its row of the table) does not enter it.
        let save = kioku.cpu.save_over_original();
        target(
            out,
            &format!("{name}: CPU per save ÷ original ≤ {most_per_save}"),
            save,
            |x| x <= most_per_save,
        );
        let load = kioku.cpu.load_over_original();
        target(
            out,
            &format!("{name}: CPU per load ÷ original ≤ {most_per_load}"),
            load,
            |x| x <= most_per_load,
        );
        let idle = over(&|m: &Measured| Some(m.idle_bytes as f64));
        target(
            out,
            &format!("{name}: idle memory ÷ original ≤ 0.1"),
            idle,
            |x| x <= 0.1,
        );
        let calls = kioku.growth.first().and_then(|step| {
            let (_, calls) = step.reads?.per_load;
            Some((step.threads, calls as f64))
        });
        if let Some((threads, calls)) = calls {
            let what = format!("{name}: Firestore calls of a load of {threads} threads ≤ 2");
            target(out, &what, Some(calls), |x| x <= 2.0);
        }
        let kinds: [(&str, Runs); 2] = [("loads", loads), ("saves", saves)];
        for (label, runs) in kinds {
            let p99 = over(&|m: &Measured| at(runs(m), 8).map(|r| r.p99_ms));
            let what = format!("{name}: p99 of {label} at 8 connections ÷ original ≤ 1");
            target(out, &what, p99, |x| x <= 1.0);
        }
    }
    for kioku in [Kind::KiokuFirestore, Kind::KiokuSqlite]
        .into_iter()
        .filter_map(find)
    {
        let share = kioku.cpu.mcp_pair_us.map(|(load, mcp)| mcp / load);
        let what = format!(
            "{}: CPU per MCP `load_memories` ÷ per `GET /?mode=load` ≤ 1.5",
            kioku.kind.name()
        );
        target(out, &what, share, |x| x <= 1.5);
        let share = kioku.cpu.stateless_pair_us.map(|(load, mcp)| mcp / load);
        let what = format!(
            "{}: CPU per MCP `load_memories` of a 2026-07-28 client ÷ per `GET /?mode=load` ≤ 1.5",
            kioku.kind.name()
        );
        target(out, &what, share, |x| x <= 1.5);
        let what = format!(
            "{}: first page of {} threads at {} threads ÷ the whole load at {} ≤ 3",
            kioku.kind.name(),
            client::FIRST_PAGE,
            client::GROWTH[client::GROWTH.len() - 1],
            client::GROWTH[0]
        );
        target(out, &what, growth::first_page_ratio(kioku), |x| x <= 3.0);
    }
    let what = format!(
        "kioku, SQLite: small loads/s ÷ constant-body ceiling ≥ 0.25 (in turns, the median of {} rounds)",
        turns::ROUNDS
    );
    target(out, &what, Some(turns.share_of_ceiling()), |x| x >= 0.25);
    if let Some(sqlite) = find(Kind::KiokuSqlite) {
        let saves = peak_rate(&sqlite.saves);
        let durable = sqlite.saves.iter().all(|r| r.errors == 0);
        let what = "kioku, SQLite: durable saves/s ≥ 1,000 (best of 1, 8, 64 connections)";
        target(out, what, Some(saves), |x| x >= 1_000.0 && durable);
    }
}

fn cold_starts(out: &mut String, all: &[Measured], original: Option<&Measured>, starts: usize) {
    writeln!(out, "### Cold start\n\nFrom the exec to the first successful authenticated load (of the 10-thread namespace), {starts} starts each.\n").unwrap();
    writeln!(out, "| Service | median | fastest | slowest | median ÷ original |\n| --- | ---: | ---: | ---: | ---: |").unwrap();
    for m in all {
        let (first, last) = (
            m.cold_starts_ms[0],
            m.cold_starts_ms[m.cold_starts_ms.len() - 1],
        );
        let r = ratio(m, original, |m| Some(median(&m.cold_starts_ms)));
        writeln!(
            out,
            "| {} | {} ms | {} ms | {} ms | {r} |",
            m.kind.name(),
            fig(median(&m.cold_starts_ms)),
            fig(first),
            fig(last)
        )
        .unwrap();
    }
}

fn cpu(out: &mut String, all: &[Measured], requests: usize) {
    writeln!(out, "\n### Server CPU per request\n\nUser + system time of the server process and its children (/proc/<pid>/stat), over requests of each kind sent one after another, at least {requests} and more until they took a second of the server's CPU (which the kernel counts in ticks of 10 ms): a save of a {}-character summary, a load of the 10-thread namespace, and kioku's same load as an MCP `load_memories` call (`POST /mcp`, stateless, one JSON-RPC request), under {} and then under 2026-07-28 (each call with its context in `_meta`). Two figures that are compared are timed in turns, a tenth of each at a time, so that a change in the machine's load falls on both alike: kioku's saves and loads with the original's, which runs beside it on an emulator of its own (the ratios are of these), and kioku's `GET` load with each MCP load. The original's row is its own run, alone. The emulator's CPU is not counted.\n", client::SUMMARY_CHARS, client::MCP_PROTOCOL_VERSION).unwrap();
    writeln!(out, "| Service | per save | per load | original beside it: per save, per load | {}: per load, per MCP load | 2026-07-28: per load, per MCP load | save ÷ original | load ÷ original |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |", client::MCP_PROTOCOL_VERSION).unwrap();
    let us = |us: Option<f64>| us.map_or("–".into(), |us| format!("{} µs", fig(us)));
    let pair = |pair: Option<(f64, f64)>| {
        pair.map_or("–".into(), |(a, b)| {
            format!("{} µs, {} µs", fig(a), fig(b))
        })
    };
    for m in all {
        let cpu = &m.cpu;
        let ratio = |ratio: Option<f64>| ratio.map_or(String::new(), fig);
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            m.kind.name(),
            us(cpu.save_us),
            us(Some(cpu.load_us)),
            pair(cpu.original_us),
            pair(cpu.mcp_pair_us),
            pair(cpu.stateless_pair_us),
            ratio(cpu.save_over_original()),
            ratio(cpu.load_over_original()),
        )
        .unwrap();
    }
}

fn memory(out: &mut String, all: &[Measured], original: Option<&Measured>) {
    writeln!(out, "\n### Resident memory\n\nIdle: one second after the first loads. Peak: the largest, sampled every 20 ms, during the latency runs below. Process and children.\n").unwrap();
    writeln!(
        out,
        "| Service | idle | peak under load | idle ÷ original |\n| --- | ---: | ---: | ---: |"
    )
    .unwrap();
    for m in all {
        let r = ratio(m, original, |m| Some(m.idle_bytes as f64));
        writeln!(
            out,
            "| {} | {} | {} | {r} |",
            m.kind.name(),
            mib(m.idle_bytes),
            mib(m.peak_bytes)
        )
        .unwrap();
    }
}

fn latency(
    out: &mut String,
    title: &str,
    intro: &str,
    all: &[Measured],
    original: Option<&Measured>,
    runs: Runs,
) {
    writeln!(out, "\n### {title}\n\n{intro}\n").unwrap();
    writeln!(out, "| Service | connections | requests/s | p50 | p99 | failed | p99 ÷ original |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |").unwrap();
    for m in all.iter().filter(|m| !runs(m).is_empty()) {
        for run in runs(m) {
            let r = ratio(m, original, |m| {
                at(runs(m), run.connections).map(|r| r.p99_ms)
            });
            writeln!(
                out,
                "| {} | {} | {} | {} ms | {} ms | {} | {r} |",
                m.kind.name(),
                run.connections,
                fig(run.per_second),
                fig(run.p50_ms),
                fig(run.p99_ms),
                run.errors
            )
            .unwrap();
        }
    }
}

fn section(
    machine: &Machine,
    all: &[Measured],
    turns: &Turns,
    args: &Args,
    chart: &Path,
) -> String {
    let original = all.iter().find(|m| m.kind == Kind::Original);
    let mut out = String::new();
    writeln!(out, "Measured {} on {} cores ({}), {} GiB of memory. Load average (1, 5, 15 minutes) {} before the run and {} after it.\n", machine.date, machine.cores, machine.model, machine.memory_gib, machine.load_before, machine.load_after).unwrap();
    if original.is_none() {
        writeln!(
            out,
            "The original function was not run (no `--original`), so there are no ratios.\n"
        )
        .unwrap();
    }
    targets(&mut out, all, turns);
    writeln!(out).unwrap();
    cold_starts(&mut out, all, original, args.starts);
    cpu(&mut out, all, args.requests);
    memory(&mut out, all, original);
    let small = all[0].small_load.chars().count();
    let intro = format!(
        "wrk, {} s per run, loads of a namespace of 10 threads (answers of {small} characters); the ceiling answers the same bytes without doing anything.",
        args.seconds
    );
    latency(
        &mut out,
        "Small loads: latency and throughput",
        &intro,
        all,
        original,
        loads,
    );
    turns::section(&mut out, turns);
    let intro = format!(
        "wrk, {} s per run, saves of a {}-character summary to one of 1,000 threads at random; kioku on SQLite answers only once the save is on disk (`synchronous=FULL`).",
        args.seconds,
        client::SUMMARY_CHARS
    );
    latency(
        &mut out,
        "Saves: latency and throughput",
        &intro,
        all,
        original,
        saves,
    );
    let intro = format!(
        "wrk, {} s per run, the small load as an MCP `load_memories` call (`POST /mcp`, one JSON-RPC request each, no session), beside the `GET` loads above.",
        args.seconds
    );
    latency(
        &mut out,
        "Small loads over MCP: latency and throughput",
        &intro,
        all,
        None,
        mcp_loads,
    );
    growth::section(&mut out, all, chart);
    out
}

/// Replaces what lies between the markers in `path` with this run's figures.
pub fn write(
    path: &Path,
    chart: &Path,
    machine: &Machine,
    all: &[Measured],
    turns: &Turns,
    args: &Args,
) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (Some(begin), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        panic!("{} has no {BEGIN} … {END} section", path.display());
    };
    let body = section(machine, all, turns, args, chart);
    let text = format!("{}{BEGIN}\n{body}{}", &text[..begin], &text[end..]);
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}
