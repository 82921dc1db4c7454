//! Line crossings: an admissible MTM estimate for boards of any size, computed from the board
//! in one pass.
//!
//! Take a row boundary `b` (between rows `b` and `b + 1`). A tile above it whose goal row is
//! below it must cross `b` downward at least once; call their number `down[b]`, and `up[b]` the
//! tiles below whose goal is above. A vertical line move slides tiles of consecutive rows of one
//! column, each one row, all the same way, so it crosses any boundary at most once: no
//! solution has fewer tile-down moves than `max_b down[b]`, nor fewer tile-up moves than
//! `max_b up[b]`. The same holds for columns and horizontal moves, and every move is vertical or
//! horizontal, never both, so the sum of the four maxima is a lower bound on the MTM distance.
//!
//! It dominates the per-axis taxicab bound (each axis's distance sum over its longest slide),
//! which it replaced: the distance sum along an axis is the sum over its boundaries of
//! `down[b] + up[b]`, at most `side - 1` times `max down + max up`.
//!
//! A search keeps the counts ([`Counts`]) from node to node: a tile stepping one cell changes
//! the count of one boundary, and the estimate is then four maxima over at most seven
//! boundaries. [`Crossings::estimate`] counts a board afresh.

use crate::board::{Board, MAX_CELLS, MAX_SIDE, Size};

/// The goal's row and column of each tile.
#[derive(Clone, Debug)]
pub struct Crossings {
    size: Size,
    goal_row: [u8; MAX_CELLS],
    goal_col: [u8; MAX_CELLS],
}

/// The crossings still needed at each boundary: tiles down and up across each row boundary,
/// right and left across each column boundary (the boundary after line `b` at index `b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Counts([[u8; MAX_SIDE as usize]; 4]);

const DOWN: usize = 0;
const UP: usize = 1;
const RIGHT: usize = 2;
const LEFT: usize = 3;

impl Crossings {
    /// The estimate towards `goal`.
    pub fn new(goal: &Board) -> Crossings {
        let size = goal.size();
        let w = size.width();
        let mut goal_row = [0u8; MAX_CELLS];
        let mut goal_col = [0u8; MAX_CELLS];
        for (c, &t) in goal.cells().iter().enumerate() {
            goal_row[t as usize] = (c / w) as u8;
            goal_col[t as usize] = (c % w) as u8;
        }
        Crossings { size, goal_row, goal_col }
    }

    /// A lower bound on the MTM distance from `cells` (a board of the goal's size) to the goal.
    pub fn estimate(&self, cells: &[u8]) -> u32 {
        self.h(&self.counts(cells))
    }

    /// The counts of `cells`, for a search to keep up to date by [`Crossings::step`].
    pub(crate) fn counts(&self, cells: &[u8]) -> Counts {
        let w = self.size.width();
        let mut k = Counts([[0; MAX_SIDE as usize]; 4]);
        for (cell, &t) in cells.iter().enumerate() {
            if t == 0 {
                continue;
            }
            let (r, c) = (cell / w, cell % w);
            let (gr, gc) = (self.goal_row[t as usize] as usize, self.goal_col[t as usize] as usize);
            for b in r.min(gr)..r.max(gr) {
                k.0[if gr > r { DOWN } else { UP }][b] += 1;
            }
            for b in c.min(gc)..c.max(gc) {
                k.0[if gc > c { RIGHT } else { LEFT }][b] += 1;
            }
        }
        k
    }

    /// The counts after `tile` stepped from cell `from` to the adjacent cell `to`: only the
    /// boundary between the two cells changes, by what the tile still has to cross there.
    #[inline(always)]
    pub(crate) fn step(&self, k: &mut Counts, tile: u8, from: usize, to: usize) {
        let w = self.size.width();
        let (a, b, goal, higher, lower) = if from / w != to / w {
            (from / w, to / w, self.goal_row[tile as usize] as usize, DOWN, UP)
        } else {
            (from % w, to % w, self.goal_col[tile as usize] as usize, RIGHT, LEFT)
        };
        let edge = a.min(b);
        // A tile in line `p` crosses `edge` toward `goal` if `edge` lies between them.
        let toward = |p: usize| {
            if p <= edge && edge < goal {
                Some(higher)
            } else if goal <= edge && edge < p {
                Some(lower)
            } else {
                None
            }
        };
        if let Some(i) = toward(a) {
            k.0[i][edge] -= 1;
        }
        if let Some(i) = toward(b) {
            k.0[i][edge] += 1;
        }
    }

