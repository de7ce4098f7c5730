//! Server CPU per request: requests sent one after another, and kinds of request that are
//! compared timed in turns, so that a change in the machine's load falls on both alike.

use crate::client::{self, Mcp};
use crate::procfs;
use crate::services::{Kind, token};

/// A running server that requests are timed on.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub pid: u32,
    pub base: &'a str,
}

/// What one service's requests cost, in microseconds of CPU.
pub struct Cpu {
    /// A save; `None` for the ceilings, which store nothing.
    pub save_us: Option<f64>,
    pub load_us: f64,
    /// The original's save and load, each timed in turns with this service's (kioku, when the
    /// original runs): the ratios to the original are of these.
    pub original_us: Option<(f64, f64)>,
    /// A `GET` load and the same load as an MCP call under [`client::MCP_PROTOCOL_VERSION`],
    /// timed in turns (kioku only).
    pub mcp_pair_us: Option<(f64, f64)>,
    /// The same under 2026-07-28 (kioku only).
    pub stateless_pair_us: Option<(f64, f64)>,
}

impl Cpu {
    /// A save over the original's timed beside it, when it ran.
    pub fn save_over_original(&self) -> Option<f64> {
        Some(self.save_us? / self.original_us?.0)
    }

    /// A load over the original's timed beside it, when it ran.
    pub fn load_over_original(&self) -> Option<f64> {
        Some(self.load_us / self.original_us?.1)
    }
}

/// Times `kind`'s saves and loads on `ours`, in turns with the same requests to `original`
/// when given, and then kioku's loads in turns with the same loads over MCP.
pub async fn measure(
    http: &reqwest::Client,
    kind: Kind,
    ours: Side<'_>,
    original: Option<Side<'_>>,
    requests: usize,
) -> Cpu {
    let (save_us, load_us, original_us) = match original {
        Some(theirs) => {
            let (ours_save, theirs_save) = per_pair(
                requests,
                (ours.pid, saves(http, ours)),
                (theirs.pid, saves(http, theirs)),
            )
            .await;
            let (ours_load, theirs_load) = per_pair(
                requests,
                (ours.pid, loads(http, ours)),
                (theirs.pid, loads(http, theirs)),
            )
            .await;
            (Some(ours_save), ours_load, Some((theirs_save, theirs_load)))
        }
        None => {
            let save_us = if kind.saves() {
                Some(per_request(ours.pid, requests, saves(http, ours)).await)
            } else {
                None
            };
            (
                save_us,
                per_request(ours.pid, requests, loads(http, ours)).await,
                None,
            )
        }
    };
    let (mcp_pair_us, stateless_pair_us) = if kind.is_kioku() {
        let mcp_load = |protocol| {
            async move |_| {
                client::mcp_load(http, ours.base, token("small"), protocol).await;
            }
        };
        let pid = ours.pid;
        let plain = per_pair(
            requests,
            (pid, loads(http, ours)),
            (pid, mcp_load(Mcp::Plain)),
        )
        .await;
        let stateless = per_pair(
            requests,
            (pid, loads(http, ours)),
            (pid, mcp_load(Mcp::Stateless)),
        )
        .await;
        (Some(plain), Some(stateless))
    } else {
        (None, None)
    };
    Cpu {
        save_us,
        load_us,
        original_us,
        mcp_pair_us,
        stateless_pair_us,
    }
}

/// Saves to `side`, each of a summary of its own: the thread's newest summary again would be
/// a repeat of it, which kioku answers without storing anything.
fn saves<'a>(http: &'a reqwest::Client, side: Side<'a>) -> impl AsyncFnMut(usize) + 'a {
    async move |n| {
        let thread = format!("cpu-{:03}", n % 100);
        let text = client::summary(n + 1);
        client::save(http, side.base, token("save"), &thread, &text).await;
    }
}

/// Loads of the small namespace from `side`.
fn loads<'a>(http: &'a reqwest::Client, side: Side<'a>) -> impl AsyncFnMut(usize) + 'a {
    async move |_| {
        client::load(http, side.base, token("small")).await;
    }
}

/// Server CPU that each figure is measured over at least: the kernel counts CPU in ticks of
/// 10 ms, so that a load of 80 µs timed over only 2,000 requests would be 16 ticks, give or
/// take one.
const AT_LEAST_SECONDS: f64 = 1.0;

/// Microseconds of `pid`'s CPU per request, over requests sent one after another: at least
/// `requests` of them, and more until they took [`AT_LEAST_SECONDS`].
async fn per_request(pid: u32, requests: usize, mut request: impl AsyncFnMut(usize)) -> f64 {
    let block = requests.div_ceil(TURNS);
    let (mut sent, mut spent) = (0, 0.0);
    while sent < requests || spent < AT_LEAST_SECONDS {
        spent += seconds(pid, sent..sent + block, &mut request).await;
        sent += block;
    }
    spent / sent as f64 * 1e6
}

/// Seconds of `pid`'s CPU over the requests numbered `numbers`, sent one after another.
async fn seconds(
    pid: u32,
    numbers: std::ops::Range<usize>,
    mut request: impl AsyncFnMut(usize),
) -> f64 {
    let before = procfs::cpu_seconds(pid);
    for n in numbers {
        request(n).await;
    }
    procfs::cpu_seconds(pid) - before
}

/// Blocks that `requests` are sent in: [`per_pair`] takes turns in them.
const TURNS: usize = 10;

/// [`per_request`] of two kinds, each timed on its own server's CPU and sent in turns of a
/// tenth of `requests`, until both took [`AT_LEAST_SECONDS`]: the machine's load changes while
/// they run, and this way falls on both alike, which the ratio of the two then shows. Which
/// kind starts a turn alternates too, so that neither always follows the other.
async fn per_pair(
    requests: usize,
    a: (u32, impl AsyncFnMut(usize)),
    b: (u32, impl AsyncFnMut(usize)),
) -> (f64, f64) {
    let ((pid_a, mut a), (pid_b, mut b)) = (a, b);
    let block = requests.div_ceil(TURNS);
    let (mut sent, mut spent_a, mut spent_b) = (0, 0.0_f64, 0.0);
    let mut a_first = true;
    while sent < requests || spent_a.min(spent_b) < AT_LEAST_SECONDS {
        let numbers = sent..sent + block;
        if a_first {
            spent_a += seconds(pid_a, numbers.clone(), &mut a).await;
            spent_b += seconds(pid_b, numbers, &mut b).await;
        } else {
            spent_b += seconds(pid_b, numbers.clone(), &mut b).await;
            spent_a += seconds(pid_a, numbers, &mut a).await;
        }
        sent += block;
        a_first = !a_first;
    }
    let per_request = |seconds: f64| seconds / sent as f64 * 1e6;
    (per_request(spent_a), per_request(spent_b))
}
