//! A beam's order: a heuristic's own rank plus what it misses about a board's distance, for
//! ordering only.
//!
//! A beam keeps, at each depth, the boards that rank best, so its answers are only as short as
//! the order is good (`search/beam.rs`). [`BeamOrder`] wraps a heuristic and adds to its
//! [`Heuristic::rank`]:
//! - **far tiles** (always): each tile `d` cells from home adds [`FAR_SIXTEENTHS`]`·(d - 1)²`
//!   sixteenths of a move. A tile left far behind costs far more than its distance once the
//!   tiles around it are home (the blank has to walk it through them, about five moves a
//!   cell); ranked by Manhattan distance and conflicts alone, a beam leaves one behind, then
//!   wanders to fetch it (`docs/performance.md`). Used with linear conflict
//!   ([`Heuristic::RANK_FAR_TILES`]).
//! - **conflicts** (`CONFLICTS`): the number of tiles that linear conflict says must leave their
//!   line. Additive databases count the moves that the tiles of one pattern need among
//!   themselves, but nothing for two tiles of *different* patterns that block each other in a
//!   row or column: a board can have a low sum and still a long way to go. Each such tile is
//!   worth two moves in linear conflict's estimate; one here, on top of the databases that
//!   already count the conflicts within a pattern, ranked best of one half, one and two
//!   (`docs/performance.md`). Used with databases, additive sets and catalogues alike (a
//!   catalogue's leading partition misses the same conflicts) through
//!   [`Heuristic::RANK_WITH_CONFLICTS`], with the far tiles too.
//!
//! Only the order changes. The estimate, the pruning, admissibility and every table read are
//! the wrapped heuristic's: [`Heuristic::h`] and the lazy-read methods forward to it, and the
//! added terms ride along in the state, updated move by move (two lines' conflicts and one
//! tile's weight a move). The terms stay out of the heuristics' own states so that IDA*,
//! which never ranks, does not pay for them.

use super::linear_conflict::LcState;
use super::{Heuristic, LinearConflict};
use crate::board::{Board, MAX_SIDE, Size};

/// The weight of a far tile in a beam's order, in sixteenths of a move per squared cell beyond
/// the first (chosen by measurement on 6x6 to 8x8: `docs/performance.md`).
pub(crate) const FAR_SIXTEENTHS: u16 = 5;

/// Distances run to `2 * (MAX_SIDE - 1)`, 14 on an 8x8.
const DISTANCES: usize = 2 * MAX_SIDE as usize - 1;

// The far weights of a full board fit in 16 bits.
const _: () = assert!(
    crate::board::MAX_CELLS * FAR_SIXTEENTHS as usize * (DISTANCES - 2).pow(2) < u16::MAX as usize
);

/// `H`, ranked for a beam by its rank plus far tiles and, with `CONFLICTS`, the board's
/// linear-conflict count.
#[derive(Debug)]
pub(crate) struct BeamOrder<'a, H, const CONFLICTS: bool> {
    inner: &'a H,
    /// Linear conflict towards the goal: the conflicts, and each tile's distance from home.
    conflicts: LinearConflict,
    /// [`FAR_SIXTEENTHS`]`·(d - 1)²` by Manhattan distance `d`.
    far: [u16; DISTANCES],
}

/// The wrapped heuristic's state, linear conflict's (not kept up to date, and never read,
/// without `CONFLICTS`), and the far tiles' weight in sixteenths of a move.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BeamOrderState<S> {
    inner: S,
    lines: LcState,
    far: u16,
}

impl<'a, H: Heuristic, const CONFLICTS: bool> BeamOrder<'a, H, CONFLICTS> {
    /// `inner`, ranked for boards on their way to `goal` (`inner`'s goal).
    pub(crate) fn new(inner: &'a H, goal: &Board) -> BeamOrder<'a, H, CONFLICTS> {
        let mut far = [0u16; DISTANCES];
        for (d, x) in far.iter_mut().enumerate().skip(1) {
            *x = FAR_SIXTEENTHS * ((d - 1) * (d - 1)) as u16;
        }
        BeamOrder { inner, conflicts: LinearConflict::new(goal), far }
    }

    /// The far weight of `tile` on `cell`, in sixteenths of a move.
    #[inline(always)]
    fn far_at(&self, tile: u8, cell: usize) -> u16 {
        self.far[self.conflicts.tile_distance(tile, cell) as usize]
    }

    /// `s`'s far weight after `tile` moved from `from` to `to`.
    #[inline(always)]
    fn far_step(&self, s: &BeamOrderState<H::State>, tile: u8, from: usize, to: usize) -> u16 {
        s.far + self.far_at(tile, to) - self.far_at(tile, from)
    }

    /// The conflicts' and far tiles' part of the rank.
    #[inline(always)]
    fn own_extra(&self, s: &BeamOrderState<H::State>) -> u32 {
        let conflicts = if CONFLICTS { self.conflicts.tiles_to_remove(&s.lines) } else { 0 };
        conflicts + u32::from(s.far >> 4)
    }

    /// `s`'s lines after the move, when they are counted.
    #[inline(always)]
    fn lines_step(
        &self,
        s: &BeamOrderState<H::State>,
        after: &[u8],
        tile: u8,
        from: usize,
        to: usize,
    ) -> LcState {
        if CONFLICTS { self.conflicts.lines_step(&s.lines, after, tile, from, to) } else { s.lines }
    }
}

impl<H: Heuristic, const CONFLICTS: bool> Heuristic for BeamOrder<'_, H, CONFLICTS> {
    type State = BeamOrderState<H::State>;

