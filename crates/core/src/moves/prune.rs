//! Duplicate-path pruning with a finite-state machine (Taylor & Korf 1993, "Pruning duplicate
//! nodes in depth-first search").
//!
//! **What is forbidden.** Strings of blank moves are enumerated on an unbounded grid, relative to
//! the blank's start, shortest first and, within a length, in direction order (`U < L < R < D`).
//! A string's *effect* is the permutation it applies to the cells (which includes where the
//! blank ends); its *extent* is the bounding box of the cells it visits. A string `S` is
//! *forbidden* if an earlier string `T` (shorter, or as long and lexicographically smaller) has
//! the same effect and an extent inside `S`'s. Boards are rectangles, so a string stays on the
//! board exactly when its bounding box does: wherever `S` is legal, `T` is legal too and leads
//! to the same position. (Taylor and Korf compare the sets of visited cells; comparing bounding
//! boxes is also sound on rectangles and forbids more strings. [`Fsm::build`] can do either.)
//! Only the *minimal* forbidden strings (no forbidden proper substring) are kept. `d, d^3` (an
//! undo) is forbidden by the empty string, so the machine subsumes the no-undo rule.
//!
//! **The machine.** An Aho–Corasick automaton over the four directions recognises the moment
//! the moves so far end with a forbidden string: [`Fsm::step`] gives the next state or
//! [`PRUNE`]. It is the same for every board size, built once ([`Fsm::get`]) and shared.
//!
//! **Soundness.** Order paths by length, then lexicographically; this order is well-founded.
//! Replacing a forbidden substring `S` of a legal path by its twin `T` gives a path that is
//! legal (`T`'s extent lies inside `S`'s, and the rest of the path visits the same cells since
//! `T` ends where `S` does with the same tiles moved), no longer, earlier in the order, and
//! ending at the same position. So the least path to any position (among those of at most a
//! given length) contains no forbidden substring, and the automaton never prunes it nor any of
//! its prefixes. In IDA* with an admissible heuristic every node on such a path to the goal of
//! optimal length `C*` has `g + h <= C*` (BPMX only raises values to other admissible bounds),
//! so the iteration with bound `C*` still finds an optimal solution; pruning only removes paths
//! that have such a twin.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The result of [`Fsm::step`] when the move completes a forbidden string.
pub(crate) const PRUNE: u32 = u32::MAX;

/// Longest forbidden string [`Fsm::get`] looks for. Longer strings prune more but take longer to
/// find, and every process builds the machine once. Measured (2 busy cores; nodes are IDA*'s on
/// Korf's 100 with the 6-6-3 databases, 106.7 M without this pruning):
///
/// | L  | strings | states | build   | nodes  |
/// |----|---------|--------|---------|--------|
/// | 10 | 358     | 1 384  | 0.09 s  | 68.6 M |
/// | 12 | 2 667   | 9 732  | 0.45 s  | 62.0 M |
/// | 13 | 4 437   | 16 736 | 1.6 s   |        |
/// | 14 | 19 625  | 70 051 | 6.6 s   | 58.5 M |
///
/// 10 keeps the start-up cost of a one-position solve small.
pub(crate) const MAX_LEN: usize = 10;

/// How a twin must fit inside the string it replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fit {
    /// The twin's visited cells are a subset of the string's (Taylor & Korf).
    #[cfg_attr(not(test), expect(dead_code, reason = "used by the tests and measurements"))]
    Cells,
    /// The twin's bounding box is inside the string's (enough on rectangular boards).
    Box,
}

/// A deterministic automaton over the four directions that rejects (with [`PRUNE`]) every move
/// completing a forbidden string.
#[derive(Debug)]
pub(crate) struct Fsm {
    next: Vec<[u32; 4]>,
    /// Number of minimal forbidden strings the machine recognises.
    forbidden: usize,
    /// Time to enumerate the strings and build the automaton.
    build_time: Duration,
}

impl Fsm {
    /// The state before any move.
    pub(crate) const START: u32 = 0;

