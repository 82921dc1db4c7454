//! Duplicate-path pruning for the MTM searches: an automaton over line moves that rejects a move
//! completing a *forbidden* string of lines, as `moves/prune.rs` does for single-tile moves.
//!
//! **What is forbidden.** A symbol is a line move, a direction (the blank's) and a count: on a
//! `W x H` board, `2 (W - 1) + 2 (H - 1)` symbols. Strings of symbols are played on an unbounded
//! grid from the blank's start, taken by length and, within a length, in symbol order. A
//! string's *effect* is the permutation it applies to the cells; its *extent* is the bounding
//! box of the cells the blank visits. A string `S` is forbidden if an earlier string `T` has
//! the same effect and an extent inside `S`'s: on a rectangle, wherever `S` is legal `T` is
//! legal too and leads to the same position in no more line moves. The strings are
//! position-free (one machine serves every blank cell), and only those whose extent fits the
//! board are played: no other is ever legal, nor can it be the twin of one that is. Only the
//! *minimal* forbidden strings are kept (no forbidden proper substring). Two lines on one axis
//! are always forbidden (they compose to one line or to nothing), so the machine subsumes the
//! searches' axis rule, which they keep as the cheaper test.
//!
//! **The machine.** An Aho–Corasick automaton over the symbols, with its equivalent states
//! merged (Moore's refinement), in 16-bit rows padded to a power of two; [`LineFsm::row`] and
//! [`LineFsm::symbol`] give the state after a line, or [`PRUNE`]. Every state but the start is
//! entered by a line on one axis and is read only for lines on the other, so the searches read
//! *narrow* rows of those lines alone ([`LineFsm::narrow_row`]): half the bytes in the cache. One machine a board shape,
//! shared ([`LineFsm::for_size`]). The 4x4's, of strings of up to [`MAX_LINES_4X4`] lines, is
//! checked in as its rows, because enumerating and minimising take longer than most searches;
//! other shapes up to 16 cells build theirs on first use, with shorter strings; larger boards
//! get a machine that forbids nothing (no MTM search there uses one).
//!
//! **Soundness.** As for single-tile moves: order paths by line count, then symbol by symbol.
//! Replacing a forbidden substring of a legal path by its twin gives a legal path to the same
//! position, no longer and earlier in the order, so the least path to any position has no
//! forbidden substring and the machine never prunes it nor a prefix of it. IDA* with an
//! admissible estimate (raised only by pathmax) therefore still meets an optimal solution in
//! the iteration whose bound is the optimal length. The tests walk every allowed path a few
//! lines deep and check that each position is reached at its BFS distance.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::board::Size;
use crate::key_map::{KeyHasher, KeyMap};
use crate::moves::Dir;

/// The state after a line that completes a forbidden string (the largest
/// 16-bit number: states are stored in 16 bits).
pub(crate) const PRUNE: u32 = u16::MAX as u32;

/// Longest forbidden string of the 4x4's machine, in lines: 10 gives 35,563 states (in 16-bit
/// rows, 1.1 MB); 12 would need 32-bit rows, far too many to stay in the cache.
pub(crate) const MAX_LINES_4X4: usize = 10;

/// Longest forbidden string of the machines of other shapes, built when first needed: short
/// enough that a build takes a small fraction of a second.
pub(crate) const MAX_LINES: usize = 8;

/// Boards with more cells get a machine that forbids nothing: their machines of useful lengths
/// take seconds to build or outgrow 16-bit rows, and their MTM searches do not use one.
const MAX_CELLS: usize = 16;

/// Bits a symbol takes in a string's code (at most 32 symbols).
const SYMBOL_BITS: u32 = 5;

/// The 4x4's machine, its rows in [`LineFsm::encode`]'s form: enumerating the strings takes
/// about a second and minimising their automaton a twentieth, more than most searches, so the
/// machine is built once and checked in (853 KB; a test keeps it current).
static LINES_4X4: &[u8] = include_bytes!("lines_4x4.fsm");

