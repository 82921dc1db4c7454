//! Walking distance counting line moves: an admissible MTM heuristic for any board whose tables
//! fit.
//!
//! The vertical abstraction of a position keeps, for each row, how many of its tiles belong to
//! each goal row, and the blank's row (Takahashi's walking distance). A vertical MTM move slides
//! `k` tiles of one column, each one row toward the blank's old row: in the abstraction it is a
//! chain of `k` single steps in one direction, each moving one tile of some goal row into the
//! blank's row. A horizontal move leaves the abstraction unchanged. So the MTM distance in this
//! abstraction (a BFS whose edges are such chains) is a lower bound on the number of *vertical*
//! moves of any solution, and the same construction on columns bounds the *horizontal* moves.
//! Every MTM move is vertical or horizontal, never both, so the sum of the two is admissible.
//!
//! The tables are built per goal in milliseconds for the 3x3 and 4x4 (24,964 states per axis on
//! the 4x4); a board of more than 16 cells, or whose abstraction has more than [`MAX_STATES`]
//! states, gets none. The search steps an index per single-tile step through `trans`, so a node
//! costs two loads.

use std::collections::HashMap;

use crate::board::{Board, MAX_CELLS, Size};

/// The most abstract states per axis that a table is built for.
pub(crate) const MAX_STATES: usize = 2_000_000;

/// Boards up to this many cells get tables.
const MAX_CELLS_WITH_TABLES: usize = 16;

/// No state: the step is not possible.
const NONE: u32 = u32::MAX;

/// The tables of one axis (rows, or columns).
#[derive(Clone, Debug)]
struct Axis {
    /// Number of lines (rows for the vertical axis), which is also the number of goal lines.
    lines: usize,
    /// `trans[(s * 2 + toward_higher) * lines + goal_line]`: the state after the blank moves one
    /// line (toward the higher-numbered line if `toward_higher`) swapping with a tile of
    /// `goal_line`.
    trans: Vec<u32>,
    /// MTM distance of each state to the goal state.
    dist: Vec<u8>,
    /// State of each abstract key (the start's lookup).
    index: HashMap<Vec<u8>, u32>,
}

/// The walking-distance MTM heuristic for one goal.
#[derive(Clone, Debug)]
pub struct WalkingDistance {
    size: Size,
    rows: Axis,
    cols: Axis,
    /// Goal row and goal column of each tile.
    goal_row: [u8; MAX_CELLS],
    goal_col: [u8; MAX_CELLS],
}

impl WalkingDistance {
    /// The tables for `goal`, or `None` if an axis has more than `MAX_STATES` states.
    pub fn new(goal: &Board) -> Option<WalkingDistance> {
        let size = goal.size();
        // Beyond 16 cells the tables outgrow MAX_STATES, and finding that out takes seconds.
        if size.cells() > MAX_CELLS_WITH_TABLES {
            return None;
        }
        let (w, h) = (size.width(), size.height());
        let mut goal_row = [0u8; MAX_CELLS];
        let mut goal_col = [0u8; MAX_CELLS];
        for (cell, &t) in goal.cells().iter().enumerate() {
            goal_row[t as usize] = (cell / w) as u8;
            goal_col[t as usize] = (cell % w) as u8;
        }
        let line_of_row = |cell: usize| cell / w;
        let line_of_col = |cell: usize| cell % w;
        let rows = Axis::build(h, &key(goal.cells(), h, line_of_row, &goal_row))?;
        let cols = Axis::build(w, &key(goal.cells(), w, line_of_col, &goal_col))?;
        Some(WalkingDistance { size, rows, cols, goal_row, goal_col })
    }

    /// The board size.
    pub fn size(&self) -> Size {
        self.size
    }

    /// The state indices (rows, columns) of a position.
    pub(crate) fn start(&self, cells: &[u8]) -> (u32, u32) {
        let w = self.size.width();
        let kr = key(cells, self.size.height(), |c| c / w, &self.goal_row);
        let kc = key(cells, w, |c| c % w, &self.goal_col);
        // Every position of the board is reachable in the abstraction, so both keys are present.
        (
            self.rows.index.get(&kr).copied().unwrap_or(0),
            self.cols.index.get(&kc).copied().unwrap_or(0),
        )
    }

