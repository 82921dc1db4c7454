//! `fifteen solve BOARD`: one position, answered in text, as boards (`--boards`) or as JSON.
//! The search itself ([`attempt`]) is shared with the batch mode.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use fifteen_core::{
    Algorithm, AnyHeuristic, Board, LimitKind, Limits, NearOptimal, Problem, SearchError,
    SearchProgress, Solution, Unsolvable, format_moves,
};

use crate::args::{AlgorithmArg, LimitOpts, SolveArgs};
use crate::exit;
use crate::heuristics::choose;
use crate::input;
use crate::near::{self, NearMode};
use crate::output::{self, Record};
use crate::show;
use crate::watch::Watch;

/// How one position ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// A path to the goal.
    Solved(Solution),
    /// A path from `--within`, `--time-limit` or the default on large boards, with its proven
    /// lower bound.
    Near(NearOptimal),
    /// No path exists; no search was run.
    Unsolvable(Unsolvable),
    /// The search gave up (a limit) or could not run.
    Failed(SearchError),
}

/// The search settings shared by every position of a run.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    /// The search algorithm.
    pub(crate) algorithm: Algorithm,
    /// Per-position limits.
    pub(crate) limits: LimitOpts,
    /// Threads IDA* uses inside one position: all of `--threads` for a single position, one
    /// per position in a batch (which is parallel across positions instead).
    pub(crate) search_threads: usize,
    /// Set on Ctrl-C: running searches stop.
    pub(crate) cancel: Option<Arc<AtomicBool>>,
    /// Searches each thread interleaves (`--lanes`): positions in a batch, subtrees of one
    /// position split over threads; `None` for the heuristic's default ([`Settings::lanes`]).
    pub(crate) lanes: Option<usize>,
    /// `--within` or `--time-limit`.
    pub(crate) near: Option<NearMode>,
    /// No algorithm named: large boards get the anytime search (`near::mode_for`).
    pub(crate) auto_near: bool,
    /// Print anytime improvements on stderr (a single position, not a batch).
    pub(crate) report: bool,
    /// Counters the search publishes for the progress line (one position only).
    pub(crate) progress: Option<Arc<SearchProgress>>,
    /// How moves are counted (`--metric`).
    pub(crate) metric: fifteen_core::mtm::Metric,
    /// Where the MTM table is looked for (`--metric mtm`).
    pub(crate) pdb: crate::args::PdbOpts,
}

/// Searches a thread interleaves by default: measured with 7-8 on Korf's 100 and the 80-move
/// positions (see `fifteen_core::ida_lanes`), 3 lanes take 0.77 - 0.89 of the time of one, and
/// more no less. Heuristics with which interleaving does not pay get 1
/// ([`AnyHeuristic::interleaving_pays`]).
pub(crate) const DEFAULT_LANES: usize = 3;

impl Settings {
    pub(crate) fn from_args(args: &SolveArgs) -> Settings {
        let threads = args.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            usize::from,
        );
        Settings {
            algorithm: args
                .search
                .algorithm
                .unwrap_or(AlgorithmArg::Ida)
                .algorithm(args.search.weight, args.search.width),
            limits: args.search.limits,
            search_threads: if args.input.is_some() { 1 } else { threads },
            cancel: None,
            lanes: args.lanes.map(usize::from),
            near: match (args.search.within, args.search.time_limit) {
                (Some(f), _) => Some(NearMode::Within(f)),
                (None, Some(t)) => Some(NearMode::Anytime(t)),
                (None, None) => None,
            },
            auto_near: args.search.algorithm.is_none(),
            report: args.input.is_none(),
            progress: None,
            metric: args.metric.metric(),
            pdb: args.search.pdb.clone(),
        }
    }
}

impl Settings {
    /// Whether a single-tile IDA* can run under these settings: not with a fixed `--algorithm`
    /// other than `ida` (no `--algorithm` means `ida`, and the near-optimal modes run IDA* for
    /// their bound), so that a batch then skips building IDA*'s duplicate-path machine (up to
    /// 0.15 s).
    pub(crate) fn ida_may_run(&self) -> bool {
        self.algorithm == Algorithm::Ida || self.near.is_some()
    }

    /// The lanes of a search with `h`: `--lanes` if given, else the heuristic's default.
    pub(crate) fn lanes(&self, h: &AnyHeuristic) -> usize {
        self.lanes.unwrap_or(if h.interleaving_pays() { DEFAULT_LANES } else { 1 })
    }
}

