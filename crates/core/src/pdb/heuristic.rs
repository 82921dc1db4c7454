//! The additive pattern-database heuristic, with symmetric lookups.
//!
//! Databases are built once for a *canonical goal* (the one in their header). A position is
//! looked up through a *view*: a symmetry of the grid (a cell map) plus a relabelling of the
//! tiles, chosen so that the problem's goal becomes the canonical goal. Because a view is an
//! automorphism of the puzzle's state graph that maps goal to goal, the distance is unchanged and
//! every view's sum is admissible; the heuristic is the maximum over views.
//!
//! - The *main* view maps the problem's goal onto the canonical goal. It exists whenever a grid
//!   symmetry takes the goal's blank cell to the canonical blank cell: with the usual databases
//!   (blank top-left), every goal with the blank in a corner, whatever the tile order.
//! - The *reflected* views compose the main view with each symmetry that fixes the canonical
//!   blank cell: on a square board with the blank in a corner, the reflection across the diagonal
//!   through that corner (Korf & Felner's reflected lookup).
//! - The *dual* views (Felner, Zahavi et al.) look up another position built from the whole
//!   board, at nodes whose blank is on a corner; see below.
//!
//! # Dual lookups
//!
//! Boards are maps cell -> tile: `s` is the position, `G` the goal, `b` the blank cell of `s`,
//! `b_G` that of `G`. Let `T = s^-1 ∘ G` be the cell permutation done by an optimal blank path
//! from `s` to `G` (`s ∘ T = G`). For any arrangement `G'` with its blank on `b`, put
//! `Y = G' ∘ s^-1 ∘ G`: tile `t` sits in `Y` on `goalcell_G(s(cell_G'(t)))`. Then
//! `Y ∘ T^-1 = G'`, and the reversed blank path is legal from `Y` because `Y`'s blank is on
//! `Y^-1(0) = G^-1(s(b)) = b_G`, where the path ends. So `d(Y, G') <= d(s, G)` (and the same
//! argument backwards gives equality): any admissible estimate of `d(Y, G')` is admissible for
//! `s`.
//!
//! The databases can estimate distances to `G'` when a grid symmetry takes `G'`'s blank cell,
//! `b`, to the canonical blank cell: with blank-first databases, when `b` is a corner. For each
//! corner `b` the heuristic keeps the views (main and reflected) of `G'_b` = the goal with tiles
//! `0` and `G(b)` exchanged, and at a node whose blank is on `b` takes the maximum of the
//! regular views and of these *dual* views, read at `Y`'s placements. When `b = b_G`,
//! `G'_b = G` and this is the classic simple dual, `Y = G ∘ s^-1 ∘ G`. The 3x3 tests check the
//! claim against exact distances: through an exact table the dual estimate equals the distance,
//! through a partitioned table it never exceeds it.
//!
//! Each dual lookup is a fresh rank and, with 7-8, a random read in 576 MB. Reading them only
//! where the regular estimate does not already prune would need the search's bound, which
//! [`Heuristic`] does not carry. They are an option, on by default in `fifteen`: fewer nodes for
//! about the same time.
//!
//! # Shape of the per-node work
//!
//! The searches spend most of their time here, and with large tables much of it waiting on
//! memory, so the work per child is laid out to keep the path to the table reads short and free
//! of branches on data:
//!
//! - Lookups are lazy ([`Heuristic::LAZY`]): a [`PdbState`] holds each lookup slot's table
//!   index and value, and a bit per slot whose index changed. `step_into` updates the indices in
//!   place, `prefetch` starts the reads of the changed slots and `read_slot` / `resolve` read
//!   them, so that a search can step and prefetch many children before it reads any.
//! - An index is updated, not ranked again: only pattern tiles on the cells between a move's
//!   ends change it, and there are such cells only in a view where the move is vertical
//!   (`update`, branch-free through per-view move and contribution tables; [`Fixed16`] for the
//!   two views of a 4x4 set).
//! - Dual indices depend on the whole board, so they are ranked afresh at each corner node, all
//!   of a view's patterns at once in SIMD lanes where the board has 16 cells (`lanes16.rs`).
//! - The variants of [`PdbHeuristic`] for the common 4x4 sets fix the counts of patterns and
//!   views at compile time, so that the loops over them unroll.
//! - Each slot reads its table through an [`Entries`]: one load from the slot to the address.
//!
//! # Invariants
//!
//! - Every view's sum is admissible, so their maximum is. It is not consistent (an entry is a
//!   minimum over blank positions, and dual lookups come and go), which BPMX turns into pruning.
//! - The dual slots hold zeros, index and value, at nodes whose blank no dual view serves, and
//!   always without dual lookups: [`PdbLookup::estimate_slots`] may read them.
//! - Every table has fewer than 2^32 entries ([`PdbHeuristic::new`] refuses others), so indices
//!   fit a `u32` and [`Fixed16`]'s sums modulo 2^32 give the same index.
//! - Addresses computed without bounds checks only feed prefetches, which never fault; reads are
//!   checked.
//!
//! What each of these choices was worth, and the levers tried and not kept, is in
//! `docs/performance.md`.

use std::sync::Arc;

use super::catalogue::Catalogue;
use super::lanes16::{self, DualLanes};
use super::rank::{self, rank_cells};
use super::set::PdbSetError as PdbError;
use super::table::{Entries, PdbTable};
use crate::board::{Board, MAX_CELLS, MAX_SIDE, Size};
use crate::heuristic::Heuristic;

/// Most (view, pattern) lookups per position; bounds the per-node state.
const MAX_LOOKUPS: usize = 16;

/// A grid symmetry as a cell map: `map[c]` is the image of cell `c`.
type CellMap = [u8; MAX_CELLS];

