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

/// Most partitions a catalogue uses (each is a group per view).
pub(crate) const MAX_PARTITIONS: usize = 64;

/// Per-node state of a [`Catalogue`]: each slot's table index and value, and which slots a move
/// changed and were not read yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CatalogueState {
    index: [u32; MAX_SLOTS],
    values: [u8; MAX_SLOTS],
    stale: u64,
    /// `pos[t]`: the cell of tile `t` (zero-aware slots index from it).
    pos: [u8; MAX_CELLS],
}

/// What a move of one tile changes in one slot.
#[derive(Clone, Copy, Debug)]
struct Mover {
    slot: u8,
    view: u8,
    /// The place value of the tile's digit in the slot's index.
    weight: u32,
    /// The row of `contrib` for this tile in this slot, or [`ZERO_AWARE`] for a zero-aware
    /// slot, whose index is computed afresh.
    row: u32,
}

/// [`Mover::row`] of a zero-aware slot.
const ZERO_AWARE: u32 = u32::MAX;

/// One (table, view) pair: which position tiles play the table's pattern, in rank order.
#[derive(Clone, Debug)]
struct Slot {
    table: usize,
    view: usize,
    players: Vec<u8>,
    /// The zero-aware index, for a zero-aware table.
    zero: Option<Arc<ZeroIndex>>,
}

/// A dual slot: the players' cells in the swapped goal, read through a dual view.
#[derive(Clone, Debug)]
struct DualSlot {
    /// Which `through` map (per corner group and view) it reads through.
    through: usize,
    src: Vec<u8>,
}

/// The maximum over the additive partitions a set of (overlapping) tables allows: see the module
/// documentation.
#[derive(Clone, Debug)]
pub struct Catalogue {
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
    entries: Vec<Entries>,
    /// Groups as ranges of `group_slots`: regular groups first, then the dual ones.
    groups: Vec<(u16, u16)>,
    group_slots: Vec<u8>,
    /// `movers[starts[t]..starts[t + 1]]`: the slots a move of tile `t` changes.
    movers: Vec<Mover>,
    mover_starts: Vec<u16>,
    /// `steps[(v * n + from) * n + to]`, as [`super::PdbLookup`]'s.
    steps: Vec<Step>,
    /// Rows of what a tile between a move's ends adds to a slot's index.
    contrib: Vec<[i64; MAX_CELLS]>,
    gap: usize,
    /// Each view's cell map.
    view_cells: Vec<[u8; MAX_CELLS]>,
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
        EntryEncoding::ZeroAware => ZeroIndex::shared(table.size(), table.tiles().len())
            .map(Some)
            .map_err(|e| PdbError::Table(super::PdbError::BadPattern { reason: e.to_string() })),
        _ => Ok(None),
    }
}

