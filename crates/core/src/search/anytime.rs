//! Near-optimal answers with a proven gap: bounded-suboptimal search ([`bounded`], at most `F`
//! times the optimum) and anytime search ([`anytime`], better answers until a limit).
//!
//! [`anytime`] runs *beam searches* of growing width (`search/beam.rs`): a layer of the best
//! boards by estimate at each depth, each run pruned by the best length found so far (the
//! *incumbent*), so that a later run can only answer shorter. Each answer is then shortened by
//! [`shorten`](super::shorten) (windows of the path re-solved optimally by IDA*). The next
//! width is up to four times the last, as wide as the time left allows, and once a run is long
//! enough to time the next by, the width that fills most of the time left (a beam's answer
//! shortens with its width, so one wide last run beats two narrower ones); when no wider run
//! fits, or a run dropped no board by rank (it searched every board within its bound, so a
//! wider one would do no better), IDA* spends the rest of the time raising the proven lower
//! bound, and proves the
//! answer optimal if it finishes (keeping most of the time for IDA* on the 5x5, where it
//! sometimes finishes, measured worse: see `docs/performance.md`). Beam search replaced
//! restarting weighted A* here (measured in `docs/performance.md`): with an estimate that
//! falls short by a third, weighted A* needs a weight that offsets the shortfall and then
//! stores nodes by the million, while a beam only needs the estimate to *rank* boards well.
//!
//! [`bounded`] runs one weighted A* (f = g + w h with w = `F`, every node whose g + h reaches
//! the incumbent pruned), after a narrow beam on boards past the 4x4 whose answer is returned
//! at once when it is within `F` of the lower bound. Alongside the open list ordered by
//! g + w h, the run keeps a second heap ordered by g + h over the same nodes (stale entries
//! skipped when read), so it knows the least f of the nodes open. Beside it, on a thread of its
//! own past the 4x4 (on one core too: neither is known in advance to be the quicker), searches
//! that store little run: beams of growing width shorten the answer, then IDA* raises the lower
//! bound until the answer is within `F` of the bound of the iteration running (a watcher thread
//! compares the two and stops IDA*), or answers optimally itself. The first to finish stops the
//! other; weighted A* filling memory ([`Limits::max_stored`]) leaves IDA* to go on alone.
//!
//! The proven lower bound reported with every answer is the largest of:
//! - the heuristic at the start (admissible);
//! - the bound of IDA*'s last finished iteration;
//! - when a weighted run stops (answer, limit, or nothing left), the least of the incumbent
//!   and the least g + h open: while nodes are reopened when reached more cheaply, some node
//!   of an optimal path is open with its optimal g, unless that path's f reaches the
//!   incumbent;
//! - a weighted run of weight `w` that answers `c` moves proves the optimum at least `c / w`.
//!
//! On two threads or more (a single position's `--threads`), the second thread does what
//! measured best for the board: IDA* beside the beams for the whole time up to 25 cells,
//! where it sometimes proves the answer optimal within the limit; past them, where it never
//! does, the same anytime search from the goal towards the start, ranked by linear conflict
//! towards the start. A beam from the other end finds other paths; the two directions share
//! the shorter answer's length as their bound.
//!
//! A limit other than a cancel that stops [`anytime`] before any answer (a narrow beam on an
//! 8x8 can wander past its depth cap) gets the board solved edge by edge (`construct.rs`, a few
//! milliseconds), labelled [`Method::Constructed`], rather than no answer.
//!
//! Invariants: an answer is only ever replaced by a shorter one; every answer is replayed to
//! the goal before it is returned; `optimal` is claimed only when the lower bound reaches the
//! length, and the `F` of [`bounded`] only when the answer is within `F` of the lower bound.
//!
//! Memory: a beam run keeps a hash per board over all its layers (about 12 bytes each) up to
//! [`Limits::max_stored`] boards ([`BEAM_MAX_KEPT`] when unset); a weighted run stores its
//! nodes (about 250 bytes each on an 8x8 board) up to [`Limits::max_stored`]
//! ([`NEAR_MAX_STORED`] when unset).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::astar::Key;
use super::beam::{BeamRun, Narrowing, beam};
use super::shorten::shorten;
use super::{LimitKind, Limits, Problem, SearchError, Solution, Stats};
use crate::board::{Board, MAX_CELLS};
use crate::heuristic::Heuristic;
use crate::key_map::KeyMap;
use crate::moves::{Dir, Fsm, MoveTable, NONE};

/// Nodes each run may store when [`Limits::max_stored`] is unset: about 1 GB on an 8x8 board.
pub const NEAR_MAX_STORED: usize = 4_000_000;

/// Weights are fixed-point with this many units per move, rounded down (which keeps the bound).
const WEIGHT_ONE: u64 = 1024;

/// An answer with its proven gap.
#[derive(Clone, Debug, PartialEq)]
pub struct NearOptimal {
    /// The path; `optimal` is true only when the lower bound reaches its length.
    pub solution: Solution,
    /// Every solution has at least this many moves.
    pub lower_bound: u32,
    /// [`bounded`]: the factor guaranteed (the answer is at most this times the optimum).
    pub bound: Option<f64>,
}

/// A better answer found by [`anytime`], as the callback receives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Improvement {
    /// The new answer's length.
    pub length: usize,
    /// The proven lower bound at that moment.
    pub lower_bound: u32,
    /// How it was found.
    pub by: Method,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Found by the search from the goal towards the start (on a second thread, past the 5x5).
    pub from_goal: bool,
}