/// The symmetries of the grid: 8 for a square, 4 for a rectangle. Identity first.
pub(crate) fn symmetries(size: Size) -> Vec<CellMap> {
    let (w, h) = (size.width(), size.height());
    let mut out = Vec::new();
    for transpose in [false, true] {
        if transpose && w != h {
            continue;
        }
        for flip_rows in [false, true] {
            for flip_cols in [false, true] {
                let mut map = [0u8; MAX_CELLS];
                for (cell, image) in map.iter_mut().enumerate().take(size.cells()) {
                    let (mut r, mut c) = (cell / w, cell % w);
                    if transpose {
                        (r, c) = (c, r);
                    }
                    if flip_rows {
                        r = h - 1 - r;
                    }
                    if flip_cols {
                        c = w - 1 - c;
                    }
                    *image = (r * w + c) as u8;
                }
                out.push(map);
            }
        }
    }
    out
}

/// Whether databases built for `canonical` can serve `goal`: same size, and a grid symmetry
/// takes `goal`'s blank cell to `canonical`'s (for blank-first databases: any goal with the blank
/// in a corner).
pub fn serves_goal(canonical: &Board, goal: &Board) -> bool {
    canonical.size() == goal.size()
        && symmetries(goal.size()).iter().any(|s| s[goal.blank()] as usize == canonical.blank())
}

/// One way of looking a position up: a cell map and, per pattern, which of the position's tiles
/// play the pattern's tiles (in rank order).
#[derive(Clone, Debug)]
pub(super) struct View {
    pub(super) cells: CellMap,
    /// The position's tiles whose cells, mapped, form each pattern's placement: pattern `p`'s
    /// are `players[starts[p]..starts[p + 1]]` (flat, so a lookup reads one small array).
    pub(super) players: [u8; MAX_CELLS],
    pub(super) starts: [u8; MAX_LOOKUPS + 1],
    /// `tiles[t]`: what a move of the position's tile `t` changes (one load per tile in `step`).
    pub(super) tiles: [TileInfo; MAX_CELLS],
    /// The inverse of `cells`: the position's cell shown on each view cell.
    pub(super) inv: CellMap,
}

/// A tile's part in a view's lookups.
#[derive(Clone, Copy, Debug)]
pub(super) struct TileInfo {
    /// The pattern the tile plays in, or `u8::MAX` for none.
    pub(super) pattern: u8,
    /// Where it comes in that pattern's rank order.
    pub(super) rank: u8,
    /// The place value of its digit in the pattern's index (the product of the radices after
    /// it), for updating an index without re-ranking.
    pub(super) weight: u32,
}

/// A dual view: where a view of a swapped goal `G'_b` (see the module documentation) reads each
/// pattern tile's cell, composed with the position, so that a lookup is two small table reads
/// per tile: the `i`-th player's (mapped) cell is `through[cells[src[i]]]`.
#[derive(Clone, Debug)]
pub(super) struct DualView {
    /// `through[t]`: the view's image of tile `t`'s goal cell (the cell `t` holds in `Y`).
    pub(super) through: [u8; MAX_CELLS],
    /// `src[i]`: the cell the `i`-th player holds in `G'_b`; the position's tile on that cell
    /// decides where the player sits in `Y`.
    pub(super) src: [u8; MAX_CELLS],
    pub(super) starts: [u8; MAX_LOOKUPS + 1],
}

/// The additive pattern-database heuristic: the maximum over views of the sum over patterns.
///
/// Four variants share one implementation: boards of at most 16 cells and 4 columns with at most
/// 12 lookups per position (the 4x4 sets with reflection, and 6-6-3 with dual lookups too) keep a
/// compact per-node state; among them, two or three patterns through two views (7-8 and 6-6-3
/// with reflection) also have those counts fixed at compile time; other boards use the general
/// one. [`PdbHeuristic::new`] picks.
#[derive(Clone, Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "built once per search and used by reference: its size costs nothing"
)]
pub enum PdbHeuristic {
    /// Two patterns seen through two regular views on boards of at most 16 cells and 4
    /// columns (the 4x4 7-8 set with reflection, with or without dual lookups): the counts of
    /// patterns and views known to the compiler.
    Pair(PdbLookup<16, 8, 2, 2>),
    /// Three patterns seen through two regular views (the 4x4 6-6-3 set with reflection).
    Triple(PdbLookup<16, 12, 3, 2>),
    /// Other sets on boards of at most 16 cells and 4 columns, at most 12 lookups.
    Small(PdbLookup<16, 12>),
    /// Any board, at most 16 lookups.
    Large(PdbLookup<MAX_CELLS, MAX_LOOKUPS>),
    /// Tables whose patterns overlap, or zero-aware tables: the maximum over every partition
    /// they allow ([`Catalogue`]), with at most 32 lookups per position.
    Catalogue(Catalogue<32>),
    /// The same with up to 64 lookups per position.
    CatalogueLarge(Catalogue<64>),
}

/// The pattern-database heuristic for boards of at most `CELLS` cells and `LOOKUPS` lookups
/// (views times patterns) per position.
///
/// `NP` and `NV`, when not 0, are the numbers of patterns and of regular views, fixed at compile
/// time so that the loops over them in the per-node work unroll. 0 means counted at run time.
#[derive(Clone, Debug)]
pub struct PdbLookup<
    const CELLS: usize,
    const LOOKUPS: usize,
    const NP: usize = 0,
    const NV: usize = 0,
