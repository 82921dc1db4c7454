//! A path to the goal built edge by edge, the way people solve by hand: the fallback answer
//! of an anytime search that a limit stopped before any search answered.
//!
//! The unsolved part of the board is a rectangle. While it has more than [`FINAL_CELLS`]
//! cells, one of its edges is put in place and left alone: a row when the rectangle is at
//! least as tall as it is wide, else a column, taken from the side away from the goal's blank
//! (so the blank's goal cell stays in the rectangle). An edge's tiles go home one at a time,
//! each by a search over the places of that tile and the blank within the rectangle, the
//! tiles already placed fixed and the others moving as they must; its last two tiles go home
//! together, by a search over the places of both and the blank, because the last tile of a
//! line cannot be placed without moving the one before it. What is left (at most 3x2 cells)
//! is solved by a breadth-first search over its arrangements.
//!
//! The placing searches are best-first by moves made plus [`WEIGHT`] times the tiles'
//! distances home: a breadth-first search over a pair's 262,144 states on an 8x8 took about
//! 30 ms a board, this about 3 ms for paths 3% longer (20 uniformly random 8x8 boards, 1,039
//! moves after loops are cut). Either finds a path whenever one exists, and one always does:
//! a tile or a pair can be brought home within a rectangle at least two cells by three with
//! the rest of it free, and the last small rectangle is solvable because the whole board is
//! and every tile outside it is home. The path is two to three times the optimum, so the
//! anytime search returns it only when it has nothing better, labelled as what it is.
//!
//! Invariants: `construct` returns `None` only for an unsolvable pair of boards; a path it
//! returns replays from the start to the goal (the tests replay it on every size up to 8x8).

use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap, VecDeque};

use super::Problem;
use crate::board::{Board, MAX_CELLS};
use crate::moves::Dir;

/// How much a tile's distance from home counts against the moves made, in the best-first
/// search that places tiles.
const WEIGHT: usize = 4;

/// The largest rectangle solved as a whole (3x2: 720 arrangements).
const FINAL_CELLS: usize = 6;

/// A path from the problem's start to its goal, solved edge by edge as people do by hand, with
/// its loops cut: milliseconds on any board up to 8x8, two to three times the optimal length.
/// The anytime searches return it when a limit stops them before any answer; any search's
/// answer is better.
///
/// ```
/// use fifteen_core::{Board, Problem, Size, replay, solve_by_edges};
/// let goal = Board::blank_last(Size::new(8, 8).unwrap());
/// let mut start = goal.clone();
/// for d in fifteen_core::parse_moves("UUULLLDDDRRR", fifteen_core::Notation::Blank).unwrap() {
///     start.apply(d);
/// }
/// let moves = solve_by_edges(&Problem::new(start.clone(), goal.clone()).unwrap());
/// assert_eq!(replay(&start, &moves).unwrap().0, goal);
/// ```
pub fn solve_by_edges(problem: &Problem) -> Vec<Dir> {
    // A `Problem` is solvable, so `construct` finds a path.
    let path = construct(problem.start(), problem.goal()).unwrap_or_default();
    super::shorten::cut_loops(problem.start(), &path)
}

/// A path from `start` to `goal` (boards of one size), or `None` if the goal cannot be reached.
pub(crate) fn construct(start: &Board, goal: &Board) -> Option<Vec<Dir>> {
    if start.size() != goal.size() || start.solvability(goal).is_err() {
        return None;
    }
    let mut work = Work::new(start, goal);
    let (w, h) = (start.size().width(), start.size().height());
    let (blank_row, blank_col) = (goal.blank() / w, goal.blank() % w);
    // The rectangle still unsolved: rows top..bottom, columns left..right (ends excluded).
    let (mut top, mut bottom, mut left, mut right) = (0, h, 0, w);
    while (bottom - top) * (right - left) > FINAL_CELLS {
        // A row or a column: its first and last (excluded) index, and the goal blank's.
        let rows = bottom - top >= right - left;
        let (lo, hi, goal_blank) =
            if rows { (top, bottom, blank_row) } else { (left, right, blank_col) };
        let line = if goal_blank == lo { hi - 1 } else { lo };
        let cells: Vec<usize> = if rows {
            (left..right).map(|c| line * w + c).collect()
        } else {
            (top..bottom).map(|r| r * w + line).collect()
        };
        work.place_line(&cells)?;
        let (lo, hi) = if rows { (&mut top, &mut bottom) } else { (&mut left, &mut right) };
        if line == *lo {
            *lo += 1;
        } else {
            *hi -= 1;
        }
    }
    work.finish()?;
    Some(work.path)
}

