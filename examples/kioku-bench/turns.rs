//! Small loads against the two ceilings in turns: kioku on SQLite and both ceilings run side by
//! side, and wrk visits them one after another, round after round, so that a change in the
//! machine's load falls on all three alike and each ratio is of figures taken together.

use std::fmt::Write;
use std::time::Instant;

use crate::report::{fig, median, peak_rate};
use crate::services::{Kind, Setup, token};
use crate::{client, wrk};

/// Rounds of turns; the ratio reported is the median round's.
pub const ROUNDS: usize = 5;
/// Seconds of each wrk run within a turn.
const SECONDS: u32 = 3;
/// The connections of each turn; a service's figure in a round is the best of them. One
/// connection is never the best of any of the three (the tables of single runs show it).
const CONNECTIONS: [u32; 2] = [8, 64];
/// Who takes turns, in the order of each round's figures.
const KINDS: [Kind; 3] = [Kind::KiokuSqlite, Kind::Ceiling, Kind::HandOff];

/// Loads per second in each round, in the order of [`KINDS`].
pub struct Turns {
    rounds: Vec<[f64; 3]>,
}

impl Turns {
    /// kioku's loads per second over those of `KINDS[of]`, a ceiling, in each round, smallest
    /// first.
    fn shares(&self, of: usize) -> Vec<f64> {
        let mut shares: Vec<f64> = self.rounds.iter().map(|r| r[0] / r[of]).collect();
        shares.sort_by(f64::total_cmp);
        shares
    }

    /// kioku's loads per second over the constant-body ceiling's, in the median round.
    pub fn share_of_ceiling(&self) -> f64 {
        median(&self.shares(1))
    }
}

/// Starts kioku on the SQLite files the run left (its small namespace already filled) and both
/// ceilings, then takes [`ROUNDS`] rounds of turns, each round starting one service later.
pub async fn measure(setup: &Setup) -> Turns {
    let mut servers = Vec::new();
    for kind in KINDS {
        let mut server = setup.spawn(kind, None);
        client::until_ready(&mut server, token("small"), Instant::now()).await;
        servers.push(server);
    }
    let rounds = (0..ROUNDS)
        .map(|round| {
            let mut figures = [0.0; 3];
            for turn in 0..KINDS.len() {
                let at = (round + turn) % KINDS.len();
                let runs = CONNECTIONS.map(|c| {
                    let run = wrk::run(
                        &servers[at].base,
                        token("small"),
                        c,
                        SECONDS,
                        wrk::Requests::Loads,
                    );
                    assert_eq!(run.errors, 0, "{} failed loads", KINDS[at].name());
                    run
                });
                figures[at] = peak_rate(&runs);
            }
            figures
        })
        .collect();
    Turns { rounds }
}

/// The section of BENCHMARKS.md with every round.
pub fn section(out: &mut String, turns: &Turns) {
    writeln!(out, "\n### Small loads against the ceilings, in turns\n").unwrap();
    writeln!(out, "kioku on SQLite and the two ceilings running side by side; wrk at {} connections, {SECONDS} s each, going from one to the next, each round starting one later. A service's figure in a round is its best. The target's ratio is the median round's.\n", CONNECTIONS.map(|c| c.to_string()).join(" and ")).unwrap();
    writeln!(out, "| Round | kioku, SQLite | constant body (ceiling) | through the blocking pool | kioku ÷ ceiling | kioku ÷ through the pool |\n| ---: | ---: | ---: | ---: | ---: | ---: |").unwrap();
    for (n, [kioku, ceiling, hand_off]) in turns.rounds.iter().enumerate() {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            n + 1,
            fig(*kioku),
            fig(*ceiling),
            fig(*hand_off),
            fig(kioku / ceiling),
            fig(kioku / hand_off)
        )
        .unwrap();
    }
    let (ceiling, hand_off) = (turns.shares(1), turns.shares(2));
    let range = |s: &[f64]| format!("{} to {}", fig(s[0]), fig(s[s.len() - 1]));
    writeln!(
        out,
        "\nMedian round: {} of the ceiling ({}), {} of the ceiling through the blocking pool ({}).",
        fig(median(&ceiling)),
        range(&ceiling),
        fig(median(&hand_off)),
        range(&hand_off)
    )
    .unwrap();
}