> {
    size: Size,
    name: String,
    tables: Vec<Arc<PdbTable>>,
    views: Vec<View>,
    /// The dual views, `views.len()` per corner group (empty without dual lookups). Their
    /// lookups take the slots after the regular views'.
    duals: Vec<DualView>,
    /// The dual views laid out to rank all of a view's patterns at once: one per dual view on
    /// 16-cell boards, else none (and ranks go tile by tile).
    dual_lanes: Vec<DualLanes>,
    /// `dual_group[b]`: which group of `duals` serves a blank on cell `b`, or `u8::MAX`.
    dual_group: [u8; MAX_CELLS],
    /// The entries of each lookup slot's table (`tables[slot % patterns]`): one load from the
    /// slot to the address, instead of a chain through the table's `Arc` and storage.
    /// In an array of `LOOKUPS` ([`Entries::EMPTY`] on unused slots), so that indexing it by
    /// a slot masked needs no bounds check.
    entries: [Entries; LOOKUPS],
    /// `steps[(v * CELLS + from) * CELLS + to]`: where a tile sliding from `from` to `to` goes
    /// in view `v` (see [`Step`]).
    steps: Vec<Step>,
    /// `contrib[v * CELLS + r][t]`: what tile `t` on a cell between the ends of a move of tile
    /// `r` adds to the index of `r`'s pattern in view `v`, for a move up the view's cells (see
    /// `update`).
    contrib: Vec<[i64; CELLS]>,
    /// Cells between the two ends of a move that is vertical in a view: the board's width - 1.
    gap: usize,
    /// `movers[v * CELLS + t]`: the lookup slot that a move of tile `t` changes in view `v`, and
    /// the place value of `t`'s digit there (one small load per view in `update`, instead of a
    /// field of a large [`View`]).
    movers: Vec<Mover>,
    /// `movers`, `steps` and `contrib` again for two views of a 16-cell board (the 4x4 sets
    /// with reflection), which `update` then reads instead.
    fixed: Option<Box<Fixed16>>,
}

/// `update`'s tables for two views of a 16-cell board, in arrays of fixed length indexed
/// through masks, so that no read needs a bounds check, and with 4-byte contributions (added
/// modulo 2^32, which gives the same index: a valid index fits 32 bits). Of the two views (one
/// the other's reflection through the diagonal of the blank's corner) exactly one sees a move
/// as vertical, so only that one sums the cells between its ends.
#[derive(Clone, Debug)]
struct Fixed16 {
    /// `movers[v * 16 + t]`, as [`PdbLookup`]'s.
    movers: [Mover; 32],
    /// `moves[from * 16 + to]`.
    moves: [Move16; 256],
    /// `contrib[v * 16 + r][t]`, as [`PdbLookup`]'s, modulo 2^32.
    contrib: [[u32; 16]; 32],
}

/// A move seen through both views of [`Fixed16`].
#[derive(Clone, Copy, Debug)]
struct Move16 {
    /// The cells between the move's ends in the view where it is vertical.
    between: [u8; 3],
    /// That view.
    vertical: u8,
    /// The view cell moved to minus the view cell moved from, in each view.
    dist: [i8; 2],
}

impl Fixed16 {
    /// The tables of two views of a 16-cell board, from `PdbLookup`'s (`movers` of 32 entries,
    /// `steps` of 512, `contrib` of 32), or `None` if they are not that shape or a move to a
    /// neighbour is vertical in both views or in neither.
    fn new<const CELLS: usize>(
        movers: &[Mover],
        steps: &[Step],
        contrib: &[[i64; CELLS]],
    ) -> Option<Box<Fixed16>> {
        if CELLS != 16 || steps.len() != 512 || contrib.len() != 32 {
            return None;
        }
        let mut fixed = Box::new(Fixed16 {
            movers: <[Mover; 32]>::try_from(movers).ok()?,
            moves: [Move16 { between: [0; 3], vertical: 0, dist: [0; 2] }; 256],
            contrib: [[0; 16]; 32],
        });
        for (m, fixed) in fixed.moves.iter_mut().enumerate() {
            let (from, to) = (m / 16, m % 16);
            // Only moves to a neighbour happen (the board is 4 wide).
            let neighbours =
                (from / 4 == to / 4 && from.abs_diff(to) == 1) || from.abs_diff(to) == 4;
            if !neighbours {
                continue;
            }
            let [a, b] = [steps[m], steps[256 + m]];
            // Vertical in a view: more than one cell apart there.
            let vertical = [a, b].map(|s| s.dist.unsigned_abs() > 1);
            if vertical[0] == vertical[1] {
                return None;
            }
            let step = if vertical[0] { a } else { b };
            *fixed = Move16 {
                between: [step.between[0], step.between[1], step.between[2]],
                vertical: u8::from(vertical[1]),
                dist: [a.dist, b.dist],
            };
        }
        for (fixed, row) in fixed.contrib.iter_mut().zip(contrib) {
            for (x, &y) in fixed.iter_mut().zip(row) {
                // Modulo 2^32: the sums are taken modulo 2^32 too.
                *x = y as u32;
            }
        }
        Some(fixed)
    }
}

/// What a move of one tile changes in one view: see [`PdbLookup`]'s `movers`.
#[derive(Clone, Copy, Debug)]
struct Mover {
    /// The lookup slot of the tile's pattern in the view, or `u8::MAX` for a tile in none.
    slot: u8,
    /// The place value of the tile's digit in that pattern's index.
    weight: u32,
}

/// A move seen through one view, for the branch-free index update: which cells lie between its
/// ends in the view, and how far it goes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Step {
    /// The position's cells shown between the two view cells, in any order; a move that is
    /// horizontal in the view (none between) repeats the cell the tile leaves, which holds the
    /// blank after the move and so contributes nothing.
    pub(super) between: [u8; MAX_SIDE as usize - 1],
    /// The view cell moved to minus the view cell moved from.
    pub(super) dist: i8,
}

