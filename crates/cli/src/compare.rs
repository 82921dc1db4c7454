//! `fifteen compare BOARD`: every feasible heuristic and algorithm pair on one position, each
//! with its own limits, as a table.
//!
//! Which runs are feasible: misplaced and exact only on boards of at most 9 cells (misplaced is
//! too weak beyond, exact has no table); pdb not until databases exist; BFS (which ignores the
//! heuristic, so it runs once) on boards of at most 9 cells, or when linear conflict estimates
//! at most [`BFS_MAX_ESTIMATE`] moves.

use std::io::Write;
use std::time::Instant;

use fifteen_core::{Algorithm, AnyHeuristic, HeuristicKind, Limits, Problem, SearchError};

use crate::args::CompareArgs;
use crate::exit;
use crate::heuristics::{available, build_heuristic};
use crate::input;
use crate::output::optimality;
use crate::solve::no_solution;

/// Above this estimate BFS on a large board is skipped: its frontier grows about 2.1-fold per
/// move on the 15-puzzle.
const BFS_MAX_ESTIMATE: u32 = 12;

/// Largest board on which the misplaced-tiles heuristic is tried.
const MISPLACED_MAX_CELLS: usize = 9;

/// Runs `fifteen compare`.
pub(crate) fn run(args: &CompareArgs) -> anyhow::Result<u8> {
    if args.metric == crate::args::MetricArg::Mtm {
        return crate::mtm::compare(args);
    }
    let (board, goal) = input::board_and_goal(&args.board, &args.board_opts)?;
    let mut out = std::io::stdout().lock();
    let problem = match Problem::new(board.clone(), goal.clone()) {
        Ok(p) => p,
        Err(why) => {
            writeln!(out, "{}", no_solution(&why))?;
            return Ok(exit::UNSOLVABLE);
        }
    };
    let cells = board.size().cells();
    let opts = &args.pdb;
    let lc = build_heuristic(HeuristicKind::LinearConflict, &goal, opts)?;
    let estimate = lc.estimate(board.cells());

    let mut skipped = Vec::new();
    let mut runs: Vec<(HeuristicKind, Algorithm, &str)> = Vec::new();
    let mut built: Vec<(HeuristicKind, AnyHeuristic)> = Vec::new();
    for kind in [
        HeuristicKind::Misplaced,
        HeuristicKind::Manhattan,
        HeuristicKind::LinearConflict,
        HeuristicKind::Exact,
        HeuristicKind::Pdb,
    ] {
        if !available(kind, cells) {
            skipped.push(format!("{kind} (boards of at most 9 cells)"));
            continue;
        }
        if kind == HeuristicKind::Misplaced && cells > MISPLACED_MAX_CELLS {
            skipped.push(format!("{kind} (too weak beyond {MISPLACED_MAX_CELLS} cells)"));
            continue;
        }
        match build_heuristic(kind, &goal, opts) {
            Ok(h) => built.push((kind, h)),
            Err(e) if kind == HeuristicKind::Pdb => {
                skipped.push(format!("pdb ({e:#})"));
                continue;
            }
            Err(e) => return Err(e),
        }
        for algorithm in [
            Algorithm::Ida,
            Algorithm::AStar,
            Algorithm::Greedy,
            Algorithm::Weighted(args.weight),
            Algorithm::Beam(args.width),
        ] {
            runs.push((kind, algorithm, kind.name()));
        }
    }
    if cells <= 9 || estimate <= BFS_MAX_ESTIMATE {
        runs.push((HeuristicKind::LinearConflict, Algorithm::Bfs, "none"));
    } else {
        skipped.push(format!(
            "bfs (more than 9 cells and an estimate of {estimate} > {BFS_MAX_ESTIMATE} moves)"
        ));
    }

    writeln!(
        out,
        "{:<16} {:<14} {:>6}  {:<8} {:>12} {:>12} {:>10}  note",
        "heuristic", "algorithm", "length", "optimal", "generated", "expanded", "time ms"
    )?;
    for (kind, algorithm, label) in runs {
        let Some((_, h)) = built.iter().find(|(k, _)| *k == kind) else { continue };
        let limits = Limits {
            max_nodes: Some(args.limit_nodes),
            deadline: args.limit_time.map(|t| Instant::now() + t),
            cancel: None,
            max_stored: Some(args.limit_stored),
            threads: 1,
            lanes: 1,
            progress: None,
        };
        let algo = algorithm.to_string();
        let row = match h.solve(&problem, algorithm, &limits) {
            Ok(s) => format!(
                "{label:<16} {algo:<14} {:>6}  {:<8} {:>12} {:>12} {:>10.1}  {}",
                s.len(),
                if s.optimal { "yes" } else { "no" },
                s.stats.generated,
                s.stats.expanded,
                s.stats.elapsed.as_secs_f64() * 1e3,
                if s.optimal { String::new() } else { optimality(&s, algorithm) },
            ),
            Err(SearchError::LimitReached { kind, lower_bound, stats }) => format!(
                "{label:<16} {algo:<14} {:>6}  {:<8} {:>12} {:>12} {:>10.1}  {kind} reached (length >= {lower_bound})",
                "-",
                "-",
                stats.generated,
                stats.expanded,
                stats.elapsed.as_secs_f64() * 1e3,
            ),
            Err(e) => format!(
                "{label:<16} {algo:<14} {:>6}  {:<8} {:>12} {:>12} {:>10}  not run: {e}",
                "-", "-", "-", "-", "-"
            ),
        };
        writeln!(out, "{}", row.trim_end())?;
    }
    if !skipped.is_empty() {
        writeln!(out, "skipped: {}", skipped.join("; "))?;
    }
    Ok(exit::OK)
}
