//! Beam search: the best `width` boards of each depth, by estimate, expanded into the next.
//!
//! Every board of a layer is the same number of moves from the start, so ranking a layer by
//! the heuristic alone is ranking it by g + h: the beam keeps the boards an A* would expand
//! first at that depth and drops the rest. What matters for the answer's length is therefore
//! the heuristic's *order* (which board of a layer is nearer the goal), not its absolute
//! accuracy; an admissible estimate that falls short by a third still ranks boards well. That
//! is why beam search beats weighted A* on large boards (measured in `docs/performance.md`):
//! weighted A* needs a weight that offsets the shortfall, and then wanders on the plateaus.
//!
//! Shape: a layer holds its boards (`n` cells each, flat), their heuristic states, and a
//! 64-bit Zobrist hash each. Expanding a layer makes light candidates (parent, move, estimate,
//! hash, and the child's heuristic state when it is small): the child's board is made in the
//! parent's slot and undone. The children of a few parents at a time are stepped and their
//! table entries prefetched ([`Heuristic::prefetch_all`]) before any is resolved, so that a
//! database heuristic's reads overlap; a child already kept is not stepped at all. Candidates
//! already seen at a smaller depth are dropped, the best `width` are picked (the cut found by
//! `select_nth_unstable` over their keys alone, the candidates filtered in the order they were
//! made: by parent, so that the next layer reads this one from start to end, with no sort),
//! and only those are materialised into the next layer. Each layer keeps (parent, move) per
//! board, which is all the path needs. A run may narrow ([`Narrowing`]): from a given time on,
//! its layers keep fewer boards, so that the anytime search's last run answers before the
//! deadline rather than being cut by it.
//!
//! Children are stepped in place into a buffer of the layer's candidates' states; when the
//! states are small, or the heuristic [resolves in parts](Heuristic::RESOLVES_IN_PARTS), that
//! buffer becomes the next layer's states (the survivors' found through an index, so they lie
//! scattered: each parent's is prefetched a little before it is expanded), so nothing is
//! stepped or copied twice, and two buffers of about twice the width's states take turns. A
//! heuristic that resolves in parts (a catalogue: the partition that led at the parent first)
//! ranks a child by that part alone when it already puts the child at or past the last layer's
//! cut, less one; such a child's other reads wait, and only happen if this layer's cut comes out
//! past it ([`select`]). The survivors are the same as with every child resolved.
//!
//! Invariants: a board enters at most one layer (the hash set of every board kept so far; a
//! collision of 64-bit hashes, or of the set's 32-bit tags in one home, can only drop a board,
//! never make a wrong path, and every answer is replayed by the caller); a candidate whose
//! g + h reaches `bound` is dropped (with an admissible heuristic it cannot lead to an answer
//! shorter than `bound`); the answer is the first layer holding the goal, so its length is
//! that layer's depth. Boards are ranked by [`Heuristic::rank`] (the estimate unless a
//! heuristic knows a better order, which need not be admissible: pruning uses the estimate),
//! ties broken by the hash, so the search is deterministic and the survivors of a tie are
//! spread over the board space (measured: better than breaking ties by Manhattan distance
//! either way).

use std::time::Instant;

use super::{CHECK_EVERY, LimitKind, Limits, Problem, SearchError, Solution, Stats};
use crate::heuristic::{Heuristic, with_beam_order};
use crate::huge_pages::HugeBytes;
use crate::moves::{Dir, MoveTable, NONE};

/// What one beam run came to.
#[derive(Default)]
pub(crate) struct BeamRun {
    /// A path to the goal shorter than the bound.
    pub(crate) found: Option<Vec<Dir>>,
    /// The limit that ended the run, if one did (`None` with no path: the beam emptied).
    pub(crate) stop: Option<LimitKind>,
    /// Some layer had more candidates than the width (some of them perhaps the same board
    /// reached twice), so the run may have dropped boards by rank. A run that dropped none
    /// searched every board within its bound (a breadth-first search pruned by the admissible
    /// estimate), so a wider one would search the same boards again.
    pub(crate) truncated: bool,
    /// Children ranked by a first part of their estimate and left unresolved
    /// ([`Heuristic::RESOLVES_IN_PARTS`]), and those of them resolved after all because the
    /// layer's cut came out past them (the tests read them, to know both paths ran).
    #[cfg_attr(not(test), expect(dead_code, reason = "statistics for the tests"))]
    pub(crate) deferred: u64,
    #[cfg_attr(not(test), expect(dead_code, reason = "statistics for the tests"))]
    pub(crate) resolved_late: u64,
}