    /// The estimate from kept counts: the same as [`Crossings::estimate`] on the board.
    #[inline(always)]
    pub(crate) fn h(&self, k: &Counts) -> u32 {
        let (h, w) = (self.size.height() - 1, self.size.width() - 1);
        let max = |i: usize, n: usize| u32::from(k.0[i][..n].iter().copied().max().unwrap_or(0));
        max(DOWN, h) + max(UP, h) + max(RIGHT, w) + max(LEFT, w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Boundaries per axis, plus one (the difference arrays' end).
    const SPAN: usize = MAX_SIDE as usize + 1;

    /// The estimate by difference arrays, written apart from [`Crossings::counts`] to check it.
    fn by_differences(x: &Crossings, cells: &[u8]) -> u32 {
        let w = x.size.width();
        let (mut down, mut up, mut right, mut left) =
            ([0i16; SPAN], [0i16; SPAN], [0i16; SPAN], [0i16; SPAN]);
        for (cell, &t) in cells.iter().enumerate() {
            if t != 0 {
                let (gr, gc) = (x.goal_row[t as usize] as usize, x.goal_col[t as usize] as usize);
                span(&mut down, &mut up, cell / w, gr);
                span(&mut right, &mut left, cell % w, gc);
            }
        }
        max_prefix(&down) + max_prefix(&up) + max_prefix(&right) + max_prefix(&left)
    }

    /// Marks the boundaries a tile in line `at` must cross to reach line `goal`: in `higher` when
    /// the goal is further along the axis, else in `lower`.
    fn span(higher: &mut [i16; SPAN], lower: &mut [i16; SPAN], at: usize, goal: usize) {
        if goal > at {
            higher[at] += 1;
            higher[goal] -= 1;
        } else if goal < at {
            lower[goal] += 1;
            lower[at] -= 1;
        }
    }

    /// The largest prefix sum of a difference array: the most crossings of any one boundary.
    fn max_prefix(diff: &[i16; SPAN]) -> u32 {
        let (mut run, mut best) = (0i16, 0i16);
        for &d in diff {
            run += d;
            best = best.max(run);
        }
        best as u32
    }

    /// The per-axis taxicab bound that crossings replaced.
    fn taxicab(goal: &Board, cells: &[u8]) -> u32 {
        let size = goal.size();
        let (w, h) = (size.width(), size.height());
        let (mut v, mut hz) = (0usize, 0usize);
        for (c, &t) in cells.iter().enumerate() {
            if t != 0 {
                let g = goal.cells().iter().position(|&x| x == t).unwrap_or(0);
                v += (c / w).abs_diff(g / w);
                hz += (c % w).abs_diff(g % w);
            }
        }
        (v.div_ceil(h - 1) + hz.div_ceil(w - 1)) as u32
    }

    #[test]
    fn counts_each_boundary_by_hand() {
        // 3x3, goal 1..8 then the blank. Tile 7 (goal row 2, column 0) sits in the top-left
        // corner and tile 1 (goal row 0, column 0) in the bottom-left: two crossings of each
        // row boundary, one each way, so two vertical moves at least; no column changes.
        let goal = Board::blank_last(Size::new(3, 3).unwrap());
        let cells = [7, 2, 3, 4, 5, 6, 1, 8, 0];
        let x = Crossings::new(&goal);
        assert_eq!(x.estimate(&cells), 2);
        assert_eq!(x.estimate(goal.cells()), 0);
        // Tiles 1 and 2 swapped: each crosses the first column boundary, one each way.
        assert_eq!(x.estimate(&[2, 1, 3, 4, 5, 6, 7, 8, 0]), 2);
        // The top row 3 1 2: tile 3 goes two columns right, 1 and 2 one left each: each column
        // boundary is crossed once each way.
        assert_eq!(x.estimate(&[3, 1, 2, 4, 5, 6, 7, 8, 0]), 2);
    }

    /// Counts kept step by step along random walks give the estimate computed afresh, and the
    /// counts computed afresh.
    #[test]
    fn kept_counts_match_counts_from_the_board() {
        for (w, h) in [(3, 3), (5, 5), (8, 8), (2, 7), (6, 4)] {
            let size = Size::new(w, h).unwrap();
            let goal = Board::blank_last(size);
            let x = Crossings::new(&goal);
            let mut board = goal.clone();
            let mut k = x.counts(board.cells());
            let mut state = (w * 7 + h) as u64;
            for _ in 0..5_000 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let d = crate::moves::Dir::ALL[(state % 4) as usize];
                let blank = board.blank();
                if let Some(tile) = board.apply(d) {
                    // The tile went from the blank's new cell to its old one.
                    x.step(&mut k, tile, board.blank(), blank);
                    assert_eq!(k, x.counts(board.cells()), "{w}x{h}");
                    assert_eq!(x.h(&k), by_differences(&x, board.cells()), "{w}x{h}");
                }
            }
        }
    }

    #[test]
    fn dominates_the_taxicab_bound_on_shuffled_boards() {
        for (w, h) in [(3, 3), (4, 4), (5, 5), (6, 4), (8, 8), (2, 7)] {
            let size = Size::new(w, h).unwrap();
            let goal = Board::blank_last(size);
            let x = Crossings::new(&goal);
            let mut state = (w * 31 + h) as u64;
            let mut better = 0;
            for _ in 0..200 {
                // Fisher-Yates with xorshift: solvability does not matter to either bound.
                let mut cells = goal.cells().to_vec();
                for i in (1..cells.len()).rev() {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    cells.swap(i, (state % (i as u64 + 1)) as usize);
                }
                let (e, t) = (x.estimate(&cells), taxicab(&goal, &cells));
                assert!(e >= t, "{w}x{h} {cells:?}: {e} < taxicab {t}");
                better += usize::from(e > t);
            }
            if w * h >= 16 {
                assert!(better > 100, "{w}x{h}: better on only {better} of 200");
            }
        }
    }
}