/// A deterministic automaton over a board's line moves that rejects (with [`PRUNE`]) every line
/// completing a forbidden string.
#[derive(Debug)]
pub(crate) struct LineFsm {
    /// Entries a row: the symbols, `2 (W - 1) + 2 (H - 1)`, rounded up to a power of two so
    /// that no row straddles two cache lines.
    stride: usize,
    /// The symbol of direction `d`, count 1; count `k` is `offset[d] + k - 1`.
    offset: [usize; 4],
    /// `rows[state * stride + symbol]`: the next state or [`PRUNE`].
    rows: Vec<u16>,
    /// The same rows with only the lines on the axis other than the one that entered each
    /// state, `narrow_stride` entries a row; line `(d, k)` at `narrow_offset[d] + k - 1`.
    narrow: Vec<u16>,
    narrow_stride: usize,
    narrow_offset: [usize; 4],
    forbidden: usize,
    build_time: Duration,
}

/// The shared machines, one a board shape.
static MACHINES: OnceLock<Mutex<HashMap<(usize, usize), &'static LineFsm>>> = OnceLock::new();

impl LineFsm {
    /// The state before any move.
    pub(crate) const START: u32 = 0;

    /// The shared machine of boards of `size`, built on first use and kept for the life of the
    /// process (one a board shape searched: a few at most).
    pub(crate) fn for_size(size: Size) -> &'static LineFsm {
        let (w, h) = (size.width(), size.height());
        let map = MACHINES.get_or_init(|| Mutex::new(HashMap::new()));
        let mut map = map.lock().unwrap_or_else(|e| e.into_inner());
        map.entry((w, h)).or_insert_with(|| {
            let fsm = if w * h > MAX_CELLS {
                LineFsm::build(w, h, 0)
            } else if (w, h) == (4, 4) {
                let t0 = Instant::now();
                LineFsm::from_rows(&Alphabet::new(4, 4), LINES_4X4, t0)
                    .unwrap_or_else(|| LineFsm::build(4, 4, MAX_LINES_4X4))
            } else {
                LineFsm::build(w, h, MAX_LINES)
            };
            Box::leak(Box::new(fsm))
        })
    }

    /// The machine of boards of `size` that forbids nothing (its one state leads to itself).
    pub(crate) fn nothing(size: Size) -> LineFsm {
        LineFsm::build(size.width(), size.height(), 0)
    }

    /// Enumerates the minimal forbidden strings of `w x h` boards of up to `max_len` lines and
    /// builds their minimal automaton.
    pub(crate) fn build(w: usize, h: usize, max_len: usize) -> LineFsm {
        let t0 = Instant::now();
        let alphabet = Alphabet::new(w, h);
        // A board too large for the grid's bytes gets a machine that forbids nothing.
        let fits = alphabet.grid <= GRID && alphabet.symbols <= 1 << SYMBOL_BITS;
        let strings = forbidden_lines(&alphabet, if fits { max_len } else { 0 });
        LineFsm::from_strings(&alphabet, &strings, t0)
    }

    /// The minimal automaton of `strings`; `t0` is when the build began.
    fn from_strings(alphabet: &Alphabet, strings: &[Vec<u8>], t0: Instant) -> LineFsm {
        let next = minimise(aho_corasick(strings, alphabet.symbols), alphabet.symbols);
        let mut fsm = LineFsm::from_next(alphabet, &next, t0);
        fsm.forbidden = strings.len();
        fsm
    }

    /// The machine whose rows (without padding, [`END`] for [`PRUNE`]) are `next`.
    fn from_next(alphabet: &Alphabet, next: &[u32], t0: Instant) -> LineFsm {
        let stride = alphabet.symbols.next_power_of_two();
        let states = next.len() / alphabet.symbols;
        assert!(states < PRUNE as usize, "too many states for 16-bit rows");
        let mut rows = vec![PRUNE as u16; states * stride];
        for (row, from) in rows.chunks_exact_mut(stride).zip(next.chunks_exact(alphabet.symbols)) {
            for (x, &t) in row.iter_mut().zip(from) {
                *x = if t == END { PRUNE as u16 } else { t as u16 };
            }
        }
        // The axis of the line that enters each state (0 vertical, 1 horizontal), following
        // only lines on the other axis than the state's own.
        let vertical = |d: usize| d == Dir::Up as usize || d == Dir::Down as usize;
        let axis_of = |x: usize| usize::from(!vertical(alphabet.lines[x].0));
        let mut axis = vec![2usize; states];
        let mut queue = std::collections::VecDeque::from([0usize]);
        axis[0] = 3;
        let mut mixed = false;
        while let Some(u) = queue.pop_front() {
            for x in 0..alphabet.symbols {
                let b = axis_of(x);
                if b == axis[u] {
                    continue;
                }
                let t = next[u * alphabet.symbols + x];
                if t == END {
                    continue;
                }
                if t == 0 {
                    // Back to the start: only in a machine that forbids nothing.
                    mixed |= states > 1;
                    continue;
                }
                let t = t as usize;
                if axis[t] == 2 {
                    axis[t] = b;
                    queue.push_back(t);
                } else if axis[t] != b {
                    mixed = true;
                }
            }
        }
        // Minimising never merges states entered from different axes (the lines on its own
        // axis are forbidden from one and not the other); checked all the same.
        assert!(!mixed, "a state entered from both axes");
        let (w, h) = (alphabet.w, alphabet.h);
        let mut narrow_offset = [0; 4];
        narrow_offset[Dir::Down as usize] = h - 1;
        narrow_offset[Dir::Right as usize] = w - 1;
        let narrow_stride = (2 * (w - 1)).max(2 * (h - 1)).next_power_of_two();
        // A machine of one state forbids nothing: its narrow row leads back to it.
        let mut narrow = vec![if states == 1 { 0 } else { PRUNE as u16 }; states * narrow_stride];
        for u in 0..states {
            for (x, &(d, k)) in alphabet.lines.iter().enumerate() {
                if axis_of(x) != axis[u] && axis[u] < 2 {
                    narrow[u * narrow_stride + narrow_offset[d] + k - 1] = rows[u * stride + x];
                }
            }
        }
        LineFsm {
            stride,
            offset: alphabet.offset,
            rows,
            narrow,
            narrow_stride,
            narrow_offset,
            forbidden: 0,
            build_time: t0.elapsed(),
        }
    }

    /// The machine of checked-in rows ([`LineFsm::encode`]'s form), or `None` if they are not
    /// a complete machine (a file emptied to be regenerated: the machine is then built).
    fn from_rows(alphabet: &Alphabet, bytes: &[u8], t0: Instant) -> Option<LineFsm> {
        let next: Vec<u32> = bytes
            .chunks_exact(2)
            .map(|b| match u16::from_le_bytes([b[0], b[1]]) {
                u16::MAX => END,
                x => u32::from(x),
            })
            .collect();
        let states = next.len() / alphabet.symbols;
        let complete = states > 0
            && bytes.len() == 2 * states * alphabet.symbols
            && next.iter().all(|&t| t == END || (t as usize) < states);
        complete.then(|| LineFsm::from_next(alphabet, &next, t0))
    }

    /// The rows in the checked-in form: each state's `2 (W - 1) + 2 (H - 1)` entries as 16-bit
    /// little-endian numbers, [`PRUNE`] for a forbidden line.
    #[cfg(test)]
    fn encode(&self) -> Vec<u8> {
        let symbols = self.offset[3] + (self.offset[3] - self.offset[2]);
        self.rows
            .chunks_exact(self.stride)
            .flat_map(|r| &r[..symbols])
            .flat_map(|x| x.to_le_bytes())
            .collect()
    }

    /// The row of `state`: entry [`LineFsm::symbol`]`(d, count)` is the state after that line,
    /// or [`PRUNE`].
    #[inline(always)]
    pub(crate) fn row(&self, state: u32) -> &[u16] {
        let at = state as usize * self.stride;
        &self.rows[at..at + self.stride]
    }

    /// The narrow row of `state`, entered by a line on the other axis than the lines it is
    /// read for: entry [`LineFsm::narrow_symbol`]`(d, count)`.
    #[inline(always)]
    pub(crate) fn narrow_row(&self, state: u32) -> &[u16] {
        let at = state as usize * self.narrow_stride;
        &self.narrow[at..at + self.narrow_stride]
    }

    /// The entry of a narrow row for a line of `count` tiles with the blank moving `d`.
    #[inline(always)]
    pub(crate) fn narrow_symbol(&self, d: usize, count: usize) -> usize {
        self.narrow_offset[d] + count - 1
    }

    /// The entry of a row for a line of `count` tiles with the blank moving `d`.
    #[inline(always)]
    pub(crate) fn symbol(&self, d: usize, count: usize) -> usize {
        self.offset[d] + count - 1
    }

    /// Number of states.
    #[cfg_attr(not(test), expect(dead_code, reason = "used by the tests and measurements"))]
    pub(crate) fn states(&self) -> usize {
        self.rows.len() / self.stride
    }

    /// Number of minimal forbidden strings.
    #[cfg_attr(not(test), expect(dead_code, reason = "used by the tests and measurements"))]
    pub(crate) fn forbidden(&self) -> usize {
        self.forbidden
    }

    /// How long building the machine took.
    #[cfg_attr(not(test), expect(dead_code, reason = "used by the tests and measurements"))]
    pub(crate) fn build_time(&self) -> Duration {
        self.build_time
    }
}

