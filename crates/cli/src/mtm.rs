//! `--metric mtm`: the multi-tile metric on the command line. Solving (optimal where an MTM
//! search applies, else the fewer lines of a single-tile answer with its runs merged and of
//! beams over line moves for a second, with a proven MTM lower bound),
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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use anyhow::Context;
use fifteen_core::mtm::{
    COLOUR_PRESET, ColourTable, Colouring, MTM_BEAM_MAX_WIDTH, Metric, MtmBeamAnswer, MtmHeuristic,
    MtmHeuristicKind, SPLIT_PRESET, bfs_mtm, build_colour_table, colour_file, default_4x4_set,
    format_lines, ida_mtm, lines, parse_lines, replay_lines, split_4x4_set, split_file,
    write_colour_table,
};
use fifteen_core::pdb::{LoadMode, PdbError};
use fifteen_core::{
    Algorithm, AnyHeuristic, Board, HeuristicKind, LimitKind, Limits, Problem, SearchError, Size,
    Solution, Stats,
};

use crate::args::{CompareArgs, PdbOpts, SolveArgs, VerifyArgs};
use crate::exit::{self, BadInput};
use crate::input;
use crate::near::{self, NearMode};
use crate::pdb::{DbError, DirLock, chain, search_dirs};
use crate::solve::{Outcome, Settings, limits, no_solution};

/// On boards without an optimal MTM search: how long the beams over line moves may take after
/// a named algorithm's single-tile search (less if the time limit comes first), and the
/// default time of [`beams_first`] up to 25 cells.
const MTM_BEAM_TIME: std::time::Duration = std::time::Duration::from_secs(1);

/// The share of the time limit that [`beams_first`] gives the beams on one thread (MTM IDA*
/// the rest).
const BEAM_SHARE: f64 = 0.6;

/// With `--time-limit` on a board whose MTM search is optimal (the 4x4, small boards), the
/// share of the time that [`beams_first`] gives that search first on one thread: it finishes in
/// milliseconds on most positions (Korf's 100 take 10 ms each on average), so it should not
/// wait for the beams; the beams take the rest only when it did not finish.
const OPTIMAL_FIRST_SHARE: f64 = 0.8;

/// Boards up to this many cells get an optimal MTM search with walking distance alone (the 4x4
/// gets it with the colour table too).
const WD_OPTIMAL_MAX_CELLS: usize = 12;

/// Set when a 4x4 search uses the default set in a process where memory would also hold the
/// finer one: a long search then says once how to build it ([`hint_finer_set`]).
static FINER_WOULD_FIT: AtomicBool = AtomicBool::new(false);

/// A 4x4 MTM search of this long or longer with the default set hints at the finer one.
const FINER_HINT_AFTER: std::time::Duration = std::time::Duration::from_secs(3);

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

/// A 4x4 MTM set: the default (`4x4-mtm`, built on first use) or the finer one
/// (`4x4-mtm-split`, ten times the states, built only when asked for and preferred when found).
struct MtmSet {
    preset: &'static str,
    colourings: Vec<Colouring>,
    file: fn(usize) -> String,
}

impl MtmSet {
    fn default_4x4() -> MtmSet {
        MtmSet { preset: COLOUR_PRESET, colourings: default_4x4_set(), file: colour_file }
    }

    fn split_4x4() -> MtmSet {
        MtmSet { preset: SPLIT_PRESET, colourings: split_4x4_set(), file: split_file }
    }

    /// The set named `name`, if it is one.
    fn named(name: &str) -> Option<MtmSet> {
        [MtmSet::default_4x4(), MtmSet::split_4x4()].into_iter().find(|s| s.preset == name)
    }

    /// Its files in `dir`.
    fn files(&self, dir: &Path) -> Vec<PathBuf> {
        (1..=self.colourings.len()).map(|i| dir.join((self.file)(i))).collect()
    }

    /// Bytes of memory its tables take.
    fn bytes(&self) -> u64 {
        self.colourings.iter().map(|c| c.states() + 4096).sum()
    }

    /// The command that builds it.
    fn command(&self) -> String {
        if self.preset == COLOUR_PRESET {
            "fifteen pdb build --metric mtm".to_string()
        } else {
            format!("fifteen pdb build {}", self.preset)
        }
    }