/// Bounded-suboptimal search: an answer at most `within` times the optimal length (with an
/// admissible heuristic), and a proven lower bound. `within` must be finite and at least 1.
/// When weighted A* fills memory, beams and IDA* take over (see the module's doc), so the only
/// limits that end it without an answer are the caller's: time, nodes or cancel.
///
/// ```
/// use fifteen_core::{Board, Limits, LinearConflict, Problem, Size, bounded, replay};
/// let goal = Board::blank_last(Size::S3X3);
/// let start = Board::parse("8 6 7 2 5 4 3 0 1", None).unwrap();
/// let h = LinearConflict::new(&goal);
/// let near = bounded(&Problem::new(start.clone(), goal.clone()).unwrap(), &h, 1.2,
///     &Limits::default()).unwrap();
/// assert!(near.solution.len() as f64 <= 1.2 * 31.0 && near.lower_bound <= 31);
/// assert_eq!(replay(&start, &near.solution.moves).unwrap().0, goal);
/// ```
pub fn bounded<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    within: f64,
    limits: &Limits,
) -> Result<NearOptimal, SearchError> {
    if !within.is_finite() || within < 1.0 {
        return Err(SearchError::NotApplicable(format!(
            "--within needs a finite factor of at least 1, not {within}"
        )));
    }
    if !heuristic.admissible() {
        return Err(SearchError::NotApplicable(format!(
            "--within needs an admissible heuristic, and {} is not",
            heuristic.name()
        )));
    }
    let t0 = Instant::now();
    let mut near = Near::new(problem, heuristic, t0)?;
    let mut quiet = |_: &Improvement| {};
    // Past the 4x4, a narrow beam first: its answer is often within the factor of the lower
    // bound already (where weighted A* of that weight would fill memory), and otherwise it
    // bounds the weighted A* run. Up to the 4x4, weighted A* alone is quicker.
    let mut first = BeamRun::default();
    if problem.start().size().cells() > 16 {
        let cap = near.depth_cap();
        first = beam(problem, heuristic, BOUNDED_BEAM, None, cap, limits, &mut near.stats);
    }
    if let Some(path) = first.found.take() {
        near.offer(path, Method::Beam(BOUNDED_BEAM), limits, &mut quiet);
    }
    let mut last_stop = first.stop;
    if !near.within(within) && first.stop.is_none_or(|k| k == LimitKind::Memory) {
        last_stop = weighted_or_ida(problem, heuristic, within, limits, &mut near)?;
    }
    // The guarantee holds if the answer is within the factor of the proven lower bound.
    if !near.within(within) {
        near.best = None;
    }
    let mut near = near.finish(problem, last_stop)?;
    near.bound = Some(within);
    Ok(near)
}

/// The width of [`bounded`]'s first beam.
const BOUNDED_BEAM: usize = 64;

/// The widest beam [`widen`] runs.
const FALLBACK_MAX_WIDTH: usize = 16_384;

/// How often [`ida_within`]'s watcher compares IDA*'s bound with the answer.
const WATCH_EVERY: Duration = Duration::from_millis(2);

/// [`bounded`] after its first beam, until the answer is within `within` of the lower bound.
/// Weighted A* of weight `within` answers within the factor when it fits in memory (large
/// factors, small or large boards); IDA* with a strong estimate raises the bound past the answer
/// over `within` storing nothing (small factors, the 5x5's databases). Neither is known in
/// advance to be the quicker, so past the 4x4 the two run side by side ([`side_by_side`]), on
/// one core too (a parallel portfolio: at most twice the quicker one's time, where running them
/// in turn lost the iterations each turn cut short: `docs/performance.md`). Up to the 4x4,
/// where weighted A* rarely fills memory and a thread would cost more than the search,
/// weighted A* runs alone first, then beams and IDA* if it filled memory. Returns the limit
/// that stopped it, if one did.
fn weighted_or_ida<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    within: f64,
    limits: &Limits,
    near: &mut Near,
) -> Result<Option<LimitKind>, SearchError> {
    if problem.start().size().cells() > 16 || limits.threads >= 2 {
        return side_by_side(problem, heuristic, within, limits, near);
    }
    let full = limits.max_stored.unwrap_or(NEAR_MAX_STORED).max(1);
    let stop = near.weighted(problem, heuristic, within, full, limits);
    if near.within(within) || stop != Some(LimitKind::Memory) {
        return Ok(stop);
    }
    if let Some(kind) = widen(problem, heuristic, within, limits, near) {
        return Ok(Some(kind));
    }
    ida_within(problem, heuristic, within, limits, near)
}

/// [`weighted_or_ida`] past the 4x4 or on two threads or more: weighted A* with all the memory
/// allowed on this thread, and beside it on a thread of its own beams then IDA* (on
/// [`Limits::threads`] threads: weighted A* often fills memory within seconds and leaves its
/// core to IDA*), their answers shared. The first to bring the answer within `within` of its
/// lower bound stops the other; weighted A* filling memory leaves IDA* to go on alone. Returns
/// the caller's limit that stopped them, if one did.
fn side_by_side<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    within: f64,
    limits: &Limits,
    near: &mut Near,
) -> Result<Option<LimitKind>, SearchError> {
    // Each stops on `stop`: set when the other is done, or when the caller's cancel is (a
    // watcher passes it on). Node limits are shared between the two.
    let stop = Arc::new(AtomicBool::new(false));
    let user_cancel = limits.cancel.clone();
    let called_off = || user_cancel.as_ref().is_some_and(|c| c.load(AtomicOrdering::Relaxed));
    let ours = Limits {
        max_nodes: limits.max_nodes.map(|m| m / 2),
        cancel: Some(Arc::clone(&stop)),
        ..limits.clone()
    };
    let theirs = ours.clone();
    let shared = Arc::new(AtomicU32::new(near.bound()));
    near.shared = Some(Arc::clone(&shared));
    let mut other = near.fork();
    let full = limits.max_stored.unwrap_or(NEAR_MAX_STORED).max(1);
    let (weighted, beside) = pair(
        &stop,
        user_cancel.as_deref(),
        || {
            let weighted = near.weighted(problem, heuristic, within, full, &ours);
            // Weighted A* that filled memory leaves IDA* to go on; otherwise it is done.
            if weighted != Some(LimitKind::Memory) {
                stop.store(true, AtomicOrdering::Relaxed);
            }
            weighted
        },
        || {
            let r = match widen(problem, heuristic, within, &theirs, &mut other) {
                Some(kind) => Ok(Some(kind)),
                None => ida_within(problem, heuristic, within, &theirs, &mut other),
            };
            stop.store(true, AtomicOrdering::Relaxed);
            r
        },
    );
    near.shared = None;
    let beside = match beside {
        Some(r) => Some(r?),
        // No second thread: IDA* here, as on one thread.
        None if weighted == Some(LimitKind::Memory) && !near.within(within) => {
            return ida_within(problem, heuristic, within, limits, near);
        }
        None => None,
    };
    let path = other.best.take();
    near.absorb(&other, path);
    if near.within(within) {
        return Ok(None);
    }
    if called_off() {
        return Ok(Some(LimitKind::Cancelled));
    }
    // A limit of the caller's (time, nodes, memory) stopped the one that did not finish.
    Ok(match (weighted, beside.flatten()) {
        (_, Some(kind)) if kind != LimitKind::Cancelled => Some(kind),
        (Some(kind), _) if kind != LimitKind::Cancelled => Some(kind),
        _ => None,
    })
}

