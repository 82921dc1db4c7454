//! Linear conflict (Hansson, Mayer & Yung 1992), in its admissible form: Manhattan distance plus,
//! for every row and every column, two moves for each tile that must leave the line so that the
//! tiles belonging to it can pass each other. The number to remove is the line's tile count minus
//! the longest increasing run of their goal positions, not the pairwise conflict count, which can
//! overestimate.

use super::{GoalCells, Heuristic, Manhattan};
use crate::board::{Board, MAX_SIDE, Size};

/// Manhattan distance plus row and column linear conflicts.
#[derive(Clone, Debug)]
pub struct LinearConflict {
    goal: GoalCells,
    manhattan: Manhattan,
}

/// Manhattan part, conflict part, and the conflicts of each line (rows, then columns at
/// offset [`MAX_SIDE`]), so a move recomputes only the two lines it changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LcState {
    md: u16,
    lc: u16,
    lines: [u8; 2 * MAX_SIDE as usize],
}

impl LinearConflict {
    /// The heuristic for `goal`.
    pub fn new(goal: &Board) -> LinearConflict {
        LinearConflict { goal: GoalCells::new(goal), manhattan: Manhattan::new(goal) }
    }

    /// Tiles to remove from row `r` so the rest can reach their goal cells in order.
    fn row_conflicts(&self, cells: &[u8], r: usize) -> u8 {
        let size = self.goal.size;
        let w = size.width();
        let mut keys = [0u8; MAX_SIDE as usize];
        let mut k = 0;
        for &t in &cells[r * w..(r + 1) * w] {
            let home = self.goal.cell[t as usize] as usize;
            if t != 0 && size.row(home) == r {
                keys[k] = size.col(home) as u8;
                k += 1;
            }
        }
        (k - longest_increasing(&keys[..k])) as u8
    }

    /// Tiles to remove from column `c`.
    fn col_conflicts(&self, cells: &[u8], c: usize) -> u8 {
        let size = self.goal.size;
        let w = size.width();
        let mut keys = [0u8; MAX_SIDE as usize];
        let mut k = 0;
        for r in 0..size.height() {
            let t = cells[r * w + c];
            let home = self.goal.cell[t as usize] as usize;
            if t != 0 && size.col(home) == c {
                keys[k] = size.row(home) as u8;
                k += 1;
            }
        }
        (k - longest_increasing(&keys[..k])) as u8
    }
}

/// Length of the longest strictly increasing subsequence (keys are distinct). At most 8 keys.
fn longest_increasing(keys: &[u8]) -> usize {
    let mut best = [0u8; MAX_SIDE as usize];
    let mut longest = 0;
    for i in 0..keys.len() {
        let mut b = 1;
        for j in 0..i {
            if keys[j] < keys[i] && best[j] + 1 > b {
                b = best[j] + 1;
            }
        }
        best[i] = b;
        longest = longest.max(b as usize);
    }
    longest
}

impl Heuristic for LinearConflict {
    type State = LcState;

    fn name(&self) -> &str {
        "linear-conflict"
    }

    fn size(&self) -> Size {
        self.goal.size
    }

    fn init(&self, cells: &[u8]) -> LcState {
        let size = self.goal.size;
        let mut lines = [0u8; 2 * MAX_SIDE as usize];
        for (r, line) in lines.iter_mut().enumerate().take(size.height()) {
            *line = self.row_conflicts(cells, r);
        }
        for c in 0..size.width() {
            lines[MAX_SIDE as usize + c] = self.col_conflicts(cells, c);
        }
        let lc = lines.iter().map(|&x| x as u16).sum();
        LcState { md: self.manhattan.init(cells) as u16, lc, lines }
    }

    #[inline(always)]
    fn h(&self, s: &LcState) -> u32 {
        s.md as u32 + 2 * s.lc as u32
    }

    #[inline]
    fn step(&self, s: &LcState, after: &[u8], tile: u8, from: usize, to: usize) -> LcState {
        let size = self.goal.size;
        let mut n = *s;
        n.md = (n.md as u32 + self.manhattan.tile_distance(tile, to)
            - self.manhattan.tile_distance(tile, from)) as u16;
        // A horizontal move keeps the tile's row and the order within it, so only the two
        // columns change; a vertical move changes only the two rows.
        let (ia, ib, a, b) = if size.row(from) == size.row(to) {
            let (ca, cb) = (size.col(from), size.col(to));
            let m = MAX_SIDE as usize;
            (m + ca, m + cb, self.col_conflicts(after, ca), self.col_conflicts(after, cb))
        } else {
            let (ra, rb) = (size.row(from), size.row(to));
            (ra, rb, self.row_conflicts(after, ra), self.row_conflicts(after, rb))
        };
        n.lc = n.lc + a as u16 + b as u16 - n.lines[ia] as u16 - n.lines[ib] as u16;
        n.lines[ia] = a;
        n.lines[ib] = b;
        n
    }
}
