//! Exact distances for boards of at most 9 cells: a table of every position's distance to the
//! goal, built by one breadth-first search. A perfect heuristic: IDA* with it walks straight down.
//!
//! The table is indexed by the Lehmer code of the whole cell array (blank included), so it has
//! `n!` one-byte entries; the half of them that cannot reach the goal hold [`UNREACHABLE`]. The
//! numbering is the one of [`crate::pdb::rank`] with every tile in the pattern, so the BFS can
//! walk the table with [`crate::pdb::unrank`].

use std::fmt;

use super::Heuristic;
use crate::board::{Board, Size};
use crate::moves::Dir;
use crate::pdb;

/// Largest board (in cells) the exact table is built for: 9! = 362,880 entries.
pub const EXACT_MAX_CELLS: usize = 9;

/// Table entry of a position that cannot reach the goal (the other parity class).
const UNREACHABLE: u8 = u8::MAX;

/// The true distance of every position to one goal (boards of at most [`EXACT_MAX_CELLS`] cells).
///
/// ```
/// use fifteen_core::{Board, Exact, Heuristic, Size};
/// let goal = Board::blank_last(Size::S3X3);
/// let exact = Exact::new(&goal).unwrap();
/// let b = Board::parse("1 0 2 4 6 3 7 5 8", None).unwrap();
/// assert_eq!(exact.estimate(b.cells()), 5);
/// assert_eq!(exact.histogram().iter().sum::<u64>(), 181_440);
/// ```
#[derive(Clone)]
pub struct Exact {
    size: Size,
    /// `dist[rank(cells)]`: moves to the goal, or [`UNREACHABLE`].
    dist: Box<[u8]>,
}

impl Exact {
    /// Builds the table for `goal`, or `None` if the board has more than [`EXACT_MAX_CELLS`] cells.
    ///
    /// One breadth-first search from the goal over the `n! / 2` reachable positions; well under
    /// a second for the 3x3 in an optimised build.
    pub fn new(goal: &Board) -> Option<Exact> {
        let size = goal.size();
        let n = size.cells();
        if n > EXACT_MAX_CELLS {
            return None;
        }
        let total: usize = (1..=n).product();
        let mut dist = vec![UNREACHABLE; total].into_boxed_slice();
        let root = lehmer_rank(goal.cells())?;
        dist[root] = 0;
        // Ranks fit in u32 (9! < 2^19); the queue holds each reachable rank once, in BFS order,
        // so a read cursor replaces a deque.
        let mut queue: Vec<u32> = Vec::with_capacity(total / 2);
        queue.push(root as u32);
        let mut head = 0;
        let mut cells = [0u8; EXACT_MAX_CELLS];
        while let Some(&rank) = queue.get(head) {
            head += 1;
            let d = dist[rank as usize];
            pdb::unrank(n, rank as u64, &mut cells[..n]);
            let cells = &mut cells[..n];
            let blank = cells.iter().position(|&t| t == 0)?;
            for dir in Dir::ALL {
                let Some(to) = dir.neighbor(size, blank) else { continue };
                cells.swap(blank, to);
                if let Some(r) = lehmer_rank(cells)
                    && dist[r] == UNREACHABLE
                {
                    dist[r] = d + 1;
                    queue.push(r as u32);
                }
                cells.swap(blank, to);
            }
        }
        Some(Exact { size, dist })
    }

    /// The number of moves from `cells` to the goal, or `None` if `cells` is not a board of this
    /// size or cannot reach the goal.
    pub fn distance(&self, cells: &[u8]) -> Option<u32> {
        if cells.len() != self.size.cells() {
            return None;
        }
        let d = *self.dist.get(lehmer_rank(cells)?)?;
        (d != UNREACHABLE).then_some(d as u32)
    }

    /// How many positions lie at each distance: `histogram()[d]` positions need exactly `d`
    /// moves. The sum is `n! / 2`, every position that can reach the goal.
    pub fn histogram(&self) -> Vec<u64> {
        let mut counts = Vec::new();
        for &d in self.dist.iter().filter(|&&d| d != UNREACHABLE) {
            let d = d as usize;
            if counts.len() <= d {
                counts.resize(d + 1, 0);
            }
            counts[d] += 1;
        }
        counts
    }

    /// The table entry for `cells`; [`UNREACHABLE`] for anything that is not a reachable board,
    /// so a bad input yields a large estimate instead of a panic.
    #[inline]
    fn lookup(&self, cells: &[u8]) -> u32 {
        if cells.len() != self.size.cells() {
            return UNREACHABLE as u32;
        }
        lehmer_rank(cells).and_then(|r| self.dist.get(r)).map_or(UNREACHABLE as u32, |&d| d as u32)
    }
}

/// The Lehmer code of a permutation of `0..cells.len()` (at most [`EXACT_MAX_CELLS`] values),
/// or `None` if `cells` is not one. Same order as `pdb::rank(n, cells)`.
#[inline]
pub(super) fn lehmer_rank(cells: &[u8]) -> Option<usize> {
    let n = cells.len();
    if n > EXACT_MAX_CELLS {
        return None;
    }
    let mut index = 0usize;
    let mut used = 0u16;
    for (i, &t) in cells.iter().enumerate() {
        if t as usize >= n || used & (1 << t) != 0 {
            return None;
        }
        let digit = t as usize - (used & ((1u16 << t) - 1)).count_ones() as usize;
        index = index * (n - i) + digit;
        used |= 1 << t;
    }
    Some(index)
}

/// The table is 362,880 bytes for a 3x3: print its shape, not its contents.
impl fmt::Debug for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Exact")
            .field("size", &self.size)
            .field("entries", &self.dist.len())
            .finish()
    }
}

impl Heuristic for Exact {
    type State = u32;

    fn name(&self) -> &str {
        "exact"
    }

    fn size(&self) -> Size {
        self.size
    }

    fn init(&self, cells: &[u8]) -> u32 {
        self.lookup(cells)
    }

    #[inline(always)]
    fn h(&self, state: &u32) -> u32 {
        *state
    }

    /// Recomputing the rank of at most 9 cells costs about as much as an incremental update
    /// would, and cannot drift.
    #[inline]
    fn step(&self, _state: &u32, after: &[u8], _tile: u8, _from: usize, _to: usize) -> u32 {
        self.lookup(after)
    }
}