    /// The shared machine for strings of up to [`MAX_LEN`] moves, built on first use.
    pub(crate) fn get() -> &'static Fsm {
        static FSM: OnceLock<Fsm> = OnceLock::new();
        FSM.get_or_init(|| Fsm::build(MAX_LEN, Fit::Box))
    }

    /// The machine that only forbids undoing the last move (the search without this pruning).
    #[cfg_attr(not(test), expect(dead_code, reason = "used by the tests and measurements"))]
    pub(crate) fn no_undo() -> &'static Fsm {
        static FSM: OnceLock<Fsm> = OnceLock::new();
        FSM.get_or_init(|| Fsm::build(2, Fit::Box))
    }

    /// The state after move `d` from `state`, or [`PRUNE`].
    #[cfg(test)]
    pub(crate) fn step(&self, state: u32, d: usize) -> u32 {
        self.next[state as usize][d & 3]
    }

    /// The states after each move from `state` ([`PRUNE`] for a forbidden move).
    #[inline(always)]
    pub(crate) fn row(&self, state: u32) -> [u32; 4] {
        self.next[state as usize]
    }

    /// Number of states.
    #[cfg_attr(not(test), expect(dead_code, reason = "used by the tests and measurements"))]
    pub(crate) fn states(&self) -> usize {
        self.next.len()
    }

    /// Number of minimal forbidden strings.
    #[cfg_attr(not(test), expect(dead_code, reason = "used by the tests and measurements"))]
    pub(crate) fn forbidden(&self) -> usize {
        self.forbidden
    }

    /// How long [`Fsm::build`] took.
    #[cfg_attr(not(test), expect(dead_code, reason = "used by the tests and measurements"))]
    pub(crate) fn build_time(&self) -> Duration {
        self.build_time
    }

    /// Enumerates the minimal forbidden strings of up to `max_len` (at most 15) moves and builds
    /// their automaton.
    pub(crate) fn build(max_len: usize, fit: Fit) -> Fsm {
        assert!(max_len <= 15, "strings are packed two bits a move into a u32");
        let t0 = Instant::now();
        let patterns = forbidden_strings(max_len, fit);
        let next = aho_corasick(&patterns);
        Fsm { next, forbidden: patterns.len(), build_time: t0.elapsed() }
    }
}

/// A string of moves: the first move in the highest bits, so for one length numeric order is
/// direction order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Moves {
    pub(crate) code: u32,
    pub(crate) len: u8,
}

impl Moves {
    pub(crate) fn dir(self, i: usize) -> usize {
        (self.code >> (2 * (self.len as usize - 1 - i))) as usize & 3
    }
}

/// Side of the grid strings are simulated on; the blank starts in the middle.
const SIDE: i32 = 32;
const ORIGIN: i32 = SIDE / 2 * SIDE + SIDE / 2;
const STEP: [i32; 4] = [-SIDE, -1, 1, SIDE];

/// Where a string's twin must fit: a bounding box or a set of cells (a 32x32 bitset).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Extent {
    Box([i32; 4]),
    Cells([u64; 16]),
}

impl Extent {
    fn inside(&self, other: &Extent) -> bool {
        match (self, other) {
            (Extent::Box(a), Extent::Box(b)) => {
                a[0] >= b[0] && a[1] <= b[1] && a[2] >= b[2] && a[3] <= b[3]
            }
            (Extent::Cells(a), Extent::Cells(b)) => a.iter().zip(b).all(|(x, y)| x & !y == 0),
            _ => false,
        }
    }
}

/// A string played on the unbounded grid: the cells it visited and what each holds now (the
/// cell its content started on).
struct Sim {
    cells: [i32; 16],
    held: [i32; 16],
    count: usize,
}

impl Sim {
    fn run(s: Moves) -> Sim {
        let mut sim = Sim { cells: [0; 16], held: [0; 16], count: 1 };
        sim.cells[0] = ORIGIN;
        sim.held[0] = ORIGIN;
        let mut blank = 0;
        for i in 0..s.len as usize {
            let to = sim.cells[blank] + STEP[s.dir(i)];
            let j = match sim.cells[..sim.count].iter().position(|&c| c == to) {
                Some(j) => j,
                None => {
                    sim.cells[sim.count] = to;
                    sim.held[sim.count] = to;
                    sim.count += 1;
                    sim.count - 1
                }
            };
            sim.held.swap(blank, j);
            blank = j;
        }
        sim
    }

    /// The moved cells, each with the cell its content came from, packed in a `u32`.
    fn moved(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.count)
            .filter(|&i| self.held[i] != self.cells[i])
            .map(|i| (self.cells[i] as u32) << 16 | self.held[i] as u32)
    }

    /// A hash of the effect that does not depend on the order cells were visited in.
    fn fingerprint(&self) -> u64 {
        self.moved().fold(0u64, |h, m| h.wrapping_add(mix(m as u64)))
    }

    /// The effect exactly: [`Sim::moved`] sorted.
    fn effect(&self) -> ([u32; 16], usize) {
        let mut out = [0; 16];
        let mut n = 0;
        for m in self.moved() {
            out[n] = m;
            n += 1;
        }
        out[..n].sort_unstable();
        (out, n)
    }

    fn extent(&self, fit: Fit) -> Extent {
        let cells = &self.cells[..self.count];
        match fit {
            Fit::Box => {
                let mut b = [i32::MAX, i32::MIN, i32::MAX, i32::MIN];
                for &c in cells {
                    let (r, col) = (c / SIDE, c % SIDE);
                    b = [b[0].min(r), b[1].max(r), b[2].min(col), b[3].max(col)];
                }
                Extent::Box(b)
            }
            Fit::Cells => {
                let mut bits = [0u64; 16];
                for &c in cells {
                    bits[c as usize / 64] |= 1 << (c % 64);
                }
                Extent::Cells(bits)
            }
        }
    }
}

