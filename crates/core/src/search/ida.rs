//! IDA* (Korf 1985): depth-first iterations with a rising f-bound. Memory is the path only; the
//! board lives in one array that moves mutate and undo, so a node costs a table read, a swap
//! and a heuristic update.

use std::time::Instant;

use super::{LimitKind, Limits, Problem, SearchError, Solution, Stats};
use crate::board::MAX_CELLS;
use crate::heuristic::Heuristic;
use crate::moves::{Dir, MoveTable, NONE};

/// Solves `problem` optimally (if `heuristic` is admissible) with IDA*.
///
/// ```
/// use fifteen_core::{Board, Limits, Manhattan, Problem, Size, ida};
/// let goal = Board::blank_last(Size::S3X3);
/// let start = Board::parse("1 0 2 4 6 3 7 5 8", None).unwrap();
/// let h = Manhattan::new(&goal);
/// let sol = ida(&Problem::new(start, goal).unwrap(), &h, &Limits::default()).unwrap();
/// assert_eq!(sol.len(), 5);
/// ```
pub fn ida<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    limits: &Limits,
) -> Result<Solution, SearchError> {
    let t0 = Instant::now();
    let start = problem.start();
    let size = start.size();
    if heuristic.size() != size {
        return Err(SearchError::NotApplicable(format!(
            "the heuristic is for {} but the board is {size}",
            heuristic.size()
        )));
    }
    let n = size.cells();
    let mut cells = [0u8; MAX_CELLS];
    cells[..n].copy_from_slice(start.cells());
    let mut goal = [0u8; MAX_CELLS];
    goal[..n].copy_from_slice(problem.goal().cells());
    let root = heuristic.init(start.cells());
    let initial_h = heuristic.h(&root);
    let table = MoveTable::new(size);
    let mut search = Search {
        h: heuristic,
        table: &table,
        limits,
        cells,
        goal,
        n,
        path: Vec::with_capacity(256),
        stats: Stats { generated: 1, ..Stats::default() },
        next_bound: u32::MAX,
        bound: initial_h,
        stop: None,
    };
    let blank = start.blank();
    loop {
        search.stats.thresholds.push(search.bound);
        search.next_bound = u32::MAX;
        let found = search.dfs(blank, root, 0, NO_PREV);
        if found {
            break;
        }
        if let Some(kind) = search.stop {
            search.stats.elapsed = t0.elapsed();
            return Err(SearchError::LimitReached {
                kind,
                lower_bound: search.bound,
                stats: search.stats,
            });
        }
        if search.next_bound == u32::MAX {
            return Err(SearchError::NotApplicable("the search space was exhausted".into()));
        }
        search.bound = search.next_bound;
    }
    search.stats.elapsed = t0.elapsed();
    let moves = search.path;
    let (_, tiles) = super::replay(start, &moves)
        .ok_or_else(|| SearchError::NotApplicable("internal error: bad path".into()))?;
    Ok(Solution { moves, tiles, optimal: heuristic.admissible(), initial_h, stats: search.stats })
}

/// No previous move at the root: `NO_PREV ^ 3` is no direction.
const NO_PREV: usize = 4;

struct Search<'a, H: Heuristic> {
    h: &'a H,
    table: &'a MoveTable,
    limits: &'a Limits,
    cells: [u8; MAX_CELLS],
    goal: [u8; MAX_CELLS],
    n: usize,
    path: Vec<Dir>,
    stats: Stats,
    bound: u32,
    next_bound: u32,
    stop: Option<LimitKind>,
}

impl<H: Heuristic> Search<'_, H> {
    /// Searches below the node with the blank on `blank`, reached with `g` moves, the last in
    /// direction `prev`. The node's own f is within the bound. Returns true when the goal is
    /// found; the path is then in `self.path`.
    fn dfs(&mut self, blank: usize, state: H::State, g: u32, prev: usize) -> bool {
        if self.h.h(&state) == 0 && self.cells[..self.n] == self.goal[..self.n] {
            return true;
        }
        self.stats.expanded += 1;
        let next = *self.table.of(blank);
        for (d, &to) in next.iter().enumerate() {
            if to == NONE || d == prev ^ 3 {
                continue;
            }
            let to = to as usize;
            let tile = self.cells[to];
            self.cells[blank] = tile;
            self.cells[to] = 0;
            self.stats.generated += 1;
            if let Some(kind) = self.limits.check(self.stats.generated) {
                self.stop = Some(kind);
                return false;
            }
            let child = self.h.step(&state, &self.cells[..self.n], tile, to, blank);
            let f = g + 1 + self.h.h(&child);
            if f <= self.bound {
                self.path.push(Dir::ALL[d]);
                if self.dfs(to, child, g + 1, d) {
                    return true;
                }
                self.path.pop();
                if self.stop.is_some() {
                    return false;
                }
            } else if f < self.next_bound {
                self.next_bound = f;
            }
            self.cells[to] = tile;
            self.cells[blank] = 0;
        }
        false
    }
}
