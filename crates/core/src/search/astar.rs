//! A* and its relatives (greedy best-first, weighted A*): best-first searches with a closed set.

use super::{Limits, Problem, SearchError, Solution};
use crate::heuristic::Heuristic;

/// A* with a closed set. STUB.
pub fn astar<H: Heuristic>(_p: &Problem, _h: &H, _l: &Limits) -> Result<Solution, SearchError> {
    Err(SearchError::NotApplicable("astar: not yet".into()))
}

/// Greedy best-first. STUB.
pub fn greedy<H: Heuristic>(_p: &Problem, _h: &H, _l: &Limits) -> Result<Solution, SearchError> {
    Err(SearchError::NotApplicable("greedy: not yet".into()))
}

/// Weighted A*. STUB.
pub fn weighted_astar<H: Heuristic>(
    _p: &Problem,
    _h: &H,
    _w: f64,
    _l: &Limits,
) -> Result<Solution, SearchError> {
    Err(SearchError::NotApplicable("weighted: not yet".into()))
}
