//! What a server costs, as the kernel counts it: CPU time and resident memory of a process
//! together with all its descendants (the original runs as a gunicorn master and a worker).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

/// The fields of /proc/<pid>/stat after the command name, which may hold spaces: the first
/// is field 3 (state), so field n of proc(5) is at index n - 3.
fn stat(pid: u32) -> Option<Vec<u64>> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 2..];
    Some(
        rest.split_whitespace()
            .map(|field| field.parse().unwrap_or(0))
            .collect(),
    )
}

/// `root` and every live process descending from it.
fn tree(root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        if let Some(fields) = stat(pid) {
            children.entry(fields[4 - 3] as u32).or_default().push(pid);
        }
    }
    let mut found = vec![root];
    let mut next = 0;
    while let Some(&pid) = found.get(next) {
        found.extend(children.get(&pid).into_iter().flatten());
        next += 1;
    }
    found
}

/// Asked once: CPU is read between every two turns of requests, where running `getconf` would
/// cost the machine a process each time.
fn clock_ticks_per_second() -> f64 {
    static TICKS: OnceLock<f64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|out| String::from_utf8(out.stdout).ok()?.trim().parse().ok())
            .unwrap_or(100.0)
    })
}

/// Seconds of CPU, user and system, spent by the tree of `root` so far: what each live
/// process used (utime, stime) and what its exited, reaped children used (cutime, cstime).
pub fn cpu_seconds(root: u32) -> f64 {
    let ticks: u64 = tree(root)
        .into_iter()
        .filter_map(stat)
        .map(|fields| fields[14 - 3..=17 - 3].iter().sum::<u64>())
        .sum();
    ticks as f64 / clock_ticks_per_second()
}

/// Resident memory of the tree of `root`, in bytes.
pub fn rss_bytes(root: u32) -> u64 {
    rss_of(&tree(root))
}

fn rss_of(pids: &[u32]) -> u64 {
    pids.iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/status")).ok())
        .filter_map(|status| {
            let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .sum::<u64>()
        * 1024
}

/// The largest resident memory of a tree, sampled every 20 ms while a workload runs: the sum
/// of each process's own peak would overstate it when they peak at different times. The tree
/// is listed once, so that sampling costs the machine little.
pub struct PeakRss {
    stop: Arc<AtomicBool>,
    sampler: JoinHandle<u64>,
}

impl PeakRss {
    pub fn watch(root: u32) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let pids = tree(root);
        let sampler = std::thread::spawn(move || {
            let mut peak = 0;
            while !flag.load(Ordering::Relaxed) {
                peak = peak.max(rss_of(&pids));
                std::thread::sleep(Duration::from_millis(20));
            }
            peak
        });
        Self { stop, sampler }
    }

    pub fn peak(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.sampler
            .join()
            .expect("the memory sampler does not panic")
    }
}
