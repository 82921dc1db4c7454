//! A catalogue of pattern databases: the maximum over several additive partitions.
//!
//! Given tables whose patterns overlap (for example the 5x5 catalogue of fourteen 6-tile
//! patterns), every way of covering the tiles exactly with some of them is an additive partition,
//! and the heuristic is the largest of their sums, each seen through every view (the main one and
//! its reflection), plus at corner nodes the dual views (see `heuristic.rs` for both). This is
//! Holte et al.'s "maximum over additive heuristics" as Clausecker and Reinefeld's catalogues use
//! it: the partitions share most of their patterns, so a move changes a few lookups, not one per
//! partition.
//!
//! # Shape
//!
//! - A *slot* is a (table, view) pair that some partition uses: the per-node state keeps each
//!   slot's table index and value, and a bit per slot whose index changed (`stale`). Dual slots
//!   (the same pairs read at the dual position) follow the regular ones.
//! - A *group* is a partition seen through one view: a list of slots whose values are summed.
//!   The estimate is the largest group sum.
//! - A move of tile `t` changes the index of every slot whose pattern holds the tile `t` plays in
//!   that slot's view (`movers[t]`); an index is updated from the parent's, as in
//!   [`super::PdbLookup`]: only pattern tiles between the move's ends, in a view where it is
//!   vertical, change it.
//!
//! # Invariants
//!
//! - Every group covers each tile exactly once, so its sum is admissible, and so is the maximum.
//! - Dual slots hold zeros (index and value) at nodes whose blank no dual view serves, so the
//!   groups over them add nothing there.
//! - Every table has fewer than 2^32 entries, so indices fit a `u32`.

use std::sync::Arc;

use super::EntryEncoding;
use super::heuristic::{DualView, Step, View, dual_views, step_tables, views};
use super::rank::{self, rank_cells};
use super::set::PdbSetError as PdbError;
use super::table::{Entries, PdbTable};
use super::zero::ZeroIndex;
use crate::board::{Board, MAX_CELLS, MAX_SIDE, Size};
use crate::heuristic::Heuristic;

/// Most slots (regular and dual) per position: the stale bits fit a `u64`.
pub(crate) const MAX_SLOTS: usize = 64;

/// Most groups (partitions times views, duals included): a group is numbered by a byte.
const MAX_GROUPS: usize = 255;

/// Most tiles of a zero-aware pattern in a catalogue: its order rank fits a `u16`.
pub const MAX_ZERO_TILES: usize = 8;

/// Most cells of a board whose zero-aware tables a catalogue reads: a pattern's cells are a
/// `u32` mask.
pub const MAX_ZERO_CELLS: usize = 32;

/// Most views a catalogue reads through: the main one and its reflection.
const MAX_VIEWS: usize = 2;

/// Cells between a vertical move's ends on boards up to 5 wide.
const GAP_4: usize = 4;

/// Most partitions a catalogue uses (each is a group per view).
pub(crate) const MAX_PARTITIONS: usize = 64;

/// Per-node state of a [`Catalogue`]: each slot's table index and value, and which slots a move
/// changed and were not read yet.
#[derive(Clone, Copy, Debug)]
pub struct CatalogueState<const S: usize> {
    index: [u32; S],
    values: [u8; S],
    /// The order part of each zero-aware slot's index (see [`ZeroIndex`]), kept up to date by
    /// each move so that only the map's block is looked up afresh.
    order: [u16; S],
    stale: u64,
    /// The cells of each zero-aware slot's pattern in its view, as a mask: a move changes two
    /// bits of it.
    mask: [u32; S],
    /// Zero-aware slots a move changed whose index is not computed yet: done lazily, only for
    /// the groups a search needs (see [`Heuristic::resolve_within`]).
    dirty: u64,
    /// The position's blank cell (the region a dirty slot's index needs).
    blank: u8,
    /// The group to sum first: the largest at the last resolve.
    lead: u8,
    /// Dirty slots cleaned by the last resolve.
    cleaned: u8,
    /// The sum of the regular slots' values (the tie-break).
    total: u16,
}

/// States are equal when they hold the same lookups: which group a resolve starts from and
/// how many reads it did are hints and statistics.
impl<const S: usize> PartialEq for CatalogueState<S> {
    fn eq(&self, other: &Self) -> bool {
        (self.index, self.values, self.order, self.stale, self.mask, self.dirty, self.blank)
            == (
                other.index,
                other.values,
                other.order,
                other.stale,
                other.mask,
                other.dirty,
                other.blank,
            )
            && self.total == other.total
    }
}