/// The library's limits for a search starting now, on `threads` threads with `lanes` lanes
/// each.
pub(crate) fn limits(settings: &Settings, threads: usize, lanes: usize) -> Limits {
    let opts = &settings.limits;
    Limits {
        max_nodes: opts.max_nodes,
        deadline: opts.timeout.map(|t| Instant::now() + t),
        cancel: settings.cancel.clone(),
        max_stored: opts.max_stored,
        threads,
        lanes,
        progress: settings.progress.clone(),
    }
}

/// Checks solvability (answering at once if there is no solution), then searches.
pub(crate) fn attempt(
    board: &Board,
    goal: &Board,
    heuristic: &AnyHeuristic,
    settings: &Settings,
) -> Outcome {
    let problem = match Problem::new(board.clone(), goal.clone()) {
        Ok(p) => p,
        Err(why) => return Outcome::Unsolvable(why),
    };
    if settings.metric == fifteen_core::mtm::Metric::Mtm {
        return crate::mtm::attempt(&problem, heuristic, settings);
    }
    if let Some(mode) = near::mode_for(settings, board.size(), heuristic) {
        // With two threads or more, IDA* runs beside the anytime search's beams (one lane).
        let limits = limits(settings, settings.search_threads, 1);
        return match near::solve(&problem, heuristic, mode, limits, settings.report) {
            Ok(n) => Outcome::Near(n),
            Err(e) => Outcome::Failed(e),
        };
    }
    match heuristic.solve(
        &problem,
        settings.algorithm,
        &limits(settings, settings.search_threads, settings.lanes(heuristic)),
    ) {
        Ok(solution) => Outcome::Solved(solution),
        Err(e) => Outcome::Failed(e),
    }
}

/// [`attempt`] with a progress line for a long search, and Ctrl-C stopping the search (which
/// then reports the lower bound proven so far) rather than the process.
fn watched(
    board: &Board,
    goal: &Board,
    heuristic: &AnyHeuristic,
    settings: &mut Settings,
    args: &SolveArgs,
) -> Outcome {
    let progress = Arc::new(SearchProgress::new());
    settings.progress = Some(Arc::clone(&progress));
    settings.cancel = Some(crate::batch::interrupt_flag());
    let after = args.progress.unwrap_or(if std::io::stderr().is_terminal() {
        Duration::from_secs(3)
    } else {
        Duration::from_secs(30)
    });
    // The default optimal search, once it outlasts `after`, may run for hours (a random 5x5):
    // say once what else there is (`--time-limit` excludes a named `--algorithm`).
    let default_optimal = settings.metric == fifteen_core::mtm::Metric::Stm
        && settings.auto_near
        && near::mode_for(settings, board.size(), heuristic).is_none();
    let _watch = Watch::start(progress, after, default_optimal.then_some(LONG_OPTIMAL_NOTE));
    attempt(board, goal, heuristic, settings)
}

/// Printed once above the progress line of a long optimal search.
pub(crate) const LONG_OPTIMAL_NOTE: &str = "note: an optimal answer can take long here; Ctrl-C \
     stops the search with the lower bound proven so far, and `--time-limit SECS` answers within \
     SECS, near-optimally, with a proven lower bound";

/// The one-line answer for an unsolvable position.
pub(crate) fn no_solution(why: &Unsolvable) -> String {
    let reason = why.to_string();
    if reason.starts_with("no solution") { reason } else { format!("no solution: {reason}") }
}

