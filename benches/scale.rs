//! Loads at scale: a namespace of 2,000 threads × 5 entries × 1,000 Japanese characters (about
//! 10 million characters, each with a vector), then budgeted loads and keyword searches over
//! HTTP, timed, with the process's memory, and the store's nearest-vector read. SQLite always; the Firestore emulator too when FIRESTORE_EMULATOR_HOST is
//! set. Run with `scripts/bench-scale`.

use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt};
use kioku::config::{Settings, StoreKind};
use kioku::domain::{Embedded, Entry, Filter, ModelId, Namespace, Retention, ThreadId, Vector};
use kioku::search::MAX_NEAREST;
use kioku::startup::Application;
use kioku::store::{FirestoreStore, MemoryStore, SqliteStore};

#[path = "support/text.rs"]
mod text;

const THREADS: usize = 2_000;
const ENTRIES: usize = 5;
const CHARS: usize = 1_000;
const DIMENSION: usize = 384;
const TOKEN: &str = "bench-token-0123456789-0123456789-abcdef";

/// Every 97th entry holds the word 記憶装置.
fn summary(thread: usize, entry: usize) -> String {
    text::summary(
        thread,
        entry,
        CHARS,
        (thread * ENTRIES + entry).is_multiple_of(97),
    )
}

/// A made-up unit vector of MiniLM's dimension, the same for the same seed: what the search by
/// meaning reads and compares costs the same whatever the model put in it.
fn vector(seed: usize) -> Embedded {
    let mut state = seed as u64 * 0x9e37_79b9_7f4a_7c15 + 1;
    let values = (0..DIMENSION)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect();
    Embedded {
        model: ModelId::new("5ca1e", DIMENSION),
        vector: Vector::unit(values).unwrap(),
    }
}

/// Saves every entry; with `vectors`, each with a vector, as a server with a model does.
async fn fill(store: &impl MemoryStore, ns: &Namespace, vectors: bool) {
    let started = Instant::now();
    let saves = (0..ENTRIES).flat_map(|e| (0..THREADS).map(move |t| (t, e)));
    stream::iter(saves)
        .for_each_concurrent(32, |(t, e)| async move {
            let timestamp = format!(
                "2025-{:02}-{:02}T{:02}:{:02}:00.000000+09:00",
                1 + e * 2,
                1 + t % 28,
                t / 60 % 24,
                t % 60
            );
            let entry = Entry {
                writer: None,
                summary: summary(t, e),
                timestamp,
            };
            let vector = vectors.then(|| vector(t * ENTRIES + e));
            store
                .save(
                    ns,
                    &ThreadId::parse(&format!("thread-{t:04}")).unwrap(),
                    &entry,
                    vector.as_ref(),
                    &Retention::default(),
                )
                .await
                .unwrap();
        })
        .await;
    println!(
        "  filled {} entries in {:.1} s",
        THREADS * ENTRIES,
        started.elapsed().as_secs_f64()
    );
}

fn rss_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

async fn time(
    client: &reqwest::Client,
    base: &str,
    query: &[(&str, &str)],
    runs: usize,
) -> (Duration, Duration, usize) {
    let mut times = Vec::with_capacity(runs);
    let mut chars = 0;
    for _ in 0..runs {
        let started = Instant::now();
        let response = client
            .get(base)
            .bearer_auth(TOKEN)
            .query(query)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        chars = response.text().await.unwrap().chars().count();
        times.push(started.elapsed());
    }
    times.sort();
    (times[runs / 2], times[runs * 9 / 10], chars)
}