/// Per-node state: for each (view, pattern) lookup its table index and, once resolved, its value.
/// `stale` marks the lookups a move changed and not yet read. (Where the tiles are is not kept:
/// a move updates an index from the board after the move, see [`PdbLookup`]'s `step`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PdbState<const CELLS: usize, const LOOKUPS: usize> {
    index: [u32; LOOKUPS],
    values: [u8; LOOKUPS],
    stale: u16,
}

impl PdbHeuristic {
    /// A heuristic for `goal` from disjoint pattern tables that share one canonical goal.
    ///
    /// `reflect` adds the lookups through the symmetries that fix the canonical blank cell;
    /// `dual` adds, at nodes with the blank on a corner, the dual lookups of those views (see the
    /// module documentation). Fails if the tables disagree on board or goal, overlap, or if no
    /// grid symmetry maps `goal`'s blank cell onto the canonical one (build databases for that
    /// goal instead).
    pub fn new(
        goal: &Board,
        tables: Vec<Arc<PdbTable>>,
        reflect: bool,
        dual: bool,
        name: impl Into<String>,
    ) -> Result<PdbHeuristic, PdbError> {
        if let Some(t) = tables.iter().find(|t| t.header().encoding.metric() != "stm") {
            let found = t.header().encoding.metric();
            return Err(super::PdbError::WrongMetric { expected: "stm", found, hint: "" }.into());
        }
        // Zero-aware entries (bytes or bits) are indexed and stepped only by the catalogue,
        // which reads one partition as well as several.
        let zero_aware = tables.iter().any(|t| {
            matches!(
                t.header().encoding,
                super::EntryEncoding::ZeroAware | super::EntryEncoding::ZeroAwareBits
            )
        });
        if zero_aware || overlap(&tables) {
            let name = name.into();
            return match Catalogue::<32>::new(goal, tables.clone(), reflect, dual, name.clone()) {
                Ok(c) => Ok(PdbHeuristic::Catalogue(c)),
                Err(PdbError::TooManyLookups { .. }) => Ok(PdbHeuristic::CatalogueLarge(
                    Catalogue::<64>::new(goal, tables, reflect, dual, name)?,
                )),
                Err(e) => Err(e),
            };
        }
        let (views, tables) = views(goal, tables, reflect)?;
        let size = goal.size();
        let name = name.into();
        let mut duals = Vec::new();
        let mut dual_group = [u8::MAX; MAX_CELLS];
        // Without room for twice the lookups (large sets on large boards), no dual lookups.
        if dual && 2 * views.len() * tables.len() <= MAX_LOOKUPS {
            (duals, dual_group) = dual_views(goal, &tables, reflect, views.len())?;
        }
        let dual_views = if duals.is_empty() { 0 } else { views.len() };
        let dual_lanes: Vec<DualLanes> = duals
            .iter()
            .map_while(|d| {
                let players = d.starts[tables.len()] as usize;
                DualLanes::new(
                    size.cells(),
                    &d.src[..players],
                    &d.through,
                    &d.starts[..=tables.len()],
                )
            })
            .collect();
        let dual_lanes = if dual_lanes.len() == duals.len() { dual_lanes } else { Vec::new() };
        let lookups = (views.len() + dual_views) * tables.len();
        // One literal for both variants (they differ only in their const parameters).
        macro_rules! lookup {
            ($cells:literal) => {{
                let (steps, contrib) = step_tables::<$cells>(size, &views);
                let gap = size.width() - 1;
                let np = tables.len();
                let mut movers = Vec::with_capacity(views.len() * $cells);
                for (v, view) in views.iter().enumerate() {
                    movers.extend(view.tiles.iter().take($cells).map(|t| Mover {
                        slot: if t.pattern == u8::MAX {
                            u8::MAX
                        } else {
                            (v * np) as u8 + t.pattern
                        },
                        weight: t.weight,
                    }));
                }
                // Only boards of 16 cells: `update` takes its board as 16 bytes.
                let fixed =
                    if size.cells() == 16 { Fixed16::new(&movers, &steps, &contrib) } else { None };
                let entries = std::array::from_fn(|slot| {
                    if slot < lookups {
                        Entries::new(&tables[slot % tables.len()])
                    } else {
                        Entries::EMPTY
                    }
                });
                PdbLookup {
                    fixed,
                    size,
                    name,
                    tables,
                    views,
                    duals,
                    dual_lanes,
                    dual_group,
                    entries,
                    steps,
                    contrib,
                    gap,
                    movers,
                }
            }};
        }
        // The compact variants' index update reads 3 cells between a vertical move's ends.
        let compact = size.cells() <= 16 && size.width() <= 4;
        if compact && tables.len() == 2 && views.len() == 2 {
            Ok(PdbHeuristic::Pair(lookup!(16)))
        } else if compact && tables.len() == 3 && views.len() == 2 {
            Ok(PdbHeuristic::Triple(lookup!(16)))
        } else if compact && lookups <= 12 {
            Ok(PdbHeuristic::Small(lookup!(16)))
        } else {
            Ok(PdbHeuristic::Large(lookup!(64)))
        }
    }

    /// The number of lookups per position (views times patterns).
    pub fn lookups(&self) -> usize {
        match self {
            PdbHeuristic::Pair(h) => h.lookups(),
            PdbHeuristic::Triple(h) => h.lookups(),
            PdbHeuristic::Small(h) => h.lookups(),
            PdbHeuristic::Large(h) => h.lookups(),
            PdbHeuristic::Catalogue(h) => h.lookups(),
            PdbHeuristic::CatalogueLarge(h) => h.lookups(),
        }
    }

