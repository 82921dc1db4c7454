//! `fifteen-core`: sliding-tile puzzles of any size from 2x2 to 8x8, their heuristics, and
//! optimal searches.
//!
//! The modules are private; this list is the public API.
//!
//! ```
//! use fifteen_core::{Board, Limits, LinearConflict, Problem, ida};
//! let start = Board::parse("8 7 6 5 4 3 2 1 0", None).unwrap();
//! let goal = Board::blank_first(start.size());
//! let h = LinearConflict::new(&goal);
//! let solution = ida(&Problem::new(start, goal).unwrap(), &h, &Limits::default()).unwrap();
//! assert_eq!(solution.len(), 28);
//! ```

#![deny(missing_docs)]

mod board;
mod heuristic;
mod huge_pages;
mod key_map;
mod lines;
mod moves;
pub mod mtm;
pub mod pdb;
mod search;

pub use board::{Board, MAX_CELLS, MAX_SIDE, MIN_SIDE, ParseError, Size, Unsolvable};
pub use heuristic::{
    AnyHeuristic, EXACT_MAX_CELLS, Exact, Heuristic, HeuristicKind, LinearConflict, Manhattan,
    Misplaced,
};
pub use lines::{BoundedLines, LineError, PositionLine, parse_position_line};
pub use moves::{Dir, MoveListError, Notation, format_moves, parse_moves};
pub use search::{
    Algorithm, BEAM_MAX_KEPT, FIRST_WIDTH, Improvement, LimitKind, Limits, MAX_WIDTH, Method,
    NEAR_MAX_STORED, NearOptimal, ORDERED_MIN_CELLS, Problem, ProgressSnapshot, SearchError,
    SearchProgress, Solution, Stats, anytime, astar, beam_search, bfs, bounded, greedy, ida,
    ida_lanes, prepare_ida, replay, solve_by_edges, solve_with, weighted_astar,
};