/// splitmix64's finaliser.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Hashes the already mixed fingerprints by taking them as they are.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix(self.0 ^ b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// An allowed string kept as a possible twin of later ones, in a list per fingerprint.
struct Twin {
    moves: Moves,
    next: u32,
}

/// The minimal forbidden strings of up to `max_len` moves, by length then direction order.
pub(crate) fn forbidden_strings(max_len: usize, fit: Fit) -> Vec<Moves> {
    const END: u32 = u32::MAX;
    // The allowed strings seen so far, as lists by fingerprint. Only fingerprints are stored;
    // a candidate twin is played again to compare effects exactly.
    let mut heads: HashMap<u64, u32, BuildHasherDefault<Identity>> = HashMap::default();
    let mut twins = vec![Twin { moves: Moves { code: 0, len: 0 }, next: END }];
    heads.insert(Sim::run(twins[0].moves).fingerprint(), 0);
    // The allowed strings of the previous length, in order.
    let mut allowed: Vec<u32> = vec![0];
    let mut forbidden = Vec::new();
    for len in 1..=max_len {
        let suffix_mask = (1u64 << (2 * (len - 1))) as u32 - 1;
        let mut longer = Vec::with_capacity(allowed.len() * 3);
        for &prefix in &allowed {
            for d in 0..4 {
                let code = prefix << 2 | d;
                // The prefix is allowed; so must the suffix be, or a substring is forbidden.
                if allowed.binary_search(&(code & suffix_mask)).is_err() {
                    continue;
                }
                let s = Moves { code, len: len as u8 };
                let sim = Sim::run(s);
                let fingerprint = sim.fingerprint();
                let head = heads.get(&fingerprint).copied().unwrap_or(END);
                let mut t = head;
                let mut twin = false;
                if t != END {
                    let (effect, extent) = (sim.effect(), sim.extent(fit));
                    while t != END && !twin {
                        let other = Sim::run(twins[t as usize].moves);
                        twin = other.effect() == effect && other.extent(fit).inside(&extent);
                        t = twins[t as usize].next;
                    }
                }
                if twin {
                    forbidden.push(s);
                    continue;
                }
                longer.push(code);
                heads.insert(fingerprint, twins.len() as u32);
                twins.push(Twin { moves: s, next: head });
            }
        }
        allowed = longer;
    }
    forbidden
}

/// The Aho–Corasick automaton of `patterns` as a complete transition table, with the pattern
/// ends replaced by [`PRUNE`] and state 0 the start.
fn aho_corasick(patterns: &[Moves]) -> Vec<[u32; 4]> {
    const NO: u32 = u32::MAX;
    let mut goto: Vec<[u32; 4]> = vec![[NO; 4]];
    let mut end = vec![false];
    for p in patterns {
        let mut s = 0;
        for i in 0..p.len as usize {
            let d = p.dir(i);
            if goto[s][d] == NO {
                goto[s][d] = goto.len() as u32;
                goto.push([NO; 4]);
                end.push(false);
            }
            s = goto[s][d] as usize;
        }
        end[s] = true;
    }
    // Breadth first: failure links, then missing edges follow them.
    let mut fail = vec![0u32; goto.len()];
    let mut order = Vec::with_capacity(goto.len());
    let mut queue = VecDeque::from([0usize]);
    while let Some(s) = queue.pop_front() {
        order.push(s);
        // Where the longest proper suffix goes (complete: it is shallower, so done already).
        let via_fail = if s == 0 { [0; 4] } else { goto[fail[s] as usize] };
        let mut row = goto[s];
        for (slot, via) in row.iter_mut().zip(via_fail) {
            if *slot == NO {
                *slot = via;
            } else {
                let t = *slot as usize;
                fail[t] = via;
                end[t] |= end[via as usize];
                queue.push_back(t);
            }
        }
        goto[s] = row;
    }
    // Number the states that are not pattern ends, in breadth-first order (the start first).
    let mut number = vec![NO; goto.len()];
    let mut kept = 0;
    for &s in &order {
        if !end[s] {
            number[s] = kept;
            kept += 1;
        }
    }
    order
        .iter()
        .filter(|&&s| !end[s])
        .map(|&s| goto[s].map(|t| if end[t as usize] { PRUNE } else { number[t as usize] }))
        .collect()
}

#[cfg(test)]
mod tests;
