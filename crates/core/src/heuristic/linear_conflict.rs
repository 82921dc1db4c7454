//! Linear conflict (Hansson, Mayer & Yung 1992), in its admissible form: Manhattan distance plus,
//! for every row and every column, two moves for each tile that must leave the line so that the
//! tiles belonging to it can pass each other. The number to remove is the line's tile count minus
//! the longest increasing run of their goal positions, not the pairwise conflict count, which can
//! overestimate.

use super::{GoalCells, Heuristic, Manhattan};
use crate::board::{Board, MAX_CELLS, MAX_SIDE, Size};

/// Manhattan distance plus row and column linear conflicts.
#[derive(Clone, Debug)]
pub struct LinearConflict {
    goal: GoalCells,
    manhattan: Manhattan,
    /// Each tile's goal row and column (`u8::MAX` for the blank, which belongs to no line).
    home_row: [u8; MAX_CELLS],
    home_col: [u8; MAX_CELLS],
    /// Each cell's row and column (a move's lines without a division).
    row_of: [u8; MAX_CELLS],
    col_of: [u8; MAX_CELLS],
}

/// Manhattan part, conflict part, and the conflicts of each line (rows, then columns at
/// offset [`MAX_SIDE`]), so a move recomputes only the two lines it changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LcState {
    md: u16,
    lc: u16,
    lines: [u8; 2 * MAX_SIDE as usize],
}

impl LinearConflict {
    /// The tiles that must leave their row or column, over all lines, in `s` (each worth two
    /// moves in the estimate).
    #[inline(always)]
    pub(crate) fn tiles_to_remove(&self, s: &LcState) -> u32 {
        u32::from(s.lc)
    }

    /// Distance of `tile` on `cell` from its goal cell.
    #[inline(always)]
    pub(crate) fn tile_distance(&self, tile: u8, cell: usize) -> u32 {
        self.manhattan.tile_distance(tile, cell)
    }

    /// The heuristic for `goal`.
    pub fn new(goal: &Board) -> LinearConflict {
        let goal_cells = GoalCells::new(goal);
        let size = goal.size();
        let mut home_row = [u8::MAX; MAX_CELLS];
        let mut home_col = [u8::MAX; MAX_CELLS];
        for t in 1..size.cells() {
            let home = goal_cells.cell[t] as usize;
            home_row[t] = size.row(home) as u8;
            home_col[t] = size.col(home) as u8;
        }
        let mut row_of = [0u8; MAX_CELLS];
        let mut col_of = [0u8; MAX_CELLS];
        for cell in 0..size.cells() {
            row_of[cell] = size.row(cell) as u8;
            col_of[cell] = size.col(cell) as u8;
        }
        LinearConflict {
            goal: goal_cells,
            manhattan: Manhattan::new(goal),
            home_row,
            home_col,
            row_of,
            col_of,
        }
    }

    /// `s`'s conflicts after `tile` moved from `from` to `to` (`after` is the board after the
    /// move), the Manhattan part left as it was. A vertical move changes two rows, but only the
    /// one the tile belongs to, if either, changes its conflicts: the tiles of the other keep
    /// their order (the blank and other lines' tiles do not count). So at most one line is
    /// recounted, and none when the tile belongs to neither. Columns the same for a horizontal
    /// move.
    #[inline(always)]
    pub(crate) fn lines_step(
        &self,
        s: &LcState,
        after: &[u8],
        tile: u8,
        from: usize,
        to: usize,
    ) -> LcState {
        let mut n = *s;
        let t = tile as usize % MAX_CELLS;
        let (rf, rt) = (self.row_of[from % MAX_CELLS], self.row_of[to % MAX_CELLS]);
        let (line, count) = if rf == rt {
            let (cf, ct) = (self.col_of[from % MAX_CELLS], self.col_of[to % MAX_CELLS]);
            let home = self.home_col[t];
            if home != cf && home != ct {
                return n;
            }
            let c = usize::from(home);
            (MAX_SIDE as usize + c, self.col_conflicts(after, c))
        } else {
            let home = self.home_row[t];
            if home != rf && home != rt {
                return n;
            }
            let r = usize::from(home);
            (r, self.row_conflicts(after, r))
        };
        let line = line % (2 * MAX_SIDE as usize);
        n.lc = n.lc + u16::from(count) - u16::from(n.lines[line]);
        n.lines[line] = count;
        n
    }

    /// Tiles to remove from row `r` so the rest can reach their goal cells in order.
    #[inline]
    fn row_conflicts(&self, cells: &[u8], r: usize) -> u8 {
        let w = self.goal.size.width();
        let mut run = Run::default();
        for &t in &cells[r * w..(r + 1) * w] {
            let t = t as usize % MAX_CELLS;
            run.push_if(usize::from(self.home_row[t]) == r, self.home_col[t]);
        }
        run.to_remove()
    }