async fn measure(name: &str, settings: Settings, runs: usize) {
    let app = Application::build(settings).await.unwrap();
    let base = format!("http://{}", app.address());
    tokio::spawn(app.run_until_stopped());
    let client = reqwest::Client::new();
    println!("\n{name}: median / p90 over {runs} requests, answer size");
    for (label, query) in [
        ("budgeted load", vec![("mode", "load")]),
        (
            "q search (1 word, ~100 hits)",
            vec![("mode", "load"), ("q", "記憶装置")],
        ),
        (
            "q search (2 words, 1 in none)",
            vec![("mode", "load"), ("q", "記憶装置 ＡＰＩ")],
        ),
        (
            "q search (a question)",
            vec![
                ("mode", "load"),
                ("q", "記憶装置の設計について話した会話の要約は？"),
            ],
        ),
        (
            "q search (common terms only)",
            vec![("mode", "load"), ("q", "会話の要約")],
        ),
        (
            "one thread",
            vec![("mode", "load"), ("thread_id", "thread-1234")],
        ),
    ] {
        let (median, p90, chars) = time(&client, &base, &query, runs).await;
        println!(
            "  {label:<30} {:>8.1} ms {:>8.1} ms {:>7} chars",
            median.as_secs_f64() * 1e3,
            p90.as_secs_f64() * 1e3,
            chars
        );
    }
    println!(
        "  process memory: peak {} MiB, now {} MiB",
        rss_kib("VmHWM:") / 1024,
        rss_kib("VmRSS:") / 1024
    );
}

/// The nearest entries to a question's vector, as a search by meaning reads them: every
/// vector of the namespace compared, as the store's call (the question's own embedding is in
/// docs/recall.md's cost table).
async fn nearest(store: &impl MemoryStore, ns: &Namespace, runs: usize) {
    let mut times = Vec::with_capacity(runs);
    for run in 0..runs {
        let started = Instant::now();
        let found = store
            .nearest(ns, &Filter::default(), &vector(1_000_000 + run))
            .await
            .unwrap();
        times.push(started.elapsed());
        assert_eq!(found.len(), MAX_NEAREST);
    }
    times.sort();
    println!(
        "  nearest {MAX_NEAREST} of {} vectors (store call): median {:.1} ms, p90 {:.1} ms",
        THREADS * ENTRIES,
        times[runs / 2].as_secs_f64() * 1e3,
        times[runs * 9 / 10].as_secs_f64() * 1e3
    );
}

fn settings(store: StoreKind, data_dir: &std::path::Path) -> Settings {
    use clap::Parser;
    let mut settings = kioku::config::Cli::parse_from(["kioku"]).settings;
    settings.port = 0;
    settings.api_tokens = Some(format!("bench:{TOKEN}").into());
    settings.store = Some(store);
    settings.data_dir = data_dir.to_owned();
    settings.rate_limit = 0;
    settings.google_cloud_project = Some("demo-kioku-bench".into());
    settings
}

#[tokio::main]
async fn main() {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpu
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map_or("unknown", |m| m.trim_start_matches([' ', '\t', ':']));
    println!("kioku scale benchmark: {THREADS} threads × {ENTRIES} entries × {CHARS} characters");
    println!(
        "machine: {} cores, {model}; {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        chrono::Utc::now().format("%Y-%m-%d")
    );
    let ns = Namespace::named("bench").unwrap();

    let dir = tempfile::tempdir().unwrap();
    println!("\nSQLite ({}):", dir.path().display());
    let sqlite =
        SqliteStore::open(&dir.path().join("kioku.sqlite3"), Duration::from_secs(5)).unwrap();
    fill(&sqlite, &ns, true).await;
    nearest(&sqlite, &ns, 50).await;
    measure("SQLite", settings(StoreKind::Sqlite, dir.path()), 50).await;

    if std::env::var("FIRESTORE_EMULATOR_HOST").is_ok() {
        println!("\nFirestore emulator:");
        let store = FirestoreStore::connect(
            Some("demo-kioku-bench".into()),
            "(default)",
            Duration::from_secs(60),
        )
        .await
        .unwrap();
        fill(&store, &ns, false).await;
        let mut firestore = settings(StoreKind::Firestore, dir.path());
        firestore.store_timeout_secs = 60;
        measure("Firestore emulator", firestore, 5).await;
    }
}