/// Beams of growing width (from 256, four times wider each, up to [`FALLBACK_MAX_WIDTH`] or
/// memory) shortening the answer until it is within `within` of the lower bound; returns the
/// caller's limit if one stopped them.
fn widen<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    within: f64,
    limits: &Limits,
    near: &mut Near,
) -> Option<LimitKind> {
    let mut quiet = |_: &Improvement| {};
    let max_kept = limits.max_stored.map_or(BEAM_MAX_KEPT, |m| m as u64);
    let mut width = 256;
    while width <= FALLBACK_MAX_WIDTH && !near.within(within) {
        let run = near.beam_run(problem, heuristic, width, None, max_kept, limits);
        if let Some(path) = run.found {
            near.offer(path, Method::Beam(width), limits, &mut quiet);
        }
        match run.stop {
            // A run that dropped no board by rank searched every board within the bound: a
            // wider one would do no better.
            None | Some(LimitKind::Depth) if !run.truncated => break,
            None | Some(LimitKind::Depth) => width *= 4,
            Some(LimitKind::Memory) => break,
            Some(kind) => return Some(kind),
        }
    }
    None
}

/// IDA* raising the lower bound, resumed at the bound proven so far, stopped by a watcher as
/// soon as the answer is within `within` of the bound of the iteration running (every shorter
/// path has been searched), or by its own answer (optimal). Returns the limit that stopped it,
/// if one did; the watcher's stop is not one.
fn ida_within<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    within: f64,
    limits: &Limits,
    near: &mut Near,
) -> Result<Option<LimitKind>, SearchError> {
    if near.within(within) || !near.admissible {
        return Ok(None);
    }
    let mut quiet = |_: &Improvement| {};
    // The answer to compare with: this search's, or a shorter one shared by another.
    let own = near.bound();
    let shared = near.shared.clone();
    let best =
        move || own.min(shared.as_ref().map_or(u32::MAX, |s| s.load(AtomicOrdering::Relaxed)));
    // Every shorter path has been searched: resume at the proven bound.
    let from = near.lower;
    let stop = Arc::new(AtomicBool::new(false));
    // A counter of IDA*'s own (a caller's could hold another search's bound until IDA*'s
    // first iteration publishes).
    let progress = Arc::new(super::SearchProgress::new());
    let max_nodes = near.nodes_left(limits);
    let ida_limits = Limits {
        max_nodes,
        cancel: Some(Arc::clone(&stop)),
        progress: Some(Arc::clone(&progress)),
        ..limits.clone()
    };
    let done = AtomicBool::new(false);
    let ida = std::thread::scope(|scope| {
        let watched = watch(scope, &done, &stop, WATCH_EVERY, || {
            let called_off =
                limits.cancel.as_ref().is_some_and(|c| c.load(AtomicOrdering::Relaxed));
            called_off || f64::from(best()) <= within * f64::from(progress.snapshot().bound)
        });
        // No thread for the watcher: IDA* to the end, on the caller's cancel.
        let unwatched = Limits { max_nodes, progress: None, ..limits.clone() };
        let run_limits = if watched { &ida_limits } else { &unwatched };
        let r = super::ida::ida_from(problem, heuristic, run_limits, from);
        done.store(true, AtomicOrdering::Relaxed);
        r
    });
    let called_off = limits.cancel.as_ref().is_some_and(|c| c.load(AtomicOrdering::Relaxed));
    let kind = near.take_ida(ida, limits, &mut quiet)?;
    // The bound of the iteration running when IDA* stopped is proven (0 if it ran unwatched).
    near.lower = near.lower.max(progress.snapshot().bound);
    Ok(match kind {
        Some(LimitKind::Cancelled) if !called_off => None,
        other => other,
    })
}

/// Starts a thread on `scope` that sets `stop` once `trigger` holds, checking every `every`
/// until `done`; false if the system refused the thread.
fn watch<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    done: &'scope AtomicBool,
    stop: &'scope AtomicBool,
    every: Duration,
    trigger: impl Fn() -> bool + Send + 'scope,
) -> bool {
    let watcher = std::thread::Builder::new().spawn_scoped(scope, move || {
        while !done.load(AtomicOrdering::Relaxed) {
            if trigger() {
                stop.store(true, AtomicOrdering::Relaxed);
                return;
            }
            std::thread::sleep(every);
        }
    });
    watcher.is_ok()
}

/// Runs `here` on this thread and `there` on a thread of its own (or nowhere, `None`, if the
/// system refused it), with a watcher that passes `cancel` (the caller's) on to `stop`, which
/// both searches watch. A watcher the system refused leaves the caller's cancel unheard until
/// the searches end on their own (by their deadline, or the other's `stop`).
fn pair<A, B: Send>(
    stop: &AtomicBool,
    cancel: Option<&AtomicBool>,
    here: impl FnOnce() -> A,
    there: impl FnOnce() -> B + Send,
) -> (A, Option<B>) {
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if let Some(cancel) = cancel {
            watch(scope, &done, stop, Duration::from_millis(5), || {
                cancel.load(AtomicOrdering::Relaxed)
            });
        }
        let handle = std::thread::Builder::new().spawn_scoped(scope, there);
        let a = here();
        let b = handle.ok().and_then(|h| h.join().ok());
        done.store(true, AtomicOrdering::Relaxed);
        (a, b)
    })
}

