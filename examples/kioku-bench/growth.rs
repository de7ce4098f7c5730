//! The report's section on a growing namespace: how load latency, the answer's size and, on
//! Firestore, the reads a request is billed change as a namespace grows.

use std::fmt::Write;
use std::path::Path;

use crate::report::{ACTION_LIMIT, fig};
use crate::{Measured, client};

/// The section on loads as a namespace grows: latency, answer size, and on Firestore reads.
pub fn section(out: &mut String, all: &[Measured], chart: &Path) {
    let growing: Vec<&Measured> = all.iter().filter(|m| !m.growth.is_empty()).collect();
    writeln!(out, "\n### Loads as a namespace grows\n\nOne {}-character summary per thread, saved through each service; the median of {} loads at each size, and the answer's length in characters. GPT Actions refuse answers of {ACTION_LIMIT} characters or more. kioku's first page is the median of as many loads of the newest {first} threads (`limit={first}`): the same number of threads as the whole {first}-thread namespace, so that it shows what the namespace's size alone costs.\n\n![Load latency and answer size against namespace size]({})\n", client::SUMMARY_CHARS, client::GROWTH_LOADS, chart.display(), first = client::FIRST_PAGE).unwrap();
    let mut header = String::from("| Threads |");
    let mut rule = String::from("| ---: |");
    for m in &growing {
        write!(header, " {0}: load | {0}: characters |", m.kind.name()).unwrap();
        rule.push_str(" ---: | ---: |");
        if m.kind.is_kioku() {
            write!(header, " {}: first page |", m.kind.name()).unwrap();
            rule.push_str(" ---: |");
        }
    }
    writeln!(out, "{header}\n{rule}").unwrap();
    for (i, threads) in client::GROWTH.iter().enumerate() {
        write!(out, "| {threads} |").unwrap();
        for m in &growing {
            let step = &m.growth[i];
            let over = if step.chars >= ACTION_LIMIT {
                " ⚠"
            } else {
                ""
            };
            write!(out, " {} ms | {}{over} |", fig(step.median_ms), step.chars).unwrap();
            if let Some(page) = step.first_page_ms {
                write!(out, " {} ms |", fig(page)).unwrap();
            }
        }
        writeln!(out).unwrap();
    }
    writeln!(out).unwrap();
    for m in &growing {
        let crossing = m.growth.iter().find(|s| s.chars >= ACTION_LIMIT);
        let verdict = match crossing {
            Some(step) => format!("first over the limit at {} threads (⚠)", step.threads),
            None => format!(
                "never over the limit, up to {} threads",
                client::GROWTH[client::GROWTH.len() - 1]
            ),
        };
        writeln!(out, "- {}: {verdict}.", m.kind.name()).unwrap();
    }
    for m in &growing {
        let (first, last) = (&m.growth[0], &m.growth[m.growth.len() - 1]);
        writeln!(
            out,
            "- {}: a load at {} threads takes {:.1}× as long as at {}.",
            m.kind.name(),
            last.threads,
            last.median_ms / first.median_ms,
            first.threads
        )
        .unwrap();
        if let Some(ratio) = first_page_ratio(m) {
            writeln!(
                out,
                "- {}: the first {} threads at {} threads take {ratio:.1}× as long as the whole load at {}.",
                m.kind.name(),
                client::FIRST_PAGE,
                last.threads,
                first.threads
            )
            .unwrap();
        }
    }
    reads(out, &growing);
}

/// How much longer the first page of the largest namespace takes than the whole load of the
/// smallest, which answers as many threads.
pub fn first_page_ratio(m: &Measured) -> Option<f64> {
    let (first, last) = (m.growth.first()?, m.growth.last()?);
    Some(last.first_page_ms? / first.median_ms)
}

/// Firestore's billed reads per request as the namespace grows, from kioku's request log.
fn reads(out: &mut String, growing: &[&Measured]) {
    for m in growing {
        if m.growth.iter().all(|step| step.reads.is_none()) {
            continue;
        }
        writeln!(out, "\n{}, documents read per request, as Firestore bills them, and in how many calls (its request log's `firestore_reads` and `firestore_calls`; the median load and first page):\n\n| Threads | per save | per load | per first page |\n| ---: | ---: | ---: | ---: |", m.kind.name()).unwrap();
        let in_calls = |(reads, calls): (u64, u64)| format!("{reads} in {calls}");
        for step in &m.growth {
            if let Some(reads) = step.reads {
                let page = reads.per_first_page.map_or("–".into(), in_calls);
                writeln!(
                    out,
                    "| {} | {:.1} | {} | {page} |",
                    step.threads,
                    reads.per_save,
                    in_calls(reads.per_load)
                )
                .unwrap();
            }
        }
    }
}