    const LAZY: bool = H::LAZY;

    fn name(&self) -> &str {
        self.inner.name()
    }

    fn size(&self) -> Size {
        self.inner.size()
    }

    fn init(&self, cells: &[u8]) -> Self::State {
        let far = (cells.iter().enumerate())
            .filter(|&(_, &t)| t != 0)
            .map(|(cell, &t)| self.far_at(t, cell))
            .sum();
        let lines = if CONFLICTS { self.conflicts.init(cells) } else { LcState::default() };
        BeamOrderState { inner: self.inner.init(cells), lines, far }
    }

    #[inline(always)]
    fn h(&self, s: &Self::State) -> u32 {
        self.inner.h(&s.inner)
    }

    #[inline]
    fn step(&self, s: &Self::State, after: &[u8], tile: u8, from: usize, to: usize) -> Self::State {
        BeamOrderState {
            inner: self.inner.step(&s.inner, after, tile, from, to),
            lines: self.lines_step(s, after, tile, from, to),
            far: self.far_step(s, tile, from, to),
        }
    }

    #[inline(always)]
    fn step_into(
        &self,
        s: &Self::State,
        child: &mut Self::State,
        after: &[u8],
        tile: u8,
        from: usize,
        to: usize,
    ) {
        self.inner.step_into(&s.inner, &mut child.inner, after, tile, from, to);
        if CONFLICTS {
            child.lines = self.conflicts.lines_step(&s.lines, after, tile, from, to);
        }
        child.far = self.far_step(s, tile, from, to);
    }

    #[inline(always)]
    fn prefetch(&self, s: &Self::State) {
        self.inner.prefetch(&s.inner);
    }

    #[inline(always)]
    fn prefetch_all(&self, s: &mut Self::State) {
        self.inner.prefetch_all(&mut s.inner);
    }

    #[inline(always)]
    fn resolve(&self, s: &mut Self::State) -> u32 {
        self.inner.resolve(&mut s.inner)
    }

    #[inline(always)]
    fn resolve_within(&self, s: &mut Self::State, room: u32) -> u32 {
        self.inner.resolve_within(&mut s.inner, room)
    }

    #[inline(always)]
    fn resolve_begin(&self, s: &mut Self::State, room: u32) -> Option<u32> {
        self.inner.resolve_begin(&mut s.inner, room)
    }

    #[inline(always)]
    fn resolve_rest(&self, s: &mut Self::State) -> u32 {
        self.inner.resolve_rest(&mut s.inner)
    }

    #[inline(always)]
    fn reads_done(&self, s: &Self::State) -> u32 {
        self.inner.reads_done(&s.inner)
    }

    #[inline(always)]
    fn pending(&self, s: &Self::State) -> u16 {
        self.inner.pending(&s.inner)
    }

    #[inline(always)]
    fn read_slot(&self, s: &mut Self::State, slot: usize) {
        self.inner.read_slot(&mut s.inner, slot);
    }

    #[inline(always)]
    fn clear_pending(&self, s: &mut Self::State) {
        self.inner.clear_pending(&mut s.inner);
    }

    #[inline(always)]
    fn pending_reads(&self, s: &Self::State) -> u32 {
        self.inner.pending_reads(&s.inner)
    }

    #[inline(always)]
    fn tie_break(&self, s: &Self::State) -> u32 {
        self.inner.tie_break(&s.inner)
    }

    #[inline(always)]
    fn rank(&self, s: &Self::State) -> u32 {
        self.inner.rank(&s.inner) + self.own_extra(s)
    }

    const RESOLVES_IN_PARTS: bool = H::RESOLVES_IN_PARTS;
    const NEAR_EXACT_AT_GOAL: bool = H::NEAR_EXACT_AT_GOAL;

    #[inline(always)]
    fn rank_extra(&self, s: &Self::State) -> u32 {
        self.inner.rank_extra(&s.inner) + self.own_extra(s)
    }

    fn admissible(&self) -> bool {
        self.inner.admissible()
    }
}