/// Heuristic states up to this size are kept with the candidates.
const KEEP_STATE_BYTES: usize = 64;

/// How many boards (or candidates) ahead the hash set's slots are prefetched.
const PREFETCH_AHEAD: usize = 8;

/// Parents whose children are stepped (and their table entries prefetched) before any of them
/// is resolved.
const CHUNK: usize = 4;

/// A child stepped but not resolved yet.
#[derive(Clone, Copy)]
struct Stepped {
    /// Its state's index in the children's states.
    slot: u32,
    hash: u64,
    parent: u32,
    dir: u8,
    /// A first part of the estimate when that already ranks the child past the cut.
    first: Option<u32>,
}

/// A child not yet made: its parent's index in the layer, the move, its rank key and hash.
#[derive(Clone, Copy)]
struct Candidate {
    /// The rank in the high 32 bits, the hash's high bits below (unique, so the order is
    /// total and deterministic).
    key: u64,
    hash: u64,
    parent: u32,
    /// Its heuristic state's index among the layer's candidates' states, when they are kept.
    slot: u32,
    dir: u8,
    /// Ranked by a first part of its estimate (a lower bound of its rank), its state not
    /// resolved in full.
    partial: bool,
}

/// A child whose first part ranks it at the last layer's cut less this, or past, waits for
/// the rest of its estimate. A layer's cut is mostly one below the last's (a move brings the
/// best boards one nearer; the values measured are in `docs/performance.md`).
const CUT_DROP: u32 = 1;

/// How many parents ahead a parent's heuristic state is prefetched when the states are kept
/// (then a layer's lie wherever their candidates were stepped, not in order).
const STATE_AHEAD: usize = 2;

/// Starts loading every cache line of `state`.
fn prefetch_state<S>(state: &S) {
    let start = std::ptr::from_ref(state).addr();
    let end = start + std::mem::size_of::<S>();
    let mut line = start & !63;
    while line < end {
        crate::pdb::prefetch_address(line);
        line += 64;
    }
}

/// The key of the `width`-th least candidate: those at or below it are the best `width`
/// (`u64::MAX` when there are no more than `width`). Keys are unique but for a board reached
/// from two parents of a layer, whose two candidates the layer keeps once; so those at or below
/// the cut are the same boards as the least `width` candidates. Only the keys are selected
/// (`keys` is scratch), so that the candidates stay in the order they were made: by parent,
/// then move, the order the next layer is read in.
fn cut_key(candidates: &[Candidate], width: usize, keys: &mut Vec<u64>) -> u64 {
    if candidates.len() <= width {
        return u64::MAX;
    }
    keys.clear();
    keys.extend(candidates.iter().map(|c| c.key));
    *keys.select_nth_unstable(width.saturating_sub(1)).1
}

/// Keeps the `width` candidates of least key, as if every one were resolved in full: a
/// partial candidate's key is a lower bound of its full key, so those among the least `width`
/// are resolved (their keys can only rise) and the choice made again, until it holds none.
/// `room` is the estimate a candidate must stay below (its depth's share of the bound).
/// Returns the candidates resolved here, and whether any candidate within the bound was dropped
/// by rank (as [`BeamRun::truncated`] counts them: a partial one past the width is resolved
/// to know, until one is within the bound). The candidates kept stay in their order.
fn select<H: Heuristic>(
    heuristic: &H,
    candidates: &mut Vec<Candidate>,
    states: &mut [H::State],
    width: usize,
    room: u32,
    keys: &mut Vec<u64>,
) -> (u64, bool) {
    let mut todo: Vec<usize> = Vec::new();
    let mut resolved = 0;
    loop {
        let cut = cut_key(candidates, width, keys);
        todo.clear();
        todo.extend((0..candidates.len()).filter(|&i| {
            let c = &candidates[i];
            c.partial && c.key <= cut
        }));
        if todo.is_empty() {
            // More than `width` at or below the cut: a board reached twice, which counts as
            // dropped (as it does in a beam that resolves every child).
            let mut truncated = candidates.iter().filter(|c| c.key <= cut).count() > width;
            if !truncated {
                for c in candidates.iter().filter(|c| c.key > cut) {
                    if !c.partial {
                        truncated = true;
                        break;
                    }
                    resolved += 1;
                    let state = &mut states[c.slot as usize];
                    let _ = heuristic.resolve_begin(state, u32::MAX - 2);
                    if heuristic.resolve_rest(state) < room {
                        truncated = true;
                        break;
                    }
                }
            }
            if cut != u64::MAX {
                candidates.retain(|c| c.key <= cut);
            }
            return (resolved, truncated);
        }
        resolved += todo.len() as u64;
        let mut dropped = false;
        // In chunks of about the children of `2 CHUNK` parents, as when they were stepped.
        for chunk in todo.chunks(8 * CHUNK) {
            // Every remaining read of the chunk loading before any is finished.
            for &i in chunk {
                // With no room to stop at, this only starts the loads.
                let _ =
                    heuristic.resolve_begin(&mut states[candidates[i].slot as usize], u32::MAX - 2);
            }
            for &i in chunk {
                let c = &mut candidates[i];
                let state = &mut states[c.slot as usize];
                let h = heuristic.resolve_rest(state);
                c.partial = false;
                if h >= room {
                    // Past the bound after all: dropped as a full estimate would have been.
                    c.key = u64::MAX;
                    dropped = true;
                    continue;
                }
                c.key = (u64::from(heuristic.rank(state)) << 32) | (c.key & 0xFFFF_FFFF);
            }
        }
        if dropped {
            candidates.retain(|c| c.key != u64::MAX);
        }
    }
}