/// Anytime search: answers of falling length until the answer is proven optimal, the time
/// runs out or a limit is reached; `on_improve` hears of each. Returns the best answer, or the
/// limit's error (with a proven lower bound) if none was found.
///
/// Beam runs of growing width (from [`FIRST_WIDTH`], up to 4 times wider each, as wide as the
/// time left allows; once a run takes long enough to time the next by, up to 16 times, and in
/// a search of a second or so a last run that narrows near the deadline: see `next_width`),
/// each answer shortened; then, with an admissible heuristic and time left,
/// IDA* spends the rest raising the proven lower bound (and proves the answer optimal if it
/// finishes). Without a deadline the widths grow until [`MAX_WIDTH`] or memory
/// ([`Limits::max_stored`] boards kept, [`BEAM_MAX_KEPT`] when unset) ends them.
///
/// With a deadline and [`Limits::threads`] of 2 or more: on boards up to 25 cells IDA* runs on
/// the other threads for the whole time, beside the beams (`beside`); on larger boards a second
/// thread runs the same search from the goal towards the start (`both_ways`). `on_improve` then
/// hears from both threads, one at a time, and only of answers shorter than every one before.
pub fn anytime<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    limits: &Limits,
    on_improve: &mut (dyn FnMut(&Improvement) + Send),
) -> Result<NearOptimal, SearchError> {
    let t0 = Instant::now();
    // IDA* and the shortening of each answer need the duplicate-path machines (20 ms to build
    // the short one, a third of a second the long one on the larger boards): they are built
    // meanwhile on a thread of their own, not out of the time limit.
    Fsm::warm_up(problem.start().size().cells());
    let mut near = Near::new(problem, heuristic, t0)?;
    let root_h = near.root_h;
    let result = if limits.threads >= 2
        && limits.deadline.is_some()
        && problem.start().size().cells() > IDA_BESIDE_MAX_CELLS
    {
        both_ways(problem, heuristic, limits, near, on_improve)
    } else if limits.threads >= 2 && limits.deadline.is_some() && near.admissible {
        beside(problem, heuristic, limits, near, on_improve)
    } else {
        one_way(problem, heuristic, limits, &mut near, on_improve)
            .and_then(|last_stop| near.finish(problem, last_stop))
    };
    match result {
        Err(SearchError::LimitReached { kind, lower_bound, stats })
            if kind != LimitKind::Cancelled =>
        {
            constructed(problem, lower_bound, root_h, stats.clone(), t0, on_improve)
                .ok_or(SearchError::LimitReached { kind, lower_bound, stats })
        }
        other => other,
    }
}

/// The answer of an anytime search that a limit (not a cancel) stopped before any answer: the
/// board solved edge by edge (`construct.rs`, milliseconds), its loops cut, labelled as such
/// and with the lower bound the search proved. A limit so short that no beam answered still
/// gets a path, as a person who sets one expects, a little past it.
fn constructed(
    problem: &Problem,
    lower_bound: u32,
    initial_h: u32,
    mut stats: Stats,
    t0: Instant,
    on_improve: &mut (dyn FnMut(&Improvement) + Send),
) -> Option<NearOptimal> {
    let moves = super::construct::solve_by_edges(problem);
    let (end, tiles) = super::replay(problem.start(), &moves)?;
    if &end != problem.goal() {
        return None;
    }
    stats.elapsed = t0.elapsed();
    on_improve(&Improvement {
        length: moves.len(),
        lower_bound,
        by: Method::Constructed,
        elapsed: stats.elapsed,
        from_goal: false,
    });
    let optimal = moves.len() as u32 <= lower_bound;
    let solution = Solution { moves, tiles, optimal, initial_h, stats };
    Some(NearOptimal { solution, lower_bound, bound: None })
}

/// Boards up to this many cells get IDA* beside the beams on a second thread (it sometimes
/// finishes there, on the 5x5); larger ones a beam from the goal (`both_ways`).
const IDA_BESIDE_MAX_CELLS: usize = 25;

/// The single-thread anytime search on `near`: beams of growing width, then, with an admissible
/// heuristic and time left, IDA* raising the lower bound; returns the limit that stopped it.
fn one_way<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    limits: &Limits,
    near: &mut Near,
    on_improve: &mut dyn FnMut(&Improvement),
) -> Result<Option<LimitKind>, SearchError> {
    let last_stop = beams(problem, heuristic, limits, near, on_improve);
    // The rest of the time raises the lower bound.
    if near.admissible
        && !near.proven()
        && limits.deadline.is_some()
        && !matches!(last_stop, Some(LimitKind::Time | LimitKind::Cancelled | LimitKind::Nodes))
    {
        let ida_limits = Limits {
            max_nodes: near.nodes_left(limits),
            threads: 1,
            progress: None,
            ..limits.clone()
        };
        let ida = super::ida(problem, heuristic, &ida_limits);
        return Ok(near.take_ida(ida, limits, on_improve)?.or(last_stop));
    }
    Ok(last_stop)
}

/// [`anytime`] on two threads for boards past [`IDA_BESIDE_MAX_CELLS`]: the search above from
/// the start on the calling thread and, on another, the same search from the goal towards the
/// start, ranked by linear conflict towards the start (a beam from the other end finds other
/// paths: on 7x7 walks the shorter of the two directions was 3.1% shorter than the forward
/// answer, `docs/performance.md`). The two share their incumbent's length, so each run is
/// pruned by the shorter answer, and their reports; the lower bound is the larger of the two
/// IDA* bounds (a distance is the same both ways).
fn both_ways<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    limits: &Limits,
    mut near: Near,
    on_improve: &mut (dyn FnMut(&Improvement) + Send),
) -> Result<NearOptimal, SearchError> {
    let (start, goal) = (problem.start(), problem.goal());
    let back = Problem::new(goal.clone(), start.clone())
        .map_err(|e| SearchError::NotApplicable(format!("internal error: {e}")))?;
    let towards_start = crate::heuristic::LinearConflict::new(start);
    // Node and memory limits are shared between the two. Each stops on `stop`: set when the
    // other proves its answer optimal, or when the caller's cancel is (a watcher passes it on).
    let stop = Arc::new(AtomicBool::new(false));
    let user_cancel = limits.cancel.clone();
    let limits = &Limits {
        max_nodes: limits.max_nodes.map(|m| m / 2),
        max_stored: limits.max_stored.map(|m| m / 2),
        cancel: Some(Arc::clone(&stop)),
        ..limits.clone()
    };
    let mut far = Near::new(&back, &towards_start, near.t0)?;
    let shared = Arc::new(AtomicU32::new(u32::MAX));
    near.shared = Some(Arc::clone(&shared));
    far.shared = Some(Arc::clone(&shared));
    // Reports from both threads, each only if shorter than every one before.
    let reports = Mutex::new((on_improve, usize::MAX));
    let report = |i: &Improvement| {
        if let Ok(mut r) = reports.lock()
            && i.length < r.1
        {
            r.1 = i.length;
            (r.0)(i);
        }
    };
    let (forward, backward) = pair(
        &stop,
        user_cancel.as_deref(),
        || {
            let mut said = |i: &Improvement| report(i);
            let forward = one_way(problem, heuristic, limits, &mut near, &mut said);
            if near.proven() {
                stop.store(true, AtomicOrdering::Relaxed);
            }
            forward
        },
        || {
            let mut said = |i: &Improvement| report(&Improvement { from_goal: true, ..*i });
            let r = one_way(&back, &towards_start, limits, &mut far, &mut said);
            if far.proven() {
                stop.store(true, AtomicOrdering::Relaxed);
            }
            r.map(|stop| (far, stop))
        },
    );
    let mut last_stop = forward?;
    if let Some(Ok((far, stop))) = backward {
        let turned = far.best.as_deref().map(turned_round);
        near.absorb(&far, turned);
        if near.best.is_none() {
            last_stop = last_stop.or(stop);
        }
    }
    near.finish(problem, last_stop)
}