    /// The command that builds it into `dir` (a folder named on the command line, or the
    /// default build folder when `dir` is `None`).
    fn command_in(&self, dir: Option<&Path>) -> String {
        match dir {
            Some(dir) => format!("{} --pdb-dir {}", self.command(), dir.display()),
            None => self.command(),
        }
    }

    /// What is wrong with its tables in `dir`, all present, by their headers (the full check
    /// waits for a search): the first file that is not a table, or not this set's.
    fn fault(&self, dir: &Path) -> Option<String> {
        self.files(dir).iter().enumerate().find_map(|(i, path)| {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            match self.open_as(path, i, LoadMode::Mmap, false) {
                Err(Fault::Unreadable(why)) => Some(format!("{name}: {why}")),
                Err(Fault::OtherTable) => {
                    Some(format!("{name} is not table {} of this set", i + 1))
                }
                Ok(_) => None,
            }
        })
    }

    /// Opens `path` as table `i` of this set: its header read, its entries checked in full once
    /// when `full` (then trusted while its stamp matches), its colouring compared.
    fn open_as(
        &self,
        path: &Path,
        i: usize,
        mode: LoadMode,
        full: bool,
    ) -> Result<ColourTable, Fault> {
        let t = ColourTable::open(path, mode).map_err(|e| Fault::Unreadable(diagnosis(&e)))?;
        if full {
            crate::pdb::check(t.table(), true).map_err(|e| Fault::Unreadable(diagnosis(&e)))?;
        }
        match t.colouring() == &self.colourings[i] {
            true => Ok(t),
            false => Err(Fault::OtherTable),
        }
    }

    /// Opens table `i` at `path`, checked in full once (then trusted while its stamp matches),
    /// and checks that it is table `i` of this set.
    fn open_checked(
        &self,
        path: &Path,
        i: usize,
        mode: LoadMode,
    ) -> anyhow::Result<Arc<ColourTable>> {
        let rebuild = self.command_in(path.parent());
        match self.open_as(path, i, mode, true) {
            Ok(t) => Ok(Arc::new(t)),
            Err(Fault::Unreadable(why)) => Err(DbError(format!("{why}; `{rebuild}` rebuilds the set")))
                .with_context(|| format!("cannot use {}", path.display())),
            Err(Fault::OtherTable) => Err(DbError(format!(
                "{} is not table {} of the {} set (another colouring or blank cell); rebuild the set with `{rebuild}`",
                path.display(),
                i + 1,
                self.preset,
            ))
            .into()),
        }
    }

    /// Its tables in `dir`, all checked.
    fn open_all(&self, dir: &Path, mode: LoadMode) -> anyhow::Result<Vec<Arc<ColourTable>>> {
        let files = self.files(dir);
        files.iter().enumerate().map(|(i, f)| self.open_checked(f, i, mode)).collect()
    }
}

/// The 4x4 colour tables: the first folder with a whole set (the finer set before the default
/// one, if memory holds it), or the default set built on first use; none (with a note) if
/// neither.
fn colour_tables(opts: &PdbOpts) -> anyhow::Result<Vec<Arc<ColourTable>>> {
    let (dirs, build_dir) = search_dirs(opts);
    let mode = opts.pdb_load.mode();
    let available = crate::pdb::memory::available();
    for dir in &dirs {
        for set in [MtmSet::split_4x4(), MtmSet::default_4x4()] {
            if !set.files(dir).iter().all(|f| f.is_file()) {
                continue;
            }
            // As for the single-tile sets (`pdb/memory.rs`): tables larger than the memory
            // available would be paged in and out on every lookup.
            if let Some(available) = available
                && set.bytes() > available
            {
                eprintln!(
                    "note: the MTM tables {} in {} need {} MB of memory but {} MB are available; not using them",
                    set.preset,
                    dir.display(),
                    set.bytes().div_ceil(1_000_000),
                    available / 1_000_000
                );
                continue;
            }
            let tables = set.open_all(dir, mode)?;
            eprintln!(
                "using the MTM tables {} ({} files)",
                dir.join(format!("{}.p*.pdb", set.preset)).display(),
                tables.len()
            );
            if set.preset == COLOUR_PRESET {
                note_finer_would_fit(available);
            }
            return Ok(tables);
        }
    }
    let set = MtmSet::default_4x4();
    if let Some(available) = available
        && set.bytes() > available
    {
        eprintln!(
            "note: the MTM tables ({COLOUR_PRESET}) need {} MB of memory but {} MB are available; using walking distance alone (slow on hard positions)",
            set.bytes().div_ceil(1_000_000),
            available / 1_000_000
        );
        return Ok(Vec::new());
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
        set.colourings.len()
    );
    build_into(&set, &dir)?;
    note_finer_would_fit(available);
    set.open_all(&dir, mode)
}