/// The board as it is being solved.
struct Work {
    width: usize,
    cells: Vec<u8>,
    goal: Vec<u8>,
    /// Cells whose tiles are home and stay there.
    fixed: [bool; MAX_CELLS],
    path: Vec<Dir>,
}

impl Work {
    fn new(start: &Board, goal: &Board) -> Work {
        Work {
            width: start.size().width(),
            cells: start.cells().to_vec(),
            goal: goal.cells().to_vec(),
            fixed: [false; MAX_CELLS],
            path: Vec::new(),
        }
    }

    fn blank(&self) -> usize {
        self.cells.iter().position(|&t| t == 0).unwrap_or(0)
    }

    /// The free cell the blank reaches from `cell` by `dir`, if any.
    fn step(&self, cell: usize, dir: Dir) -> Option<usize> {
        let (w, n) = (self.width, self.cells.len());
        let next = match dir {
            Dir::Up => cell.checked_sub(w)?,
            Dir::Down => Some(cell + w).filter(|&c| c < n)?,
            Dir::Left => Some(cell).filter(|c| c % w != 0)? - 1,
            Dir::Right => Some(cell + 1).filter(|c| c % w != 0)?,
        };
        (!self.fixed[next]).then_some(next)
    }

    /// Plays `moves` on the board and appends them to the path.
    fn play(&mut self, moves: &[Dir]) {
        for &d in moves {
            let from = self.blank();
            if let Some(to) = self.step(from, d) {
                self.cells.swap(from, to);
                self.path.push(d);
            }
        }
    }

    /// Puts the goal's tiles of `line` (cells in order, none the goal's blank) home, the last
    /// two together, and fixes them.
    fn place_line(&mut self, line: &[usize]) -> Option<()> {
        let (singles, pair) = line.split_at(line.len().saturating_sub(2));
        for &cell in singles {
            self.place(&[cell])?;
            self.fixed[cell] = true;
        }
        self.place(pair)?;
        for &cell in pair {
            self.fixed[cell] = true;
        }
        Some(())
    }

    /// Brings the goal's tiles of `homes` (one or two cells) home by a breadth-first search over
    /// their places and the blank's, the other free tiles moving as they must.
    fn place(&mut self, homes: &[usize]) -> Option<()> {
        let n = self.cells.len();
        let k = homes.len();
        // Each tile's cell; a single tile's second slot stays 0 and never moves.
        let mut at = [0usize; 2];
        for (slot, &home) in at.iter_mut().zip(homes) {
            *slot = self.cells.iter().position(|&x| x == self.goal[home])?;
        }
        // A state is the blank's cell, then each tile's, in base `n`.
        let encode = |blank: usize, at: &[usize; 2]| at[..k].iter().fold(blank, |s, &p| s * n + p);
        let mut homes_at = [0usize; 2];
        homes_at[..k].copy_from_slice(homes);
        let root = encode(self.blank(), &at);
        // The move that reached each state (`NONE` unseen), to walk the path back.
        const NONE: u8 = u8::MAX;
        let mut via = vec![NONE; n.pow(1 + k as u32)];
        via[root] = 0;
        // Best first by moves so far plus WEIGHT times the tiles' distances home (each move
        // brings one tile at most one cell nearer).
        let w = self.width;
        let far = |at: &[usize; 2]| -> usize {
            at[..k]
                .iter()
                .zip(homes)
                .map(|(&p, &h)| (p / w).abs_diff(h / w) + (p % w).abs_diff(h % w))
                .sum()
        };
        let mut queue = BinaryHeap::from([Reverse((WEIGHT * far(&at), 0usize, self.blank(), at))]);
        let mut end = None;
        while let Some(Reverse((_, g, blank, at))) = queue.pop() {
            if at == homes_at {
                end = Some((blank, at));
                break;
            }
            for d in Dir::ALL {
                let Some(next) = self.step(blank, d) else { continue };
                let mut moved = at;
                for p in &mut moved[..k] {
                    if *p == next {
                        *p = blank;
                    }
                }
                let s = encode(next, &moved);
                if via[s] == NONE {
                    via[s] = d as u8;
                    queue.push(Reverse((g + 1 + WEIGHT * far(&moved), g + 1, next, moved)));
                }
            }
        }
        let (mut blank, end_at) = end?;
        at = end_at;
        // Back from the end: undo each state's move (the tile on the cell the blank came from
        // moved onto the blank's cell).
        let mut moves = Vec::new();
        while encode(blank, &at) != root {
            let d = Dir::ALL[via[encode(blank, &at)] as usize];
            let prev = self.step(blank, d.opposite())?;
            for p in &mut at[..k] {
                if *p == prev {
                    *p = blank;
                }
            }
            blank = prev;
            moves.push(d);
        }
        moves.reverse();
        self.play(&moves);
        Some(())
    }

