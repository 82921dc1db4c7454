//! A beam's order for additive databases: the heuristic's own rank plus the linear conflicts
//! of the whole board.
//!
//! A beam keeps, at each depth, the boards that rank best, so its answers are only as short as
//! the order is good (`search/beam.rs`). Additive databases count the moves that the tiles of
//! one pattern need among themselves, but nothing for two tiles of *different* patterns that
//! block each other in a row or column: a board can have a low sum and still a long way to
//! go. [`ConflictRanked`] ranks by the wrapped heuristic's [`Heuristic::rank`] plus the number
//! of tiles that linear conflict says must leave their line (each worth two moves in linear
//! conflict's estimate; counting one here, on top of the databases that already count the
//! conflicts within a pattern, ranked best of one half, one and two: `docs/performance.md`).
//!
//! Only the order changes. The estimate, the pruning, admissibility and every table read are
//! the wrapped heuristic's: [`Heuristic::h`] and the lazy-read methods forward to it, and the
//! conflict counts ride along in the state, updated move by move as linear conflict updates
//! its own (two lines a move).

use super::linear_conflict::LcState;
use super::{Heuristic, LinearConflict};
use crate::board::{Board, Size};

/// `H`, ranked for a beam by its rank plus the board's linear-conflict count.
#[derive(Debug)]
pub(crate) struct ConflictRanked<'a, H> {
    inner: &'a H,
    conflicts: LinearConflict,
}

/// The wrapped heuristic's state and linear conflict's.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConflictRankedState<S> {
    inner: S,
    lines: LcState,
}

impl<'a, H: Heuristic> ConflictRanked<'a, H> {
    /// `inner`, ranked with the conflicts of boards on their way to `goal` (`inner`'s goal).
    pub(crate) fn new(inner: &'a H, goal: &Board) -> ConflictRanked<'a, H> {
        ConflictRanked { inner, conflicts: LinearConflict::new(goal) }
    }
}

impl<H: Heuristic> Heuristic for ConflictRanked<'_, H> {
    type State = ConflictRankedState<H::State>;

    const LAZY: bool = H::LAZY;

    fn name(&self) -> &str {
        self.inner.name()
    }

    fn size(&self) -> Size {
        self.inner.size()
    }

    fn init(&self, cells: &[u8]) -> Self::State {
        ConflictRankedState { inner: self.inner.init(cells), lines: self.conflicts.init(cells) }
    }

    #[inline(always)]
    fn h(&self, s: &Self::State) -> u32 {
        self.inner.h(&s.inner)
    }

    #[inline]
    fn step(&self, s: &Self::State, after: &[u8], tile: u8, from: usize, to: usize) -> Self::State {
        ConflictRankedState {
            inner: self.inner.step(&s.inner, after, tile, from, to),
            lines: self.conflicts.step(&s.lines, after, tile, from, to),
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
        child.lines = self.conflicts.step(&s.lines, after, tile, from, to);
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
        self.inner.rank(&s.inner) + self.conflicts.tiles_to_remove(&s.lines)
    }

    fn admissible(&self) -> bool {
        self.inner.admissible()
    }
}
