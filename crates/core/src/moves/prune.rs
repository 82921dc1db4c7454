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
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The result of [`Fsm::step`] when the move completes a forbidden string.
pub(crate) const PRUNE: u32 = u32::MAX;

/// Longest forbidden string [`Fsm::get`] looks for. Longer finds more strings, slowly: see
/// ARCHITECTURE.md for the measurements.
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
    #[inline(always)]
    pub(crate) fn step(&self, state: u32, d: usize) -> u32 {
        self.next[state as usize][d & 3]
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

/// The effect of `s` (the moved cells with what they hold now, sorted) and its extent.
fn simulate(s: Moves, fit: Fit) -> (Vec<u32>, Extent) {
    // Visited cells and their contents (the cell each one's content started on).
    let mut cells = [0i32; 16];
    let mut held = [0i32; 16];
    cells[0] = ORIGIN;
    held[0] = ORIGIN;
    let (mut count, mut blank) = (1, 0);
    for i in 0..s.len as usize {
        let to = cells[blank] + STEP[s.dir(i)];
        let j = match cells[..count].iter().position(|&c| c == to) {
            Some(j) => j,
            None => {
                cells[count] = to;
                held[count] = to;
                count += 1;
                count - 1
            }
        };
        held.swap(blank, j);
        blank = j;
    }
    let mut effect: Vec<u32> = (0..count)
        .filter(|&i| held[i] != cells[i])
        .map(|i| (cells[i] as u32) << 16 | held[i] as u32)
        .collect();
    effect.sort_unstable();
    let extent = match fit {
        Fit::Box => {
            let mut b = [i32::MAX, i32::MIN, i32::MAX, i32::MIN];
            for &c in &cells[..count] {
                let (r, col) = (c / SIDE, c % SIDE);
                b = [b[0].min(r), b[1].max(r), b[2].min(col), b[3].max(col)];
            }
            Extent::Box(b)
        }
        Fit::Cells => {
            let mut bits = [0u64; 16];
            for &c in &cells[..count] {
                bits[c as usize / 64] |= 1 << (c % 64);
            }
            Extent::Cells(bits)
        }
    };
    (effect, extent)
}

/// The minimal forbidden strings of up to `max_len` moves, by length then direction order.
pub(crate) fn forbidden_strings(max_len: usize, fit: Fit) -> Vec<Moves> {
    // For each effect, the extents of the allowed strings with it seen so far.
    let mut seen: HashMap<Vec<u32>, Vec<Extent>> = HashMap::new();
    let (effect, extent) = simulate(Moves { code: 0, len: 0 }, fit);
    seen.insert(effect, vec![extent]);
    // The allowed strings of the previous length, in order.
    let mut allowed: Vec<u32> = vec![0];
    let mut forbidden = Vec::new();
    for len in 1..=max_len {
        let suffix_mask = (1u64 << (2 * (len - 1))) as u32 - 1;
        let mut longer = Vec::new();
        for &prefix in &allowed {
            for d in 0..4 {
                let code = prefix << 2 | d;
                // The prefix is allowed; so must the suffix be, or a substring is forbidden.
                if allowed.binary_search(&(code & suffix_mask)).is_err() {
                    continue;
                }
                let s = Moves { code, len: len as u8 };
                let (effect, extent) = simulate(s, fit);
                let twins = seen.entry(effect).or_default();
                if twins.iter().any(|t| t.inside(&extent)) {
                    forbidden.push(s);
                } else {
                    twins.push(extent);
                    longer.push(code);
                }
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