/// [`anytime`] on `limits.threads` threads: IDA* on all but one of them for the whole time,
/// beside the beams on the calling thread (rather than after them, in what time they leave).
/// IDA* raises the lower bound, and when it finishes its answer is optimal and the beams stop.
fn beside<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    limits: &Limits,
    mut near: Near,
    on_improve: &mut dyn FnMut(&Improvement),
) -> Result<NearOptimal, SearchError> {
    // The beams stop on the caller's cancel (seen by IDA*, which passes it on) or on IDA*'s
    // answer. Node limits are split between the two.
    let stop_beams = Arc::new(AtomicBool::new(false));
    let half = limits.max_nodes.map(|m| m / 2);
    let beam_limits =
        Limits { cancel: Some(Arc::clone(&stop_beams)), max_nodes: half, ..limits.clone() };
    let ida_limits =
        Limits { threads: limits.threads - 1, max_nodes: half, progress: None, ..limits.clone() };
    let (beam_stop, ida) = std::thread::scope(|scope| {
        let ida = std::thread::Builder::new().spawn_scoped(scope, || {
            let r = super::ida(problem, heuristic, &ida_limits);
            let interrupted =
                limits.cancel.as_ref().is_some_and(|c| c.load(AtomicOrdering::Relaxed));
            if r.is_ok() || interrupted {
                stop_beams.store(true, AtomicOrdering::Relaxed);
            }
            r
        });
        let beam_stop = beams(problem, heuristic, &beam_limits, &mut near, on_improve);
        // A thread the system refused: IDA* runs after the beams, in the time they left.
        let ida = match ida {
            Ok(handle) => handle.join().unwrap_or_else(|_| {
                Err(SearchError::NotApplicable("internal error: the search thread failed".into()))
            }),
            Err(_) => super::ida(problem, heuristic, &Limits { threads: 1, ..ida_limits.clone() }),
        };
        (beam_stop, ida)
    });
    let ida_stop = near.take_ida(ida, limits, on_improve)?;
    // The caller's cancel reads as such; IDA*'s answer stopping the beams is no limit.
    let last_stop = match ida_stop {
        Some(kind) => Some(kind),
        None if near.proven() => None,
        None => beam_stop,
    };
    near.finish(problem, last_stop)
}

/// A path from the goal to the start played backwards: each move undone, last first, takes
/// the start to the goal.
fn turned_round(path: &[Dir]) -> Vec<Dir> {
    path.iter().rev().map(|d| d.opposite()).collect()
}

/// Beam runs of growing width until the time, a limit, or the widest run that fits ends them;
/// returns the limit that stopped a run, if one did.
fn beams<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    limits: &Limits,
    near: &mut Near,
    on_improve: &mut dyn FnMut(&Improvement),
) -> Option<LimitKind> {
    let max_kept = limits.max_stored.map_or(BEAM_MAX_KEPT, |m| m as u64);
    let mut width = FIRST_WIDTH;
    let mut narrow = None;
    // The first run long enough to time by.
    let mut timed = None;
    loop {
        if near.proven() {
            return None;
        }
        let run_t0 = Instant::now();
        let run = near.beam_run(problem, heuristic, width, narrow, max_kept, limits);
        let took = run_t0.elapsed().as_secs_f64().max(1e-6);
        if let Some(path) = run.found {
            near.offer(path, Method::Beam(width), limits, on_improve);
        }
        if let Some(kind) = run.stop {
            return Some(kind);
        }
        // Every board within the bound was searched: a wider run would search them again (and
        // its tables, sized by the width, cost time of their own), so the time goes to IDA*.
        if !run.truncated {
            return None;
        }
        let left = limits
            .deadline
            .map(|until| until.saturating_duration_since(Instant::now()).as_secs_f64());
        let depth = f64::from(near.bound().min(near.depth_cap()).max(1));
        if took >= MIN_TIMED {
            timed.get_or_insert(width);
        }
        let anchor = H::NEAR_EXACT_AT_GOAL.then(|| timed.unwrap_or(width));
        let next = next_width(width, took, left, depth, max_kept, anchor)?;
        width = next.width;
        // The last run narrows once most of the time left has gone.
        narrow = match (next.last, left) {
            (true, Some(left)) => Some(Narrowing {
                at: Instant::now() + Duration::from_secs_f64(NARROW_AT * left),
                width: width / NARROW_BY,
            }),
            _ => None,
        };
    }
}

/// The next beam run: its width, and whether it is the last, sized to the whole time left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct NextRun {
    width: usize,
    last: bool,
}