impl<const S: usize> Eq for CatalogueState<S> {}

/// What a move of one tile changes in one slot.
#[derive(Clone, Copy, Debug)]
struct Mover {
    slot: u8,
    view: u8,
    /// Whether the slot is zero-aware: `contrib` then updates its order, not its index.
    zero: bool,
    /// The place value of the tile's digit in the slot's index (0 for a zero-aware slot).
    weight: u32,
    /// The row of `contrib` for this tile in this slot.
    row: u32,
}

/// One (table, view) pair: which position tiles play the table's pattern, in rank order.
#[derive(Clone, Debug)]
struct Slot {
    table: usize,
    view: usize,
    players: Vec<u8>,
    /// The zero-aware index, for a zero-aware table.
    zero: Option<Arc<ZeroIndex>>,
    /// Whether the table stores bit 1 of each entry ([`EntryEncoding::ZeroAwareBits`]).
    bits: bool,
    /// For a table of bits: the goal map's count of dark cells, for the parity of an entry.
    goal_dark: u32,
}

impl Slot {
    /// The cells of the players in the slot's view (`cells` its map) and their mask.
    #[inline(always)]
    fn placed(&self, pos: &[u8; MAX_CELLS], cells: &[u8; MAX_CELLS]) -> ([u8; 16], u64) {
        let mut out = [0u8; 16];
        let mut mask = 0u64;
        for (o, &t) in out.iter_mut().zip(&self.players) {
            *o = cells[pos[t as usize % MAX_CELLS] as usize % MAX_CELLS];
            mask |= 1u64 << (*o % 64);
        }
        (out, mask)
    }
}

/// A dual slot: the players' cells in the swapped goal, read through a dual view.
#[derive(Clone, Debug)]
struct DualSlot {
    /// Which `through` map (per corner group and view) it reads through.
    through: usize,
    src: Vec<u8>,
}

/// The maximum over the additive partitions a set of (overlapping) tables allows: see the module
/// documentation. `S` bounds the slots (regular and dual): 32 or 64.
#[derive(Clone, Debug)]
pub struct Catalogue<const S: usize = MAX_SLOTS> {
    size: Size,
    name: String,
    tables: Vec<Arc<PdbTable>>,
    /// The partitions, as indices into `tables`.
    partitions: Vec<Vec<usize>>,
    slots: Vec<Slot>,
    /// The dual slots, one per regular slot and corner group, `slots.len()` per group.
    dual_slots: Vec<DualSlot>,
    /// `through[i]`: the dual views' maps (see `DualView`), per corner group and view.
    through: Vec<[u8; MAX_CELLS]>,
    /// `dual_group[b]`: which group of dual slots serves a blank on cell `b`, or `u8::MAX`.
    dual_group: [u8; MAX_CELLS],
    /// Each slot's table, [`Entries::EMPTY`] past the last slot.
    entries: [Entries; S],
    /// Groups as ranges of `group_slots`: regular groups first, then the dual ones.
    groups: Vec<(u16, u16)>,
    group_slots: Vec<u8>,
    /// Bit `i` for a slot whose table stores bits ([`EntryEncoding::ZeroAwareBits`]).
    bit_slots: u64,
    /// The groups as four slots each, where every group has four (the 5x5 catalogues): sums
    /// the compiler unrolls.
    groups4: Vec<[u8; 4]>,
    /// Regular slots (whose values the tie-break sums): bit `i` for slot `i`.
    regular_mask: u64,
    /// `movers[starts[t]..starts[t + 1]]`: the slots a move of tile `t` changes.
    movers: Vec<Mover>,
    mover_starts: Vec<u16>,
    /// `zero_movers[t]`: bit `i` for each zero-aware slot `i` a move of tile `t` changes.
    zero_movers: [u64; MAX_CELLS],
    /// `steps[(v * n + from) * n + to]`, as [`super::PdbLookup`]'s.
    steps: Vec<Step>,
    /// Rows of what a tile between a move's ends adds to a slot's index.
    contrib: Vec<[i64; MAX_CELLS]>,
    gap: usize,
    /// Each view's cell map (at most [`MAX_VIEWS`]).
    view_cells: Vec<[u8; MAX_CELLS]>,
    /// Each slot's view: `slots[i].view`, in a byte the per-move path reads without the
    /// slot's record.
    slot_views: [u8; MAX_SLOTS],
    /// The zero-aware index of every slot, when they all are zero-aware and share it (the 5x5
    /// catalogues).
    shared_zero: Option<Arc<ZeroIndex>>,
}