/// A board shape's line moves as symbols.
struct Alphabet {
    w: usize,
    h: usize,
    symbols: usize,
    offset: [usize; 4],
    /// Each symbol's direction and count.
    lines: Vec<(usize, usize)>,
    /// Cells of the grid strings are played on.
    grid: usize,
}

impl Alphabet {
    fn new(w: usize, h: usize) -> Alphabet {
        let mut offset = [0; 4];
        let mut lines = Vec::new();
        for d in Dir::ALL {
            offset[d as usize] = lines.len();
            let most = if matches!(d, Dir::Up | Dir::Down) { h - 1 } else { w - 1 };
            lines.extend((1..=most).map(|k| (d as usize, k)));
        }
        Alphabet { w, h, symbols: lines.len(), offset, lines, grid: (2 * w - 1) * (2 * h - 1) }
    }
}

/// A string of symbols: the first in the highest bits, so that for one length numeric order is
/// symbol order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Code {
    bits: u64,
    len: usize,
}

impl Code {
    fn symbol(self, i: usize) -> usize {
        (self.bits >> (SYMBOL_BITS as usize * (self.len - 1 - i))) as usize
            & ((1 << SYMBOL_BITS) - 1)
    }
}

/// Most cells of the grid strings are played on: `(2w - 1) x (2h - 1)` fits in bytes up to 8x8.
const GRID: usize = 256;