/// The beam run after one of `width` boards that took `took` seconds, with `left` seconds to
/// the deadline (`None`: no deadline) and paths of up to `depth` moves, or `None` when no run
/// at least 1.2 times wider fits.
///
/// Up to 4 times wider, and as wide as 60% of the time left allows (a run's time grows with its
/// width). Two ways to a last run sized to the time left, which is wider than the next of a
/// fixed ratio (and a beam's answer shortens with its width):
/// - A run that took at least [`JUMP_AFTER`] times the next well enough to go further: up to 16
///   times wider, as wide as 75% of the time left allows, the time taken to grow as width^1.1
///   (measured on 6x6: 8.9 times wider took 10.8 times longer). A run the deadline cuts is
///   lost, hence the margin.
/// - With an `anchor` (given for a heuristic nearly exact near the goal,
///   [`Heuristic::NEAR_EXACT_AT_GOAL`]: the first run that took [`MIN_TIMED`], or this one), a
///   shorter run, where one twice [`MAX_JUMP`] times wider would not fit in the time left (the
///   searches of a second or so): [`MIN_LAST`] to 16 times wider, as wide as the whole time left
///   allows growing linearly (a run pruned by the answer before it grows more slowly than its
///   width: on the 5x5, 12 times wider took 7.5 times longer), and at most 16 times the anchor
///   (a run timed from a shorter one is misjudged). It is the *last* run: it narrows to an eighth of its width once [`NARROW_AT`]
///   of the time left has gone, so that it answers before the deadline even when it was sized
///   too wide (measured on the 5x5 in `docs/performance.md`).
///
/// The boards kept over `depth` layers must also fit in `max_kept`.
fn next_width(
    width: usize,
    took: f64,
    left: Option<f64>,
    depth: f64,
    max_kept: u64,
    anchor: Option<usize>,
) -> Option<NextRun> {
    let took = took.max(1e-6);
    let mut factor = 4.0f64;
    let mut last = false;
    if let Some(left) = left {
        let fits = left / took;
        factor = if took >= JUMP_AFTER {
            (0.75 * fits).powf(1.0 / 1.1).min(MAX_JUMP)
        } else if let Some(anchor) = anchor
            && (MIN_LAST..=2.0 * MAX_JUMP).contains(&fits)
        {
            last = true;
            fits.min(MAX_JUMP * anchor as f64 / width as f64).max(MIN_LAST)
        } else {
            (0.6 * fits).min(4.0)
        };
    }
    factor = factor.min(max_kept as f64 / (1.25 * depth * width as f64));
    if factor < 1.2 || width >= MAX_WIDTH {
        return None;
    }
    Some(NextRun { width: ((width as f64 * factor) as usize).min(MAX_WIDTH), last })
}

/// The most a run sized to the time left is wider than the one before.
const MAX_JUMP: f64 = 16.0;

/// The least a short run's successor must be wider to be sized as the last (below it, IDA*
/// takes the rest).
const MIN_LAST: f64 = 2.0;

/// A run that took this long is long enough to time the runs after it by: a last run is at most
/// [`MAX_JUMP`] times wider than the first such run.
const MIN_TIMED: f64 = 0.025;

/// The share of the time left after which the last run narrows, and by how much.
const NARROW_AT: f64 = 0.8;
const NARROW_BY: usize = 8;

/// A run that took this many seconds or more times the next well enough to size it to the time
/// left ([`next_width`]).
const JUMP_AFTER: f64 = 0.25;

/// The width of [`anytime`]'s first beam; each next one is up to 4 times wider.
pub const FIRST_WIDTH: usize = 64;

/// The widest beam [`anytime`] runs.
pub const MAX_WIDTH: usize = 1 << 24;

/// A beam run gives up past this many times the start's estimate, plus [`DEPTH_CAP_EXTRA`].
const DEPTH_CAP_FACTOR: u32 = 4;
const DEPTH_CAP_EXTRA: u32 = 64;

/// The depth past which a beam run from a start of estimate `root_h` gives up.
pub(crate) fn depth_cap(root_h: u32) -> u32 {
    root_h.saturating_mul(DEPTH_CAP_FACTOR).saturating_add(DEPTH_CAP_EXTRA)
}

/// Boards a beam run may keep over all its layers when [`Limits::max_stored`] is unset (about
/// 12 bytes each: the hash set and the trail).
pub const BEAM_MAX_KEPT: u64 = 80_000_000;

/// How an answer was found, as [`Improvement`] reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// A beam run of this width.
    Beam(usize),
    /// A weighted A* run of this weight.
    Weighted(f64),
    /// The previous answer, its windows re-solved optimally.
    Shortened,
    /// IDA*: optimal.
    Ida,
    /// No search answered within the limit: the board solved edge by edge, as by hand.
    Constructed,
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Method::Beam(w) => write!(f, "beam of width {w}"),
            Method::Weighted(w) => write!(f, "weighted A* of weight {w}"),
            Method::Shortened => write!(f, "shortened"),
            Method::Ida => write!(f, "IDA*"),
            Method::Constructed => write!(f, "solved edge by edge (no search answered in time)"),
        }
    }
}

/// The state of a near-optimal search: the incumbent, the proven lower bound, the work.
struct Near {
    start: Board,
    t0: Instant,
    admissible: bool,
    root_h: u32,
    lower: u32,
    best: Option<Vec<Dir>>,
    stats: Stats,
    /// The shortest answer's length over the searches that share it (`both_ways`).
    shared: Option<Arc<AtomicU32>>,
}

impl Near {
    fn new<H: Heuristic>(
        problem: &Problem,
        heuristic: &H,
        t0: Instant,
    ) -> Result<Near, SearchError> {
        let size = problem.start().size();
        if heuristic.size() != size {
            return Err(SearchError::NotApplicable(format!(
                "the heuristic is for {} but the board is {size}",
                heuristic.size()
            )));
        }
        let admissible = heuristic.admissible();
        let root_h = heuristic.estimate(problem.start().cells());
        Ok(Near {
            start: problem.start().clone(),
            t0,
            admissible,
            root_h,
            lower: if admissible { root_h } else { 0 },
            best: None,
            stats: Stats { generated: 1, ..Stats::default() },
            shared: None,
        })
    }

    /// A search of the same position sharing this one's answers: the same incumbent and lower
    /// bound, none of its work.
    fn fork(&self) -> Near {
        Near {
            start: self.start.clone(),
            t0: self.t0,
            admissible: self.admissible,
            root_h: self.root_h,
            lower: self.lower,
            best: self.best.clone(),
            stats: Stats::default(),
            shared: self.shared.clone(),
        }
    }

    /// Takes in the work and lower bound of `other`, a search of the same position, and `path`
    /// (its answer, from this search's start) if shorter than the incumbent.
    fn absorb(&mut self, other: &Near, path: Option<Vec<Dir>>) {
        self.add_stats(&other.stats);
        self.lower = self.lower.max(other.lower);
        if let Some(path) = path
            && self.best.as_ref().is_none_or(|b| path.len() < b.len())
        {
            self.best = Some(path);
        }
    }

    /// Whether the incumbent is proven to be at most `factor` times the optimum.
    fn within(&self, factor: f64) -> bool {
        self.admissible
            && self.best.as_ref().is_some_and(|b| b.len() as f64 <= factor * f64::from(self.lower))
    }