/// Every exact cover of tiles `1..n` by the patterns `masks` (bit `t` for tile `t`), as indices
/// into `masks`, at most 64, in a fixed order: the partitions a catalogue takes the maximum over.
///
/// ```
/// let masks = [0b0110, 0b1000, 0b0010, 0b1100];
/// assert_eq!(fifteen_core::pdb::exact_covers(4, &masks), vec![vec![0, 1], vec![2, 3]]);
/// ```
pub fn exact_covers(n: usize, masks: &[u64]) -> Vec<Vec<usize>> {
    fn go(all: u64, used: u64, masks: &[u64], chosen: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if out.len() >= MAX_PARTITIONS {
            return;
        }
        let left = all & !used;
        if left == 0 {
            let mut c = chosen.clone();
            c.sort_unstable();
            out.push(c);
            return;
        }
        let tile = left.trailing_zeros();
        for (i, &m) in masks.iter().enumerate() {
            if m >> tile & 1 == 1 && m & used == 0 {
                chosen.push(i);
                go(all, used | m, masks, chosen, out);
                chosen.pop();
            }
        }
    }
    let all = if n >= 64 { u64::MAX - 1 } else { ((1u64 << n) - 1) & !1 };
    let mut out = Vec::new();
    go(all, 0, masks, &mut Vec::new(), &mut out);
    out
}

/// The zero-aware index of `table`, if it is zero-aware.
fn zero_index(table: &PdbTable) -> Result<Option<Arc<ZeroIndex>>, PdbError> {
    match table.header().encoding {
        EntryEncoding::ZeroAware | EntryEncoding::ZeroAwareBits => {
            ZeroIndex::shared(table.size(), table.tiles().len())
                .map(Some)
                .map_err(|e| PdbError::Table(super::PdbError::BadPattern { reason: e.to_string() }))
        }
        _ => Ok(None),
    }
}

