//! Near-optimal answers with a proven gap: bounded-suboptimal search ([`bounded`], at most `F`
//! times the optimum) and anytime search ([`anytime`], better answers until a limit).
//!
//! Both run *restarting weighted A\**: a series of weighted A* searches (f = g + w h) with
//! falling weights, each pruning every node whose g + h reaches the best length found so far
//! (the *incumbent*), so that a later run can only find something shorter. Each answer is then
//! shortened by [`shorten`](super::shorten): windows of the path re-solved optimally by IDA*.
//!
//! Alongside the open list ordered by g + w h, each run keeps a second heap ordered by g + h
//! over the same nodes (stale entries skipped when read), so it knows the least f of the nodes
//! open. Three facts give the proven lower bound reported with every answer:
//! - the heuristic at the start (admissible);
//! - when a run stops (answer, limit, or nothing left), the least of the incumbent and the
//!   least g + h open: while nodes are reopened when reached more cheaply, some node of an
//!   optimal path is open with its optimal g, unless that path's f reaches the incumbent;
//! - a run of weight `w` that answers `c` moves proves the optimum at least `c / w` (weighted
//!   A* with an admissible heuristic and reopening finds at most `w` times the optimum; the
//!   pruning removes only nodes that cannot lead below the incumbent, and a run answers only
//!   below it, so the optimum is below it too).
//!
//! [`bounded`] runs one weight, `F`, so its first answer is within `F` of the optimum; its
//! shortened answer is no longer. [`anytime`] runs [`ANYTIME_WEIGHTS`] and reports each new
//! incumbent through a callback (no I/O here); it stops when the answer is proven optimal, the
//! weights are spent, or a limit ends it, and returns the incumbent if there is one.
//!
//! Memory: every run stores its nodes (about 250 bytes each on an 8x8 board) up to
//! [`Limits::max_stored`] ([`NEAR_MAX_STORED`] when unset); a run that fills it ends, and the
//! runs after it (smaller weights, more nodes) are skipped.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

use super::astar::{Key, KeyMap};
use super::shorten::shorten;
use super::{LimitKind, Limits, Problem, SearchError, Solution, Stats};
use crate::board::MAX_CELLS;
use crate::heuristic::Heuristic;
use crate::moves::{Dir, MoveTable, NONE};

/// Nodes each run may store when [`Limits::max_stored`] is unset: about 1 GB on an 8x8 board.
pub const NEAR_MAX_STORED: usize = 4_000_000;

/// The weights [`anytime`] runs, in order. Measured on 6x6 to 8x8 boards (see
/// `docs/performance.md`): the first answers within a fraction of a second, and each later
/// one usually shortens the answer while memory lasts.
pub const ANYTIME_WEIGHTS: [f64; 11] = [10.0, 5.0, 3.0, 2.0, 1.6, 1.4, 1.25, 1.15, 1.1, 1.05, 1.0];

/// The greediest weight [`anytime`] tries when runs run out of memory before any answer.
const MAX_WEIGHT: f64 = 400.0;

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
    /// The weight of the run that found it.
    pub weight: f64,
    /// Time since the search started.
    pub elapsed: Duration,
}

/// Bounded-suboptimal search: an answer at most `within` times the optimal length (with an
/// admissible heuristic), and a proven lower bound. `within` must be finite and at least 1.
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
    let mut near = drive(problem, heuristic, &[within], false, limits, &mut |_| {})?;
    near.bound = Some(within);
    Ok(near)
}

/// Anytime search: answers of falling length until the answer is proven optimal, the weights
/// ([`ANYTIME_WEIGHTS`]) are spent or a limit is reached; `on_improve` hears of each. Returns
/// the best answer, or the limit's error (with a proven lower bound) if none was found.
pub fn anytime<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    limits: &Limits,
    on_improve: &mut dyn FnMut(&Improvement),
) -> Result<NearOptimal, SearchError> {
    drive(problem, heuristic, &ANYTIME_WEIGHTS, true, limits, on_improve)
}