/// A string played on the grid: what each cell holds (the cell its content came from), and the
/// box the blank stayed in.
struct Play {
    /// Cells of a `(2w - 1) x (2h - 1)` grid, the blank's start in the middle.
    held: [u8; GRID],
    cells: usize,
    /// Rows and columns from the start: least row, most row, least column, most column.
    extent: [i32; 4],
}

impl Play {
    /// Plays `code`; `None` if the blank's box outgrows the board.
    fn run(a: &Alphabet, code: Code) -> Option<Play> {
        let gw = 2 * a.w as i32 - 1;
        let (w, h) = (a.w as i32, a.h as i32);
        let cell = |r: i32, c: i32| ((r + h - 1) * gw + (c + w - 1)) as usize;
        let mut play = Play { held: [0; GRID], cells: a.grid, extent: [0; 4] };
        for (i, x) in play.held[..a.grid].iter_mut().enumerate() {
            *x = i as u8;
        }
        let (mut r, mut c) = (0i32, 0i32);
        for i in 0..code.len {
            let (d, k) = a.lines[code.symbol(i)];
            let (dr, dc) = match d {
                0 => (-1, 0),
                1 => (0, -1),
                2 => (0, 1),
                _ => (1, 0),
            };
            let (nr, nc) = (r + dr * k as i32, c + dc * k as i32);
            let e = &mut play.extent;
            *e = [e[0].min(nr), e[1].max(nr), e[2].min(nc), e[3].max(nc)];
            if e[1] - e[0] >= h || e[3] - e[2] >= w {
                return None;
            }
            for _ in 0..k {
                let (from, to) = (cell(r, c), cell(r + dr, c + dc));
                play.held.swap(from, to);
                (r, c) = (r + dr, c + dc);
            }
        }
        Some(play)
    }