impl<const S: usize> Catalogue<S> {
    /// A catalogue over `tables` for `goal`, or an error if the tables disagree on board or
    /// goal, no exact cover of the tiles exists, or its slots do not fit `S`.
    pub fn new(
        goal: &Board,
        tables: Vec<Arc<PdbTable>>,
        reflect: bool,
        dual: bool,
        name: impl Into<String>,
    ) -> Result<Catalogue<S>, PdbError> {
        let size = goal.size();
        let n = size.cells();
        let masks: Vec<u64> =
            tables.iter().map(|t| t.tiles().iter().fold(0u64, |m, &x| m | 1 << x)).collect();
        let partitions = exact_covers(n, &masks);
        let Some(first) = partitions.first() else {
            return Err(PdbError::NoTables);
        };
        // The views of each partition (the same cell maps for all; players per table).
        let cover_views: Vec<Vec<View>> = partitions
            .iter()
            .map(|p| {
                views(goal, p.iter().map(|&i| tables[i].clone()).collect(), reflect).map(|v| v.0)
            })
            .collect::<Result<_, _>>()?;
        let nv = cover_views[0].len();
        if nv > MAX_VIEWS {
            return Err(PdbError::TooManyLookups { lookups: nv, most: MAX_VIEWS });
        }
        let _ = first;
        // Slots: every (table, view) a partition uses, in order of first use.
        let mut slots: Vec<Slot> = Vec::new();
        let mut slot_of = vec![[u8::MAX; 8]; tables.len()];
        let mut groups = Vec::new();
        let mut group_slots = Vec::new();
        for (p, part) in partitions.iter().enumerate() {
            for v in 0..nv {
                let start = group_slots.len();
                for (j, &t) in part.iter().enumerate() {
                    if slot_of[t][v] == u8::MAX {
                        let view = &cover_views[p][v];
                        let players = view.players
                            [view.starts[j] as usize..view.starts[j + 1] as usize]
                            .to_vec();
                        slot_of[t][v] = slots.len() as u8;
                        let zero = zero_index(&tables[t])?;
                        let bits = tables[t].header().encoding == EntryEncoding::ZeroAwareBits;
                        let goal = tables[t].goal();
                        let goal_mask =
                            tables[t].tiles().iter().fold(0u64, |m, &u| m | 1 << goal.position(u));
                        let goal_dark = zero.as_ref().map_or(0, |z| z.colour_count(goal_mask));
                        slots.push(Slot { table: t, view: v, players, zero, bits, goal_dark });
                    }
                    group_slots.push(slot_of[t][v]);
                }
                groups.push((start as u16, group_slots.len() as u16));
            }
        }
        let regular = slots.len();
        // Duals: per corner group, every regular slot again.
        let mut dual_slots = Vec::new();
        let mut through = Vec::new();
        let mut dual_group = [u8::MAX; MAX_CELLS];
        if regular > S {
            return Err(PdbError::TooManyLookups { lookups: regular, most: S });
        }
        // A table of bits needs its parent's entry, which a dual lookup has not.
        let bit_slots = slots.iter().enumerate().fold(0u64, |m, (i, s)| m | u64::from(s.bits) << i);
        if dual && 2 * regular <= S && bit_slots == 0 {
            for (p, part) in partitions.iter().enumerate() {
                let cover: Vec<_> = part.iter().map(|&i| tables[i].clone()).collect();
                let (duals, group_of) = dual_views(goal, &cover, reflect, nv)?;
                if p == 0 {
                    dual_group = group_of;
                    through = duals.iter().map(|d| d.through).collect();
                    let groups_n = duals.len() / nv;
                    dual_slots = vec![DualSlot { through: 0, src: Vec::new() }; groups_n * regular];
                }
                let groups_n = duals.len() / nv;
                for g in 0..groups_n {
                    for v in 0..nv {
                        let d: &DualView = &duals[g * nv + v];
                        for (j, &t) in part.iter().enumerate() {
                            let s = slot_of[t][v] as usize;
                            let src =
                                d.src[d.starts[j] as usize..d.starts[j + 1] as usize].to_vec();
                            dual_slots[g * regular + s] = DualSlot { through: g * nv + v, src };
                        }
                    }
                }
            }
            // Dual groups: the regular groups over the dual slots (the group of the blank's
            // corner is copied into the slots after the regular ones, see `set_duals`).
            let regular_groups = groups.len();
            for gi in 0..regular_groups {
                let (a, b) = groups[gi];
                let start = group_slots.len();
                for k in a..b {
                    let s = group_slots[k as usize];
                    group_slots.push(s + regular as u8);
                }
                groups.push((start as u16, group_slots.len() as u16));
            }
        }

        // Index updates: the step tables of the views, and a contribution row per (slot, tile).
        let (steps, _) = step_tables::<MAX_CELLS>(size, &cover_views[0]);
        let mut movers_by_tile: Vec<Vec<Mover>> = vec![Vec::new(); n];
        let mut contrib: Vec<[i64; MAX_CELLS]> = Vec::new();
        for (s, slot) in slots.iter().enumerate() {
            let k = slot.players.len();
            let zero = slot.zero.is_some();
            if zero && n > MAX_ZERO_CELLS {
                return Err(PdbError::Table(super::PdbError::BadPattern {
                    reason: format!(
                        "zero-aware tables serve boards of at most {MAX_ZERO_CELLS} cells, not {n}"
                    ),
                }));
            }
            if zero && k > MAX_ZERO_TILES {
                return Err(PdbError::Table(super::PdbError::BadPattern {
                    reason: format!(
                        "a zero-aware pattern of {k} tiles is more than a catalogue indexes ({MAX_ZERO_TILES})"
                    ),
                }));
            }
            for (i, &r) in slot.players.iter().enumerate() {
                // Place values: of the placement's digits, or of the order's (k-1-i)!.
                let place = |j: usize| match zero {
                    false => rank::placements(n - j - 1, k - j - 1) as i64,
                    true => (1..(k - j) as i64).product::<i64>(),
                };
                let mut row = [0i64; MAX_CELLS];
                for (j, &t) in slot.players.iter().enumerate() {
                    if j == i {
                        continue;
                    }
                    row[t as usize] = match zero {
                        // A placement digit counts the free cells below: see `step_tables`.
                        false if j < i => -place(i),
                        false => place(j),
                        // An order digit counts the earlier tiles' cells below: moving up the
                        // view's cells past a tile `j` of the pattern changes `j`'s digit if `j`
                        // comes before, the mover's if after.
                        true if j < i => -place(j),
                        true => place(i),
                    };
                }
                movers_by_tile[r as usize].push(Mover {
                    slot: s as u8,
                    view: slot.view as u8,
                    zero,
                    weight: if zero { 0 } else { place(i) as u32 },
                    row: contrib.len() as u32,
                });
                contrib.push(row);
            }
        }
        let mut slot_views = [0u8; MAX_SLOTS];
        for (v, slot) in slot_views.iter_mut().zip(&slots) {
            *v = slot.view as u8;
        }
        let shared_zero = match slots.first().and_then(|s| s.zero.clone()) {
            Some(z)
                if slots.iter().all(|s| s.zero.as_ref().is_some_and(|x| Arc::ptr_eq(x, &z))) =>
            {
                Some(z)
            }
            _ => None,
        };
        let mut movers = Vec::new();
        let mut mover_starts = vec![0u16];
        let mut zero_movers = [0u64; MAX_CELLS];
        for (t, m) in movers_by_tile.iter().enumerate() {
            zero_movers[t % MAX_CELLS] =
                m.iter().filter(|m| m.zero).fold(0, |d, m| d | 1 << (m.slot % 64));
        }
        for m in movers_by_tile {
            movers.extend(m);
            mover_starts.push(movers.len() as u16);
        }
        let lookups = if dual_slots.is_empty() { regular } else { 2 * regular };
        let entries = std::array::from_fn(|i| match i < lookups {
            true => Entries::new(&tables[slots[i % regular].table]),
            false => Entries::EMPTY,
        });
        if groups.len() > MAX_GROUPS {
            return Err(PdbError::TooManyLookups { lookups: groups.len(), most: MAX_GROUPS });
        }
        let groups4 = match groups.iter().all(|&(a, b)| b - a == 4) {
            true => group_slots.chunks_exact(4).map(|g| [g[0], g[1], g[2], g[3]]).collect(),
            false => Vec::new(),
        };
        let regular_mask = if regular >= 64 { u64::MAX } else { (1u64 << regular) - 1 };
        // The name says what is read: duals asked for but left out (they do not fit the slots,
        // or the tables are of bits) are not named.
        let name: String = name.into();
        let name = match dual_slots.is_empty() {
            true => name.replace(" +dual", ""),
            false => name,
        };
        Ok(Catalogue {
            size,
            name,
            tables,
            partitions,
            slots,
            dual_slots,
            through,
            dual_group,
            entries,
            groups,
            group_slots,
            bit_slots,
            groups4,
            regular_mask,
            movers,
            mover_starts,
            zero_movers,
            steps,
            contrib,
            gap: (size.width() - 1).min(MAX_SIDE as usize - 1),
            view_cells: cover_views[0].iter().map(|v| v.cells).collect(),
            slot_views,
            shared_zero,
        })
    }