/// The hashes of the boards kept so far: open addressing with linear probing over a power of
/// two of slots, at most half full. A slot's cache line can be prefetched from the hash alone,
/// which is what makes this beat a general hash set here: a lookup per candidate is the beam's
/// main memory cost. A hash's low bits choose its home slot and the slot keeps its high 32 bits
/// (0 marks an empty slot, so 0 is stored as 1): half the memory of whole hashes, and a false
/// match (which can only drop a board) stays as rare as one in 2^32 per probe. The slots are in
/// memory advised for 2 MiB pages (`huge_pages`): with 4 KiB pages nearly every lookup of a
/// large set also missed the TLB.
///
/// A wide beam keeps only the recent layers' boards ([`Seen::recent`]): two tables of [`SPAN`]
/// layers each, the older cleared and reused when the newer fills, so a board is found if it
/// was kept in the last `SPAN` to `2 SPAN` layers. Measured, a beam meets again only boards of
/// the last few layers (the same boards kept, to the node, with the whole set or with the last
/// 2 to 4 layers), and the smaller tables are faster and lighter: a 7x7 beam of width 262,144
/// took a quarter less time and a quarter of the memory. A narrow beam keeps every board
/// ([`Seen::new`]); a slot's tag lacks the bits that would place it in a larger table, so a
/// full table stays and one twice as large takes new hashes, lookups probing each (rare: it is
/// sized for the run).
struct Seen {
    /// Never empty; only the last one takes new hashes.
    tables: Vec<Tags>,
    /// Layers per table when only the recent ones are kept ([`Seen::recent`]), else 0.
    span: u32,
    /// Layers done since the last table was cleared.
    layers: u32,
}

/// Layers a table of recent boards holds ([`Seen::recent`]).
const SPAN: u32 = 16;

/// The narrowest beam that keeps only the recent layers' boards ([`Seen::for_run`]).
const MIN_RECENT_WIDTH: usize = 16_384;

/// One table of [`Seen`].
struct Tags {
    /// The slots, 4 bytes each.
    slots: HugeBytes,
    /// The number of slots, a power of two.
    capacity: usize,
    len: usize,
}

impl Tags {
    fn new(capacity: usize) -> Tags {
        Tags { slots: HugeBytes::zeroed(4 * capacity), capacity, len: 0 }
    }

    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        hash as usize & (self.capacity - 1)
    }

    #[inline(always)]
    fn slot(&self, i: usize) -> u32 {
        let mut word = [0; 4];
        word.copy_from_slice(&self.slots.bytes()[4 * i..4 * i + 4]);
        u32::from_ne_bytes(word)
    }

    /// The slot holding `hash`'s tag, or the empty slot where it would go.
    #[inline(always)]
    fn find(&self, hash: u64) -> (usize, bool) {
        let tag = tag(hash);
        let mut i = self.home(hash);
        loop {
            match self.slot(i) {
                0 => return (i, false),
                t if t == tag => return (i, true),
                _ => i = (i + 1) & (self.capacity - 1),
            }
        }
    }
}

