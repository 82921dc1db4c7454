//! Near-optimal answers on the command line: `--within F` (bounded-suboptimal), `--time-limit
//! SECS` (anytime), and the default on boards too large for an optimal search in seconds.
//!
//! The searches are `fifteen_core::bounded` and `fifteen_core::anytime`; this module picks the
//! mode for a position, turns the options into limits, prints the anytime improvements on
//! stderr (single positions only: a batch would interleave them) and words the verdict.
//!
//! The default ([`auto_anytime`]): a board of more than [`AUTO_MIN_CELLS`] - 1 cells (6x5 and
//! up), or of 17 to 25 cells that no database serves (a 4x5, 4x6, or a 5x5 whose set is not
//! built), with no `--algorithm`, `--within` or `--time-limit` gets the anytime search for
//! `--timeout` or [`DEFAULT_TIME_LIMIT`]. IDA* does not finish there in the time a person
//! waits, and the anytime search answers within a fraction of a second and improves until the
//! limit, always with a proven lower bound (measured in `docs/performance.md`); its IDA* still
//! proves the easy positions optimal. The 4x4 and smaller, and the 5x5 with its databases,
//! keep the optimal default.

use std::time::{Duration, Instant};

use fifteen_core::{AnyHeuristic, Improvement, Limits, NearOptimal, Problem, SearchError, Size};

use crate::solve::Settings;

/// The anytime search's time when no limit is given, on boards that get it by default.
pub(crate) const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(10);

/// Boards of at least this many cells get the anytime search by default.
pub(crate) const AUTO_MIN_CELLS: usize = 26;

/// A near-optimal mode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum NearMode {
    /// `--within F`.
    Within(f64),
    /// `--time-limit SECS` (or the default on large boards).
    Anytime(Duration),
}

/// The mode for a board of `size` searched with `heuristic`: the one asked for, else the
/// anytime default ([`auto_anytime`]) when no algorithm was named.
pub(crate) fn mode_for(
    settings: &Settings,
    size: Size,
    heuristic: &AnyHeuristic,
) -> Option<NearMode> {
    settings.near.or_else(|| {
        (settings.auto_near && auto_anytime(size, heuristic))
            .then(|| NearMode::Anytime(settings.limits.timeout.unwrap_or(DEFAULT_TIME_LIMIT)))
    })
}

/// Whether a board of `size` searched with `heuristic` gets the anytime search by default:
/// from 6x5 up, and from 17 cells when no database serves it. IDA* with linear conflict ran
/// out of 20 s on uniformly random 4x5, 5x4, 3x7 and 4x6 boards (1.2 billion nodes each,
/// bounds 72 - 101), and runs for hours on a random 5x5.
pub(crate) fn auto_anytime(size: Size, heuristic: &AnyHeuristic) -> bool {
    let cells = size.cells();
    cells >= AUTO_MIN_CELLS || (cells > 16 && !matches!(heuristic, AnyHeuristic::Pdb(_)))
}

/// Runs `mode` on `problem`; with `report`, each anytime improvement goes to stderr.
pub(crate) fn solve(
    problem: &Problem,
    heuristic: &AnyHeuristic,
    mode: NearMode,
    mut limits: Limits,
    report: bool,
) -> Result<NearOptimal, SearchError> {
    match mode {
        NearMode::Within(f) => heuristic.solve_bounded(problem, f, &limits),
        NearMode::Anytime(secs) => {
            let deadline = Instant::now() + secs;
            limits.deadline = Some(limits.deadline.map_or(deadline, |d| d.min(deadline)));
            let mut say = |i: &Improvement| {
                if report {
                    eprintln!(
                        "improved: {} moves, at least {} ({}), {:.2} s, {}{}",
                        i.length,
                        i.lower_bound,
                        gap(i.length, i.lower_bound),
                        i.elapsed.as_secs_f64(),
                        i.by,
                        if i.from_goal { " from the goal" } else { "" }
                    );
                }
            };
            heuristic.solve_anytime(problem, &limits, &mut say)
        }
    }
}

/// The proven gap in words: `gap at most 12.5%`, or `optimal`.
pub(crate) fn gap(length: usize, lower_bound: u32) -> String {
    if length as u64 <= u64::from(lower_bound) {
        return "optimal".to_string();
    }
    if lower_bound == 0 {
        return "gap unknown".to_string();
    }
    let g = (length as f64 / f64::from(lower_bound) - 1.0) * 100.0;
    format!("gap at most {g:.1}%")
}

/// The verdict after the length: `proven optimal`, or `not proven optimal: at least 98 moves
/// (gap at most 14.3%)`, with the guarantee of `--within`.
pub(crate) fn verdict(near: &NearOptimal) -> String {
    if near.solution.optimal {
        return "proven optimal".to_string();
    }
    let len = near.solution.len();
    let mut s = format!(
        "not proven optimal: at least {} moves needed ({})",
        near.lower_bound,
        gap(len, near.lower_bound)
    );
    if let Some(f) = near.bound {
        s.push_str(&format!("; at most {f} times the optimal length, guaranteed"));
    }
    s
}

/// The algorithm's name in records: `within(F)` or `anytime`.
pub(crate) fn algorithm_name(near: &NearOptimal) -> String {
    match near.bound {
        Some(f) => format!("within({f})"),
        None => "anytime".to_string(),
    }
}
