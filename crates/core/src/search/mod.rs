//! Searches: IDA* (the default), and the classic alternatives that the write-ups compare it with.
//!
//! Architecture invariant: nothing here does I/O. A search takes a [`Problem`] (a valid,
//! solvable start and goal), a heuristic and [`Limits`], and returns a [`Solution`] or a
//! [`SearchError`] saying which limit ended it and the best lower bound proven so far.

mod anytime;
mod astar;
pub(crate) mod beam;
mod bfs;
mod construct;
mod ida;
mod lanes;
mod progress;
mod shorten;

pub(crate) use anytime::depth_cap;
pub use anytime::{
    BEAM_MAX_KEPT, FIRST_WIDTH, Improvement, MAX_WIDTH, Method, NEAR_MAX_STORED, NearOptimal,
    anytime, bounded,
};
pub use astar::{astar, greedy, weighted_astar};
pub(crate) use beam::Zobrist;
pub use beam::beam_search;
pub use bfs::bfs;
pub use construct::solve_by_edges;
pub use ida::{ORDERED_MIN_CELLS, ida, prepare_ida};
pub use lanes::ida_lanes;
pub use progress::{ProgressSnapshot, SearchProgress};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::board::{Board, Unsolvable};
use crate::heuristic::Heuristic;
use crate::moves::Dir;

/// How often (in nodes generated) a search looks at the clock and the cancel flag, and IDA*'s
/// threads publish their counts and look whether an earlier subtree has already found the
/// answer: a millisecond or less at the slowest searches' rates.
pub(crate) const CHECK_EVERY: u64 = 1 << 12;

/// A start and a goal of the same size that can reach each other. Searches take this and never
/// re-check solvability.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    start: Board,
    goal: Board,
}

impl Problem {
    /// A problem, if `start` can reach `goal`.
    ///
    /// ```
    /// use fifteen_core::{Board, Problem, Size};
    /// let start = Board::parse("1 2 3 4 5 6 0 7 8", None).unwrap();
    /// assert!(Problem::new(start, Board::blank_last(Size::S3X3)).is_ok());
    /// ```
    pub fn new(start: Board, goal: Board) -> Result<Problem, Unsolvable> {
        start.solvability(&goal)?;
        Ok(Problem { start, goal })
    }

    /// The start position.
    pub fn start(&self) -> &Board {
        &self.start
    }

    /// The goal.
    pub fn goal(&self) -> &Board {
        &self.goal
    }
}

/// The search algorithms by name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Algorithm {
    /// IDA*: optimal, memory linear in the depth. The default.
    Ida,
    /// A* with a closed set: optimal, memory bounded by [`Limits::max_stored`].
    AStar,
    /// Breadth-first search from the start: optimal, ignores the heuristic; small boards.
    Bfs,
    /// Best-first on the heuristic alone: fast, not optimal.
    Greedy,
    /// Weighted A* (f = g + w h): the answer is at most `w` times the optimum.
    Weighted(f64),
    /// Beam search keeping this many boards a depth: fast, not optimal.
    Beam(usize),
}

impl Algorithm {
    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::Ida => "ida",
            Algorithm::AStar => "astar",
            Algorithm::Bfs => "bfs",
            Algorithm::Greedy => "greedy",
            Algorithm::Weighted(_) => "weighted",
            Algorithm::Beam(_) => "beam",
        }
    }
}

impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Algorithm::Weighted(w) => write!(f, "weighted({w})"),
            Algorithm::Beam(w) => write!(f, "beam({w})"),
            other => f.write_str(other.name()),
        }
    }
}

/// Solves `problem` with `algorithm` and heuristic `h`.
pub fn solve_with<H: Heuristic>(
    problem: &Problem,
    h: &H,
    algorithm: Algorithm,
    limits: &Limits,
) -> Result<Solution, SearchError> {
    match algorithm {
        Algorithm::Ida => ida(problem, h, limits),
        Algorithm::AStar => astar(problem, h, limits),
        Algorithm::Bfs => bfs(problem, limits),
        Algorithm::Greedy => greedy(problem, h, limits),
        Algorithm::Weighted(w) => weighted_astar(problem, h, w, limits),
        Algorithm::Beam(w) => beam_search(problem, h, w, limits),
    }
}

/// When a search gives up. The default is no limit.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Stop after generating this many nodes.
    pub max_nodes: Option<u64>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Stop when this becomes true (Ctrl-C, or another thread found the answer).
    pub cancel: Option<Arc<AtomicBool>>,
    /// For searches that store nodes (A*, BFS): the most nodes kept in memory.
    pub max_stored: Option<usize>,
    /// Threads IDA* may use for one position (0 or 1: the calling thread only). The answer is
    /// the same for every count. The anytime search with a deadline uses a second thread too
    /// (see [`anytime`]), whose answers depend on timing anyway.
    pub threads: usize,
    /// IDA* with a table heuristic ([`Heuristic::LAZY`]): subtrees of each iteration each
    /// thread interleaves (0 or 1: a plain depth-first search; see [`ida_lanes`] for why).
    /// About 12% faster with 3; the answer is the same, but the last iteration may generate a
    /// few more nodes.
    pub lanes: usize,
    /// IDA*: counters the search publishes while it runs (bound, nodes), for a progress
    /// display; `None` publishes nothing.
    pub progress: Option<Arc<SearchProgress>>,
}

