//! The views through which colour tables serve one goal, regular and dual, with their ranks kept
//! up to date move by move.
//!
//! Write `pos(x)` for the cell of tile `x`, `gpos(x)` for its goal cell, `g0 = gpos(0)`, and, for
//! a table whose goal has the blank on cell `e`, `col[y]` for the class of its goal cell `y`.
//!
//! - A *regular* view is a grid symmetry `σ` with `σ(g0) = e`: the abstract state has class
//!   `col[σ(gpos(x))]` on cell `σ(pos(x))`. It maps the goal onto the table's goal and moves onto
//!   moves, so the entry is a lower bound.
//! - A *dual* view is a symmetry `σ` with `σ(b) = e`, `b` the blank's cell: the abstract state
//!   has class `col[σ(pos(x))]` on cell `σ(gpos(x))`. Why it is a lower bound (Zahavi, Felner,
//!   Holte & Schaeffer 2008, here in MTM): a path of the blank is a permutation of cells that
//!   does not depend on the tiles, it can be played backwards, and a grid symmetry keeps its
//!   lines and so its MTM length. Let `P` be a shortest solution, as a blank path from `b` to
//!   `g0` permuting the cells by `π = gpos ∘ pos⁻¹`. Played backwards and mapped by `σ`, it is
//!   a blank path from `σ(g0)` to `e` of the same length that takes the position
//!   `Y = σ π σ⁻¹ ∘ goalₑ` (a tile on each cell, read as tile to cell) to the table's goal, and
//!   `Y`'s abstraction is the state above. So the entry is at most `|P|`.
//!
//! A view's state is ranked from its *packed board* (each abstract cell's class code times the
//! cell's place value, see `Ranker`) and its blank's cell. Both kinds of packed board are sums
//! over cells `c` of `A[c] * B[tile on c]`, with `A` a function of cells and `B` of tiles (the
//! class code and the place value, one way round or the other). One step of the blank from
//! `b` to `to`, tile `t` sliding the other way, changes the sum by
//! `(A[b] - A[to]) * (B[t] - B[0])`, so every view is a *slot* updated by one multiply-add per
//! step. The dual views of all tables share one slot per symmetry: the tables' colourings are
//! one colouring with the blank moved (a *reference* colouring, blank on `r`, and each table's
//! with cells `r` and `e` swapped), and a table's dual board differs from the reference's by
//! `code(col_ref[e]) * (B[tile on σ⁻¹(r)] - B[0])`. The blank of a regular view is on `σ(b)`,
//! that of a dual view on `σ(g0)`.
//!
//! A node with the blank on `b` looks up every regular view and the dual views of the
//! symmetries that take `b` to a table's blank cell (`ColourViews::plan`).
//!
//! Tables of a split colouring (`Split`) rank the packed board of the merged classes and, besides
//! it, where the subclass lies among the merged class's cells: a second slot per view, `s +
//! VIEW_SLOTS`, holds the sum of the subclass's place values, which is again a sum of `A[c] *
//! B[tile on c]` (a regular view: `A` the place value of `σ(c)`, `B` whether `σ(gpos(t))` is
//! in the table's subclass; a dual view: `A` whether `σ(c)` is in the reference's subclass, `B`
//! the place value of `σ(gpos(t))`). A dual view of a table other than the reference keeps the
//! reference's subclass, so it is given only to tables whose blank cell is not in it.

use std::sync::Arc;

use super::colour::{ColourTable, MAX_CLASSES, MAX_COLOUR_CELLS, Ranker, Split};
use crate::board::Board;
use crate::pdb::symmetries;

/// Slots of packed boards per node: a dual slot per symmetry (8 on a square), then the regular
/// views (12: three SSE registers of `u32`).
const VIEW_SLOTS: usize = 12;

/// Slots per node: the views' packed boards, then (for a split colouring only) their
/// subclasses' place values.
const SLOTS: usize = 2 * VIEW_SLOTS;

/// The slots a search carries per node: [`VIEW_SLOTS`] for plain tables, all [`SLOTS`] for
/// split ones (a constant of the search, so that plain tables pay nothing for splits).
pub(crate) const fn slots_for(split: bool) -> usize {
    if split { SLOTS } else { VIEW_SLOTS }
}

/// The most lookups of one node (regular views and duals; more duals are left out).
pub(crate) const MAX_LOOKS: usize = 8;

/// Slot values of one node.
pub(crate) type Slots<const S: usize> = [u32; S];

/// One lookup of a node: a table, the slot its state sits in, the abstract blank's cell, and
/// for a dual view of a table other than the reference, the fix-up.
#[derive(Clone, Copy, Debug, Default)]
struct Look {
    table: u8,
    slot: u8,
    blank: u8,
    /// The mask of the fields after the abstract blank's in a packed board.
    keep: u32,
    /// The cell whose tile the fix-up weighs (`σ⁻¹(r)`), and the factor (`col_ref[e]`, 0 for
    /// no fix-up).
    fix_cell: u8,
    fix: u32,
}