    /// The estimate for a whole board.
    pub fn estimate(&self, cells: &[u8]) -> u32 {
        match self {
            PdbHeuristic::Pair(h) => h.estimate(cells),
            PdbHeuristic::Triple(h) => h.estimate(cells),
            PdbHeuristic::Small(h) => h.estimate(cells),
            PdbHeuristic::Large(h) => h.estimate(cells),
            PdbHeuristic::Catalogue(h) => h.estimate(cells),
            PdbHeuristic::CatalogueLarge(h) => h.estimate(cells),
        }
    }

    /// The heuristic's name.
    pub fn name(&self) -> &str {
        match self {
            PdbHeuristic::Pair(h) => &h.name,
            PdbHeuristic::Triple(h) => &h.name,
            PdbHeuristic::Small(h) => &h.name,
            PdbHeuristic::Large(h) => &h.name,
            PdbHeuristic::Catalogue(h) => h.name(),
            PdbHeuristic::CatalogueLarge(h) => h.name(),
        }
    }

    /// The best dual sum for `cells`, if a dual view serves its blank cell (for tests).
    #[cfg(test)]
    pub(crate) fn dual_estimate(&self, cells: &[u8]) -> Option<u32> {
        match self {
            PdbHeuristic::Pair(h) => h.dual_estimate(cells),
            PdbHeuristic::Triple(h) => h.dual_estimate(cells),
            PdbHeuristic::Small(h) => h.dual_estimate(cells),
            PdbHeuristic::Large(h) => h.dual_estimate(cells),
            PdbHeuristic::Catalogue(_) | PdbHeuristic::CatalogueLarge(_) => None,
        }
    }
}

/// The views of `goal` through `tables`, checking that the tables fit together.
/// Whether two of `tables` share a tile (then they form a catalogue, not one partition).
fn overlap(tables: &[Arc<PdbTable>]) -> bool {
    let mut seen = 0u64;
    for t in tables {
        for &tile in t.tiles() {
            if seen >> tile & 1 == 1 {
                return true;
            }
            seen |= 1 << tile;
        }
    }
    false
}

pub(super) fn views(
    goal: &Board,
    tables: Vec<Arc<PdbTable>>,
    reflect: bool,
) -> Result<(Vec<View>, Vec<Arc<PdbTable>>), PdbError> {
    let size = goal.size();
    let first = tables.first().ok_or(PdbError::NoTables)?;
    let canonical = first.goal().clone();
    for t in &tables {
        if t.size() != size {
            return Err(PdbError::WrongBoard { expected: size, found: t.size() });
        }
        if *t.goal() != canonical {
            return Err(PdbError::MixedGoals);
        }
        if t.header().entry_count > u64::from(u32::MAX) {
            return Err(PdbError::TableTooLarge { entries: t.header().entry_count });
        }
    }
    let n = size.cells();
    let mut pattern_of_canonical = [u8::MAX; MAX_CELLS];
    for (p, t) in tables.iter().enumerate() {
        for &tile in t.tiles() {
            if pattern_of_canonical[tile as usize] != u8::MAX {
                return Err(PdbError::OverlappingPatterns { tile });
            }
            pattern_of_canonical[tile as usize] = p as u8;
        }
    }
    let syms = symmetries(size);
    let canonical_blank = canonical.blank();
    let main = syms
        .iter()
        .find(|s| s[goal.blank()] as usize == canonical_blank)
        .ok_or(PdbError::GoalNotCovered { blank: goal.blank() })?;
    let goal_pos = goal.positions();
    let mut views = Vec::new();
    for extra in syms.iter().filter(|s| s[canonical_blank] as usize == canonical_blank) {
        let is_identity = extra.iter().take(n).enumerate().all(|(c, &x)| c == x as usize);
        if !is_identity && !reflect {
            continue;
        }
        if (views.len() + 1) * tables.len() > MAX_LOOKUPS {
            break;
        }
        // Cell map: main symmetry, then the extra one. Tile t plays the canonical tile found on
        // the image of t's goal cell.
        let mut cells = [0u8; MAX_CELLS];
        for c in 0..n {
            cells[c] = extra[main[c] as usize];
        }
        let mut players = [0u8; MAX_CELLS];
        let mut starts = [0u8; MAX_LOOKUPS + 1];
        let mut count = 0;
        let mut tile_info = [TileInfo { pattern: u8::MAX, rank: 0, weight: 0 }; MAX_CELLS];
        let mut inv = [0u8; MAX_CELLS];
        for c in 0..n {
            inv[cells[c] as usize] = c as u8;
        }
        let mut plays = [0u8; MAX_CELLS];
        for t in 1..n {
            plays[t] = canonical.cells()[cells[goal_pos[t] as usize] as usize];
        }
        for (p, table) in tables.iter().enumerate() {
            let k = table.tiles().len();
            for (i, &u) in table.tiles().iter().enumerate() {
                let t = (1..n).find(|&t| plays[t] == u).unwrap_or(0) as u8;
                players[count] = t;
                count += 1;
                // Fits: every table has fewer than 2^32 entries (checked above).
                let weight = rank::placements(n - i - 1, k - i - 1) as u32;
                tile_info[t as usize] = TileInfo { pattern: p as u8, rank: i as u8, weight };
            }
            starts[p + 1] = count as u8;
        }
        views.push(View { cells, players, starts, tiles: tile_info, inv });
    }
    Ok((views, tables))
}