    /// The partitions (as indices into the tables) whose maximum this is.
    pub fn partitions(&self) -> &[Vec<usize>] {
        &self.partitions
    }

    /// Lookups per position: regular slots, and dual slots at corner nodes.
    pub fn lookups(&self) -> usize {
        self.slots.len() + if self.dual_slots.is_empty() { 0 } else { self.slots.len() }
    }

    /// The tables.
    pub fn tables(&self) -> &[Arc<PdbTable>] {
        &self.tables
    }

    fn regular(&self) -> usize {
        self.slots.len()
    }

    #[inline(always)]
    fn set_duals(&self, s: &mut CatalogueState<S>, cells: &[u8], blank: usize) {
        let r = self.regular();
        let group = self.dual_group[blank];
        if group == u8::MAX {
            let mask = ((1u64 << r) - 1) << r;
            s.stale &= !mask;
            for i in r..2 * r {
                s.index[i % S] = 0;
                self.set_value(s, i, 0);
            }
            return;
        }
        let n = self.size.cells();
        let base = group as usize * r;
        for i in 0..r {
            let d = &self.dual_slots[base + i];
            let through = &self.through[d.through];
            let placed = d.src.iter().map(|&c| through[cells[c as usize] as usize]);
            s.index[(r + i) % S] = match &self.slots[i].zero {
                None => rank_cells(n, placed) as u32,
                Some(z) => {
                    let mut buf = [0u8; 16];
                    for (b, c) in buf.iter_mut().zip(placed) {
                        *b = c;
                    }
                    // The dual position's blank is on the goal's blank cell: `through[0]`.
                    z.index(&buf[..d.src.len()], usize::from(through[0]))
                }
            };
        }
        s.stale |= ((1u64 << r) - 1) << r;
    }

    #[inline(always)]
    fn update(&self, s: &mut CatalogueState<S>, after: &[u8], tile: u8, from: usize, to: usize) {
        // Boards up to 5 wide (the 5x5 catalogues) sum a fixed four cells between the move's
        // ends, which the compiler unrolls; wider ones their `gap`.
        match self.gap <= GAP_4 {
            true => self.update_with::<GAP_4>(s, after, tile, from, to),
            false => self.update_with::<{ MAX_SIDE as usize - 1 }>(s, after, tile, from, to),
        }
    }