    /// The indices after the blank moved from `from` to `to`, tile `tile` sliding the other way.
    #[inline(always)]
    pub(crate) fn step(&self, state: (u32, u32), tile: u8, from: usize, to: usize) -> (u32, u32) {
        let w = self.size.width();
        if from / w != to / w {
            let higher = usize::from(to > from);
            let l = self.rows.lines;
            let s = self.rows.trans
                [(state.0 as usize * 2 + higher) * l + self.goal_row[tile as usize] as usize];
            (s, state.1)
        } else {
            let higher = usize::from(to > from);
            let l = self.cols.lines;
            let s = self.cols.trans
                [(state.1 as usize * 2 + higher) * l + self.goal_col[tile as usize] as usize];
            (state.0, s)
        }
    }

    /// The estimate: vertical moves needed plus horizontal moves needed.
    #[inline(always)]
    pub(crate) fn h(&self, state: (u32, u32)) -> u32 {
        u32::from(self.rows.dist[state.0 as usize]) + u32::from(self.cols.dist[state.1 as usize])
    }

    /// The estimate for a whole position.
    pub fn estimate(&self, board: &Board) -> u32 {
        self.h(self.start(board.cells()))
    }

    /// Number of abstract states per axis (rows, columns).
    pub fn states(&self) -> (usize, usize) {
        (self.rows.dist.len(), self.cols.dist.len())
    }
}

/// The abstract key of `cells` on an axis of `lines` lines: the `lines x lines` counts (line,
/// goal line) of the tiles, then the blank's line.
fn key(cells: &[u8], lines: usize, line_of: impl Fn(usize) -> usize, goal_line: &[u8]) -> Vec<u8> {
    let mut k = vec![0u8; lines * lines + 1];
    for (cell, &t) in cells.iter().enumerate() {
        if t == 0 {
            k[lines * lines] = line_of(cell) as u8;
        } else {
            k[line_of(cell) * lines + goal_line[t as usize] as usize] += 1;
        }
    }
    k
}

impl Axis {
    /// Enumerates the states reachable from `goal` by single steps, then the MTM distances.
    fn build(lines: usize, goal: &[u8]) -> Option<Axis> {
        let mut index: HashMap<Vec<u8>, u32> = HashMap::new();
        let mut keys: Vec<Vec<u8>> = vec![goal.to_vec()];
        index.insert(goal.to_vec(), 0);
        let mut trans: Vec<u32> = Vec::new();
        let mut i = 0;
        while i < keys.len() {
            let k = keys[i].clone();
            let blank = k[lines * lines] as usize;
            for higher in [false, true] {
                let other = if higher { blank + 1 } else { blank.wrapping_sub(1) };
                for g in 0..lines {
                    let mut next = NONE;
                    if other < lines && k[other * lines + g] > 0 {
                        let mut n = k.clone();
                        n[other * lines + g] -= 1;
                        n[blank * lines + g] += 1;
                        n[lines * lines] = other as u8;
                        next = match index.get(&n) {
                            Some(&s) => s,
                            None => {
                                if keys.len() >= MAX_STATES {
                                    return None;
                                }
                                let s = keys.len() as u32;
                                index.insert(n.clone(), s);
                                keys.push(n);
                                s
                            }
                        };
                    }
                    trans.push(next);
                }
            }
            i += 1;
        }
        let n = keys.len();
        let mut dist = vec![u8::MAX; n];
        dist[0] = 0;
        let mut frontier = vec![0u32];
        let mut depth = 0u8;
        while !frontier.is_empty() {
            let mut next_frontier = Vec::new();
            for &s in &frontier {
                for higher in 0..2 {
                    // A line move: a chain of 1 to lines - 1 single steps one way.
                    let mut chain = vec![s];
                    while !chain.is_empty() {
                        let mut reached = Vec::new();
                        for &x in &chain {
                            for g in 0..lines {
                                let y = trans[(x as usize * 2 + higher) * lines + g];
                                if y != NONE {
                                    reached.push(y);
                                }
                            }
                        }
                        reached.sort_unstable();
                        reached.dedup();
                        for &y in &reached {
                            if dist[y as usize] == u8::MAX {
                                dist[y as usize] = depth + 1;
                                next_frontier.push(y);
                            }
                        }
                        chain = reached;
                    }
                }
            }
            frontier = next_frontier;
            depth += 1;
        }
        Some(Axis { lines, trans, dist, index })
    }
}