/// Which limit ended a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitKind {
    /// [`Limits::max_nodes`].
    Nodes,
    /// [`Limits::deadline`].
    Time,
    /// [`Limits::cancel`].
    Cancelled,
    /// [`Limits::max_stored`].
    Memory,
    /// A beam search's depth cap: it went a few times the start's estimate deep without
    /// reaching the goal (a wider beam wanders less).
    Depth,
}

impl std::fmt::Display for LimitKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LimitKind::Nodes => "node limit",
            LimitKind::Time => "time limit",
            LimitKind::Cancelled => "cancelled",
            LimitKind::Memory => "memory limit (nodes stored)",
            LimitKind::Depth => "beam depth cap (try a wider beam)",
        })
    }
}

impl Limits {
    /// Cheap check of the node limit, and every 4 Ki nodes the clock and the cancel flag (a
    /// large board's A* or MTM nodes come at a few million a second, so a deadline is kept to
    /// about a millisecond).
    #[inline(always)]
    pub(crate) fn check(&self, generated: u64) -> Option<LimitKind> {
        if let Some(max) = self.max_nodes
            && generated >= max
        {
            return Some(LimitKind::Nodes);
        }
        if generated & (CHECK_EVERY - 1) == 0 {
            return self.check_slow();
        }
        None
    }

    #[cold]
    pub(crate) fn check_slow(&self) -> Option<LimitKind> {
        if let Some(d) = self.deadline
            && Instant::now() >= d
        {
            return Some(LimitKind::Time);
        }
        if let Some(c) = &self.cancel
            && c.load(Ordering::Relaxed)
        {
            return Some(LimitKind::Cancelled);
        }
        None
    }

    /// The periodic check of a search that has generated `total` nodes: reports them to the
    /// progress counters and returns the limit reached, if any; `check_at` becomes when to
    /// check next (`every` nodes on, never past the node limit).
    #[cold]
    pub(crate) fn check_count(
        &self,
        total: u64,
        every: u64,
        check_at: &mut u64,
    ) -> Option<LimitKind> {
        if let Some(p) = &self.progress {
            p.seen(total);
        }
        *check_at = total + every;
        if let Some(max) = self.max_nodes {
            if total >= max {
                return Some(LimitKind::Nodes);
            }
            *check_at = (*check_at).min(max);
        }
        self.check_slow()
    }
}

/// What a search did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Nodes whose children were generated.
    pub expanded: u64,
    /// Nodes generated (each child whose heuristic was computed, plus the root).
    pub generated: u64,
    /// Table reads by the heuristic ([`Heuristic::pending_reads`](crate::Heuristic)); IDA* only,
    /// 0 for heuristics without tables.
    pub lookups: u64,
    /// IDA*: the f-bound of each iteration, in order.
    pub thresholds: Vec<u32>,
    /// Wall time.
    pub elapsed: Duration,
}

/// A path from the start to the goal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The blank's moves.
    pub moves: Vec<Dir>,
    /// The tile moved at each step.
    pub tiles: Vec<u8>,
    /// Whether the length is proven minimal (an admissible heuristic with an optimal search).
    pub optimal: bool,
    /// The heuristic's value at the start.
    pub initial_h: u32,
    /// Counters and time.
    pub stats: Stats,
}

impl Solution {
    /// Number of moves.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether the start was the goal.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

/// Why a search ended without a solution.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// A limit was reached first.
    #[error("{kind} reached after {} nodes; the optimal length is at least {lower_bound}", stats.generated)]
    LimitReached {
        /// Which limit.
        kind: LimitKind,
        /// Every solution has at least this many moves.
        lower_bound: u32,
        /// Work done until then.
        stats: Stats,
    },
    /// The search cannot run on this problem (for example BFS on a board too large).
    #[error("{0}")]
    NotApplicable(String),
}

/// Replays blank moves from `start`; returns the board reached and the tiles moved, or `None`
/// if a move leaves the board.
pub fn replay(start: &Board, moves: &[Dir]) -> Option<(Board, Vec<u8>)> {
    let mut b = start.clone();
    let mut tiles = Vec::with_capacity(moves.len());
    for &d in moves {
        tiles.push(b.apply(d)?);
    }
    Some((b, tiles))
}

#[cfg(test)]
mod tests;