/// What a slot holding `hash` holds.
#[inline(always)]
fn tag(hash: u64) -> u32 {
    ((hash >> 32) as u32).max(1)
}

impl Seen {
    /// Every board, with room for about `boards` before a second table.
    fn new(boards: usize) -> Seen {
        let capacity = (2 * boards).clamp(1 << 8, 1 << 27).next_power_of_two();
        Seen { tables: vec![Tags::new(capacity)], span: 0, layers: 0 }
    }

    /// The boards of the last `span` to `2 span` layers of at most `width` boards each: two
    /// tables with room for `span` layers, so that neither is ever half full.
    fn recent(span: u32, width: usize) -> Seen {
        let capacity = (2 * (span as usize * width + 1)).max(1 << 8).next_power_of_two();
        Seen { tables: vec![Tags::new(capacity), Tags::new(capacity)], span, layers: 0 }
    }

    /// The set for a beam of `width` expected to keep about `boards`: every board, unless the
    /// beam is wide and the recent layers' tables would be smaller. A narrow beam keeps every
    /// board: it can wander round loops longer than the recent layers (measured: a 6x6 walk's
    /// narrow beams then ran out of room before any answer), and its set is small anyway.
    fn for_run(width: usize, boards: usize) -> Seen {
        if width >= MIN_RECENT_WIDTH && (SPAN as usize).saturating_mul(width) < boards {
            Seen::recent(SPAN, width)
        } else {
            Seen::new(boards)
        }
    }

    /// Marks a layer done: with recent layers only, every `span` layers the older table is
    /// cleared and takes the new hashes.
    fn next_layer(&mut self) {
        if self.span == 0 {
            return;
        }
        self.layers += 1;
        if self.layers == self.span {
            self.layers = 0;
            self.tables.swap(0, 1);
            let newer = &mut self.tables[1];
            newer.slots.bytes_mut().fill(0);
            newer.len = 0;
        }
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        for t in &self.tables {
            crate::pdb::prefetch_address(t.slots.bytes().as_ptr().addr() + 4 * t.home(hash));
        }
    }

    #[inline(always)]
    fn contains(&self, hash: u64) -> bool {
        self.tables.iter().any(|t| t.find(hash).1)
    }

    /// Adds `hash`; false if it was there already.
    fn insert(&mut self, hash: u64) -> bool {
        // The newest table is probed once: where it misses is where the tag goes.
        let (older, newest) = self.tables.split_at(self.tables.len() - 1);
        let newest = &newest[0];
        if older.iter().any(|t| t.find(hash).1) {
            return false;
        }
        let (mut at, found) = newest.find(hash);
        if found {
            return false;
        }
        // Never with recent layers only: their tables have room for `span` layers.
        if 2 * (newest.len + 1) > newest.capacity {
            debug_assert_eq!(self.span, 0, "a table of recent layers filled");
            let bigger = Tags::new(2 * newest.capacity);
            at = bigger.find(hash).0;
            self.tables.push(bigger);
        }
        if let Some(t) = self.tables.last_mut() {
            t.slots.bytes_mut()[4 * at..4 * at + 4].copy_from_slice(&tag(hash).to_ne_bytes());
            t.len += 1;
        }
        true
    }

    /// Hashes held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.tables.iter().map(|t| t.len).sum()
    }
}

/// Zobrist keys: one random word per (tile, cell); tile 0 (the blank) has none.
pub(crate) struct Zobrist {
    n: usize,
    keys: Vec<u64>,
}

impl Zobrist {
    pub(crate) fn new(n: usize) -> Zobrist {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let keys = (0..n * n)
            .map(|_| {
                // splitmix64
                x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = x;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^ (z >> 31)
            })
            .collect();
        Zobrist { n, keys }
    }

    #[inline(always)]
    pub(crate) fn key(&self, tile: u8, cell: usize) -> u64 {
        if tile == 0 { 0 } else { self.keys[tile as usize * self.n + cell] }
    }

    pub(crate) fn of(&self, cells: &[u8]) -> u64 {
        cells.iter().enumerate().fold(0, |h, (c, &t)| h ^ self.key(t, c))
    }
}

