//! Breadth-first search from the start: optimal without a heuristic, for small boards.
//!
//! It runs the best-first core of `astar.rs` with a FIFO open list and a heuristic that is always
//! zero, so it shares the packed keys, the node arena and the limits with A*.

use super::astar::{Mode, best_first};
use super::{Limits, Problem, SearchError, Solution};
use crate::board::Size;
use crate::heuristic::Heuristic;

/// Solves `problem` optimally by breadth-first search, ignoring heuristics (`initial_h` is 0).
///
/// Every position closer than the goal is stored, so this is for small boards: a 3x3 needs at
/// most 181,440 nodes, while a 4x4 usually stops at [`Limits::max_stored`] (20,000,000 when
/// `None`) with [`SearchError::LimitReached`].
///
/// ```
/// use fifteen_core::{Board, Limits, Problem, Size, bfs};
/// let goal = Board::blank_last(Size::S3X3);
/// let start = Board::parse("1 0 2 4 6 3 7 5 8", None).unwrap();
/// let sol = bfs(&Problem::new(start, goal).unwrap(), &Limits::default()).unwrap();
/// assert_eq!(sol.len(), 5);
/// assert!(sol.optimal);
/// ```
pub fn bfs(problem: &Problem, limits: &Limits) -> Result<Solution, SearchError> {
    best_first(problem, &Zero(problem.start().size()), Mode::Bfs, limits)
}

/// The heuristic that knows nothing: BFS orders by depth alone.
struct Zero(Size);

impl Heuristic for Zero {
    type State = ();

    fn name(&self) -> &str {
        "none"
    }

    fn size(&self) -> Size {
        self.0
    }

    #[inline(always)]
    fn init(&self, _cells: &[u8]) {}

    #[inline(always)]
    fn h(&self, _state: &()) -> u32 {
        0
    }

    #[inline(always)]
    fn step(&self, _state: &(), _after: &[u8], _tile: u8, _from: usize, _to: usize) {}
}
