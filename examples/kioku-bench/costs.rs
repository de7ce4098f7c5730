//! What kioku's requests cost on Firestore, read from its request log: each request's line
//! carries the calls it made and the documents they read and wrote, as Firestore bills them.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Billed reads per request, at one namespace size.
#[derive(Clone, Copy)]
pub struct Reads {
    pub per_save: f64,
    /// The median load's reads, and the calls that made them.
    pub per_load: (u64, u64),
    /// The median first page's, where they were loaded.
    pub per_first_page: Option<(u64, u64)>,
}

/// The reads of the growth's steps (`loads` loads, then `first_pages` first pages, after each
/// step's saves) in the requests of `namespace`, in the order `log` holds them. Read once the
/// server has stopped, so that every line is in the file.
pub fn by_step(log: &Path, namespace: &str, loads: usize, first_pages: usize) -> Vec<Reads> {
    let file = File::open(log).expect("the server's log");
    let mut steps = Vec::new();
    let (mut saves, mut load_reads) = (Vec::new(), Vec::new());
    for line in BufReader::new(file).lines().map_while(Result::ok) {
        let Ok(line) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if line["namespace"] != namespace {
            continue;
        }
        let (Some(calls), Some(reads), Some(writes)) = (
            line["firestore_calls"].as_u64(),
            line["firestore_reads"].as_u64(),
            line["firestore_writes"].as_u64(),
        ) else {
            continue;
        };
        if writes > 0 {
            saves.push(reads);
            continue;
        }
        load_reads.push((reads, calls));
        if load_reads.len() == loads + first_pages {
            let (whole, pages) = load_reads.split_at_mut(loads);
            steps.push(Reads {
                per_save: saves.iter().sum::<u64>() as f64 / saves.len().max(1) as f64,
                per_load: median(whole),
                per_first_page: (!pages.is_empty()).then(|| median(pages)),
            });
            saves.clear();
            load_reads.clear();
        }
    }
    steps
}

fn median(loads: &mut [(u64, u64)]) -> (u64, u64) {
    loads.sort_unstable();
    loads[loads.len() / 2]
}