    /// A hash of the effect.
    fn fingerprint(&self) -> u64 {
        let mut hasher = KeyHasher::default();
        hasher.write(&self.held[..self.cells]);
        hasher.finish()
    }

    fn same_effect(&self, other: &Play) -> bool {
        self.held[..self.cells] == other.held[..other.cells]
    }

    /// Whether `self`'s box lies inside `other`'s.
    fn inside(&self, other: &Play) -> bool {
        let (a, b) = (self.extent, other.extent);
        a[0] >= b[0] && a[1] <= b[1] && a[2] >= b[2] && a[3] <= b[3]
    }
}

/// The minimal forbidden strings of up to `max_len` lines that fit the board, as symbol lists
/// by length and then symbol order.
///
/// Length by length, the candidates extend the allowed strings one line shorter, and are kept
/// only if their suffix one line shorter is allowed too (else a proper substring is forbidden).
/// Each allowed string is kept, by the fingerprint of its effect, as a possible twin of later
/// ones; a candidate whose fingerprint matches is played again beside each kept string to
/// compare effects exactly. Comparing with the allowed strings only is enough: a forbidden or
/// non-minimal earlier twin has an allowed one earlier still, inside its own box.
fn forbidden_lines(a: &Alphabet, max_len: usize) -> Vec<Vec<u8>> {
    const NONE: u32 = u32::MAX;
    assert!(max_len as u32 * SYMBOL_BITS <= 64, "strings too long for their codes");
    let syms = a.symbols;
    // The allowed strings by fingerprint: the last one's index in `list`, each linked to the
    // one before.
    let mut heads: KeyMap<u64> = KeyMap::default();
    let mut list: Vec<(Code, u32)> = Vec::new();
    let empty = Code { bits: 0, len: 0 };
    if let Some(p) = Play::run(a, empty) {
        heads.insert(p.fingerprint(), 0);
        list.push((empty, NONE));
    }
    // The allowed strings one line shorter, in order; each one's suffix (its first line
    // dropped) as an index into the level before; and that level's children: `child[j * syms +
    // s]` is the index of string `j` then `s` among the allowed strings, or NONE.
    let mut allowed: Vec<u64> = vec![0];
    let mut suffix: Vec<u32> = vec![NONE];
    let mut child: Vec<u32> = Vec::new();
    let mut forbidden = Vec::new();
    for len in 1..=max_len {
        let mut longer = Vec::new();
        let mut longer_suffix = Vec::new();
        let mut children = vec![NONE; allowed.len() * syms];
        for (i, (&prefix, &suf)) in allowed.iter().zip(&suffix).enumerate() {
            for s in 0..syms {
                // The candidate's suffix: the prefix's suffix then `s` (the empty string for a
                // single line).
                let tail = if len == 1 { 0 } else { child[suf as usize * syms + s] };
                if tail == NONE {
                    continue;
                }
                let bits = prefix << SYMBOL_BITS | s as u64;
                let code = Code { bits, len };
                let Some(play) = Play::run(a, code) else { continue };
                let fp = play.fingerprint();
                let head = heads.get(&fp).copied().unwrap_or(NONE);
                let mut t = head;
                let mut twin = false;
                while t != NONE && !twin {
                    let (other, next) = list[t as usize];
                    twin = Play::run(a, other)
                        .is_some_and(|o| o.same_effect(&play) && o.inside(&play));
                    t = next;
                }
                if twin {
                    forbidden.push((0..len).map(|i| code.symbol(i) as u8).collect());
                } else {
                    heads.insert(fp, list.len() as u32);
                    list.push((code, head));
                    children[i * syms + s] = longer.len() as u32;
                    longer.push(bits);
                    longer_suffix.push(tail);
                }
            }
        }
        allowed = longer;
        suffix = longer_suffix;
        child = children;
    }
    forbidden
}

