//! Breadth-first search from the start: optimal without a heuristic, for small boards.

use super::{Limits, Problem, SearchError, Solution};

/// BFS. STUB.
pub fn bfs(_p: &Problem, _l: &Limits) -> Result<Solution, SearchError> {
    Err(SearchError::NotApplicable("bfs: not yet".into()))
}