    #[inline(always)]
    fn update_with<const G: usize>(
        &self,
        s: &mut CatalogueState<S>,
        after: &[u8],
        tile: u8,
        from: usize,
        to: usize,
    ) {
        // Per view, what is the same for every slot seen through it: the tiles between the
        // move's ends (past `gap`, and for a move that is horizontal in the view, the blank,
        // which contributes nothing), the move's length, and the two bits it flips in a
        // zero-aware slot's mask.
        let mut between = [[0u8; G]; MAX_VIEWS];
        let mut dists = [0i64; MAX_VIEWS];
        let mut flips = [0u32; MAX_VIEWS];
        for v in 0..self.view_cells.len().min(MAX_VIEWS) {
            let step = &self.steps[(v * MAX_CELLS + from) * MAX_CELLS + to];
            // Past the cells between, `step.between` repeats the cell the tile leaves, which
            // holds the blank: all `G` can be read.
            for k in 0..G.min(MAX_SIDE as usize - 1) {
                between[v][k] = after[step.between[k] as usize];
            }
            dists[v] = i64::from(step.dist);
            let cells = &self.view_cells[v];
            let (left, entered) = (cells[from % MAX_CELLS], cells[to % MAX_CELLS]);
            flips[v] = (1 << (left % 32)) ^ (1 << (entered % 32));
        }
        let t = tile as usize % MAX_CELLS;
        // Every zero-aware slot the tile moves in needs its block afresh.
        s.dirty |= self.zero_movers[t];
        let (a, b) = (self.mover_starts[t] as usize, self.mover_starts[t + 1] as usize);
        for m in &self.movers[a..b] {
            let slot = m.slot as usize % S;
            let view = m.view as usize % MAX_VIEWS;
            let row = &self.contrib[m.row as usize];
            let mut sum = 0i64;
            for &x in &between[view] {
                sum += row[x as usize % MAX_CELLS];
            }
            let dist = dists[view];
            // The sign of the move, as a mask: the sum is for a move up the view's cells.
            let down = dist >> 63;
            let delta = (sum ^ down) - down;
            if m.zero {
                // The order and the mask now; the block (a map rank, a region) only if a
                // search needs this slot's entry (`clean`).
                s.order[slot] = (i64::from(s.order[slot]) + delta) as u16;
                s.mask[slot] ^= flips[view];
            } else {
                let delta = dist * i64::from(m.weight) + delta;
                s.index[slot] = (i64::from(s.index[slot]) + delta) as u32;
                s.stale |= 1 << slot;
            }
        }
        s.blank = from as u8;
        s.cleaned = 0;
        // The group that was largest at the parent most often prunes the child alone: its
        // changed slot's index now, so that it is prefetched with the others'.
        // (`lead` is a group: `best` sets it.)
        let (a, b) = self.groups.get(usize::from(s.lead)).copied().unwrap_or((0, 0));
        for &slot in &self.group_slots[a as usize..b as usize] {
            let slot = slot as usize % S;
            if s.dirty >> slot & 1 == 1 {
                self.index_now(s, slot);
                s.stale |= 1 << slot;
            }
        }
        if !self.dual_slots.is_empty()
            && (self.dual_group[from] != u8::MAX || self.dual_group[to] != u8::MAX)
        {
            self.set_duals(s, after, from);
        }
    }

    /// Computes the index of dirty zero-aware slot `slot` (no longer dirty, not read yet).
    #[inline(always)]
    fn index_now(&self, s: &mut CatalogueState<S>, slot: usize) {
        if let Some(z) = &self.shared_zero {
            // Every slot zero-aware through one index: no slot record to read.
            let view = usize::from(self.slot_views[slot % MAX_SLOTS]) % MAX_VIEWS;
            let blank = self.view_cells[view][usize::from(s.blank) % MAX_CELLS];
            s.index[slot % S] = z.block(u64::from(s.mask[slot % S]), usize::from(blank))
                * z.orders()
                + u32::from(s.order[slot % S]);
            s.dirty &= !(1 << slot);
            return;
        }
        let sl = &self.slots[slot];
        if let Some(z) = &sl.zero {
            let blank = self.view_cells[sl.view][usize::from(s.blank) % MAX_CELLS];
            s.index[slot] = z.block(u64::from(s.mask[slot]), usize::from(blank)) * z.orders()
                + u32::from(s.order[slot]);
        }
        s.dirty &= !(1 << slot);
    }

    /// Starts loading slot `slot`'s entry.
    #[inline(always)]
    fn prefetch_slot(&self, s: &CatalogueState<S>, slot: usize) {
        // A table of bits holds entry i in byte i / 8.
        let shift = 3 * (self.bit_slots >> slot & 1);
        super::table::prefetch_address(
            self.entries[slot % S].base().wrapping_add((s.index[slot % S] >> shift) as usize),
        );
    }

