//! A* and its relatives (greedy best-first, weighted A*): best-first searches with a closed set.
//!
//! All of them, and breadth-first search (`bfs.rs`), run one core, [`best_first`], that differs
//! only in a node's priority ([`Mode`]) and in the open list (a binary heap, or a FIFO queue for
//! BFS). Nodes live in one `Vec` arena (parent index and move, so the path can be rebuilt); a hash
//! map from the packed board ([`Key`]) to the arena index is the closed set. The number of stored
//! nodes is capped by [`Limits::max_stored`], so a hard instance ends with a clear
//! [`LimitKind::Memory`] error instead of an out-of-memory kill.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::hash::Hash;
use std::time::Instant;

use super::{LimitKind, Limits, Problem, SearchError, Solution, Stats};
use crate::board::MAX_CELLS;
use crate::heuristic::Heuristic;
use crate::key_map::KeyMap;
use crate::moves::{Dir, MoveTable, NONE};

/// Nodes kept in memory when [`Limits::max_stored`] is `None`: a few GB at most for the 4x4.
pub(super) const DEFAULT_MAX_STORED: usize = 20_000_000;

/// Weighted A* priorities are fixed-point with this many units per move, so the heap compares
/// integers; the weight is rounded down, which keeps the `w` bound.
const WEIGHT_ONE: u64 = 1024;

/// Solves `problem` with A*: optimal if `heuristic` is admissible. Memory grows with the nodes
/// stored, up to [`Limits::max_stored`] (20,000,000 when `None`).
///
/// Among nodes of equal f, the deepest is expanded first: it is the closest to a goal.
///
/// ```
/// use fifteen_core::{Board, Limits, LinearConflict, Problem, Size, astar};
/// let goal = Board::blank_last(Size::S3X3);
/// let start = Board::parse("1 0 2 4 6 3 7 5 8", None).unwrap();
/// let h = LinearConflict::new(&goal);
/// let sol = astar(&Problem::new(start, goal).unwrap(), &h, &Limits::default()).unwrap();
/// assert_eq!(sol.len(), 5);
/// assert!(sol.optimal);
/// ```
pub fn astar<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    limits: &Limits,
) -> Result<Solution, SearchError> {
    best_first(problem, heuristic, Mode::AStar, limits)
}

/// Greedy best-first search: always expands the node with the smallest heuristic value. Usually
/// fast, never proven optimal (`optimal` is `false`).
///
/// ```
/// use fifteen_core::{Board, Limits, Manhattan, Problem, Size, greedy, replay};
/// let goal = Board::blank_last(Size::S3X3);
/// let start = Board::parse("8 6 7 2 5 4 3 0 1", None).unwrap();
/// let h = Manhattan::new(&goal);
/// let sol = greedy(&Problem::new(start.clone(), goal.clone()).unwrap(), &h, &Limits::default())
///     .unwrap();
/// assert_eq!(replay(&start, &sol.moves).unwrap().0, goal);
/// assert!(!sol.optimal);
/// ```
pub fn greedy<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    limits: &Limits,
) -> Result<Solution, SearchError> {
    best_first(problem, heuristic, Mode::Greedy, limits)
}

/// Weighted A*: expands by `g + weight * h`. With an admissible heuristic the answer is at most
/// `weight` times the optimum; it is proven optimal only when `weight` is exactly 1.
///
/// A `weight` below 1, infinite or NaN is rejected with [`SearchError::NotApplicable`].
///
/// ```
/// use fifteen_core::{Board, Limits, LinearConflict, Problem, Size, weighted_astar};
/// let goal = Board::blank_last(Size::S3X3);
/// let start = Board::parse("8 6 7 2 5 4 3 0 1", None).unwrap();
/// let p = Problem::new(start, goal.clone()).unwrap();
/// let h = LinearConflict::new(&goal);
/// let sol = weighted_astar(&p, &h, 1.5, &Limits::default()).unwrap();
/// assert!(sol.len() as f64 <= 1.5 * 31.0);
/// assert!(weighted_astar(&p, &h, 0.5, &Limits::default()).is_err());
/// ```
pub fn weighted_astar<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    weight: f64,
    limits: &Limits,
) -> Result<Solution, SearchError> {
    if !weight.is_finite() || weight < 1.0 {
        return Err(SearchError::NotApplicable(format!(
            "weighted A* needs a finite weight of at least 1, not {weight}"
        )));
    }
    // `as` saturates, so a huge weight becomes a huge (greedy-like) factor, not a panic.
    let fixed = (weight * WEIGHT_ONE as f64).floor() as u64;
    let mut solution = best_first(problem, heuristic, Mode::Weighted(fixed), limits)?;
    solution.optimal = heuristic.admissible() && weight == 1.0;
    Ok(solution)
}