/// Records that the default set is in use, and whether memory (`available` bytes, if known)
/// would hold the finer set.
fn note_finer_would_fit(available: Option<u64>) {
    let fits = available.is_none_or(|a| MtmSet::split_4x4().bytes() <= a);
    FINER_WOULD_FIT.store(fits, Ordering::Relaxed);
}

/// After a 4x4 MTM search that took `elapsed` with the default set: once per process, if it
/// took [`FINER_HINT_AFTER`] or longer and memory would hold the finer set, how to build it.
fn hint_finer_set(elapsed: std::time::Duration, opts: &PdbOpts) {
    if elapsed < FINER_HINT_AFTER || !FINER_WOULD_FIT.swap(false, Ordering::Relaxed) {
        return;
    }
    let dir =
        opts.pdb_dir.as_ref().map(|d| format!(" --pdb-dir {}", d.display())).unwrap_or_default();
    eprintln!(
        "hint: this MTM search took {:.1} s; `fifteen pdb build {SPLIT_PRESET}{dir}` builds the finer 4x4 MTM tables once (7.6 GB, about 11 minutes on 2 cores), with which hard positions take a third of the time or less",
        elapsed.as_secs_f64()
    );
}

/// Why a file is not the table of an MTM set that it is named as.
enum Fault {
    /// Not a table, damaged, or for the other metric: what is wrong.
    Unreadable(String),
    /// A table of another colouring or blank cell.
    OtherTable,
}

/// What is wrong with an MTM table file, without the advice for single-tile sets that the
/// database format's errors end with (the callers name the MTM set's own command instead).
fn diagnosis(e: &PdbError) -> String {
    let message = chain(e);
    match message.find("rebuild the set with `fifteen pdb build PRESET`") {
        Some(i) => message[..i].trim_end_matches([' ', ';', ',']).to_string(),
        None => message,
    }
}

/// Whether `path` is a table of a 4x4 MTM set whose files are all in its folder: `fifteen pdb
/// list` reports such a file with the MTM sets ([`list_lines`]), not as a single-tile database.
pub(crate) fn listed_with_mtm_set(path: &Path) -> bool {
    let Some(dir) = path.parent() else { return false };
    [MtmSet::default_4x4(), MtmSet::split_4x4()].iter().any(|set| {
        let files = set.files(dir);
        files.iter().any(|f| f == path) && files.iter().all(|f| f.is_file())
    })
}

/// `fifteen pdb list`'s lines on the 4x4 MTM sets: where each is, or how to build it, and
/// which one a 4x4 MTM search uses (the first folder's finer set, as [`colour_tables`]).
pub(crate) fn list_lines(opts: &PdbOpts) -> Vec<String> {
    let (dirs, _) = search_dirs(opts);
    let mut lines = vec!["multi-tile (MTM) sets, 4x4:".to_string()];
    let mut used = false;
    for dir in &dirs {
        for set in [MtmSet::split_4x4(), MtmSet::default_4x4()] {
            if set.files(dir).iter().all(|f| f.is_file()) {
                let note = if used { "" } else { " (used)" };
                used = true;
                lines.push(format!(
                    "  {:<14} {}  {} tables, {} MB{note}",
                    set.preset,
                    dir.join(format!("{}.p*.pdb", set.preset)).display(),
                    set.colourings.len(),
                    set.bytes() / 1_000_000
                ));
                // A search that picks a damaged set stops with exit 6: say so here too.
                if let Some(fault) = set.fault(dir) {
                    lines.push(format!(
                        "    damaged: {fault}; `{}` rebuilds it",
                        set.command_in(Some(dir))
                    ));
                }
            }
        }
    }
    for (set, what) in [
        (MtmSet::default_4x4(), "about 2 minutes of CPU; the first 4x4 MTM solve builds it"),
        (
            MtmSet::split_4x4(),
            "about 11 minutes on 2 cores; ten times the states, for hard positions",
        ),
    ] {
        if !dirs.iter().any(|d| set.files(d).iter().all(|f| f.is_file())) {
            lines.push(format!(
                "  {:<14} missing: `{}` builds it ({}, {} MB)",
                set.preset,
                set.command_in(opts.pdb_dir.as_deref()),
                what,
                set.bytes() / 1_000_000
            ));
        }
    }
    lines
}