    /// Reads slot `slot`'s entry at its index into its value.
    #[inline(always)]
    fn read(&self, s: &mut CatalogueState<S>, slot: usize) {
        let index = s.index[slot % S];
        let old = s.values[slot % S];
        let value = if self.bit_slots >> slot & 1 == 0 {
            self.entries[slot % S].get(u64::from(index))
        } else {
            // One more or one less than the parent's: bit 1 of the new value says which.
            let bit = self.entries[slot % S].get(u64::from(index >> 3)) >> (index & 7) & 1;
            let up = old.wrapping_add(1);
            if bit == up >> 1 & 1 { up } else { old.wrapping_sub(1) }
        };
        self.set_value(s, slot, value);
    }

    /// Sets slot `slot`'s value, and the sums over it.
    #[inline(always)]
    fn set_value(&self, s: &mut CatalogueState<S>, slot: usize, value: u8) {
        let delta = value.wrapping_sub(s.values[slot % S]);
        s.values[slot % S] = value;
        let regular = (self.regular_mask >> slot & 1) as u16;
        s.total = s.total.wrapping_add((delta as i8 as u16) & regular.wrapping_neg());
    }

    /// The sum of group `g`'s values.
    #[inline(always)]
    fn group_sum(&self, s: &CatalogueState<S>, g: usize) -> u32 {
        let v = &s.values;
        let at = |slot: u8| u32::from(v[slot as usize % S]);
        match self.groups4.get(g) {
            Some(&[a, b, c, d]) => at(a) + at(b) + at(c) + at(d),
            None => {
                let (a, b) = self.groups.get(g).copied().unwrap_or((0, 0));
                self.group_slots[a as usize..b as usize].iter().map(|&x| at(x)).sum()
            }
        }
    }

    /// The largest group sum and the first group that has it.
    #[inline(always)]
    fn best(&self, s: &CatalogueState<S>) -> (u32, usize) {
        let v = &s.values;
        let at = |slot: u8| u32::from(v[slot as usize % S]);
        let (mut best, mut lead) = (0, 0);
        if !self.groups4.is_empty() {
            for (g, &[a, b, c, d]) in self.groups4.iter().enumerate() {
                let sum = at(a) + at(b) + at(c) + at(d);
                if sum > best {
                    (best, lead) = (sum, g);
                }
            }
            return (best, lead);
        }
        for g in 0..self.groups.len() {
            let sum = self.group_sum(s, g);
            if sum > best {
                (best, lead) = (sum, g);
            }
        }
        (best, lead)
    }

    /// A regular slot's index and, for a zero-aware slot, its order and mask.
    fn index_of(&self, slot: &Slot, pos: &[u8; MAX_CELLS]) -> (u32, u16, u32) {
        let cells = &self.view_cells[slot.view];
        let (placed, mask) = slot.placed(pos, cells);
        let placed = &placed[..slot.players.len()];
        match &slot.zero {
            None => (rank_cells(self.size.cells(), placed.iter().copied()) as u32, 0, 0),
            Some(z) => {
                let order = z.order_rank(mask, placed.iter().copied());
                let blank = usize::from(cells[usize::from(pos[0]) % MAX_CELLS]);
                (z.block(mask, blank) * z.orders() + order, order as u16, mask as u32)
            }
        }
    }
}

impl<const S: usize> Heuristic for Catalogue<S> {
    type State = CatalogueState<S>;

    const LAZY: bool = true;

    // A beam ranks by the estimate plus linear conflict's tiles and far tiles: the leading
    // partition misses conflicts between its patterns as an additive set does (measured on
    // the 5x5: `docs/performance.md`).
    const RANK_WITH_CONFLICTS: bool = true;

    // `resolve_begin` stops at the leading group when it is over the room.
    const RESOLVES_IN_PARTS: bool = true;

    // Near the goal a beam needs an eighth of its width (measured on the 5x5).
    const NEAR_EXACT_AT_GOAL: bool = true;

    fn name(&self) -> &str {
        &self.name
    }

    fn size(&self) -> Size {
        self.size
    }