/// One layer of the beam.
struct Layer<S> {
    cells: Vec<u8>,
    blanks: Vec<u8>,
    /// The heuristic states, board `i`'s at `at[i]`: in order when the survivors are stepped
    /// again, else the candidates' states of the layer before (the survivors' among them).
    states: Vec<S>,
    at: Vec<u32>,
    hashes: Vec<u64>,
}

impl<S> Layer<S> {
    fn with_capacity(n: usize, width: usize) -> Layer<S> {
        Layer {
            cells: Vec::with_capacity(n * width),
            blanks: Vec::with_capacity(width),
            states: Vec::with_capacity(width),
            at: Vec::with_capacity(width),
            hashes: Vec::with_capacity(width),
        }
    }

    fn clear(&mut self) {
        self.cells.clear();
        self.blanks.clear();
        self.states.clear();
        self.at.clear();
        self.hashes.clear();
    }

    fn len(&self) -> usize {
        self.blanks.len()
    }
}

/// One beam search of `width` boards a layer: a path to the goal, not proven optimal (unless
/// its length is the start's admissible estimate), or [`LimitKind::Depth`] when the beam
/// empties or goes past the depth cap of the anytime search (a few times the start's
/// estimate) without reaching the goal, or another limit that stopped it. A wider beam finds
/// shorter paths and costs proportionally more time and memory (about 12 bytes a board kept).
///
/// ```
/// use fifteen_core::{Board, Limits, LinearConflict, Problem, Size, beam_search, replay};
/// let goal = Board::blank_last(Size::S4X4);
/// let start = Board::parse("5 1 2 3 9 6 7 4 13 10 11 8 0 14 15 12", None).unwrap();
/// let h = LinearConflict::new(&goal);
/// let sol = beam_search(&Problem::new(start.clone(), goal.clone()).unwrap(), &h, 64, &Limits::default()).unwrap();
/// assert_eq!(replay(&start, &sol.moves).unwrap().0, goal);
/// assert_eq!(sol.len(), 9); // the optimum, which a beam need not find
/// assert!(beam_search(&Problem::new(start, goal).unwrap(), &h, 0, &Limits::default()).is_err());
/// ```
pub fn beam_search<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    width: usize,
    limits: &Limits,
) -> Result<Solution, SearchError> {
    let t0 = Instant::now();
    if width == 0 {
        return Err(SearchError::NotApplicable("a beam needs a width of at least 1".into()));
    }
    if heuristic.size() != problem.start().size() {
        return Err(SearchError::NotApplicable(format!(
            "the heuristic is for {} but the board is {}",
            heuristic.size(),
            problem.start().size()
        )));
    }
    let initial_h = heuristic.estimate(problem.start().cells());
    let cap = super::anytime::depth_cap(initial_h);
    let mut stats = Stats { generated: 1, ..Stats::default() };
    // The boards kept are bounded as in the anytime search unless the caller bounds them.
    let limits = Limits {
        max_stored: Some(limits.max_stored.unwrap_or(super::BEAM_MAX_KEPT as usize)),
        ..limits.clone()
    };
    let run = beam(problem, heuristic, width, None, cap.saturating_add(1), &limits, &mut stats);
    stats.elapsed = t0.elapsed();
    let lower_bound = if heuristic.admissible() { initial_h } else { 0 };
    let Some(moves) = run.found else {
        let kind = run.stop.unwrap_or(LimitKind::Depth);
        return Err(SearchError::LimitReached { kind, lower_bound, stats });
    };
    let (_, tiles) = super::replay(problem.start(), &moves)
        .ok_or_else(|| SearchError::NotApplicable("internal error: bad path".into()))?;
    let optimal = heuristic.admissible() && moves.len() as u32 <= initial_h;
    Ok(Solution { moves, tiles, optimal, initial_h, stats })
}

/// When a run narrows: the layers it starts from `at` on keep `width` boards (if fewer than the
/// run's own width), so that a run sized to the whole time left still reaches the goal before
/// the deadline instead of being lost to it. Near the goal a strong estimate needs a fraction
/// of the width (`docs/performance.md`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Narrowing {
    pub(crate) at: Instant,
    pub(crate) width: usize,
}