/// The runs, one per weight, and the shortening of each answer; with `retry`, a run out of
/// memory before the first answer is followed by a greedier one.
fn drive<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    weights: &[f64],
    retry: bool,
    limits: &Limits,
    on_improve: &mut dyn FnMut(&Improvement),
) -> Result<NearOptimal, SearchError> {
    let t0 = Instant::now();
    let size = problem.start().size();
    if heuristic.size() != size {
        return Err(SearchError::NotApplicable(format!(
            "the heuristic is for {} but the board is {size}",
            heuristic.size()
        )));
    }
    let admissible = heuristic.admissible();
    let root_h = heuristic.estimate(problem.start().cells());
    let mut lower = if admissible { root_h } else { 0 };
    let mut stats = Stats { generated: 1, ..Stats::default() };
    let mut best: Option<Vec<Dir>> = None;
    let mut last_stop = None;
    let mut queue: Vec<f64> = weights.iter().rev().copied().collect();
    while let Some(w) = queue.pop() {
        if best.as_ref().is_some_and(|b| b.len() as u32 <= lower) {
            break;
        }
        let fixed = ((w * WEIGHT_ONE as f64).floor() as u64).max(WEIGHT_ONE);
        let bound = best.as_ref().map_or(u32::MAX, |b| b.len() as u32);
        let run_limits = Limits {
            max_nodes: limits.max_nodes.map(|m| m.saturating_sub(stats.generated)),
            ..limits.clone()
        };
        let n = size.cells();
        let run = if n <= 16 {
            run::<u64, H>(problem, heuristic, fixed, bound, &run_limits, &mut stats)
        } else if n <= 25 {
            run::<u128, H>(problem, heuristic, fixed, bound, &run_limits, &mut stats)
        } else {
            run::<Box<[u8]>, H>(problem, heuristic, fixed, bound, &run_limits, &mut stats)
        };
        if admissible {
            lower = lower.max(run.lower_bound);
        }
        if let Some(path) = run.found {
            if admissible {
                // c <= w * optimum, with w = fixed / WEIGHT_ONE.
                let c = path.len() as u64;
                lower = lower.max((c * WEIGHT_ONE).div_ceil(fixed) as u32);
            }
            // The run's answer first (so that a limit during the shortening keeps it), then
            // its shortening; a path as long as the lower bound is optimal already.
            for shortened in [false, true] {
                let path = if !shortened {
                    path.clone()
                } else if path.len() as u32 <= lower {
                    break;
                } else {
                    shorten(problem.start(), &path, limits, &mut stats)
                };
                if best.as_ref().is_none_or(|b| path.len() < b.len()) {
                    on_improve(&Improvement {
                        length: path.len(),
                        lower_bound: lower,
                        weight: w,
                        elapsed: t0.elapsed(),
                    });
                    best = Some(path);
                }
            }
        }
        if let Some(kind) = run.stop {
            last_stop = Some(kind);
            // A limit of time, nodes or cancellation ends every run; memory ends this weight's
            // and the smaller ones' (which store more). Without an answer yet, a greedier run
            // (twice the weight, up to `MAX_WEIGHT`) tries again: it stores fewer nodes.
            if kind == LimitKind::Memory && best.is_none() && retry && w * 2.0 <= MAX_WEIGHT {
                queue.clear();
                queue.push(w * 2.0);
                continue;
            }
            break;
        }
    }
    stats.elapsed = t0.elapsed();
    let Some(moves) = best else {
        return Err(SearchError::LimitReached {
            kind: last_stop.unwrap_or(LimitKind::Memory),
            lower_bound: lower,
            stats,
        });
    };
    let (end, tiles) = super::replay(problem.start(), &moves)
        .ok_or_else(|| SearchError::NotApplicable("internal error: bad path".into()))?;
    if &end != problem.goal() {
        return Err(SearchError::NotApplicable("internal error: the path misses the goal".into()));
    }
    let optimal = admissible && moves.len() as u32 <= lower;
    let solution = Solution { moves, tiles, optimal, initial_h: root_h, stats };
    Ok(NearOptimal { solution, lower_bound: lower, bound: None })
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