    fn init(&self, cells: &[u8]) -> CatalogueState<S> {
        let mut pos = [0u8; MAX_CELLS];
        for (c, &t) in cells.iter().enumerate() {
            pos[t as usize] = c as u8;
        }
        let mut s = CatalogueState {
            index: [0; S],
            values: [0; S],
            order: [0; S],
            stale: 0,
            mask: [0; S],
            dirty: 0,
            blank: pos[0],
            lead: 0,
            cleaned: 0,
            total: 0,
        };
        for (i, slot) in self.slots.iter().enumerate() {
            (s.index[i % S], s.order[i % S], s.mask[i % S]) = self.index_of(slot, &pos);
            match (&slot.zero, slot.bits) {
                (Some(z), true) => {
                    // No parent: the entry's value from the table of bits, by a walk.
                    let entries = &self.entries[i % S];
                    let bit = |x: u32| entries.get(u64::from(x >> 3)) >> (x & 7) & 1;
                    let parity = z.colour_count(u64::from(s.mask[i % S])) + slot.goal_dark;
                    let value = z.descend(bit, s.index[i % S], parity);
                    self.set_value(&mut s, i, value);
                }
                _ => s.stale |= 1 << i,
            }
        }
        if !self.dual_slots.is_empty() {
            self.set_duals(&mut s, cells, pos[0] as usize);
        }
        s
    }

    #[inline]
    fn h(&self, s: &CatalogueState<S>) -> u32 {
        // Unused groups sum to 0: a maximum over all of them is the same.
        self.best(s).0
    }

    #[inline]
    fn step(
        &self,
        s: &CatalogueState<S>,
        after: &[u8],
        tile: u8,
        from: usize,
        to: usize,
    ) -> CatalogueState<S> {
        let mut n = *s;
        self.update(&mut n, after, tile, from, to);
        n
    }

    #[inline(always)]
    fn step_into(
        &self,
        s: &CatalogueState<S>,
        n: &mut CatalogueState<S>,
        after: &[u8],
        tile: u8,
        from: usize,
        to: usize,
    ) {
        *n = *s;
        self.update(n, after, tile, from, to);
    }

    #[inline]
    fn tie_break(&self, s: &CatalogueState<S>) -> u32 {
        u32::from(s.total)
    }

    #[inline]
    fn prefetch(&self, s: &CatalogueState<S>) {
        let mut stale = s.stale;
        while stale != 0 {
            let slot = stale.trailing_zeros() as usize;
            stale &= stale - 1;
            self.prefetch_slot(s, slot);
        }
    }

    #[inline]
    fn prefetch_all(&self, s: &mut CatalogueState<S>) {
        let mut dirty = s.dirty;
        while dirty != 0 {
            let slot = dirty.trailing_zeros() as usize;
            dirty &= dirty - 1;
            self.index_now(s, slot);
            s.stale |= 1 << slot;
        }
        self.prefetch(s);
    }

    #[inline(always)]
    fn pending_reads(&self, s: &CatalogueState<S>) -> u32 {
        s.stale.count_ones()
    }

    #[inline(always)]
    fn resolve(&self, s: &mut CatalogueState<S>) -> u32 {
        self.resolve_within(s, u32::MAX - 2)
    }

    #[inline(always)]
    fn resolve_within(&self, s: &mut CatalogueState<S>, room: u32) -> u32 {
        match self.resolve_begin(s, room) {
            Some(h) => h,
            None => self.resolve_rest(s),
        }
    }

    #[inline(always)]
    fn resolve_begin(&self, s: &mut CatalogueState<S>, room: u32) -> Option<u32> {
        let mut stale = s.stale;
        s.stale = 0;
        while stale != 0 {
            let slot = stale.trailing_zeros() as usize;
            stale &= stale - 1;
            self.read(s, slot);
        }
        let lead = usize::from(s.lead);
        // The group that led at the parent is clean (see `update`): often it alone is over.
        let first = self.group_sum(s, lead);
        if first > room {
            return Some(first);
        }
        // Else every slot is needed: all the indices, each entry prefetched; the reads are
        // left to `resolve_rest` (as stale slots), after the siblings' prefetches.
        let mut dirty = s.dirty;
        s.stale = dirty;
        while dirty != 0 {
            let slot = dirty.trailing_zeros() as usize;
            dirty &= dirty - 1;
            self.index_now(s, slot);
            self.prefetch_slot(s, slot);
        }
        None
    }

    #[inline(always)]
    fn resolve_rest(&self, s: &mut CatalogueState<S>) -> u32 {
        let mut read = s.stale;
        s.stale = 0;
        s.cleaned += read.count_ones() as u8;
        while read != 0 {
            let slot = read.trailing_zeros() as usize;
            read &= read - 1;
            self.read(s, slot);
        }
        // The largest sum, and the first group that has it (the next lead).
        let (best, lead) = self.best(s);
        s.lead = lead as u8;
        best
    }

    #[inline(always)]
    fn reads_done(&self, s: &CatalogueState<S>) -> u32 {
        u32::from(s.cleaned)
    }
}

#[cfg(test)]
mod tests;