/// The lookups of a node with the blank on one cell.
#[derive(Clone, Copy, Debug, Default)]
struct Plan {
    count: u8,
    looks: [Look; MAX_LOOKS],
}

/// The regular and dual views of some colour tables for one goal.
#[derive(Debug)]
pub(crate) struct ColourViews {
    tables: Vec<Arc<ColourTable>>,
    ranker: Arc<Ranker>,
    n: usize,
    /// `cell[c][s]`: `A[c]` of slot `s`.
    cell: [[u32; SLOTS]; MAX_COLOUR_CELLS],
    /// `tile[t][s]`: `B[t]` of slot `s`.
    tile: [[u32; SLOTS]; MAX_COLOUR_CELLS],
    /// Per blank cell, the lookups of a node.
    plan: [Plan; MAX_COLOUR_CELLS],
    regular: usize,
    duals: usize,
    /// The tables' split, if their colouring has one.
    split: Option<Split>,
}

impl ColourViews {
    /// The views of `tables` for `goal`: every regular view of every table (up to
    /// `VIEW_SLOTS - 8`), and the dual views of the tables whose colouring is the first table's with
    /// the blank moved. `None` if no table is of the goal's size, or they rank differently.
    pub(crate) fn new(goal: &Board, tables: &[Arc<ColourTable>]) -> Option<ColourViews> {
        let size = goal.size();
        let tables: Vec<Arc<ColourTable>> =
            tables.iter().filter(|t| t.size() == size).cloned().collect();
        let first = tables.first()?;
        let n = size.cells();
        if n > MAX_COLOUR_CELLS || tables.len() > u8::MAX as usize {
            return None;
        }
        let reference = first.colouring().clone();
        let ranker = reference.ranker();
        if tables.iter().any(|t| t.colouring().class_sizes() != reference.class_sizes()) {
            return None;
        }
        let syms = symmetries(size);
        let mut gpos = [0usize; MAX_COLOUR_CELLS];
        for (c, &t) in goal.cells().iter().enumerate() {
            gpos[t as usize] = c;
        }
        let g0 = goal.blank();
        // Packed boards fit 32 bits (`Colouring::new` checks it).
        let weight = |c: usize| ranker.weight(c) as u32;
        let code = |class: u8| u32::from(class.min(MAX_CLASSES as u8).saturating_sub(1));
        let sub = |class: u8| u32::from(class as usize > MAX_CLASSES);
        let split = reference.split();
        let mut cell = [[0u32; SLOTS]; MAX_COLOUR_CELLS];
        let mut tile = [[0u32; SLOTS]; MAX_COLOUR_CELLS];
        // Dual slots: A = the reference's class of σ(c), B = the place value of σ(gpos(t)).
        let col_ref = reference.classes();
        for (s, sym) in syms.iter().enumerate() {
            for c in 0..n {
                cell[c][s] = code(col_ref[sym[c] as usize]);
                tile[c][s] = weight(sym[gpos[c]] as usize);
                cell[c][s + VIEW_SLOTS] = sub(col_ref[sym[c] as usize]);
                tile[c][s + VIEW_SLOTS] = weight(sym[gpos[c]] as usize);
            }
        }
        // Regular slots: A = the place value of σ(c), B = the table's class of σ(gpos(t)).
        let mut regular_looks = Vec::new();
        let mut slot = syms.len();
        for (i, t) in tables.iter().enumerate() {
            let col = t.colouring().classes();
            for sym in &syms {
                if sym[g0] as usize != t.colouring().blank() || slot == VIEW_SLOTS {
                    continue;
                }
                for c in 0..n {
                    cell[c][slot] = weight(sym[c] as usize);
                    tile[c][slot] = code(col[sym[gpos[c]] as usize]);
                    cell[c][slot + VIEW_SLOTS] = weight(sym[c] as usize);
                    tile[c][slot + VIEW_SLOTS] = sub(col[sym[gpos[c]] as usize]);
                }
                regular_looks
                    .push((*sym, Look { table: i as u8, slot: slot as u8, ..Look::default() }));
                slot += 1;
            }
        }
        let regular = regular_looks.len();
        // Tables whose colouring is the reference with the blank moved get dual views.
        let r = reference.blank();
        let dual_tables: Vec<(usize, usize, u32)> = tables
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                let e = t.colouring().blank();
                let same = reference.with_blank_at(e).is_some_and(|c| c == *t.colouring());
                (same && sub(col_ref[e]) == 0).then_some((i, e, code(col_ref[e])))
            })
            .collect();
        let mut plan = [Plan::default(); MAX_COLOUR_CELLS];
        let mut duals = 0;
        for (b, p) in plan.iter_mut().enumerate().take(n) {
            let mut looks: Vec<Look> =
                regular_looks.iter().map(|&(sym, l)| Look { blank: sym[b], ..l }).collect();
            for &(i, e, fix) in &dual_tables {
                for (s, sym) in syms.iter().enumerate() {
                    if sym[b] as usize != e {
                        continue;
                    }
                    let fix_cell = (0..n).find(|&c| sym[c] as usize == r).unwrap_or(0) as u8;
                    let (table, slot, blank) = (i as u8, s as u8, sym[g0]);
                    looks.push(Look { table, slot, blank, keep: 0, fix_cell, fix });
                }
            }
            for l in &mut looks {
                l.keep = ranker.keep(l.blank as usize);
            }
            // The duals first (measured: a little faster; they prune more often).
            looks.truncate(MAX_LOOKS.max(regular));
            looks.rotate_left(regular);
            duals = duals.max(looks.len() - regular);
            p.count = looks.len() as u8;
            p.looks[..looks.len()].copy_from_slice(&looks);
        }
        Some(ColourViews { tables, ranker, n, cell, tile, plan, regular, duals, split })
    }

    /// The board size.
    pub(crate) fn size(&self) -> crate::board::Size {
        self.tables[0].size()
    }

    /// The tables, in the order lookups name them.
    /// Whether the tables are split, so that a search carries [`slots_for`]`(true)` slots.
    pub(crate) fn is_split(&self) -> bool {
        self.split.is_some()
    }

    pub(crate) fn tables(&self) -> &[Arc<ColourTable>] {
        &self.tables
    }

    /// The number of regular views, and the most dual views of a node.
    pub(crate) fn counts(&self) -> (usize, usize) {
        (self.regular, self.duals)
    }

    /// The slots of a position.
    pub(crate) fn start<const S: usize>(&self, cells: &[u8]) -> Slots<S> {
        let mut v = [0u32; S];
        for (c, &t) in cells.iter().enumerate().take(self.n) {
            for (s, x) in v.iter_mut().enumerate() {
                *x = x.wrapping_add(self.cell[c][s].wrapping_mul(self.tile[t as usize][s]));
            }
        }
        v
    }

    /// The slots after the blank steps from `b` to `to`, tile `t` sliding onto `b`.
    #[inline(always)]
    pub(crate) fn step<const S: usize>(&self, v: &mut Slots<S>, b: usize, to: usize, t: usize) {
        let (ab, at) = (&self.cell[b], &self.cell[to]);
        let (bt, b0) = (&self.tile[t], &self.tile[0]);
        for s in 0..S {
            let d = ab[s].wrapping_sub(at[s]).wrapping_mul(bt[s].wrapping_sub(b0[s]));
            v[s] = v[s].wrapping_add(d);
        }
    }

    /// The lookups of a node with the blank on `blank`, whose tile on cell `c` is
    /// `tile_on(c)`: writes their tables and indices into `table` and `index` and returns how
    /// many.
    #[inline(always)]
    pub(crate) fn indices<const S: usize>(
        &self,
        v: &Slots<S>,
        blank: usize,
        tile_on: impl Fn(usize) -> usize,
        table: &mut [u8; MAX_LOOKS],
        index: &mut [u32; MAX_LOOKS],
    ) -> usize {
        let plan = &self.plan[blank];
        let count = plan.count as usize;
        for (j, look) in plan.looks[..count].iter().enumerate() {
            let s = look.slot as usize;
            let mut packed = v[s];
            if look.fix != 0 {
                let x = tile_on(look.fix_cell as usize);
                packed = packed.wrapping_add(
                    look.fix.wrapping_mul(self.tile[x][s].wrapping_sub(self.tile[0][s])),
                );
            }
            table[j] = look.table;
            let rank = self.ranker.index_keep(packed, look.keep, look.blank) as u32;
            index[j] = match self.split {
                // A split table's entries fit 32 bits (`ColourTable::from_table` checks it).
                Some(split) if S == SLOTS => {
                    rank * split.factor() + split.rank(packed, v[s + VIEW_SLOTS])
                }
                _ => rank,
            };
        }
        count
    }

    /// The largest entry of the lookups of `cells` (every view read).
    pub(crate) fn estimate(&self, cells: &[u8]) -> u32 {
        let v = self.start::<SLOTS>(cells);
        let blank = cells.iter().position(|&t| t == 0).unwrap_or(0);
        let (mut table, mut index) = ([0u8; MAX_LOOKS], [0u32; MAX_LOOKS]);
        let count = self.indices(&v, blank, |c| cells[c] as usize, &mut table, &mut index);
        (0..count)
            .map(|j| u32::from(self.tables[table[j] as usize].entries()[index[j] as usize]))
            .max()
            .unwrap_or(0)
    }
}