/// Evaluates `$body` with `$ranked` bound to heuristic `$h` (of type `$H`) as a beam ranks its
/// boards on the way to `$goal`: through [`BeamOrder`] when `$H` asks for conflicts
/// ([`Heuristic::RANK_WITH_CONFLICTS`]) or far tiles ([`Heuristic::RANK_FAR_TILES`]), else as
/// it is. Shared by the single-tile and the line beams, so that both rank alike.
macro_rules! with_beam_order {
    ($H:ty, $h:expr, $goal:expr, |$ranked:ident| $body:expr) => {
        if <$H as $crate::heuristic::Heuristic>::RANK_WITH_CONFLICTS {
            let $ranked = &$crate::heuristic::BeamOrder::<$H, true>::new($h, $goal);
            $body
        } else if <$H as $crate::heuristic::Heuristic>::RANK_FAR_TILES {
            let $ranked = &$crate::heuristic::BeamOrder::<$H, false>::new($h, $goal);
            $body
        } else {
            let $ranked = $h;
            $body
        }
    };
}
pub(crate) use with_beam_order;

/// The far weight of `board` on its way to `goal`, in sixteenths of a move, from the cells
/// directly (no state, no table).
#[cfg(test)]
pub(crate) fn far_sixteenths(board: &Board, goal: &Board) -> u32 {
    let w = board.size().width();
    let mut sum = 0;
    for (cell, &tile) in board.cells().iter().enumerate().filter(|&(_, &t)| t != 0) {
        let home = goal.cells().iter().position(|&t| t == tile).expect("every tile has a home");
        let d = (cell / w).abs_diff(home / w) + (cell % w).abs_diff(home % w);
        sum += u32::from(FAR_SIXTEENTHS) * (d.max(1) as u32 - 1).pow(2);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dir;
    use crate::heuristic::Manhattan;

    /// Linear conflict's beam order along long walks on boards up to 8x8, both goals: the
    /// estimate is linear conflict's, the rank is Manhattan distance, 3 moves per tile to
    /// remove from a line, and the far weight counted from the cells, through `step` and
    /// `step_into` alike.
    #[test]
    fn linear_conflict_ranks_far_tiles_worse_than_their_distance() {
        for size in [Size::S4X4, Size::new(5, 7).unwrap(), Size::new(8, 8).unwrap()] {
            for goal in [Board::blank_last(size), Board::blank_first(size)] {
                let (lc, md) = (LinearConflict::new(&goal), Manhattan::new(&goal));
                let order = BeamOrder::<_, false>::new(&lc, &goal);
                let mut b = goal.clone();
                let mut s = order.init(b.cells());
                let (mut x, mut far_seen) = (99u64, false);
                for _ in 0..20_000 {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let blank = b.blank();
                    let Some(to) = Dir::ALL[(x >> 33) as usize % 4].neighbor(size, blank) else {
                        continue;
                    };
                    let tile = b.apply(Dir::ALL[(x >> 33) as usize % 4]).unwrap();
                    let mut into = order.init(goal.cells());
                    order.step_into(&s, &mut into, b.cells(), tile, to, blank);
                    s = order.step(&s, b.cells(), tile, to, blank);
                    let estimate = lc.estimate(b.cells());
                    let conflicts = (estimate - md.estimate(b.cells())) / 2;
                    let far = far_sixteenths(&b, &goal);
                    for state in [&s, &into] {
                        assert_eq!(order.h(state), estimate, "{b:?}");
                        let rank = md.estimate(b.cells()) + 3 * conflicts + far / 16;
                        assert_eq!(order.rank(state), rank, "{b:?}");
                    }
                    far_seen |= far >= 16;
                }
                assert!(far_seen, "the walk took a tile far from home on {size:?}");
            }
        }
    }

    /// A tile four cells from home ranks worse than tiles one cell from home each, though
    /// Manhattan distance and linear conflict count the same for both boards.
    #[test]
    fn one_far_tile_ranks_worse_than_the_same_distance_spread() {
        let size = Size::new(5, 5).unwrap();
        let goal = Board::blank_last(size);
        let (lc, md) = (LinearConflict::new(&goal), Manhattan::new(&goal));
        let order = BeamOrder::<_, false>::new(&lc, &goal);
        let board = |text: &str| Board::parse(text, Some(size)).unwrap();
        // Tile 1 at the end of its row: Manhattan 8, one tile to remove from row 0.
        let far = board("2 3 4 5 1 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 0");
        // Tiles 1 and 2 swapped, and the blank's walk up the last column, left, and down two:
        // eight tiles one cell from home, the same one tile to remove.
        let spread = board("2 1 3 4 5 6 7 8 14 9 11 12 13 19 10 16 17 18 0 15 21 22 23 24 20");
        assert_eq!(md.estimate(far.cells()), 8);
        assert_eq!(md.estimate(spread.cells()), 8);
        assert_eq!(lc.estimate(far.cells()), 10);
        assert_eq!(lc.estimate(spread.cells()), 10);
        let rank = |b: &Board| order.rank(&order.init(b.cells()));
        assert_eq!(rank(&spread), 8 + 3);
        assert_eq!(rank(&far), 8 + 3 + 2, "tile 1 four cells away: 5 * 3² sixteenths");
    }
}
