//! Heuristics: admissible estimates of the moves left, each updated incrementally per move.
//!
//! Every search is generic over [`Heuristic`] (static dispatch, nothing allocated per node).
//! A heuristic keeps whatever it needs per node in its `State` (a value for Manhattan, per-line
//! conflict counts for linear conflict, database indices for a pattern database) so that a move
//! costs an update, not a recomputation. [`Heuristic::prefetch`] lets a memory-bound heuristic
//! start loading its table entries for a child before the search descends into it.

mod any;
mod beam_order;
mod exact;
mod linear_conflict;
mod manhattan;
mod misplaced;

pub use any::{AnyHeuristic, HeuristicKind};
pub(crate) use beam_order::BeamOrder;
#[cfg(test)]
pub(crate) use beam_order::far_sixteenths;
pub(crate) use beam_order::with_beam_order;
pub use exact::{EXACT_MAX_CELLS, Exact};
pub use linear_conflict::LinearConflict;
pub use manhattan::Manhattan;
pub use misplaced::Misplaced;

use crate::board::{Board, MAX_CELLS, Size};

/// An estimate of the number of moves from a position to a fixed goal.
///
/// The contract the searches rely on:
/// - `h(init(cells))` is the estimate for `cells`;
/// - `step(s, after, tile, from, to)` is the state of the board `after`, reached from the board
///   of `s` by sliding `tile` from cell `from` to cell `to` (where the blank was);
/// - an admissible heuristic ([`Heuristic::admissible`]) never overestimates, which is what
///   makes IDA* and A* answers optimal.
pub trait Heuristic: Sync {
    /// Per-node data carried down the search.
    type State: Copy + Send + Sync;

    /// The name used on the command line and in reports.
    fn name(&self) -> &str;

    /// The board size this heuristic was built for.
    fn size(&self) -> Size;

    /// The state of a whole board.
    fn init(&self, cells: &[u8]) -> Self::State;

    /// The estimate held in `state`.
    fn h(&self, state: &Self::State) -> u32;

    /// The state after sliding `tile` from `from` to `to`; `after` is the board after the move.
    fn step(
        &self,
        state: &Self::State,
        after: &[u8],
        tile: u8,
        from: usize,
        to: usize,
    ) -> Self::State;

    /// [`Heuristic::step`] written into `child` (which may hold anything). A heuristic with a
    /// large state can update it in place: a state assembled in one place and then copied
    /// whole is read back with wide loads over narrow stores just made, which the processor
    /// cannot forward (measured: a sixth of the database heuristic's step).
    #[inline(always)]
    fn step_into(
        &self,
        state: &Self::State,
        child: &mut Self::State,
        after: &[u8],
        tile: u8,
        from: usize,
        to: usize,
    ) {
        *child = self.step(state, after, tile, from, to);
    }

    /// Whether [`Heuristic::step`] defers its table reads to [`Heuristic::resolve`]. Searches
    /// then step every child, [`prefetch`](Heuristic::prefetch) them all, and only then resolve
    /// them, so that the memory latencies overlap. Also tells the search the heuristic may be
    /// inconsistent, so it applies bidirectional pathmax.
    const LAZY: bool = false;

    /// Start loading whatever [`Heuristic::resolve`] will read for `state`. A no-op unless the
    /// heuristic reads large tables.
    #[inline(always)]
    fn prefetch(&self, _state: &Self::State) {}

    /// [`Heuristic::prefetch`] for a search that resolves every state in full (a beam): a
    /// heuristic that defers part of its work to [`Heuristic::resolve`] (in case the search
    /// can stop early) does it now and starts loading everything `resolve` will read.
    #[inline(always)]
    fn prefetch_all(&self, state: &mut Self::State) {
        self.prefetch(state);
    }

    /// Completes the reads that [`Heuristic::step`] or [`Heuristic::init`] deferred, and
    /// returns the estimate. [`Heuristic::h`] is only valid on a resolved state.
    #[inline(always)]
    fn resolve(&self, state: &mut Self::State) -> u32 {
        self.h(state)
    }

    /// [`Heuristic::resolve`] for a search that only needs to know whether the estimate exceeds
    /// `room`: a heuristic that takes a maximum may stop as soon as one of its parts exceeds
    /// `room + 2` (the 2 lets pathmax still close the parent: see `search/ida.rs`) and return
    /// that part, a lower bound of the estimate. Such a state is then only good for comparing
    /// with `room`, never for stepping. The default resolves fully.
    #[inline(always)]
    fn resolve_within(&self, state: &mut Self::State, room: u32) -> u32 {
        let _ = room;
        self.resolve(state)
    }

    /// The first half of [`Heuristic::resolve_within`], for a search that resolves several
    /// states side by side: the estimate if it is decided without further reads, else `None`
    /// after starting the loads that [`Heuristic::resolve_rest`] then finishes. Starting every
    /// sibling's loads before finishing any lets their memory latencies overlap. The default
    /// resolves at once.
    #[inline(always)]
    fn resolve_begin(&self, state: &mut Self::State, room: u32) -> Option<u32> {
        Some(self.resolve_within(state, room))
    }