/// What orders the open list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// f = g + h.
    AStar,
    /// h alone.
    Greedy,
    /// g + w h in units of 1 / [`WEIGHT_ONE`]; the field is `w * WEIGHT_ONE`.
    Weighted(u64),
    /// g alone, FIFO, goal tested when generated.
    Bfs,
}

impl Mode {
    #[inline(always)]
    fn priority(self, g: u32, h: u32) -> u64 {
        let (g, h) = (g as u64, h as u64);
        match self {
            Mode::AStar => g + h,
            Mode::Greedy => h,
            Mode::Weighted(w) => (g * WEIGHT_ONE).saturating_add(w.saturating_mul(h)),
            Mode::Bfs => g,
        }
    }

    /// Whether a shorter path to a stored node updates it and queues it again. A* and weighted
    /// A* need this for heuristics that are admissible but not consistent; greedy ignores g, and
    /// BFS always reaches a node first by a shortest path.
    #[inline(always)]
    fn reopens(self) -> bool {
        matches!(self, Mode::AStar | Mode::Weighted(_))
    }
}

/// A board packed into a hash-map key.
pub(super) trait Key: Clone + Eq + Hash {
    /// The key of `cells`.
    fn pack(cells: &[u8]) -> Self;
    /// Writes the cells back into `out` (`out.len()` is the board's cell count).
    fn unpack(&self, out: &mut [u8]);
}

/// Up to 16 cells, 4 bits each.
impl Key for u64 {
    #[inline(always)]
    fn pack(cells: &[u8]) -> u64 {
        cells.iter().rev().fold(0, |k, &t| (k << 4) | (t & 0xF) as u64)
    }

    #[inline(always)]
    fn unpack(&self, out: &mut [u8]) {
        for (i, c) in out.iter_mut().enumerate() {
            *c = (self >> (4 * i)) as u8 & 0xF;
        }
    }
}

/// Up to 25 cells, 5 bits each.
impl Key for u128 {
    #[inline(always)]
    fn pack(cells: &[u8]) -> u128 {
        cells.iter().rev().fold(0, |k, &t| (k << 5) | (t & 0x1F) as u128)
    }

    #[inline(always)]
    fn unpack(&self, out: &mut [u8]) {
        for (i, c) in out.iter_mut().enumerate() {
            *c = (self >> (5 * i)) as u8 & 0x1F;
        }
    }
}

/// Larger boards: the cells themselves.
impl Key for Box<[u8]> {
    fn pack(cells: &[u8]) -> Box<[u8]> {
        cells.into()
    }

    fn unpack(&self, out: &mut [u8]) {
        for (o, &c) in out.iter_mut().zip(self.iter()) {
            *o = c;
        }
    }
}

/// Parent of the root.
const ROOT: u32 = u32::MAX;
/// Move into the root; `NO_DIR ^ 3` is no direction either.
const NO_DIR: u8 = 4;

/// A stored node: the board, the heuristic's state, and how it was reached.
struct Node<K, S> {
    key: K,
    state: S,
    parent: u32,
    g: u32,
    dir: u8,
}

/// An open-list entry. `g` tells a stale entry (the node has since been reached more cheaply)
/// from the current one.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Open {
    priority: u64,
    g: u32,
    node: u32,
}

