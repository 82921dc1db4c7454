//! `--metric mtm`: the multi-tile metric on the command line. Solving (optimal where an MTM
//! search applies, else a single-tile answer with its runs merged and a proven MTM lower bound),
//! the text answer, `verify` of line moves, `compare`, and the 4x4 table (`fifteen pdb build
//! --metric mtm`, or built on first use).
//!
//! The MTM heuristic of each goal is built once per process and kept ([`heuristic`]): its
//! walking-distance tables take milliseconds, the 4x4 table is mapped from its file.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use anyhow::Context;
use fifteen_core::mtm::{
    COLOUR_FILE, ColourTable, Colouring, Metric, MtmHeuristic, MtmHeuristicKind, bfs_mtm,
    build_colour_table, format_lines, ida_mtm, lines, parse_lines, replay_lines,
    write_colour_table,
};
use fifteen_core::{
    Algorithm, AnyHeuristic, Board, HeuristicKind, Limits, Problem, SearchError, Size, Solution,
};

use crate::args::{CompareArgs, PdbOpts, SolveArgs, VerifyArgs};
use crate::exit::{self, BadInput};
use crate::input;
use crate::pdb::{DbError, DirLock, chain, search_dirs};
use crate::solve::{Outcome, Settings, limits, no_solution};

/// Boards up to this many cells get an optimal MTM search with walking distance alone (the 4x4
/// gets it with the colour table too).
const WD_OPTIMAL_MAX_CELLS: usize = 12;

/// The MTM heuristics built so far, by goal.
fn cache() -> &'static Mutex<HashMap<Board, Arc<MtmHeuristic>>> {
    static CACHE: OnceLock<Mutex<HashMap<Board, Arc<MtmHeuristic>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The MTM heuristic for `goal`: on the 4x4, with the colour table found in the database folders
/// (built on first use into the build folder unless `--no-pdb-build`).
pub(crate) fn heuristic(goal: &Board, opts: &PdbOpts) -> anyhow::Result<Arc<MtmHeuristic>> {
    let mut cache = cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(h) = cache.get(goal) {
        return Ok(h.clone());
    }
    let table = if goal.size() == Size::S4X4 { colour_table(opts)? } else { None };
    let h = Arc::new(MtmHeuristic::new(goal, table));
    cache.insert(goal.clone(), h.clone());
    Ok(h)
}

/// The 4x4 colour table: found, or built on first use; `None` (with a note) if neither.
fn colour_table(opts: &PdbOpts) -> anyhow::Result<Option<Arc<ColourTable>>> {
    let (dirs, build_dir) = search_dirs(opts);
    let mode = opts.pdb_load.mode();
    for dir in &dirs {
        if dir.join(COLOUR_FILE).is_file() {
            let t = ColourTable::open(dir, mode)
                .map_err(|e| DbError(chain(&e)))
                .with_context(|| format!("cannot use {}", dir.join(COLOUR_FILE).display()))?;
            eprintln!("using the MTM table {}", dir.join(COLOUR_FILE).display());
            return Ok(Some(Arc::new(t)));
        }
    }
    let Some(dir) = build_dir.filter(|_| !opts.no_pdb_build) else {
        eprintln!(
            "note: no MTM table ({COLOUR_FILE}) found; using walking distance alone (slow on hard positions); build it with `fifteen pdb build --metric mtm`"
        );
        return Ok(None);
    };
    eprintln!(
        "no MTM table found; building {COLOUR_FILE} into {} (once, a few minutes of CPU, 151 MB)",
        dir.display()
    );
    build_into(&dir)?;
    let t = ColourTable::open(&dir, mode).map_err(|e| DbError(chain(&e)))?;
    Ok(Some(Arc::new(t)))
}

/// Builds the 4x4 colour table into `dir` (under the folder's lock), with a progress line per
/// BFS level on a terminal.
fn build_into(dir: &Path) -> anyhow::Result<std::time::Duration> {
    let _lock = DirLock::acquire(dir).map_err(|e| DbError(format!("{e:#}")))?;
    let took = Instant::now();
    if dir.join(COLOUR_FILE).is_file() {
        // Another process built it while this one waited for the lock.
        return Ok(took.elapsed());
    }
    let colouring = Colouring::default_4x4();
    let total = colouring.states();
    let tty = std::io::stderr().is_terminal();
    let entries = build_colour_table(&colouring, &|depth, seen| {
        if tty {
            let pct = 100.0 * seen as f64 / total as f64;
            eprint!("\r  MTM depth {depth:>2}: {seen:>11} of {total} states ({pct:5.1}%)");
        }
    });
    if tty {
        eprintln!();
    }
    let generator = format!("fifteen {}", env!("CARGO_PKG_VERSION"));
    write_colour_table(dir, &colouring, &entries, &generator).map_err(|e| DbError(chain(&e)))?;
    Ok(took.elapsed())
}