/// The tables of `update` for `views`: each move's [`Step`] in each view, and what each tile
/// between its ends contributes to the moved tile's index (`CELLS` per view and tile).
pub(super) fn step_tables<const CELLS: usize>(
    size: Size,
    views: &[View],
) -> (Vec<Step>, Vec<[i64; CELLS]>) {
    let n = size.cells();
    let mut steps =
        vec![Step { between: [0; MAX_SIDE as usize - 1], dist: 0 }; views.len() * CELLS * CELLS];
    let mut contrib = vec![[0i64; CELLS]; views.len() * CELLS];
    for (v, view) in views.iter().enumerate() {
        for from in 0..n {
            for to in 0..n {
                let (a, b) = (view.cells[from] as usize, view.cells[to] as usize);
                let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                let mut between = [from as u8; MAX_SIDE as usize - 1];
                // Only moves to a neighbour happen: at most `width - 1` cells between.
                for (slot, c) in between.iter_mut().zip(lo + 1..hi) {
                    *slot = view.inv[c];
                }
                let dist = (b as i64 - a as i64).clamp(-127, 127) as i8;
                steps[(v * CELLS + from) * CELLS + to] = Step { between, dist };
            }
        }
        for r in 0..n {
            let me = view.tiles[r];
            let row = &mut contrib[v * CELLS + r];
            for (t, (entry, other)) in row.iter_mut().zip(&view.tiles).enumerate().take(n) {
                if me.pattern == u8::MAX || other.pattern != me.pattern || t == r {
                    continue;
                }
                *entry = if other.rank < me.rank {
                    -i64::from(me.weight)
                } else {
                    i64::from(other.weight)
                };
            }
        }
    }
    (steps, contrib)
}

/// The dual views of `goal` (see the module documentation): for each corner `b` (each cell a
/// grid symmetry takes to the canonical blank cell), the `per_group` views of `goal` with tiles
/// `0` and `goal(b)` exchanged, composed with `goal`'s goal cells.
pub(super) fn dual_views(
    goal: &Board,
    tables: &[Arc<PdbTable>],
    reflect: bool,
    per_group: usize,
) -> Result<(Vec<DualView>, [u8; MAX_CELLS]), PdbError> {
    let n = goal.size().cells();
    let canonical_blank = tables[0].goal().blank();
    let syms = symmetries(goal.size());
    let goal_pos = goal.positions();
    let mut duals = Vec::new();
    let mut dual_group = [u8::MAX; MAX_CELLS];
    for b in 0..n {
        if !syms.iter().any(|s| s[b] as usize == canonical_blank) {
            continue;
        }
        let mut swapped = goal.cells().to_vec();
        swapped.swap(b, goal.blank());
        let swapped = Board::from_cells(goal.size(), &swapped)
            .expect("exchanging two cells of a board gives a board");
        let swapped_pos = swapped.positions();
        let (views, _) = views(&swapped, tables.to_vec(), reflect)?;
        // Every goal with its blank on a corner has as many views: one per symmetry fixing the
        // canonical blank cell.
        assert_eq!(views.len(), per_group, "dual views match the regular ones");
        dual_group[b] = (duals.len() / per_group) as u8;
        for view in views {
            let mut through = [0u8; MAX_CELLS];
            for t in 0..n {
                through[t] = view.cells[goal_pos[t] as usize];
            }
            let mut src = [0u8; MAX_CELLS];
            let players = view.starts[tables.len()] as usize;
            for i in 0..players {
                src[i] = swapped_pos[view.players[i] as usize];
            }
            duals.push(DualView { through, src, starts: view.starts });
        }
    }
    Ok((duals, dual_group))
}

