//! `--metric mtm`: the multi-tile metric on the command line. Solving (optimal where an MTM
//! search applies, else a single-tile answer with its runs merged and a proven MTM lower bound),
//! the text answer, `verify` of line moves, `compare`, and the 4x4 table (`fifteen pdb build
//! --metric mtm`, or built on first use).
//!
//! The MTM heuristic of each goal is built once per process and kept ([`heuristic`]): its
//! walking-distance tables take milliseconds, the 4x4 tables (the `4x4-mtm` set: one colouring
//! with the blank on a corner, an edge and a centre cell) are mapped from their files and
//! checked in full once, as the large single-tile sets are.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use anyhow::Context;
use fifteen_core::mtm::{
    COLOUR_PRESET, ColourTable, Metric, MtmHeuristic, MtmHeuristicKind, bfs_mtm,
    build_colour_table, colour_file, default_4x4_set, format_lines, ida_mtm, lines, parse_lines,
    replay_lines, write_colour_table,
};
use fifteen_core::pdb::{LoadMode, PdbError};
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

/// The MTM heuristic for `goal`: on the 4x4, with the colour tables found in the database
/// folders (built on first use into the build folder unless `--no-pdb-build`).
pub(crate) fn heuristic(goal: &Board, opts: &PdbOpts) -> anyhow::Result<Arc<MtmHeuristic>> {
    let mut cache = cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(h) = cache.get(goal) {
        return Ok(h.clone());
    }
    let tables = if goal.size() == Size::S4X4 { colour_tables(opts)? } else { Vec::new() };
    let h = Arc::new(MtmHeuristic::new(goal, &tables));
    cache.insert(goal.clone(), h.clone());
    Ok(h)
}

/// The files of the default 4x4 MTM set in `dir`.
fn set_files(dir: &Path) -> Vec<PathBuf> {
    (1..=default_4x4_set().len()).map(|i| dir.join(colour_file(i))).collect()
}

/// Opens the MTM table at `path`, checked in full once (then trusted while its stamp matches),
/// and checks that it is table `i` of the default set.
fn open_checked(path: &Path, i: usize, mode: LoadMode) -> anyhow::Result<Arc<ColourTable>> {
    let open = || -> Result<ColourTable, PdbError> {
        let t = ColourTable::open(path, mode)?;
        crate::pdb::check(t.table(), true)?;
        Ok(t)
    };
    let t = open()
        .map_err(|e| DbError(chain(&e)))
        .with_context(|| format!("cannot use {}", path.display()))?;
    let expected = &default_4x4_set()[i];
    if t.colouring() != expected {
        return Err(DbError(format!(
            "{} is not table {} of the {COLOUR_PRESET} set (another colouring or blank cell); rebuild the set with `fifteen pdb build --metric mtm`",
            path.display(),
            i + 1
        ))
        .into());
    }
    Ok(Arc::new(t))
}

/// The 4x4 colour tables: the first folder with the whole set, or the set built on first use;
/// none (with a note) if neither.
fn colour_tables(opts: &PdbOpts) -> anyhow::Result<Vec<Arc<ColourTable>>> {
    let (dirs, build_dir) = search_dirs(opts);
    let mode = opts.pdb_load.mode();
    // As for the single-tile sets (`pdb/memory.rs`): tables larger than the memory available
    // would be paged in and out on every lookup.
    let need: u64 = default_4x4_set().iter().map(|c| c.states() + 4096).sum();
    if let Some(available) = crate::pdb::memory::available()
        && need > available
    {
        eprintln!(
            "note: the MTM tables ({COLOUR_PRESET}) need {} MB of memory but {} MB are available; using walking distance alone (slow on hard positions)",
            need.div_ceil(1_000_000),
            available / 1_000_000
        );
        return Ok(Vec::new());
    }
    for dir in &dirs {
        let files = set_files(dir);
        if files.iter().all(|f| f.is_file()) {
            let tables = files
                .iter()
                .enumerate()
                .map(|(i, f)| open_checked(f, i, mode))
                .collect::<anyhow::Result<Vec<_>>>()?;
            eprintln!(
                "using the MTM tables {} ({} files)",
                dir.join(format!("{COLOUR_PRESET}.p*.pdb")).display(),
                tables.len()
            );
            return Ok(tables);
        }
    }
    let Some(dir) = build_dir.filter(|_| !opts.no_pdb_build) else {
        eprintln!(
            "note: no MTM tables ({COLOUR_PRESET}.p*.pdb) found; using walking distance alone (slow on hard positions); build them with `fifteen pdb build --metric mtm`"
        );
        return Ok(Vec::new());
    };
    eprintln!(
        "no MTM tables found; building {COLOUR_PRESET} into {} (once: about 2 minutes of CPU, {} x 151 MB)",
        dir.display(),
        default_4x4_set().len()
    );
    build_into(&dir)?;
    set_files(&dir).iter().enumerate().map(|(i, f)| open_checked(f, i, mode)).collect()
}

/// Builds the tables of the default 4x4 set that `dir` lacks (or holds damaged, or of another
/// layout) into it, under the folder's lock, with a progress line per BFS level on a terminal.
fn build_into(dir: &Path) -> anyhow::Result<std::time::Duration> {
    let _lock = DirLock::acquire(dir).map_err(|e| DbError(format!("{e:#}")))?;
    let took = Instant::now();
    let set = default_4x4_set();
    let tty = std::io::stderr().is_terminal();
    for (i, (colouring, path)) in set.iter().zip(set_files(dir)).enumerate() {
        // Present and sound (another process may have built it while this one waited).
        if path.is_file() && open_checked(&path, i, LoadMode::Mmap).is_ok() {
            continue;
        }
        let total = colouring.states();
        let started = Instant::now();
        let entries = build_colour_table(colouring, &|depth, seen| {
            if tty {
                let pct = 100.0 * seen as f64 / total as f64;
                eprint!(
                    "\r  MTM table {} of {}, depth {depth:>2}: {seen:>11} of {total} states ({pct:5.1}%)",
                    i + 1,
                    set.len()
                );
            }
        });
        if tty {
            eprintln!();
        }
        let generator = format!("fifteen {}", env!("CARGO_PKG_VERSION"));
        write_colour_table(&path, colouring, &entries, &generator)
            .map_err(|e| DbError(chain(&e)))?;
        eprintln!("  wrote {} in {:.1?}", path.display(), started.elapsed());
    }
    Ok(took.elapsed())
}

/// `fifteen pdb build --metric mtm`.
pub(crate) fn build(opts: &PdbOpts) -> anyhow::Result<u8> {
    let (_, dir) = search_dirs(opts);
    let dir = dir.ok_or_else(|| DbError("no folder to build in: pass --pdb-dir".into()))?;
    eprintln!("building the 4x4 MTM tables ({COLOUR_PRESET}) into {}", dir.display());
    let took = build_into(&dir)?;
    let bytes: u64 =
        set_files(&dir).iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
    println!(
        "{} holds the {COLOUR_PRESET} set ({} files, {bytes} bytes); this build took {took:.1?}",
        dir.display(),
        default_4x4_set().len()
    );
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
    let lim: Limits = limits(settings, settings.search_threads, 1);
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
    for algorithm in [
        Algorithm::Ida,
        Algorithm::Greedy,
        Algorithm::Weighted(args.weight),
        Algorithm::Beam(args.width),
    ] {
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