impl Catalogue {
    /// A catalogue over `tables` for `goal`, or an error if the tables disagree on board or
    /// goal, or no exact cover of the tiles exists.
    pub fn new(
        goal: &Board,
        tables: Vec<Arc<PdbTable>>,
        reflect: bool,
        dual: bool,
        name: impl Into<String>,
    ) -> Result<Catalogue, PdbError> {
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
                        slots.push(Slot { table: t, view: v, players, zero });
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
        if dual && 2 * regular <= MAX_SLOTS {
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
        if regular + if dual_slots.is_empty() { 0 } else { regular } > MAX_SLOTS {
            return Err(PdbError::NoTables);
        }
        // Index updates: the step tables of the views, and a contribution row per (slot, tile).
        let (steps, _) = step_tables::<MAX_CELLS>(size, &cover_views[0]);
        let mut movers_by_tile: Vec<Vec<Mover>> = vec![Vec::new(); n];
        let mut contrib: Vec<[i64; MAX_CELLS]> = Vec::new();
        for (s, slot) in slots.iter().enumerate() {
            let k = slot.players.len();
            if slot.zero.is_some() {
                for &r in &slot.players {
                    movers_by_tile[r as usize].push(Mover {
                        slot: s as u8,
                        view: slot.view as u8,
                        weight: 0,
                        row: ZERO_AWARE,
                    });
                }
                continue;
            }
            for (i, &r) in slot.players.iter().enumerate() {
                let weight = rank::placements(n - i - 1, k - i - 1) as u32;
                let mut row = [0i64; MAX_CELLS];
                for (j, &t) in slot.players.iter().enumerate() {
                    if j == i {
                        continue;
                    }
                    let wt = rank::placements(n - j - 1, k - j - 1) as i64;
                    row[t as usize] = if j < i { -i64::from(weight) } else { wt };
                }
                movers_by_tile[r as usize].push(Mover {
                    slot: s as u8,
                    view: slot.view as u8,
                    weight,
                    row: contrib.len() as u32,
                });
                contrib.push(row);
            }
        }
        let mut movers = Vec::new();
        let mut mover_starts = vec![0u16];
        for m in movers_by_tile {
            movers.extend(m);
            mover_starts.push(movers.len() as u16);
        }
        let mut entries: Vec<Entries> =
            slots.iter().map(|s| Entries::new(&tables[s.table])).collect();
        if !dual_slots.is_empty() {
            entries.extend(slots.iter().map(|s| Entries::new(&tables[s.table])));
        }
        Ok(Catalogue {
            size,
            name: name.into(),
            tables,
            partitions,
            slots,
            dual_slots,
            through,
            dual_group,
            entries,
            groups,
            group_slots,
            movers,
            mover_starts,
            steps,
            contrib,
            gap: (size.width() - 1).min(MAX_SIDE as usize - 1),
            view_cells: cover_views[0].iter().map(|v| v.cells).collect(),
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
    fn set_duals(&self, s: &mut CatalogueState, cells: &[u8], blank: usize) {
        let r = self.regular();
        let group = self.dual_group[blank];
        if group == u8::MAX {
            let mask = ((1u64 << r) - 1) << r;
            s.stale &= !mask;
            for i in r..2 * r {
                s.index[i] = 0;
                s.values[i] = 0;
            }
            return;
        }
        let n = self.size.cells();
        let base = group as usize * r;
        for i in 0..r {
            let d = &self.dual_slots[base + i];
            let through = &self.through[d.through];
            let placed = d.src.iter().map(|&c| through[cells[c as usize] as usize]);
            s.index[r + i] = match &self.slots[i].zero {
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
    fn update(&self, s: &mut CatalogueState, after: &[u8], tile: u8, from: usize, to: usize) {
        let n = self.size.cells();
        let t = tile as usize;
        s.pos[t % MAX_CELLS] = to as u8;
        s.pos[0] = from as u8;
        let (a, b) = (self.mover_starts[t] as usize, self.mover_starts[t + 1] as usize);
        for m in &self.movers[a..b] {
            let slot = m.slot as usize % MAX_SLOTS;
            if m.row == ZERO_AWARE {
                let sl = &self.slots[slot];
                s.index[slot] = self.index_of(sl, &s.pos, &self.view_cells[sl.view]);
                s.stale |= 1 << slot;
                continue;
            }
            let step = &self.steps[(m.view as usize * MAX_CELLS + from) * MAX_CELLS + to];
            let row = &self.contrib[m.row as usize];
            let mut sum = 0i64;
            for &c in &step.between[..self.gap] {
                sum += row[after[c as usize] as usize % MAX_CELLS];
            }
            let dist = i64::from(step.dist);
            let down = dist >> 63;
            let delta = dist * i64::from(m.weight) + ((sum ^ down) - down);
            s.index[slot] = (i64::from(s.index[slot]) + delta) as u32;
            s.stale |= 1 << slot;
        }
        let _ = n;
        if !self.dual_slots.is_empty()
            && (self.dual_group[from] != u8::MAX || self.dual_group[to] != u8::MAX)
        {
            self.set_duals(s, after, from);
        }
    }

    #[inline(always)]
    fn index_of(&self, slot: &Slot, pos: &[u8; MAX_CELLS], cells: &[u8; MAX_CELLS]) -> u32 {
        let placed =
            slot.players.iter().map(|&t| cells[pos[t as usize % MAX_CELLS] as usize % MAX_CELLS]);
        match &slot.zero {
            None => rank_cells(self.size.cells(), placed) as u32,
            Some(z) => {
                let mut buf = [0u8; 16];
                for (b, c) in buf.iter_mut().zip(placed) {
                    *b = c;
                }
                z.index(
                    &buf[..slot.players.len()],
                    usize::from(cells[usize::from(pos[0]) % MAX_CELLS]),
                )
            }
        }
    }
}

impl Heuristic for Catalogue {
    type State = CatalogueState;

    const LAZY: bool = true;

    fn name(&self) -> &str {
        &self.name
    }

    fn size(&self) -> Size {
        self.size
    }

    fn init(&self, cells: &[u8]) -> CatalogueState {
        let mut pos = [0u8; MAX_CELLS];
        for (c, &t) in cells.iter().enumerate() {
            pos[t as usize] = c as u8;
        }
        let mut s = CatalogueState { index: [0; MAX_SLOTS], values: [0; MAX_SLOTS], stale: 0, pos };
        for (i, slot) in self.slots.iter().enumerate() {
            s.index[i] = self.index_of(slot, &s.pos, &self.view_cells[slot.view]);
            s.stale |= 1 << i;
        }
        if !self.dual_slots.is_empty() {
            self.set_duals(&mut s, cells, pos[0] as usize);
        }
        s
    }

    #[inline]
    fn h(&self, s: &CatalogueState) -> u32 {
        let mut best = 0;
        for &(a, b) in &self.groups {
            let mut sum = 0u32;
            for &slot in &self.group_slots[a as usize..b as usize] {
                sum += u32::from(s.values[slot as usize % MAX_SLOTS]);
            }
            best = best.max(sum);
        }
        best
    }

    #[inline]
    fn step(
        &self,
        s: &CatalogueState,
        after: &[u8],
        tile: u8,
        from: usize,
        to: usize,
    ) -> CatalogueState {
        let mut n = *s;
        self.update(&mut n, after, tile, from, to);
        n
    }

    #[inline(always)]
    fn step_into(
        &self,
        s: &CatalogueState,
        n: &mut CatalogueState,
        after: &[u8],
        tile: u8,
        from: usize,
        to: usize,
    ) {
        *n = *s;
        self.update(n, after, tile, from, to);
    }

    #[inline]
    fn tie_break(&self, s: &CatalogueState) -> u32 {
        s.values[..self.regular()].iter().map(|&x| u32::from(x)).sum()
    }

    #[inline]
    fn prefetch(&self, s: &CatalogueState) {
        let mut stale = s.stale;
        while stale != 0 {
            let slot = stale.trailing_zeros() as usize;
            stale &= stale - 1;
            super::table::prefetch_address(
                self.entries[slot].base().wrapping_add(s.index[slot % MAX_SLOTS] as usize),
            );
        }
    }

    #[inline(always)]
    fn pending_reads(&self, s: &CatalogueState) -> u32 {
        s.stale.count_ones()
    }

    #[inline(always)]
    fn resolve(&self, s: &mut CatalogueState) -> u32 {
        let mut stale = s.stale;
        s.stale = 0;
        while stale != 0 {
            let slot = stale.trailing_zeros() as usize;
            stale &= stale - 1;
            s.values[slot % MAX_SLOTS] =
                self.entries[slot].get(u64::from(s.index[slot % MAX_SLOTS]));
        }
        self.h(s)
    }
}

#[cfg(test)]
mod tests;