/// A transition to a forbidden string's end, before [`minimise`] makes it [`PRUNE`].
const END: u32 = u32::MAX;

/// The Aho–Corasick automaton of `strings` over `symbols` symbols as a complete transition table
/// (`symbols` entries a state, the start first), with the transitions into a string's end made
/// [`END`] and those states dropped.
fn aho_corasick(strings: &[Vec<u8>], symbols: usize) -> Vec<u32> {
    const NO: u32 = u32::MAX;
    let mut goto: Vec<u32> = vec![NO; symbols];
    let mut end = vec![false];
    for s in strings {
        let mut state = 0usize;
        for &x in s {
            let slot = state * symbols + x as usize;
            if goto[slot] == NO {
                goto[slot] = end.len() as u32;
                goto.extend(std::iter::repeat_n(NO, symbols));
                end.push(false);
            }
            state = goto[slot] as usize;
        }
        end[state] = true;
    }
    let states = end.len();
    // Failure links breadth first; missing edges follow them.
    let mut fail = vec![0u32; states];
    let mut queue = std::collections::VecDeque::from([0u32]);
    while let Some(s) = queue.pop_front() {
        let s = s as usize;
        for x in 0..symbols {
            let via = if s == 0 { 0 } else { goto[fail[s] as usize * symbols + x] };
            let slot = s * symbols + x;
            if goto[slot] == NO {
                goto[slot] = via;
            } else {
                let t = goto[slot] as usize;
                fail[t] = via;
                end[t] |= end[via as usize];
                queue.push_back(t as u32);
            }
        }
    }
    // Number the states that are not ends, the start first.
    let mut number = vec![NO; states];
    let mut kept = 0;
    for (n, &e) in number.iter_mut().zip(&end) {
        if !e {
            *n = kept;
            kept += 1;
        }
    }
    let mut rows = Vec::with_capacity(kept as usize * symbols);
    for s in (0..states).filter(|&s| !end[s]) {
        rows.extend(
            goto[s * symbols..(s + 1) * symbols]
                .iter()
                .map(|&t| if end[t as usize] { END } else { number[t as usize] }),
        );
    }
    rows
}