/// Beam search of `width` boards a layer for a path shorter than `bound` moves (narrowing as
/// `narrow` says). Nodes are counted in `stats`; `limits` (nodes, deadline, cancel,
/// `max_stored` boards kept) end it. Boards are ranked by `heuristic`, with far tiles and
/// linear conflicts added when it asks for them ([`Heuristic::RANK_FAR_TILES`],
/// [`Heuristic::RANK_WITH_CONFLICTS`]).
pub(crate) fn beam<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    width: usize,
    narrow: Option<Narrowing>,
    bound: u32,
    limits: &Limits,
    stats: &mut Stats,
) -> BeamRun {
    with_beam_order!(H, heuristic, problem.goal(), |ranked| {
        beam_ranked(problem, ranked, width, narrow, bound, limits, stats, H::RESOLVES_IN_PARTS)
    })
}

/// [`beam`] with boards ordered by `heuristic`'s [`Heuristic::rank`] as it is. With `parts`
/// (for a heuristic that [resolves in parts](Heuristic::RESOLVES_IN_PARTS)), a child whose
/// first part already ranks it past the last layer's cut is left unresolved, and resolved only
/// if this layer's cut comes out past it ([`select`]): the same survivors, fewer reads.
#[allow(clippy::too_many_arguments)]
pub(crate) fn beam_ranked<H: Heuristic>(
    problem: &Problem,
    heuristic: &H,
    width: usize,
    narrow: Option<Narrowing>,
    bound: u32,
    limits: &Limits,
    stats: &mut Stats,
    parts: bool,
) -> BeamRun {
    let start = problem.start();
    let n = start.size().cells();
    // A parent's index and a move share a `u32` in the trail.
    let width = width.clamp(1, 1 << 30);
    let table = MoveTable::new(start.size());
    let zobrist = Zobrist::new(n);
    let goal_hash = zobrist.of(problem.goal().cells());
    let admissible = heuristic.admissible();
    let max_kept = limits.max_stored.map_or(u64::MAX, |m| m as u64);

    let mut cur = Layer::with_capacity(n, width);
    let mut root = heuristic.init(start.cells());
    let root_h = heuristic.resolve(&mut root);
    cur.cells.extend_from_slice(start.cells());
    cur.blanks.push(start.cells().iter().position(|&t| t == 0).unwrap_or(0) as u8);
    cur.states.push(root);
    cur.at.push(0);
    cur.hashes.push(zobrist.of(start.cells()));
    if start == problem.goal() {
        return BeamRun { found: (bound > 0).then(Vec::new), ..BeamRun::default() };
    }
    // Room for the layers a path of twice the estimate needs, within reason.
    let expected = width.saturating_mul(2 * root_h.max(8) as usize).min(1 << 26);
    let mut seen = Seen::for_run(width, expected);
    seen.insert(cur.hashes[0]);
    let mut kept = 1u64;
    // Per layer after the first: each board's parent index and move, as `parent << 2 | move`.
    let mut trail: Vec<Vec<u32>> = Vec::new();
    // The move that led to each board of `cur` (none at the root).
    let mut came: Vec<u8> = vec![4];
    let mut next = Layer::with_capacity(n, width);
    let mut candidates: Vec<Candidate> = Vec::with_capacity(3 * width);
    let mut keys: Vec<u64> = Vec::new();
    // Small heuristic states are kept with the candidates, so that the survivors need not be
    // stepped again (measured: a tenth of the beam's time with linear conflict); large ones
    // (an additive set's) would cost more memory traffic than the step. A heuristic resolved
    // in parts keeps every state, large or not: a child left unresolved is resolved from its
    // own (measured on the 5x5's catalogue: faster than stepping the survivors again).
    let keep_states = parts || std::mem::size_of::<H::State>() <= KEEP_STATE_BYTES;
    // The rank at which the last layer was cut: a child whose first part ranks it there (less
    // `CUT_DROP`) or past is most likely dropped, so its other reads wait.
    let mut cut = u32::MAX;
    // The children's states, each stepped in place: a layer's (kept) or a chunk's. The
    // buffer only grows; `used` of its states are this layer's (or chunk's).
    let mut child_states: Vec<H::State> = Vec::new();
    let mut check_at = limits.max_nodes.map_or(CHECK_EVERY, |m| m.min(CHECK_EVERY));
    let mut stepped: Vec<Stepped> = Vec::with_capacity(4 * CHUNK);

    let mut depth = 0u32;
    let mut truncated = false;
    let (mut deferred, mut resolved_late) = (0, 0);
    let full_width = width;
    while cur.len() > 0 {
        let g = depth + 1;
        let width = match narrow {
            Some(nw) if Instant::now() >= nw.at => nw.width.clamp(1, full_width),
            _ => full_width,
        };
        if g >= bound {
            return BeamRun { found: None, stop: None, truncated, deferred, resolved_late };
        }
        candidates.clear();
        let mut used = 0usize;
        let mut goal: Option<Candidate> = None;
        // Parents in chunks: every child of a chunk is stepped and its table entries
        // prefetched, then all are resolved, so that a database heuristic's reads overlap.
        let mut i0 = 0;
        while i0 < cur.len() {
            let i1 = (i0 + CHUNK).min(cur.len());
            stepped.clear();
            if !keep_states {
                used = 0;
            }
            for (i, &came_by) in came.iter().enumerate().take(i1).skip(i0) {
                // Kept states lie scattered over the last layer's candidates': start loading
                // the state of a board a little ahead, so that stepping its children does not
                // wait for it (measured in `docs/performance.md`).
                if keep_states && let Some(&at) = cur.at.get(i + STATE_AHEAD) {
                    prefetch_state(&cur.states[at as usize]);
                }
                // The hash set outgrows the caches: start loading the slots of the children of
                // a board a few ahead, so that they are in cache when that board is expanded.
                if i + PREFETCH_AHEAD < cur.len() {
                    let j = i + PREFETCH_AHEAD;
                    let blank = cur.blanks[j] as usize;
                    let board = &cur.cells[j * n..(j + 1) * n];
                    for &to in table.of(blank).iter().filter(|&&to| to != NONE) {
                        let tile = board[to as usize];
                        seen.prefetch(
                            cur.hashes[j]
                                ^ zobrist.key(tile, to as usize)
                                ^ zobrist.key(tile, blank),
                        );
                    }
                }
                let blank = cur.blanks[i] as usize;
                let back = came_by ^ 3;
                let base = i * n;
                for (d, &to) in table.of(blank).iter().enumerate() {
                    if to == NONE || d as u8 == back {
                        continue;
                    }
                    let to = to as usize;
                    let board = &mut cur.cells[base..base + n];
                    let tile = board[to];
                    let hash = cur.hashes[i] ^ zobrist.key(tile, to) ^ zobrist.key(tile, blank);
                    stats.generated += 1;
                    // A board kept at a smaller depth is not stepped at all.
                    if seen.contains(hash) {
                        continue;
                    }
                    board[blank] = tile;
                    board[to] = 0;
                    let parent = &cur.states[cur.at[i] as usize];
                    if used == child_states.len() {
                        child_states.push(*parent);
                    }
                    let child = &mut child_states[used];
                    heuristic.step_into(parent, child, board, tile, to, blank);
                    board[to] = tile;
                    board[blank] = 0;
                    if parts {
                        heuristic.prefetch(child);
                    } else {
                        heuristic.prefetch_all(child);
                    }
                    stepped.push(Stepped {
                        slot: used as u32,
                        hash,
                        parent: i as u32,
                        dir: d as u8,
                        first: None,
                    });
                    used += 1;
                }
                stats.expanded += 1;
            }
            if parts {
                // The first part of each (its reads loaded meanwhile); the rest of the reads of
                // those not past the cut start loading before any is finished.
                let room_at = if cut == u32::MAX { cut } else { cut.saturating_sub(CUT_DROP) };
                for s in &mut stepped {
                    let state = &mut child_states[s.slot as usize];
                    let room = room_at.saturating_sub(heuristic.rank_extra(state));
                    s.first = heuristic.resolve_begin(state, room);
                    deferred += u64::from(s.first.is_some());
                }
            }
            for s in &stepped {
                let state = &mut child_states[s.slot as usize];
                let (h, partial) = match s.first {
                    Some(first) => (first, true),
                    None if parts => (heuristic.resolve_rest(state), false),
                    None => (heuristic.resolve(state), false),
                };
                if admissible && g + h >= bound {
                    continue;
                }
                let rank = match partial {
                    true => h + heuristic.rank_extra(state),
                    false => heuristic.rank(state),
                };
                let key = (u64::from(rank) << 32) | (s.hash >> 32);
                let candidate = Candidate {
                    key,
                    hash: s.hash,
                    parent: s.parent,
                    slot: s.slot,
                    dir: s.dir,
                    partial,
                };
                if s.hash == goal_hash && goal.is_none() {
                    goal = Some(candidate);
                }
                candidates.push(candidate);
            }
            if stats.generated >= check_at
                && let Some(kind) = limits.check_count(stats.generated, CHECK_EVERY, &mut check_at)
            {
                return BeamRun {
                    found: None,
                    stop: Some(kind),
                    truncated,
                    deferred,
                    resolved_late,
                };
            }
            i0 = i1;
        }
        // The goal, if a candidate is it: that layer's depth is the answer's length.
        if let Some(c) = goal.take() {
            let parent = c.parent as usize;
            let mut board = cur.cells[parent * n..(parent + 1) * n].to_vec();
            let blank = cur.blanks[parent] as usize;
            let to = table.of(blank)[c.dir as usize] as usize;
            board.swap(blank, to);
            if board == problem.goal().cells() {
                let mut moves = vec![Dir::ALL[c.dir as usize]];
                let mut at = parent;
                for layer in trail.iter().rev() {
                    let link = layer[at];
                    moves.push(Dir::ALL[link as usize % 4]);
                    at = (link >> 2) as usize;
                }
                moves.reverse();
                return BeamRun {
                    found: Some(moves),
                    stop: None,
                    truncated,
                    deferred,
                    resolved_late,
                };
            }
        }
        if parts {
            let admissible_bound = if admissible { bound - g } else { u32::MAX };
            let (resolved, cut_some) = select(
                heuristic,
                &mut candidates,
                &mut child_states,
                width,
                admissible_bound,
                &mut keys,
            );
            resolved_late += resolved;
            truncated |= cut_some;
            cut = match candidates.len() >= width {
                true => candidates.iter().map(|c| (c.key >> 32) as u32).max().unwrap_or(u32::MAX),
                false => u32::MAX,
            };
        } else if candidates.len() > width {
            truncated = true;
            let cut = cut_key(&candidates, width, &mut keys);
            candidates.retain(|c| c.key <= cut);
        }
        // Still in parent order: the next layer is made reading this one from start to end.
        if kept + candidates.len() as u64 > max_kept {
            return BeamRun {
                found: None,
                stop: Some(LimitKind::Memory),
                truncated,
                deferred,
                resolved_late,
            };
        }
        next.clear();
        let mut links = Vec::with_capacity(candidates.len());
        let mut next_came = Vec::with_capacity(candidates.len());
        for (k, c) in candidates.iter().enumerate() {
            if let Some(ahead) = candidates.get(k + PREFETCH_AHEAD) {
                seen.prefetch(ahead.hash);
            }
            if !seen.insert(c.hash) {
                continue;
            }
            let parent = c.parent as usize;
            let blank = cur.blanks[parent] as usize;
            let to = table.of(blank)[c.dir as usize] as usize;
            let board = &cur.cells[parent * n..(parent + 1) * n];
            let at = next.cells.len();
            next.cells.extend_from_slice(board);
            let child = &mut next.cells[at..at + n];
            let tile = child[to];
            child[blank] = tile;
            child[to] = 0;
            if keep_states {
                // The state stays where it was stepped (see below).
                next.at.push(c.slot);
            } else {
                // Stepped now, resolved `PREFETCH_AHEAD` survivors later (its reads loading
                // meanwhile).
                let from = &cur.states[cur.at[parent] as usize];
                let mut state = heuristic.step(from, child, tile, to, blank);
                heuristic.prefetch_all(&mut state);
                if let Some(behind) = next.states.len().checked_sub(PREFETCH_AHEAD) {
                    heuristic.resolve(&mut next.states[behind]);
                }
                next.at.push(next.states.len() as u32);
                next.states.push(state);
            }
            next.blanks.push(to as u8);
            next.hashes.push(c.hash);
            links.push(c.parent << 2 | u32::from(c.dir));
            next_came.push(c.dir);
        }
        if !keep_states {
            let from = next.states.len().saturating_sub(PREFETCH_AHEAD);
            for state in &mut next.states[from..] {
                heuristic.resolve(state);
            }
        }
        kept += links.len() as u64;
        seen.next_layer();
        trail.push(links);
        came = next_came;
        std::mem::swap(&mut cur, &mut next);
        if keep_states {
            // The children's states become the new layer's, and the old layer's buffer takes
            // the next children: two buffers, nothing copied.
            std::mem::swap(&mut cur.states, &mut child_states);
            std::mem::swap(&mut child_states, &mut next.states);
        }
        depth = g;
    }
    BeamRun { found: None, stop: None, truncated, deferred, resolved_late }
}

#[cfg(test)]
mod tests;