impl<const CELLS: usize, const LOOKUPS: usize, const NP: usize, const NV: usize>
    PdbLookup<CELLS, LOOKUPS, NP, NV>
{
    /// The number of lookups per position (views times patterns, regular and dual).
    pub fn lookups(&self) -> usize {
        self.lookup_views() * self.np()
    }

    /// The number of patterns (tables).
    #[inline(always)]
    fn np(&self) -> usize {
        if NP > 0 { NP } else { self.tables.len() }
    }

    /// The number of regular views.
    #[inline(always)]
    fn nv(&self) -> usize {
        if NV > 0 { NV } else { self.views.len() }
    }

    /// The views whose sums the estimate maximises: the regular ones, then (with dual lookups)
    /// as many dual slots.
    #[inline(always)]
    fn lookup_views(&self) -> usize {
        if self.duals.is_empty() { self.nv() } else { 2 * self.nv() }
    }

    /// How many slots the estimate reads. With the counts fixed at compile time, every slot of
    /// room for dual lookups, so that the length is a constant: without dual lookups those
    /// slots stay 0 (set so by `init`, written by nothing else) and add nothing to the maximum.
    #[inline(always)]
    fn estimate_slots(&self) -> usize {
        if NP > 0 && NV > 0 {
            (2 * NV * NP).min(LOOKUPS)
        } else {
            (self.lookup_views() * self.np()).min(LOOKUPS)
        }
    }

    /// The dual lookups' table indices for the board `cells` with its blank on `blank`, or
    /// zeros (and nothing to read) if no dual view serves that cell.
    #[inline(always)]
    fn set_duals(&self, s: &mut PdbState<CELLS, LOOKUPS>, cells: &[u8], blank: usize) {
        let np = self.np();
        let nv = self.nv();
        let base = nv * np;
        let group = self.dual_group[blank];
        if group == u8::MAX {
            let mask = ((1u32 << (nv * np)) - 1) << base;
            s.stale &= !(mask as u16);
            // Every slot from `base` on is a dual one (or unused, and zero already). A loop of
            // fixed length, rather than a range fill, compiles to a few stores, not a call.
            for (i, (v, x)) in s.values.iter_mut().zip(&mut s.index).enumerate() {
                if i >= base {
                    *v = 0;
                    *x = 0;
                }
            }
            return;
        }
        let first = group as usize * nv;
        // All of a view's patterns at once where the board fits the lanes.
        if let Some(group) = self.dual_lanes.get(first..first + nv)
            && let Ok(board) = <&[u8; lanes16::LANES]>::try_from(cells)
        {
            for (w, lanes) in group.iter().enumerate() {
                let slots = base + w * np..base + (w + 1) * np;
                lanes.indices(board, &mut s.index[slots.clone()]);
                s.stale |= (((1u32 << np) - 1) << slots.start) as u16;
            }
            return;
        }
        for (w, dual) in self.duals[first..first + nv].iter().enumerate() {
            for p in 0..np {
                let slot = base + w * np + p;
                s.index[slot] = self.dual_index(dual, p, cells);
                s.stale |= 1 << slot;
            }
        }
    }

    /// The table index of `pattern` seen through the dual view `dual` of the board `cells`.
    #[inline(always)]
    fn dual_index(&self, dual: &DualView, pattern: usize, cells: &[u8]) -> u32 {
        let src = &dual.src[dual.starts[pattern] as usize..dual.starts[pattern + 1] as usize];
        rank_cells(self.size.cells(), src.iter().map(|&c| dual.through[cells[c as usize] as usize]))
            as u32
    }

    /// The best dual sum for `cells`, if a dual view serves its blank cell (for tests).
    #[cfg(test)]
    pub(crate) fn dual_estimate(&self, cells: &[u8]) -> Option<u32> {
        let blank = cells.iter().position(|&t| t == 0)?;
        let group = self.dual_group[blank];
        if group == u8::MAX {
            return None;
        }
        let nv = self.views.len();
        let first = group as usize * nv;
        let sums = self.duals[first..first + nv].iter().map(|dual| {
            (0..self.tables.len())
                .map(|p| self.tables[p].get(self.dual_index(dual, p, cells) as u64) as u32)
                .sum::<u32>()
        });
        sums.max()
    }

    /// Updates `n` for a move of `tile` from `from` to `to` (`after` is the board after it):
    /// the index of the moved tile's pattern in each view, without re-ranking it.
    ///
    /// An index is `sum(digit[i] * weight[i])` where tile i's digit is its view cell minus the
    /// pattern tiles ranked before it on lower cells. When tile `r` slides from view cell `a` to
    /// `b`, only pattern tiles on the cells strictly between `a` and `b` change anything: those
    /// ranked before `r` take one from `r`'s digit, those ranked after it gain or lose one in
    /// their own. A move that is horizontal in the view has no cells between, a vertical one has
    /// `width - 1`, so this costs a few operations instead of a rank per view.
    ///
    /// Branch-free: the change for a move up the view's cells is `(b - a) * weight[r]` plus, per
    /// cell between, a table entry for (r, the tile there): `-weight[r]` for a pattern tile
    /// ranked before `r`, its own weight for one ranked after, 0 otherwise (the blank too, which
    /// is what a horizontal move's padding reads). Whether a tile between is in the pattern and
    /// ranked before is data the branch predictor cannot guess.
    #[inline(always)]
    fn update(
        &self,
        n: &mut PdbState<CELLS, LOOKUPS>,
        after: &[u8],
        tile: u8,
        from: usize,
        to: usize,
    ) {
        // The same as below, through the fixed tables (and modulo 2^32).
        if let Some(fixed) = &self.fixed
            && let Some(board) = after.first_chunk::<16>()
        {
            let tile = tile as usize % 16;
            let m = &fixed.moves[((from % 16) * 16 + to % 16) % 256];
            for v in 0..2 {
                let me = fixed.movers[(v * 16 + tile) % 32];
                if me.slot == u8::MAX {
                    continue;
                }
                let slot = me.slot as usize % LOOKUPS;
                let dist = i32::from(m.dist[v]);
                let mut delta = (dist as u32).wrapping_mul(me.weight);
                if v == m.vertical as usize {
                    let row = &fixed.contrib[(v * 16 + tile) % 32];
                    let mut sum = 0u32;
                    for &c in &m.between {
                        sum = sum.wrapping_add(row[board[c as usize % 16] as usize % 16]);
                    }
                    // The sum is for a move up the view's cells.
                    let down = (dist >> 31) as u32;
                    delta = delta.wrapping_add((sum ^ down).wrapping_sub(down));
                }
                n.index[slot] = n.index[slot].wrapping_add(delta);
                n.stale |= 1 << slot;
            }
            self.update_duals(n, after, from, to);
            return;
        }
        let tile = tile as usize % CELLS;
        let (from_c, to_c) = (from % CELLS, to % CELLS);
        // A fixed count for the compact variant (moves there cross at most 3 cells; fewer are
        // padded with the blank's cell, which adds nothing), so the loop unrolls.
        let gap = if CELLS <= 16 { 3 } else { self.gap.min(MAX_SIDE as usize - 1) };
        for v in 0..self.nv() {
            let me = self.movers[v * CELLS + tile];
            if me.slot == u8::MAX {
                continue;
            }
            let slot = me.slot as usize % LOOKUPS;
            let step = &self.steps[(v * CELLS + from_c) * CELLS + to_c];
            let row = &self.contrib[v * CELLS + tile];
            let mut sum = 0i64;
            for &c in &step.between[..gap] {
                sum += row[after[c as usize] as usize % CELLS];
            }
            let dist = i64::from(step.dist);
            // The sign of the move, as a mask: the sum is for a move up the view's cells.
            let down = dist >> 63;
            let delta = dist * i64::from(me.weight) + ((sum ^ down) - down);
            n.index[slot] = (i64::from(n.index[slot]) + delta) as u32;
            n.stale |= 1 << slot;
        }
        self.update_duals(n, after, from, to);
    }

    /// The dual lookups' part of `update`.
    #[inline(always)]
    fn update_duals(&self, n: &mut PdbState<CELLS, LOOKUPS>, after: &[u8], from: usize, to: usize) {
        // The blank alternates between corner and other cells: a node whose blank was not on
        // a dual cell has its dual slots clear already.
        if !self.duals.is_empty()
            && (self.dual_group[from] != u8::MAX || self.dual_group[to] != u8::MAX)
        {
            self.set_duals(n, after, from);
        }
    }

    /// Whether the slots after the regular views' hold zeros, index and value: always without
    /// dual lookups, which [`PdbLookup::estimate_slots`] relies on (for tests).
    #[cfg(test)]
    pub(crate) fn slots_after_regular_clear(&self, s: &PdbState<CELLS, LOOKUPS>) -> bool {
        let regular = self.nv() * self.np();
        s.index[regular..].iter().all(|&x| x == 0) && s.values[regular..].iter().all(|&v| v == 0)
    }

    /// Whether `update` goes through [`Fixed16`] (for tests).
    #[cfg(test)]
    pub(crate) fn updates_through_fixed_tables(&self) -> bool {
        self.fixed.is_some()
    }

    /// The table index of `pattern` seen through `view` for tiles on `pos`.
    #[inline(always)]
    fn index(&self, view: &View, pattern: usize, pos: &[u8; CELLS]) -> u32 {
        let players =
            &view.players[view.starts[pattern] as usize..view.starts[pattern + 1] as usize];
        // The masks are no-ops (tiles are below CELLS, cells below MAX_CELLS) that let the
        // compiler drop two bounds checks per tile.
        let cells =
            players.iter().map(|&t| view.cells[pos[t as usize % CELLS] as usize % MAX_CELLS]);
        rank_cells(self.size.cells(), cells) as u32
    }
}