impl Ord for Open {
    /// `BinaryHeap` pops the greatest: the smallest priority, then the deepest node (closest to
    /// a goal among equals), then the newest, so the order is deterministic.
    fn cmp(&self, other: &Open) -> Ordering {
        other
            .priority
            .cmp(&self.priority)
            .then(self.g.cmp(&other.g))
            .then(self.node.cmp(&other.node))
    }
}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Open) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The open list: a priority queue for the best-first modes, a FIFO queue for BFS.
trait OpenList: Default {
    fn push(&mut self, entry: Open);
    fn pop(&mut self) -> Option<Open>;
    /// The smallest priority waiting, if any.
    fn min_priority(&self) -> Option<u64>;
}

impl OpenList for BinaryHeap<Open> {
    #[inline(always)]
    fn push(&mut self, entry: Open) {
        BinaryHeap::push(self, entry);
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<Open> {
        BinaryHeap::pop(self)
    }

    fn min_priority(&self) -> Option<u64> {
        self.peek().map(|e| e.priority)
    }
}

impl OpenList for VecDeque<Open> {
    #[inline(always)]
    fn push(&mut self, entry: Open) {
        self.push_back(entry);
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<Open> {
        self.pop_front()
    }

    fn min_priority(&self) -> Option<u64> {
        self.front().map(|e| e.priority)
    }
}

/// The shared core: checks the heuristic's size, then picks the key type for the board and the
/// open list for `mode`. `Solution::optimal` is set for A* and BFS; callers adjust it for the
/// others.
pub(super) fn best_first<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    mode: Mode,
    limits: &Limits,
) -> Result<Solution, SearchError> {
    let size = problem.start().size();
    if heuristic.size() != size {
        return Err(SearchError::NotApplicable(format!(
            "the heuristic is for {} but the board is {size}",
            heuristic.size()
        )));
    }
    let n = size.cells();
    match (n, mode) {
        (..=16, Mode::Bfs) => search::<u64, H, VecDeque<Open>>(problem, heuristic, mode, limits),
        (..=16, _) => search::<u64, H, BinaryHeap<Open>>(problem, heuristic, mode, limits),
        (..=25, Mode::Bfs) => search::<u128, H, VecDeque<Open>>(problem, heuristic, mode, limits),
        (..=25, _) => search::<u128, H, BinaryHeap<Open>>(problem, heuristic, mode, limits),
        (_, Mode::Bfs) => search::<Box<[u8]>, H, VecDeque<Open>>(problem, heuristic, mode, limits),
        (_, _) => search::<Box<[u8]>, H, BinaryHeap<Open>>(problem, heuristic, mode, limits),
    }
}

fn search<K: Key, H: Heuristic, O: OpenList>(
    problem: &Problem,
    heuristic: &H,
    mode: Mode,
    limits: &Limits,
) -> Result<Solution, SearchError> {
    let t0 = Instant::now();
    let start = problem.start();
    let size = start.size();
    let n = size.cells();
    let table = MoveTable::new(size);
    // Arena indices are u32 and `ROOT` is taken.
    let max_stored = limits.max_stored.unwrap_or(DEFAULT_MAX_STORED).min(ROOT as usize);
    let goal_key = K::pack(problem.goal().cells());
    let mut root_state = heuristic.init(start.cells());
    let root_h = heuristic.resolve(&mut root_state);
    let admissible = heuristic.admissible();
    let mut stats = Stats { generated: 1, ..Stats::default() };

    // Every solution is at least this long when the search stops while expanding `current`.
    let lower_bound = |current: Open, open: &O| -> u32 {
        match mode {
            Mode::Bfs => current.g + 1,
            _ if !admissible => 0,
            // With an admissible heuristic some node of an optimal path is open (or being
            // expanded) with f at most the optimum; stale entries only lower the minimum.
            Mode::AStar => {
                let least =
                    open.min_priority().map_or(current.priority, |p| p.min(current.priority));
                root_h.max(least.min(u32::MAX as u64) as u32)
            }
            Mode::Greedy | Mode::Weighted(_) => root_h,
        }
    };
    let stop = |kind: LimitKind, lower_bound: u32, mut stats: Stats| {
        stats.elapsed = t0.elapsed();
        Err(SearchError::LimitReached { kind, lower_bound, stats })
    };

    if max_stored == 0 {
        return stop(LimitKind::Memory, if admissible { root_h } else { 0 }, stats);
    }
    let root_key = K::pack(start.cells());
    let mut index = KeyMap::<K>::default();
    index.insert(root_key.clone(), 0);
    let mut nodes =
        vec![Node { key: root_key, state: root_state, parent: ROOT, g: 0, dir: NO_DIR }];
    let mut open = O::default();
    let root_entry = Open { priority: mode.priority(0, root_h), g: 0, node: 0 };
    open.push(root_entry);
    let mut cells = [0u8; MAX_CELLS];

    let found: u32 = 'search: {
        // BFS tests children as they are generated, so the root needs its own test.
        if mode == Mode::Bfs && nodes[0].key == goal_key {
            break 'search 0;
        }
        while let Some(current) = open.pop() {
            let Some(node) = nodes.get(current.node as usize) else { continue };
            if current.g != node.g {
                // Stale: the node was reached more cheaply after this entry was queued.
                continue;
            }
            if mode != Mode::Bfs && node.key == goal_key {
                break 'search current.node;
            }
            stats.expanded += 1;
            node.key.unpack(&mut cells[..n]);
            let (state, g, back) = (node.state, node.g, node.dir ^ 3);
            let blank = cells[..n].iter().position(|&t| t == 0).unwrap_or(0);
            for (d, &to) in table.of(blank).iter().enumerate() {
                // The parent is stored with a smaller g, so the reverse move is always a dead
                // duplicate: skip it before hashing.
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
                if let Some(old) = existing
                    && (!mode.reopens() || nodes[old as usize].g <= child_g)
                {
                    cells[to] = tile;
                    cells[blank] = 0;
                    continue;
                }
                stats.generated += 1;
                if let Some(kind) = limits.check(stats.generated) {
                    return stop(kind, lower_bound(current, &open), stats);
                }
                let (child, child_h) = match existing {
                    Some(old) => {
                        // Reopen: same board, so the stored heuristic state still holds.
                        let node = &mut nodes[old as usize];
                        node.g = child_g;
                        node.parent = current.node;
                        node.dir = d as u8;
                        (old, heuristic.h(&node.state))
                    }
                    None => {
                        if nodes.len() >= max_stored {
                            return stop(LimitKind::Memory, lower_bound(current, &open), stats);
                        }
                        let mut child_state = heuristic.step(&state, &cells[..n], tile, to, blank);
                        heuristic.resolve(&mut child_state);
                        let id = nodes.len() as u32;
                        let is_goal = mode == Mode::Bfs && key == goal_key;
                        index.insert(key.clone(), id);
                        nodes.push(Node {
                            key,
                            state: child_state,
                            parent: current.node,
                            g: child_g,
                            dir: d as u8,
                        });
                        if is_goal {
                            break 'search id;
                        }
                        (id, heuristic.h(&child_state))
                    }
                };
                cells[to] = tile;
                cells[blank] = 0;
                open.push(Open {
                    priority: mode.priority(child_g, child_h),
                    g: child_g,
                    node: child,
                });
            }
        }
        return Err(SearchError::NotApplicable("the search space was exhausted".into()));
    };

    stats.elapsed = t0.elapsed();
    let mut moves = Vec::new();
    let mut at = found;
    while let Some(node) = nodes.get(at as usize)
        && node.parent != ROOT
    {
        moves.push(Dir::ALL[(node.dir & 3) as usize]);
        at = node.parent;
    }
    moves.reverse();
    let (end, tiles) = super::replay(start, &moves)
        .ok_or_else(|| SearchError::NotApplicable("internal error: bad path".into()))?;
    if &end != problem.goal() {
        return Err(SearchError::NotApplicable("internal error: the path misses the goal".into()));
    }
    let optimal = match mode {
        Mode::AStar => admissible,
        Mode::Bfs => true,
        Mode::Greedy | Mode::Weighted(_) => false,
    };
    Ok(Solution { moves, tiles, optimal, initial_h: root_h, stats })
}