/// `fifteen pdb build --metric mtm`.
pub(crate) fn build(opts: &PdbOpts) -> anyhow::Result<u8> {
    let (_, dir) = search_dirs(opts);
    let dir = dir.ok_or_else(|| DbError("no folder to build in: pass --pdb-dir".into()))?;
    eprintln!("building the 4x4 MTM table into {}", dir.display());
    let took = build_into(&dir)?;
    let path = dir.join(COLOUR_FILE);
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!("wrote {} ({bytes} bytes) in {took:.1?}", path.display());
    Ok(exit::OK)
}

/// Whether `h` runs an optimal MTM search in reasonable time on its board.
fn optimal_search(h: &MtmHeuristic) -> bool {
    match h.kind() {
        MtmHeuristicKind::Colour => true,
        MtmHeuristicKind::WalkingDistance => {
            h.goal().size().cells() <= WD_OPTIMAL_MAX_CELLS || h.goal().size() == Size::S4X4
        }
        MtmHeuristicKind::Bound => false,
    }
}

/// The single-tile heuristic `solve` builds beside an MTM search: none is needed where the MTM
/// search is optimal (Manhattan, cheap, stands in), else the one asked for.
pub(crate) fn stm_heuristic(args: &SolveArgs, size: Size) -> Option<HeuristicKind> {
    stm_heuristic_for(args.metric.metric(), args.search.heuristic.map(|h| h.kind()), size)
}

/// [`stm_heuristic`] from the metric and the heuristic named.
pub(crate) fn stm_heuristic_for(
    metric: Metric,
    named: Option<HeuristicKind>,
    size: Size,
) -> Option<HeuristicKind> {
    if metric == Metric::Mtm && (size.cells() <= WD_OPTIMAL_MAX_CELLS || size == Size::S4X4) {
        return Some(HeuristicKind::Manhattan);
    }
    named
}

/// The heuristic's name for output: the MTM heuristic's where the MTM search runs.
pub(crate) fn heuristic_name(goal: &Board, settings: &Settings, stm_name: &str) -> String {
    if settings.metric != Metric::Mtm {
        return stm_name.to_string();
    }
    match heuristic(goal, &settings.pdb) {
        Ok(h) if optimal_search(&h) && settings.algorithm == Algorithm::Ida => h.name(),
        _ => format!("{stm_name} (single-tile search, runs merged)"),
    }
}

/// Solves `problem` in MTM: IDA* or BFS in the metric where they apply; otherwise the
/// single-tile search with `stm`, whose answer is an MTM path (its runs are its lines) but not
/// a shortest one, labelled not optimal with the MTM heuristic's lower bound as `initial_h`.
pub(crate) fn attempt(problem: &Problem, stm: &AnyHeuristic, settings: &Settings) -> Outcome {
    let h = match heuristic(problem.goal(), &settings.pdb) {
        Ok(h) => h,
        Err(e) => return Outcome::Failed(SearchError::NotApplicable(format!("{e:#}"))),
    };
    let lim: Limits = limits(settings, 1);
    let result = match settings.algorithm {
        Algorithm::Ida if optimal_search(&h) => ida_mtm(problem, &h, &lim),
        Algorithm::Bfs => bfs_mtm(problem, &lim),
        Algorithm::AStar => Err(SearchError::NotApplicable(
            "A* does not run in the multi-tile metric: use --algorithm ida (optimal) or bfs"
                .to_string(),
        )),
        other => stm.solve(problem, other, &lim).map(|mut s| {
            // A line moves at most `side - 1` tiles, so a single-tile lower bound divided by
            // that is an MTM one: the proven optimum if the search proved it, else its estimate.
            let stm_bound = if s.optimal { s.len() as u32 } else { s.initial_h };
            let longest = problem.start().size().width().max(problem.start().size().height()) - 1;
            s.optimal = false;
            s.initial_h = h.estimate(problem.start()).max(stm_bound.div_ceil(longest as u32));
            s
        }),
    };
    match result {
        Ok(s) => Outcome::Solved(s),
        Err(SearchError::LimitReached { kind, lower_bound, stats })
            if !(settings.algorithm == Algorithm::Ida && optimal_search(&h))
                && settings.algorithm != Algorithm::Bfs =>
        {
            // The single-tile search's bound counts single tiles: state the MTM one.
            let lower_bound = h.estimate(problem.start()).max(lower_bound.div_ceil(
                (problem.start().size().width().max(problem.start().size().height()) - 1) as u32,
            ));
            Outcome::Failed(SearchError::LimitReached { kind, lower_bound, stats })
        }
        Err(e) => Outcome::Failed(e),
    }
}

/// Why an MTM answer is or is not optimal.
pub(crate) fn verdict(solution: &Solution) -> String {
    if solution.optimal {
        "proven optimal".to_string()
    } else {
        format!(
            "not proven optimal: a single-tile solution with its runs merged; every solution has at least {} MTM moves",
            solution.initial_h
        )
    }
}