    /// Finishes a [`Heuristic::resolve_begin`] that returned `None`: the full estimate, as
    /// [`Heuristic::resolve_within`] would have returned it.
    #[inline(always)]
    fn resolve_rest(&self, state: &mut Self::State) -> u32 {
        self.resolve(state)
    }

    /// Table reads done by the last [`Heuristic::resolve_within`] beyond those
    /// [`Heuristic::pending_reads`] announced (a lazy heuristic decides some reads as it goes).
    #[inline(always)]
    fn reads_done(&self, _state: &Self::State) -> u32 {
        0
    }

    /// The deferred reads of `state` as bits (at most 16), for a search that does the reads
    /// of several states in one loop ([`Heuristic::read_slot`] for each, then
    /// [`Heuristic::clear_pending`] and [`Heuristic::resolve`]): one loop whose length the
    /// processor can predict better than one per state. None by default, which leaves all the
    /// reads to `resolve`.
    #[inline(always)]
    fn pending(&self, _state: &Self::State) -> u16 {
        0
    }

    /// Does the read of one bit of [`Heuristic::pending`] (leaving the bit set).
    #[inline(always)]
    fn read_slot(&self, _state: &mut Self::State, _slot: usize) {}

    /// Marks every deferred read of `state` done.
    #[inline(always)]
    fn clear_pending(&self, _state: &mut Self::State) {}

    /// How many table reads [`Heuristic::resolve`] will do for `state` (for statistics: the
    /// lookups per node that a memory-bound search is judged by): the bits of
    /// [`Heuristic::pending`].
    #[inline(always)]
    fn pending_reads(&self, state: &Self::State) -> u32 {
        self.pending(state).count_ones()
    }

    /// Orders children with equal estimates (lower first) on a resolved state. A heuristic that
    /// takes the maximum of several estimates can return their sum: a child that more of them
    /// place near the goal is more often on a shortest path, so the last iteration finds the
    /// answer sooner. The default orders nothing.
    #[inline(always)]
    fn tie_break(&self, _state: &Self::State) -> u32 {
        0
    }

    /// Orders boards at the same depth for a beam search (lower first) on a resolved state;
    /// only the order matters, and it need not be admissible. The estimate by default.
    #[inline(always)]
    fn rank(&self, state: &Self::State) -> u32 {
        self.h(state)
    }

    /// Whether [`Heuristic::resolve_begin`] can stop at a part of the estimate (a lower bound)
    /// once that part exceeds its `room`, leaving the state to be resolved in full later (with
    /// `resolve_begin` given no room to stop at, then [`Heuristic::resolve_rest`]). A beam then
    /// ranks a child by that part when it is already past the layer's expected cut, and resolves
    /// it only if the cut comes out higher (a catalogue: the partition that led at the parent).
    const RESOLVES_IN_PARTS: bool = false;

    /// What [`Heuristic::rank`] adds to the estimate, known before the state is resolved (zero
    /// by default).
    #[inline(always)]
    fn rank_extra(&self, _state: &Self::State) -> u32 {
        0
    }

    /// Whether a beam ranks this heuristic's boards better with the board's linear conflicts
    /// and far tiles added to [`Heuristic::rank`] (`BeamOrder`): additive databases, which
    /// count no conflict between tiles of different patterns.
    const RANK_WITH_CONFLICTS: bool = false;

    /// Whether a beam ranks this heuristic's boards better with a weight for tiles far from
    /// home added to [`Heuristic::rank`] (`BeamOrder`): linear conflict, whose rank leaves
    /// tiles behind (implied by [`Heuristic::RANK_WITH_CONFLICTS`]).
    const RANK_FAR_TILES: bool = false;

    /// Whether the estimate is nearly exact near the goal, so that a beam's last layers need a
    /// fraction of its width (the 5x5 catalogue; not linear conflict, measured on the 7x7). The
    /// anytime search then sizes a short search's last beam to the whole time left, and
    /// narrows it if the deadline nears (`search/anytime.rs`, `docs/performance.md`).
    const NEAR_EXACT_AT_GOAL: bool = false;

    /// Whether the estimate never exceeds the true distance.
    fn admissible(&self) -> bool {
        true
    }

    /// The estimate for a whole board.
    fn estimate(&self, cells: &[u8]) -> u32 {
        let mut state = self.init(cells);
        self.resolve(&mut state)
    }
}

/// Where each tile belongs: the goal, arranged for fast lookups.
#[derive(Clone, Debug)]
pub(crate) struct GoalCells {
    pub(crate) size: Size,
    /// `cell[t]`: the goal cell of tile `t`.
    pub(crate) cell: [u8; MAX_CELLS],
}

impl GoalCells {
    pub(crate) fn new(goal: &Board) -> GoalCells {
        let mut cell = [0u8; MAX_CELLS];
        for (c, &t) in goal.cells().iter().enumerate() {
            cell[t as usize] = c as u8;
        }
        GoalCells { size: goal.size(), cell }
    }
}

#[cfg(test)]
mod tests;