    /// Solves the free cells (at most [`FINAL_CELLS`]) by a breadth-first search over their
    /// arrangements.
    fn finish(&mut self) -> Option<()> {
        let free: Vec<usize> = (0..self.cells.len()).filter(|&c| !self.fixed[c]).collect();
        let key = |cells: &[u8]| free.iter().fold(0u64, |k, &c| k << 6 | u64::from(cells[c]));
        let target = key(&self.goal);
        let mut via: HashMap<u64, (u64, Dir)> = HashMap::new();
        let root = key(&self.cells);
        let mut queue = VecDeque::from([self.cells.clone()]);
        // The root's entry only marks it seen: the walk back stops there.
        via.insert(root, (root, Dir::Up));
        while let Some(cells) = queue.pop_front() {
            let k = key(&cells);
            if k == target {
                let mut moves = Vec::new();
                let mut at = k;
                while at != root {
                    let &(prev, d) = via.get(&at)?;
                    moves.push(d);
                    at = prev;
                }
                moves.reverse();
                self.play(&moves);
                return Some(());
            }
            let blank = cells.iter().position(|&t| t == 0)?;
            for d in Dir::ALL {
                let Some(next) = self.step(blank, d) else { continue };
                let mut child = cells.clone();
                child.swap(blank, next);
                if let Entry::Vacant(e) = via.entry(key(&child)) {
                    e.insert((k, d));
                    queue.push_back(child);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Size;
    use crate::search::replay;

    /// The next number of a xorshift generator (cheap, every size, no dependency).
    fn next(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// A random board `moves` random blank moves from `goal`.
    fn walk(goal: &Board, moves: usize, seed: u64) -> Board {
        let mut b = goal.clone();
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        for _ in 0..moves {
            b.apply(Dir::ALL[(next(&mut x) % 4) as usize]);
        }
        b
    }

    #[test]
    fn the_path_reaches_the_goal_on_every_size_and_goal() {
        for w in 2..=8 {
            for h in 2..=8 {
                let size = Size::new(w, h).unwrap();
                let n = size.cells();
                // Goals with the blank last, first, and in the middle of the board.
                let mut middle: Vec<u8> = (1..n as u8).collect();
                middle.insert(n / 2, 0);
                let goals = [
                    Board::blank_last(size),
                    Board::blank_first(size),
                    Board::from_cells(size, &middle).unwrap(),
                ];
                for (g, goal) in goals.iter().enumerate() {
                    for seed in 0..3 {
                        let start =
                            walk(goal, 20 * n + 7, (w * 100 + h * 10 + g) as u64 * 7 + seed);
                        let path = construct(&start, goal)
                            .unwrap_or_else(|| panic!("no path on {w}x{h}, goal {g}, seed {seed}"));
                        let (end, _) = replay(&start, &path).expect("the path stays on the board");
                        assert_eq!(&end, goal, "{w}x{h}, goal {g}, seed {seed}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_path_reaches_the_goal_from_uniformly_random_boards() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for (w, h) in [(8, 8), (7, 8), (8, 3), (5, 5), (2, 8), (8, 2), (3, 3)] {
            let size = Size::new(w, h).unwrap();
            let goal = Board::blank_last(size);
            for _ in 0..4 {
                // A shuffle; one swap of two tiles (not the blank) fixes an odd permutation.
                let mut cells = goal.cells().to_vec();
                for i in (1..cells.len()).rev() {
                    cells.swap(i, (next(&mut x) % (i as u64 + 1)) as usize);
                }
                let mut start = Board::from_cells(size, &cells).unwrap();
                if start.solvability(&goal).is_err() {
                    let tiles: Vec<usize> = (0..cells.len()).filter(|&c| cells[c] != 0).collect();
                    cells.swap(tiles[0], tiles[1]);
                    start = Board::from_cells(size, &cells).unwrap();
                }
                let path = construct(&start, &goal).expect("a solvable board gets a path");
                let (end, _) = replay(&start, &path).expect("the path stays on the board");
                assert_eq!(end, goal, "{w}x{h}");
            }
        }
    }

    #[test]
    fn an_unsolvable_pair_gets_no_path() {
        let goal = Board::blank_last(Size::S4X4);
        let mut cells = goal.cells().to_vec();
        cells.swap(0, 1);
        let start = Board::from_cells(Size::S4X4, &cells).unwrap();
        assert_eq!(construct(&start, &goal), None);
    }
}