/// The minimal automaton of the same strings (Moore's partition refinement): every state
/// accepts, so the first partition is one class, and each round splits the classes by where
/// their lines lead until none splits. Classes are numbered by their first state, so the start
/// stays 0.
fn minimise(next: Vec<u32>, symbols: usize) -> Vec<u32> {
    let states = next.len() / symbols;
    let class_of = |class: &[u32], t: u32| if t == END { END } else { class[t as usize] };
    let mut class = vec![0u32; states];
    let mut classes = 1;
    // Each state's signature: its class, then its lines' classes.
    let mut sig = vec![0u32; states * (symbols + 1)];
    loop {
        for (s, out) in sig.chunks_exact_mut(symbols + 1).enumerate() {
            out[0] = class[s];
            for (o, &t) in out[1..].iter_mut().zip(&next[s * symbols..(s + 1) * symbols]) {
                *o = class_of(&class, t);
            }
        }
        let mut ids: HashMap<&[u32], u32, BuildHasherDefault<KeyHasher>> =
            HashMap::with_capacity_and_hasher(classes * 2, Default::default());
        let refined: Vec<u32> = sig
            .chunks_exact(symbols + 1)
            .map(|key| {
                let fresh = ids.len() as u32;
                *ids.entry(key).or_insert(fresh)
            })
            .collect();
        let count = ids.len();
        drop(ids);
        class = refined;
        if count == classes {
            break;
        }
        classes = count;
    }
    let mut out = vec![END; classes * symbols];
    for s in 0..states {
        let c = class[s] as usize;
        for x in 0..symbols {
            out[c * symbols + x] = class_of(&class, next[s * symbols + x]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checked-in machine is the one the enumeration gives. If they differ, the file is
    /// rewritten and the test fails (run it again to see it pass, and commit the file).
    #[test]
    fn checked_in_machine_is_current() {
        let built = LineFsm::build(4, 4, MAX_LINES_4X4);
        let shared = LineFsm::for_size(Size::S4X4);
        if built.rows != shared.rows {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/mtm/lines_4x4.fsm");
            std::fs::write(path, built.encode()).unwrap();
            panic!("{path} was stale and is rewritten: commit it");
        }
        assert_eq!(built.forbidden(), 31_616);
    }

    /// Known answers, and the machines' build times with `--nocapture`.
    #[test]
    fn machine_sizes() {
        let fsm = LineFsm::for_size(Size::S4X4);
        println!(
            "4x4: {} strings, {} states, {:?}",
            fsm.forbidden(),
            fsm.states(),
            fsm.build_time()
        );
        assert_eq!(fsm.states(), 35_563);
        for (w, h) in [(3, 3), (2, 4), (4, 2), (3, 4), (2, 8)] {
            let fsm = LineFsm::for_size(Size::new(w, h).unwrap());
            println!(
                "{w}x{h}: {} strings, {} states, {:?}",
                fsm.forbidden(),
                fsm.states(),
                fsm.build_time()
            );
            assert!(fsm.forbidden() > 0);
        }
    }

    /// The strings of two lines are exactly the pairs on one axis whose blank stays within
    /// the board's side (two slides of one line compose to one slide or to nothing).
    #[test]
    fn two_line_strings_are_the_pairs_on_one_axis() {
        let a = Alphabet::new(4, 3);
        let strings = forbidden_lines(&a, 2);
        let mut want = Vec::new();
        for (x, &(d1, k1)) in a.lines.iter().enumerate() {
            for (y, &(d2, k2)) in a.lines.iter().enumerate() {
                let vertical = |d: usize| d == Dir::Up as usize || d == Dir::Down as usize;
                if vertical(d1) != vertical(d2) {
                    continue;
                }
                let sign = |d: usize| {
                    if d == Dir::Up as usize || d == Dir::Left as usize { -1 } else { 1 }
                };
                let p1 = sign(d1) * k1 as i32;
                let p2 = p1 + sign(d2) * k2 as i32;
                let span = p1.max(p2).max(0) - p1.min(p2).min(0);
                let side = if vertical(d1) { 3 } else { 4 };
                if span < side {
                    want.push(vec![x as u8, y as u8]);
                }
            }
        }
        assert_eq!(strings, want);
    }

    /// The narrow rows give the full rows' states for every legal line after the first, on
    /// random walks of the 4x4 and 3x4 machines.
    #[test]
    fn narrow_rows_agree_with_the_full_rows() {
        for size in [Size::S4X4, Size::new(3, 4).unwrap()] {
            let fsm = LineFsm::for_size(size);
            let mut seed = 0x9e37_79b9_7f4a_7c15u64;
            let mut random = |n: usize| {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (seed >> 33) as usize % n
            };
            let mut checked = 0;
            for _ in 0..20_000 {
                let mut blank = random(size.cells());
                let mut state = LineFsm::START;
                let mut last: Option<usize> = None;
                for _ in 0..14 {
                    let d = random(4);
                    if last.is_some_and(|l| (l == 0 || l == 3) == (d == 0 || d == 3)) {
                        continue;
                    }
                    let mut k = 0;
                    let mut b = blank;
                    while let Some(to) = Dir::ALL[d].neighbor(size, b) {
                        b = to;
                        k += 1;
                    }
                    if k == 0 {
                        continue;
                    }
                    let k = 1 + random(k);
                    for _ in 0..k {
                        blank = Dir::ALL[d].neighbor(size, blank).unwrap();
                    }
                    let full = fsm.row(state)[fsm.symbol(d, k)];
                    if last.is_some() {
                        assert_eq!(fsm.narrow_row(state)[fsm.narrow_symbol(d, k)], full);
                        checked += 1;
                    }
                    if u32::from(full) == PRUNE {
                        break;
                    }
                    state = u32::from(full);
                    last = Some(d);
                }
            }
            assert!(checked > 50_000, "{checked}");
        }
    }
}