    /// One beam run of `width` (narrowing as `narrow` says), pruned by the incumbent, keeping
    /// at most `max_kept` boards; its answer is the caller's to offer.
    fn beam_run<H: Heuristic>(
        &mut self,
        problem: &Problem,
        heuristic: &H,
        width: usize,
        narrow: Option<Narrowing>,
        max_kept: u64,
        limits: &Limits,
    ) -> BeamRun {
        let run_limits = Limits {
            max_nodes: self.nodes_left(limits),
            max_stored: Some(max_kept.min(usize::MAX as u64) as usize),
            ..limits.clone()
        };
        let bound = self.bound().min(self.depth_cap());
        beam(problem, heuristic, width, narrow, bound, &run_limits, &mut self.stats)
    }

    /// One weighted A* run of weight `within` (rounded down, which keeps the guarantee),
    /// pruned by the incumbent, storing at most `stored` nodes: its answer and lower bounds
    /// taken; returns the limit that stopped it, if one did.
    fn weighted<H: Heuristic>(
        &mut self,
        problem: &Problem,
        heuristic: &H,
        within: f64,
        stored: usize,
        limits: &Limits,
    ) -> Option<LimitKind> {
        let fixed = ((within * WEIGHT_ONE as f64).floor() as u64).max(WEIGHT_ONE);
        let run_limits = Limits {
            max_nodes: self.nodes_left(limits),
            max_stored: Some(stored),
            ..limits.clone()
        };
        let n = problem.start().size().cells();
        let bound = self.bound();
        let weighted = if n <= 16 {
            run::<u64, H>(problem, heuristic, fixed, bound, &run_limits, &mut self.stats)
        } else if n <= 25 {
            run::<u128, H>(problem, heuristic, fixed, bound, &run_limits, &mut self.stats)
        } else {
            run::<Box<[u8]>, H>(problem, heuristic, fixed, bound, &run_limits, &mut self.stats)
        };
        if self.admissible {
            self.lower = self.lower.max(weighted.lower_bound);
        }
        if let Some(path) = weighted.found {
            if self.admissible {
                // c <= w * optimum, with w = fixed / WEIGHT_ONE.
                let c = path.len() as u64;
                self.lower = self.lower.max((c * WEIGHT_ONE).div_ceil(fixed) as u32);
            }
            self.offer(path, Method::Weighted(within), limits, &mut |_| {});
        }
        weighted.stop
    }

    /// Whether the incumbent is proven optimal.
    fn proven(&self) -> bool {
        self.best.as_ref().is_some_and(|b| b.len() as u32 <= self.lower)
            || self.shared_len() <= self.lower
    }

    /// The shortest answer of the searches sharing theirs, or `u32::MAX`.
    fn shared_len(&self) -> u32 {
        self.shared.as_ref().map_or(u32::MAX, |s| s.load(AtomicOrdering::Relaxed))
    }

    /// The depth past which a beam run gives up: a narrow beam can wander for ever on a large
    /// board, so a run stops a few times the start's estimate deep and a wider one follows.
    fn depth_cap(&self) -> u32 {
        depth_cap(self.root_h)
    }

    /// Runs look for answers shorter than this.
    fn bound(&self) -> u32 {
        self.best.as_ref().map_or(u32::MAX, |b| b.len() as u32).min(self.shared_len())
    }

    /// What is left of `limits`' node limit after the nodes generated so far.
    fn nodes_left(&self, limits: &Limits) -> Option<u64> {
        limits.max_nodes.map(|m| m.saturating_sub(self.stats.generated))
    }

    fn add_stats(&mut self, s: &Stats) {
        self.stats.generated += s.generated;
        self.stats.expanded += s.expanded;
    }

    /// Takes what an IDA* run came to: its answer (optimal) or the bound it proved; returns
    /// the limit that stopped it, if one did.
    fn take_ida(
        &mut self,
        ida: Result<Solution, SearchError>,
        limits: &Limits,
        on_improve: &mut dyn FnMut(&Improvement),
    ) -> Result<Option<LimitKind>, SearchError> {
        match ida {
            Ok(sol) => {
                self.add_stats(&sol.stats);
                self.lower = self.lower.max(sol.len() as u32);
                self.offer(sol.moves, Method::Ida, limits, on_improve);
                Ok(None)
            }
            Err(SearchError::LimitReached { kind, lower_bound, stats }) => {
                self.add_stats(&stats);
                self.lower = self.lower.max(lower_bound);
                Ok(Some(kind))
            }
            Err(e) => Err(e),
        }
    }

    /// Takes `path` if it is shorter than the incumbent, then its shortening.
    fn offer(
        &mut self,
        path: Vec<Dir>,
        method: Method,
        limits: &Limits,
        on_improve: &mut dyn FnMut(&Improvement),
    ) {
        if self.best.as_ref().is_some_and(|b| path.len() >= b.len()) {
            return;
        }
        self.take(path, method, on_improve);
        if self.proven() {
            return;
        }
        let Some(path) = &self.best else { return };
        let shorter = shorten(&self.start, path, limits, &mut self.stats);
        if shorter.len() < path.len() {
            self.take(shorter, Method::Shortened, on_improve);
        }
    }

    fn take(&mut self, path: Vec<Dir>, method: Method, on_improve: &mut dyn FnMut(&Improvement)) {
        on_improve(&Improvement {
            length: path.len(),
            lower_bound: self.lower,
            by: method,
            elapsed: self.t0.elapsed(),
            from_goal: false,
        });
        if let Some(s) = &self.shared {
            s.fetch_min(path.len() as u32, AtomicOrdering::Relaxed);
        }
        self.best = Some(path);
    }

    fn finish(
        mut self,
        problem: &Problem,
        last_stop: Option<LimitKind>,
    ) -> Result<NearOptimal, SearchError> {
        self.stats.elapsed = self.t0.elapsed();
        let Some(moves) = self.best else {
            return Err(SearchError::LimitReached {
                kind: last_stop.unwrap_or(LimitKind::Memory),
                lower_bound: self.lower,
                stats: self.stats,
            });
        };
        let (end, tiles) = super::replay(problem.start(), &moves)
            .ok_or_else(|| SearchError::NotApplicable("internal error: bad path".into()))?;
        if &end != problem.goal() {
            return Err(SearchError::NotApplicable(
                "internal error: the path misses the goal".into(),
            ));
        }
        let optimal = self.admissible && moves.len() as u32 <= self.lower;
        let solution =
            Solution { moves, tiles, optimal, initial_h: self.root_h, stats: self.stats };
        Ok(NearOptimal { solution, lower_bound: self.lower, bound: None })
    }
}