/// The text answer of `fifteen solve --metric mtm`.
pub(crate) fn print_text(
    out: &mut impl Write,
    solution: &Solution,
    args: &SolveArgs,
    _algorithm: Algorithm,
) -> anyhow::Result<()> {
    let ls = lines(&solution.moves);
    writeln!(
        out,
        "length: {} MTM moves ({}; {} single-tile moves)",
        ls.len(),
        verdict(solution),
        solution.len()
    )?;
    writeln!(
        out,
        "moves ({} notation, MTM): {}",
        args.notation.name(),
        format_lines(&ls, args.notation.notation())
    )?;
    writeln!(out, "tiles: {}", crate::output::join(&solution.tiles))?;
    Ok(())
}

/// `fifteen verify --metric mtm`: line moves, refused with their 1-based index (exit 3) when
/// malformed or running off the board.
pub(crate) fn verify(args: &VerifyArgs) -> anyhow::Result<u8> {
    let (start, goal) = input::board_and_goal(std::slice::from_ref(&args.board), &args.board_opts)?;
    let notation = args.notation.notation();
    let parsed = parse_lines(&args.moves, notation, start.size())
        .map_err(|e| BadInput(format!("bad MTM move: {e}")))?;
    let (board, tiles) = replay_lines(&start, &parsed, notation)
        .map_err(|e| BadInput(format!("bad MTM move: {e}")))?;
    let mut out = std::io::stdout().lock();
    let ls = lines(&fifteen_core::mtm::expand(&parsed));
    if board == goal {
        writeln!(
            out,
            "reaches the goal: {} MTM moves ({} single-tile moves)",
            ls.len(),
            tiles.len()
        )?;
        if ls.len() != parsed.len() {
            writeln!(out, "as lines: {}", format_lines(&ls, notation))?;
        }
        writeln!(out, "tiles: {}", crate::output::join(&tiles))?;
        Ok(exit::OK)
    } else {
        writeln!(
            out,
            "does not reach the goal: after {} MTM moves the board is\n{board}",
            ls.len()
        )?;
        Ok(exit::FAILED)
    }
}

/// `fifteen compare --metric mtm`: the MTM searches, and the single-tile searches' answers with
/// their runs merged.
pub(crate) fn compare(args: &CompareArgs) -> anyhow::Result<u8> {
    let (board, goal) = input::board_and_goal(&args.board, &args.board_opts)?;
    let mut out = std::io::stdout().lock();
    let problem = match Problem::new(board.clone(), goal.clone()) {
        Ok(p) => p,
        Err(why) => {
            writeln!(out, "{}", no_solution(&why))?;
            return Ok(exit::UNSOLVABLE);
        }
    };
    let h = heuristic(&goal, &args.pdb)?;
    let lc = crate::heuristics::build_heuristic(HeuristicKind::LinearConflict, &goal, &args.pdb)?;
    let bound = h.estimate(&board);
    writeln!(out, "MTM lower bound ({}): {bound}", h.name())?;
    writeln!(
        out,
        "{:<34} {:<12} {:>6} {:>6}  {:<8} {:>12} {:>10}  note",
        "heuristic", "algorithm", "mtm", "stm", "optimal", "generated", "time ms"
    )?;
    let limits = || Limits {
        max_nodes: Some(args.limit_nodes),
        deadline: args.limit_time.map(|t| Instant::now() + t),
        cancel: None,
        max_stored: Some(args.limit_stored),
        threads: 1,
        lanes: 1,
        progress: None,
    };
    let mut runs: Vec<(String, Algorithm, Result<Solution, SearchError>)> = Vec::new();
    if optimal_search(&h) || board.size().cells() <= 25 {
        runs.push((h.name(), Algorithm::Ida, ida_mtm(&problem, &h, &limits())));
    }
    if board.size().cells() <= 16 {
        runs.push(("none".to_string(), Algorithm::Bfs, bfs_mtm(&problem, &limits())));
    }
    for algorithm in [Algorithm::Ida, Algorithm::Greedy, Algorithm::Weighted(args.weight)] {
        let r = lc.solve(&problem, algorithm, &limits()).map(|mut s| {
            s.optimal = false;
            s
        });
        runs.push((format!("{} (stm, merged)", lc.name()), algorithm, r));
    }
    for (label, algorithm, result) in runs {
        let algo = algorithm.to_string();
        let row = match result {
            Ok(s) => format!(
                "{label:<34} {algo:<12} {:>6} {:>6}  {:<8} {:>12} {:>10.1}",
                lines(&s.moves).len(),
                s.len(),
                if s.optimal { "yes" } else { "no" },
                s.stats.generated,
                s.stats.elapsed.as_secs_f64() * 1e3,
            ),
            Err(SearchError::LimitReached { kind, lower_bound, stats }) => format!(
                "{label:<34} {algo:<12} {:>6} {:>6}  {:<8} {:>12} {:>10.1}  {kind} reached (length >= {lower_bound})",
                "-",
                "-",
                "-",
                stats.generated,
                stats.elapsed.as_secs_f64() * 1e3,
            ),
            Err(e) => format!("{label:<34} {algo:<12}  not run: {e}"),
        };
        writeln!(out, "{}", row.trim_end())?;
    }
    Ok(exit::OK)
}
