//! The chart of BENCHMARKS.md: load latency and answer size against namespace size, on log
//! scales, with the GPT Action limit drawn across the size panel.

use std::fmt::Write;

use crate::Measured;
use crate::client::{GROWTH, Step};
use crate::services::Kind;

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 400.0;
const PANEL: f64 = 380.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 330.0;
const LIMIT: f64 = 100_000.0;

/// Dashes for kioku on Firestore, whose answers are the same size as on SQLite: its line
/// would hide the other.
fn dashes(kind: Kind) -> &'static str {
    if kind == Kind::KiokuFirestore {
        "6 4"
    } else {
        "none"
    }
}

fn colour(kind: Kind) -> &'static str {
    match kind {
        Kind::KiokuSqlite => "#1b9e77",
        Kind::KiokuFirestore => "#7570b3",
        Kind::Original => "#d95f02",
        Kind::Ceiling | Kind::HandOff => "#666666",
    }
}

/// A log-scaled axis from the power of ten at or below `low` to the one at or above `high`.
struct Axis {
    low: f64,
    high: f64,
}

impl Axis {
    fn around(values: impl Iterator<Item = f64>) -> Self {
        let (low, high) = values.fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(v), h.max(v)));
        Self {
            low: 10f64.powf(low.log10().floor()),
            high: 10f64.powf(high.log10().ceil().max(low.log10().floor() + 1.0)),
        }
    }

    /// Where `value` falls between `from` and `to`.
    fn at(&self, value: f64, from: f64, to: f64) -> f64 {
        let share = (value.log10() - self.low.log10()) / (self.high.log10() - self.low.log10());
        from + share * (to - from)
    }

    fn decades(&self) -> impl Iterator<Item = f64> + '_ {
        let (low, high) = (self.low.log10() as i32, self.high.log10() as i32);
        (low..=high).map(|e| 10f64.powi(e))
    }
}

fn label(value: f64) -> String {
    match value {
        v if v >= 1e6 => format!("{}M", v / 1e6),
        v if v >= 1e3 => format!("{}k", v / 1e3),
        v => format!("{v}"),
    }
}

/// One panel at `left`: a line per service of `figure` against threads.
fn panel(
    svg: &mut String,
    left: f64,
    title: &str,
    all: &[&Measured],
    figure: fn(&Step) -> f64,
    limit: Option<f64>,
) {
    let x = Axis {
        low: GROWTH[0] as f64,
        high: GROWTH[GROWTH.len() - 1] as f64,
    };
    let values = all.iter().flat_map(|m| m.growth.iter().map(figure));
    let y = Axis::around(values.chain(limit));
    let (x0, x1) = (left + 60.0, left + PANEL);
    writeln!(
        svg,
        r#"<text x="{}" y="24" text-anchor="middle" font-weight="bold">{title}</text>"#,
        (x0 + x1) / 2.0
    )
    .unwrap();
    for value in y.decades() {
        let py = y.at(value, BOTTOM, TOP);
        writeln!(svg, r##"<line x1="{x0}" x2="{x1}" y1="{py}" y2="{py}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">{}</text>"##, x0 - 6.0, py + 4.0, label(value)).unwrap();
    }
    for threads in GROWTH {
        let px = x.at(threads as f64, x0, x1).round();
        writeln!(svg, r##"<line x1="{px}" x2="{px}" y1="{TOP}" y2="{BOTTOM}" stroke="#eee"/><text x="{px}" y="{}" text-anchor="middle">{threads}</text>"##, BOTTOM + 16.0).unwrap();
    }
    writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">threads in the namespace</text>"#,
        (x0 + x1) / 2.0,
        BOTTOM + 34.0
    )
    .unwrap();
    if let Some(limit) = limit {
        let py = y.at(limit, BOTTOM, TOP);
        writeln!(svg, r##"<line x1="{x0}" x2="{x1}" y1="{py}" y2="{py}" stroke="#c00" stroke-dasharray="6 4"/><text x="{}" y="{}" fill="#c00">GPT Action limit</text>"##, x0 + 4.0, py - 5.0).unwrap();
    }
    for m in all {
        let points: Vec<String> = m
            .growth
            .iter()
            .map(|s| {
                format!(
                    "{:.1},{:.1}",
                    x.at(s.threads as f64, x0, x1),
                    y.at(figure(s), BOTTOM, TOP)
                )
            })
            .collect();
        writeln!(
            svg,
            r#"<polyline fill="none" stroke="{}" stroke-dasharray="{}" stroke-width="2" points="{}"/>"#,
            colour(m.kind),
            dashes(m.kind),
            points.join(" ")
        )
        .unwrap();
    }
}

pub fn svg(all: &[Measured]) -> String {
    let growing: Vec<&Measured> = all.iter().filter(|m| !m.growth.is_empty()).collect();
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
"#
    );
    panel(
        &mut svg,
        0.0,
        "Load latency, median (ms)",
        &growing,
        |s| s.median_ms,
        None,
    );
    panel(
        &mut svg,
        WIDTH / 2.0,
        "Load answer (characters)",
        &growing,
        |s| s.chars as f64,
        Some(LIMIT),
    );
    for (i, m) in growing.iter().enumerate() {
        let x = 80.0 + i as f64 * 220.0;
        let y = HEIGHT - 14.0;
        writeln!(svg, r#"<line x1="{x}" x2="{}" y1="{y}" y2="{y}" stroke="{}" stroke-dasharray="{}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#, x + 24.0, colour(m.kind), dashes(m.kind), x + 30.0, y + 4.0, m.kind.name()).unwrap();
    }
    svg.push_str("</svg>\n");
    svg
}