/// What one run came to.
struct Run {
    /// A path to the goal shorter than the run's bound.
    found: Option<Vec<Dir>>,
    /// Every solution shorter than the bound has at least this many moves (the bound itself if
    /// there is none).
    lower_bound: u32,
    /// The limit that ended the run, if one did.
    stop: Option<LimitKind>,
}

/// A stored node.
struct Node<K, S> {
    key: K,
    state: S,
    parent: u32,
    g: u32,
    h: u32,
    dir: u8,
    closed: bool,
}

/// A heap entry: `key` is g + w h (fixed point) in the open list and g + h in the bound heap.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Entry {
    key: u64,
    g: u32,
    node: u32,
}

impl Ord for Entry {
    /// The least key first, then the deepest, then the newest (deterministic order).
    fn cmp(&self, other: &Entry) -> Ordering {
        other.key.cmp(&self.key).then(self.g.cmp(&other.g)).then(self.node.cmp(&other.node))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Entry) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

const ROOT: u32 = u32::MAX;
const NO_DIR: u8 = 4;

/// One weighted A* run of weight `fixed / WEIGHT_ONE`, pruning nodes with g + h >= `bound`.
fn run<K: Key, H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    fixed: u64,
    bound: u32,
    limits: &Limits,
    stats: &mut Stats,
) -> Run {
    let start = problem.start();
    let n = start.size().cells();
    let table = MoveTable::new(start.size());
    let max_stored = limits.max_stored.unwrap_or(NEAR_MAX_STORED).min(ROOT as usize - 1).max(1);
    let goal_key = K::pack(problem.goal().cells());
    let mut root_state = heuristic.init(start.cells());
    let root_h = heuristic.resolve(&mut root_state);
    let priority = |g: u32, h: u32| u64::from(g) * WEIGHT_ONE + fixed.saturating_mul(u64::from(h));
    let mut index = KeyMap::<K>::default();
    let root_key = K::pack(start.cells());
    index.insert(root_key.clone(), 0);
    let mut nodes = vec![Node {
        key: root_key,
        state: root_state,
        parent: ROOT,
        g: 0,
        h: root_h,
        dir: NO_DIR,
        closed: false,
    }];
    let mut open = BinaryHeap::new();
    let mut by_f = BinaryHeap::new();
    if root_h < bound {
        open.push(Entry { key: priority(0, root_h), g: 0, node: 0 });
        by_f.push(Entry { key: u64::from(root_h), g: 0, node: 0 });
    }
    let mut cells = [0u8; MAX_CELLS];

    // The least g + h open (stale entries dropped), capped by the bound; `extra` is an f that
    // counts as open too (a node whose expansion a limit cut short).
    let least_open = |by_f: &mut BinaryHeap<Entry>, nodes: &[Node<K, H::State>], extra: u32| {
        while let Some(e) = by_f.peek() {
            let node = &nodes[e.node as usize];
            if node.closed || node.g != e.g {
                by_f.pop();
            } else {
                break;
            }
        }
        let least = by_f.peek().map_or(u32::MAX, |e| e.key.min(u64::from(u32::MAX)) as u32);
        least.min(extra).min(bound)
    };

    while let Some(current) = open.pop() {
        let (g, h, closed) = {
            let node = &nodes[current.node as usize];
            (node.g, node.h, node.closed)
        };
        if closed || g != current.g || g + h >= bound {
            continue;
        }
        if nodes[current.node as usize].key == goal_key {
            let lower_bound = least_open(&mut by_f, &nodes, g);
            let mut moves = Vec::with_capacity(g as usize);
            let mut at = current.node;
            while let Some(node) = nodes.get(at as usize)
                && node.parent != ROOT
            {
                moves.push(Dir::ALL[(node.dir & 3) as usize]);
                at = node.parent;
            }
            moves.reverse();
            return Run { found: Some(moves), lower_bound, stop: None };
        }
        nodes[current.node as usize].closed = true;
        stats.expanded += 1;
        nodes[current.node as usize].key.unpack(&mut cells[..n]);
        let (state, back) =
            (nodes[current.node as usize].state, nodes[current.node as usize].dir ^ 3);
        let blank = cells[..n].iter().position(|&t| t == 0).unwrap_or(0);
        for (d, &to) in table.of(blank).iter().enumerate() {
            if to == NONE || d as u8 == back {
                continue;
            }
            let to = to as usize;
            let tile = cells[to];
            cells[blank] = tile;
            cells[to] = 0;
            let key = K::pack(&cells[..n]);
            let child_g = g + 1;
            let existing = index.get(&key).copied();
            if existing.is_some_and(|old| nodes[old as usize].g <= child_g) {
                cells[to] = tile;
                cells[blank] = 0;
                continue;
            }
            stats.generated += 1;
            let stop = limits.check(stats.generated).or_else(|| {
                (existing.is_none() && nodes.len() >= max_stored).then_some(LimitKind::Memory)
            });
            if let Some(kind) = stop {
                // The node being expanded counts as open: its children are not all stored.
                let lower_bound = least_open(&mut by_f, &nodes, g + h);
                return Run { found: None, lower_bound, stop: Some(kind) };
            }
            let (child, child_h) = match existing {
                Some(old) => {
                    let node = &mut nodes[old as usize];
                    node.g = child_g;
                    node.parent = current.node;
                    node.dir = d as u8;
                    node.closed = false;
                    (old, node.h)
                }
                None => {
                    let mut child_state = heuristic.step(&state, &cells[..n], tile, to, blank);
                    let child_h = heuristic.resolve(&mut child_state);
                    if child_g + child_h >= bound {
                        cells[to] = tile;
                        cells[blank] = 0;
                        continue;
                    }
                    let id = nodes.len() as u32;
                    index.insert(key.clone(), id);
                    nodes.push(Node {
                        key,
                        state: child_state,
                        parent: current.node,
                        g: child_g,
                        h: child_h,
                        dir: d as u8,
                        closed: false,
                    });
                    (id, child_h)
                }
            };
            cells[to] = tile;
            cells[blank] = 0;
            if child_g + child_h < bound {
                open.push(Entry { key: priority(child_g, child_h), g: child_g, node: child });
                by_f.push(Entry { key: u64::from(child_g + child_h), g: child_g, node: child });
            }
        }
    }
    // Nothing open below the bound: no solution shorter than it.
    Run { found: None, lower_bound: bound, stop: None }
}

#[cfg(test)]
mod tests;