/// Builds the tables of `set` that `dir` lacks (or holds damaged, or of another layout) into
/// it, under the folder's lock, with a progress line per BFS level on a terminal.
fn build_into(set: &MtmSet, dir: &Path) -> anyhow::Result<std::time::Duration> {
    let _lock = DirLock::acquire(dir).map_err(|e| DbError(format!("{e:#}")))?;
    let took = Instant::now();
    let tty = std::io::stderr().is_terminal();
    let count = set.colourings.len();
    for (i, (colouring, path)) in set.colourings.iter().zip(set.files(dir)).enumerate() {
        // Present and sound (another process may have built it while this one waited).
        if path.is_file() && set.open_checked(&path, i, LoadMode::Mmap).is_ok() {
            continue;
        }
        let total = colouring.states();
        let started = Instant::now();
        let entries = build_colour_table(colouring, &|depth, seen| {
            if tty {
                let pct = 100.0 * seen as f64 / total as f64;
                eprint!(
                    "\r  MTM table {} of {count}, depth {depth:>2}: {seen:>11} of {total} states ({pct:5.1}%)",
                    i + 1,
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

/// `fifteen pdb build --metric mtm` (the default set), or `fifteen pdb build NAME` with `NAME`
/// an MTM set's preset; `None` if `name` is not one.
pub(crate) fn build(name: Option<&str>, opts: &PdbOpts) -> Option<anyhow::Result<u8>> {
    let set = match name {
        None => MtmSet::default_4x4(),
        Some(name) => MtmSet::named(name)?,
    };
    Some(build_set(&set, opts))
}

fn build_set(set: &MtmSet, opts: &PdbOpts) -> anyhow::Result<u8> {
    let (_, dir) = search_dirs(opts);
    let dir = dir.ok_or_else(|| DbError("no folder to build in: pass --pdb-dir".into()))?;
    // A table's BFS holds its entries twice at the end (atomics, then the bytes written): 2.96
    // GB of peak RSS measured for the finer set's 1.5 GB tables.
    let need = 2 * set.colourings.iter().map(Colouring::states).max().unwrap_or(0) + (64 << 20);
    if let Some(available) = crate::pdb::memory::available()
        && need > available
    {
        return Err(anyhow::Error::new(std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!(
                "building the {} tables needs about {} MB of memory but {} MB are available",
                set.preset,
                need.div_ceil(1_000_000),
                available / 1_000_000
            ),
        )));
    }
    eprintln!(
        "building the 4x4 MTM tables ({}, {} x {} MB) into {}",
        set.preset,
        set.colourings.len(),
        set.colourings[0].states().div_ceil(1_000_000),
        dir.display()
    );
    let took = build_into(set, &dir)?;
    let bytes: u64 =
        set.files(&dir).iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
    println!(
        "{} holds the {} set ({} files, {bytes} bytes); this build took {took:.1?}",
        dir.display(),
        set.preset,
        set.colourings.len()
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

/// Whether `solve` answers with [`beams_first`]: `--time-limit` (an answer by then, optimal
/// if the MTM search finishes), or no optimal MTM search and no algorithm named.
fn beams_only(h: &MtmHeuristic, settings: &Settings) -> bool {
    matches!(settings.near, Some(NearMode::Anytime(_)))
        || (!optimal_search(h) && (settings.auto_near || settings.near.is_some()))
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
        Ok(h) if beams_only(&h, settings) => {
            format!("{stm_name} ranking beams over line moves; {} for IDA*", h.name())
        }
        _ => format!("{stm_name} (single-tile search, runs merged; beams over line moves)"),
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
    if !optimal_search(&h) && matches!(settings.near, Some(NearMode::Within(_))) {
        return Outcome::Failed(SearchError::NotApplicable(
            "--within does not apply to --metric mtm on this board (no MTM search bounds its answers): use --time-limit".to_string(),
        ));
    }
    if beams_only(&h, settings) {
        return beams_first(problem, stm, &h, settings, &lim);
    }
    let result = match settings.algorithm {
        Algorithm::Ida if optimal_search(&h) => {
            let started = Instant::now();
            let result = ida_mtm(problem, &h, &lim);
            if problem.goal().size() == Size::S4X4 {
                hint_finer_set(started.elapsed(), &settings.pdb);
            }
            result
        }
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
            // Then beams over line moves, for a path of fewer lines than the merged one.
            let until = Instant::now() + MTM_BEAM_TIME;
            let beam_limits = Limits {
                deadline: Some(lim.deadline.map_or(until, |d| d.min(until))),
                ..lim.clone()
            };
            let found = stm.anytime_mtm(problem, Some(&s.moves), MTM_BEAM_MAX_WIDTH, &beam_limits);
            s.stats.generated += found.stats.generated;
            s.stats.expanded += found.stats.expanded;
            if let Some(moves) = found.moves
                && let Some((_, tiles)) = fifteen_core::replay(problem.start(), &moves)
            {
                s.moves = moves;
                s.tiles = tiles;
            }
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

/// Boards without an optimal MTM search and no algorithm named, or `--time-limit` on any board:
/// beams over line moves for the time limit (`--time-limit`, else `--timeout`, else a second up
/// to 25 cells and [`near::DEFAULT_TIME_LIMIT`] beyond), and MTM IDA* (with line crossings, or
/// the board's optimal MTM heuristic) on a thread beside them (with `--threads 1` after them,
/// sharing the time by [`BEAM_SHARE`], or before them by [`OPTIMAL_FIRST_SHARE`] where it is
/// the optimal search), which raises the lower bound, or proves an answer optimal when it
/// finishes (and then stops the beams, or spares them on one thread). The bound is the
/// largest of that search's, the single-tile estimate over the longest slide and the MTM
/// estimate. Labelled not optimal unless the answer meets it. A single-tile search first (the
/// 5x5's default is optimal IDA*, minutes on hard positions) would only give a longer path to
/// start from: on three 5x5 walks its merged runs took 56, 57 and 71 lines where a second of
/// beams takes 52, 48 and 54; and single-tile IDA* beside the beams proved less (a mean bound
/// of 21.3 lines on ten 5x5 walks, against 30.0 from MTM IDA*; `docs/performance.md`).
fn beams_first(
    problem: &Problem,
    stm: &AnyHeuristic,
    h: &MtmHeuristic,
    settings: &Settings,
    lim: &Limits,
) -> Outcome {
    let start = problem.start();
    let secs = match settings.near {
        Some(NearMode::Anytime(t)) => t,
        _ => settings.limits.timeout.unwrap_or(if start.size().cells() < near::AUTO_MIN_CELLS {
            MTM_BEAM_TIME
        } else {
            near::DEFAULT_TIME_LIMIT
        }),
    };
    let t0 = Instant::now();
    let until = |share: f64| {
        let at = t0 + secs.mul_f64(share);
        Some(lim.deadline.map_or(at, |d| d.min(at)))
    };
    // MTM IDA* raises the lower bound; an answer it finds is optimal. With two threads or more
    // it runs beside the beams for the whole time, else after them.
    let beside = settings.search_threads >= 2;
    let optimal_first = !beside && optimal_search(h);
    let ida_limits = Limits {
        deadline: until(if optimal_first { OPTIMAL_FIRST_SHARE } else { 1.0 }),
        threads: 1,
        ..lim.clone()
    };
    let beam_limits =
        Limits { deadline: until(if beside { 1.0 } else { BEAM_SHARE }), ..lim.clone() };
    let (found, ida) = if optimal_first {
        let ida = ida_mtm(problem, h, &ida_limits);
        let interrupted = lim.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
        let found = if ida.is_ok() || interrupted {
            MtmBeamAnswer { moves: None, stats: Stats::default(), width: 0, stopped: None }
        } else {
            let beam_limits = Limits { deadline: until(1.0), ..lim.clone() };
            stm.anytime_mtm(problem, None, MTM_BEAM_MAX_WIDTH, &beam_limits)
        };
        (found, ida)
    } else if beside {
        // An optimal answer from IDA*, or Ctrl-C, stops the beams too.
        let stop_beams = Arc::new(AtomicBool::new(false));
        let beam_limits = Limits { cancel: Some(Arc::clone(&stop_beams)), ..beam_limits };
        std::thread::scope(|scope| {
            let ida = scope.spawn(|| {
                let r = ida_mtm(problem, h, &ida_limits);
                let interrupted = lim.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
                if r.is_ok() || interrupted {
                    stop_beams.store(true, Ordering::Relaxed);
                }
                r
            });
            let found = stm.anytime_mtm(problem, None, MTM_BEAM_MAX_WIDTH, &beam_limits);
            let ida = ida.join().unwrap_or_else(|_| {
                Err(SearchError::NotApplicable("the MTM search failed".to_string()))
            });
            (found, ida)
        })
    } else {
        let found = stm.anytime_mtm(problem, None, MTM_BEAM_MAX_WIDTH, &beam_limits);
        (found, ida_mtm(problem, h, &ida_limits))
    };
    let mut stats = found.stats;
    let mut best = found.moves;
    let longest = start.size().width().max(start.size().height()) - 1;
    let mut lower_bound =
        h.estimate(start).max(stm.estimate(start.cells()).div_ceil(longest as u32));
    match ida {
        Ok(s) => {
            // Optimal: its lines are the bound, and no beam answer has fewer.
            lower_bound = lower_bound.max(lines(&s.moves).len() as u32);
            stats.generated += s.stats.generated;
            stats.expanded += s.stats.expanded;
            best = Some(s.moves);
        }
        Err(SearchError::LimitReached { lower_bound: b, stats: s, .. }) => {
            lower_bound = lower_bound.max(b);
            stats.generated += s.generated;
            stats.expanded += s.expanded;
        }
        Err(_) => {}
    }
    // A limit too short for any search still gets a path (not after Ctrl-C): the board solved
    // edge by edge, its runs merged into lines.
    let cancelled = lim.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
    if best.is_none() && !cancelled {
        best = Some(fifteen_core::solve_by_edges(problem));
    }
    stats.elapsed = t0.elapsed();
    match best.and_then(|m| fifteen_core::replay(start, &m).map(|(_, t)| (m, t))) {
        Some((moves, tiles)) => Outcome::Solved(Solution {
            optimal: lines(&moves).len() as u32 <= lower_bound,
            moves,
            tiles,
            initial_h: lower_bound,
            stats,
        }),
        None => Outcome::Failed(SearchError::LimitReached {
            kind: found.stopped.unwrap_or(LimitKind::Time),
            lower_bound,
            stats,
        }),
    }
}

/// Why an MTM answer is or is not optimal.
pub(crate) fn verdict(solution: &Solution) -> String {
    if solution.optimal {
        "proven optimal".to_string()
    } else {
        format!("not proven optimal; every solution has at least {} MTM moves", solution.initial_h)
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
    // Beams over line moves, ranked by the same heuristic: widths 64, 256, ... up to --width.
    let found = lc.anytime_mtm(&problem, None, args.width, &limits());
    let r = match found.moves.and_then(|m| fifteen_core::replay(&board, &m).map(|(_, t)| (m, t))) {
        Some((moves, tiles)) => {
            Ok(Solution { moves, tiles, optimal: false, initial_h: bound, stats: found.stats })
        }
        None => Err(SearchError::LimitReached {
            kind: found.stopped.unwrap_or(LimitKind::Depth),
            lower_bound: bound,
            stats: found.stats,
        }),
    };
    runs.push((format!("{} (line beams)", lc.name()), Algorithm::Beam(args.width), r));
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