    /// Tiles to remove from column `c`.
    #[inline]
    fn col_conflicts(&self, cells: &[u8], c: usize) -> u8 {
        let w = self.goal.size.width();
        let mut run = Run::default();
        let mut at = c;
        for _ in 0..self.goal.size.height() {
            let t = cells[at] as usize % MAX_CELLS;
            run.push_if(usize::from(self.home_col[t]) == c, self.home_row[t]);
            at += w;
        }
        run.to_remove()
    }
}

/// The goal positions along a line of the tiles that belong to it, as they come, reduced to
/// what the longest increasing run needs: patience sorting on a bit set (bit `x` set when some
/// run of the length of its rank ends at `x`), since the positions are distinct and below 8.
#[derive(Default)]
struct Run {
    tails: u32,
    count: u8,
}

impl Run {
    /// Adds a tile of the line whose goal position along it is `x`.
    #[cfg(test)]
    fn push(&mut self, x: u8) {
        self.push_if(true, x);
    }

    /// [`Run::push`] when `own`, else nothing, without a branch: whether a tile belongs to the
    /// line is as good as random, and the branch mispredicted (measured: a 7x7 beam of width
    /// 65,536 with linear conflict took a sixth less time).
    #[inline(always)]
    fn push_if(&mut self, own: bool, x: u8) {
        // The smallest tail above x is replaced by x (or x extends the longest run). `x` is
        // below 8 for a tile of the line, and masked so that the shifts stay in range for a
        // tile of another line (`u8::MAX` for the blank).
        let x = x & 7;
        let above = self.tails & !((2u32 << x) - 1);
        let pushed = (self.tails & !(above & above.wrapping_neg())) | (1 << x);
        let keep = 0u32.wrapping_sub(u32::from(own));
        self.tails = (pushed & keep) | (self.tails & !keep);
        self.count += u8::from(own);
    }

    /// The tiles that must leave: all of them but the longest increasing run.
    #[inline(always)]
    fn to_remove(&self) -> u8 {
        self.count - self.tails.count_ones() as u8
    }
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

    /// Each line's tiles to remove count 3 moves instead of 2 (Manhattan plus 3 per tile),
    /// an order a beam ranks by better than the estimate's (measured on 7x7: 5% shorter
    /// answers in the same time; 2.5 or 4 per tile did less). A beam adds far tiles' weight.
    fn rank(&self, s: &LcState) -> u32 {
        s.md as u32 + 3 * s.lc as u32
    }

    const RANK_FAR_TILES: bool = true;

    #[inline]
    fn step(&self, s: &LcState, after: &[u8], tile: u8, from: usize, to: usize) -> LcState {
        let mut n = self.lines_step(s, after, tile, from, to);
        n.md = (n.md as u32 + self.manhattan.tile_distance(tile, to)
            - self.manhattan.tile_distance(tile, from)) as u16;
        n
    }
}

#[cfg(test)]
mod tests {
    use super::Run;

    /// The longest strictly increasing subsequence, by the quadratic recurrence.
    fn longest(keys: &[u8]) -> u8 {
        let mut best = vec![1u8; keys.len()];
        for i in 0..keys.len() {
            for j in 0..i {
                if keys[j] < keys[i] {
                    best[i] = best[i].max(best[j] + 1);
                }
            }
        }
        best.into_iter().max().unwrap_or(0)
    }

    #[test]
    fn the_bit_set_run_matches_the_recurrence_on_every_order_of_up_to_8_keys() {
        // Every ordering of every subset of 0..8, as the first k of a permutation, by Heap's
        // algorithm over 8 elements (40,320 permutations, each prefix checked).
        let mut keys: Vec<u8> = (0..8).collect();
        let mut c = [0usize; 8];
        let check = |keys: &[u8]| {
            for k in 0..=keys.len() {
                let mut run = Run::default();
                keys[..k].iter().for_each(|&x| run.push(x));
                assert_eq!(run.to_remove(), k as u8 - longest(&keys[..k]), "{:?}", &keys[..k]);
                // Tiles of other lines in between (any position, the blank's too) change nothing.
                let mut mixed = Run::default();
                for &x in &keys[..k] {
                    mixed.push_if(false, x ^ 5);
                    mixed.push_if(true, x);
                    mixed.push_if(false, u8::MAX);
                }
                assert_eq!(mixed.to_remove(), run.to_remove(), "{:?}", &keys[..k]);
            }
        };
        check(&keys);
        let mut i = 0;
        while i < 8 {
            if c[i] < i {
                keys.swap(if i % 2 == 0 { 0 } else { c[i] }, i);
                check(&keys);
                c[i] += 1;
                i = 0;
            } else {
                c[i] = 0;
                i += 1;
            }
        }
    }
}