impl<const CELLS: usize, const LOOKUPS: usize, const NP: usize, const NV: usize> Heuristic
    for PdbLookup<CELLS, LOOKUPS, NP, NV>
{
    type State = PdbState<CELLS, LOOKUPS>;

    const LAZY: bool = true;

    const RANK_WITH_CONFLICTS: bool = true;

    fn name(&self) -> &str {
        &self.name
    }

    fn size(&self) -> Size {
        self.size
    }

    fn init(&self, cells: &[u8]) -> Self::State {
        let mut pos = [0u8; CELLS];
        for (c, &t) in cells.iter().enumerate() {
            pos[t as usize] = c as u8;
        }
        let mut s = PdbState { index: [0; LOOKUPS], values: [0; LOOKUPS], stale: 0 };
        let np = self.tables.len();
        for (v, view) in self.views.iter().enumerate() {
            for p in 0..np {
                s.index[v * np + p] = self.index(view, p, &pos);
                s.stale |= 1 << (v * np + p);
            }
        }
        if !self.duals.is_empty() {
            self.set_duals(&mut s, cells, pos[0] as usize);
        }
        s
    }

    #[inline]
    fn h(&self, s: &Self::State) -> u32 {
        let np = self.np();
        let values = &s.values[..self.estimate_slots()];
        let mut best = 0;
        // The common pattern counts get loops the compiler unrolls without bounds checks
        // (measured: the generic loop was a tenth of the search's instructions).
        match np {
            2 => {
                for v in values.chunks_exact(2) {
                    best = best.max(u32::from(v[0]) + u32::from(v[1]));
                }
            }
            3 => {
                for v in values.chunks_exact(3) {
                    best = best.max(u32::from(v[0]) + u32::from(v[1]) + u32::from(v[2]));
                }
            }
            _ => {
                for v in values.chunks_exact(np) {
                    best = best.max(v.iter().map(|&x| u32::from(x)).sum());
                }
            }
        }
        best
    }

    #[inline]
    fn step(&self, s: &Self::State, after: &[u8], tile: u8, from: usize, to: usize) -> Self::State {
        let mut n = *s;
        self.update(&mut n, after, tile, from, to);
        n
    }

    #[inline(always)]
    fn step_into(
        &self,
        s: &Self::State,
        n: &mut Self::State,
        after: &[u8],
        tile: u8,
        from: usize,
        to: usize,
    ) {
        *n = *s;
        self.update(n, after, tile, from, to);
    }

    /// The sum over the regular views' lookups: see [`Heuristic::tie_break`].
    #[inline]
    fn tie_break(&self, s: &Self::State) -> u32 {
        let regular = self.nv() * self.np();
        s.values[..regular].iter().map(|&x| u32::from(x)).sum()
    }

    #[inline]
    fn prefetch(&self, s: &Self::State) {
        let mut stale = s.stale;
        while stale != 0 {
            let slot = stale.trailing_zeros() as usize;
            stale &= stale - 1;
            // Without a bounds check: a prefetch never faults.
            super::table::prefetch_address(
                self.entries[slot % LOOKUPS].base().wrapping_add(s.index[slot % LOOKUPS] as usize),
            );
        }
    }

    #[inline(always)]
    fn pending(&self, s: &Self::State) -> u16 {
        s.stale
    }

    #[inline(always)]
    fn read_slot(&self, s: &mut Self::State, slot: usize) {
        s.values[slot % LOOKUPS] =
            self.entries[slot % LOOKUPS].get(u64::from(s.index[slot % LOOKUPS]));
    }

    #[inline(always)]
    fn clear_pending(&self, s: &mut Self::State) {
        s.stale = 0;
    }

    #[inline(always)]
    fn resolve(&self, s: &mut Self::State) -> u32 {
        // The bits in a local: written back each round, the next round's test waited on
        // the store (the byte store of the value may alias it, as far as the compiler knows).
        let mut stale = s.stale;
        s.stale = 0;
        while stale != 0 {
            let slot = stale.trailing_zeros() as usize;
            stale &= stale - 1;
            self.read_slot(s, slot);
        }
        self.h(s)
    }
}