/// Runs `fifteen solve BOARD`.
pub(crate) fn run(args: &SolveArgs) -> anyhow::Result<u8> {
    // clap's `requires` is not enforced next to the BOARD/--input conflict, so check here.
    if args.output.is_some() {
        anyhow::bail!(exit::Usage("--output applies only with --input".into()));
    }
    let (board, goal) = input::board_and_goal(&args.board, &args.board_opts)?;
    let mut settings = Settings::from_args(args);
    let mut out = std::io::stdout().lock();
    // An unsolvable position is answered at once, before any heuristic is built.
    if let Err(why) = board.solvability(&goal) {
        if args.json {
            let record = Record::new(&board, &goal, &Outcome::Unsolvable(why), &settings, args);
            writeln!(out, "{}", record.to_json()?)?;
        } else {
            writeln!(out, "{}", no_solution(&why))?;
        }
        return Ok(exit::UNSOLVABLE);
    }
    let named = crate::mtm::stm_heuristic(args, goal.size());
    let heuristic = choose(named, &goal, &args.search.pdb)?;
    if settings.metric == fifteen_core::mtm::Metric::Mtm {
        // A damaged MTM table ends the run here (exit 6), as a single-tile one does.
        crate::mtm::heuristic(&goal, &settings.pdb)?;
    }
    let outcome = watched(&board, &goal, &heuristic, &mut settings, args);
    if args.json {
        let mut record = Record::new(&board, &goal, &outcome, &settings, args);
        record.heuristic = crate::mtm::heuristic_name(&goal, &settings, heuristic.name());
        writeln!(out, "{}", record.to_json()?)?;
    }
    let (solution, verdict) = match outcome {
        Outcome::Solved(s) => {
            let verdict = output::optimality(&s, settings.algorithm);
            (s, verdict)
        }
        Outcome::Near(n) => {
            let verdict = near::verdict(&n);
            (n.solution, verdict)
        }
        Outcome::Unsolvable(why) => {
            writeln!(out, "{}", no_solution(&why))?;
            return Ok(exit::UNSOLVABLE);
        }
        Outcome::Failed(SearchError::LimitReached {
            kind: LimitKind::Cancelled,
            lower_bound,
            stats,
        }) => {
            eprintln!(
                "interrupted after {} nodes: the optimal length is at least {lower_bound}",
                stats.generated
            );
            return Ok(exit::INTERRUPTED);
        }
        Outcome::Failed(e) => return Err(e.into()),
    };
    show::pictures(args, &board, &goal, &solution, settings.algorithm)?;
    if args.json {
        return Ok(exit::OK);
    }
    if args.boards {
        writeln!(out, "{}", solution.len())?;
        let mut b = board.clone();
        writeln!(out, "{b}")?;
        for &d in &solution.moves {
            b.apply(d);
            writeln!(out, "\n{b}")?;
        }
        eprintln!("{} moves, {verdict}", solution.len());
        if args.stats {
            eprint!("{}", output::stats_text(&solution, heuristic.name(), settings.algorithm));
        }
        return Ok(exit::OK);
    }
    if settings.metric == fifteen_core::mtm::Metric::Mtm {
        crate::mtm::print_text(&mut out, &solution, args, settings.algorithm)?;
        if args.stats {
            let name = crate::mtm::heuristic_name(&goal, &settings, heuristic.name());
            write!(out, "{}", output::stats_text(&solution, &name, settings.algorithm))?;
        }
        if args.play {
            drop(out);
            show::play(&board, &goal, &solution, settings.algorithm)?;
        }
        return Ok(exit::OK);
    }
    let notation = args.notation.notation();
    writeln!(out, "length: {} ({verdict})", solution.len())?;
    writeln!(
        out,
        "moves ({} notation): {}",
        args.notation.name(),
        format_moves(&solution.moves, notation)
    )?;
    writeln!(out, "tiles: {}", output::join(&solution.tiles))?;
    if args.stats {
        write!(out, "{}", output::stats_text(&solution, heuristic.name(), settings.algorithm))?;
    }
    if args.play {
        drop(out);
        show::play(&board, &goal, &solution, settings.algorithm)?;
    }
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::Settings;
    use crate::args::{Cli, Command};

    fn settings(args: &[&str]) -> Settings {
        let cli = Cli::try_parse_from(["fifteen", "solve", "--input", "-"].iter().chain(args))
            .expect("the test's arguments parse");
        let Command::Solve(args) = cli.command else { panic!("not `solve`") };
        Settings::from_args(&args)
    }

    #[test]
    fn ida_may_run_unless_a_fixed_algorithm_without_limits_excludes_it() {
        assert!(settings(&[]).ida_may_run());
        assert!(settings(&["--algorithm", "ida"]).ida_may_run());
        assert!(settings(&["--time-limit", "1"]).ida_may_run());
        assert!(settings(&["--within", "1.1"]).ida_may_run());
        for algorithm in ["beam", "astar", "bfs", "greedy", "weighted"] {
            assert!(!settings(&["--algorithm", algorithm]).ida_may_run(), "{algorithm}");
        }
    }
}
