//! The enumeration of forbidden strings (see the parent module for what they are). It runs in
//! tests only: `forbidden_table_is_current` keeps the generated `forbidden.trie` in step with it,
//! and the other tests build machines of other lengths and fits to compare.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::{MAX_LEN, Moves};

/// How a twin must fit inside the string it replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fit {
    /// The twin's visited cells are a subset of the string's (Taylor & Korf).
    Cells,
    /// The twin's bounding box is inside the string's (enough on rectangular boards).
    Box,
}

/// Side of the grid strings are simulated on; the blank starts in the middle, so strings of up
/// to `SIDE / 2 - 1` moves stay inside.
const SIDE: i32 = 64;
/// Most cells a string visits: the blank's start and one a move.
const VISITED: usize = MAX_LEN + 1;
const ORIGIN: i32 = SIDE / 2 * SIDE + SIDE / 2;
const STEP: [i32; 4] = [-SIDE, -1, 1, SIDE];

/// Where a string's twin must fit: a bounding box or a set of cells (a 64x64 bitset).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[expect(clippy::large_enum_variant, reason = "made and compared on the stack, never stored")]
enum Extent {
    Box([i32; 4]),
    Cells([u64; 64]),
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
    cells: [i32; VISITED],
    held: [i32; VISITED],
    count: usize,
}

impl Sim {
    fn run(s: Moves) -> Sim {
        let mut sim = Sim { cells: [0; VISITED], held: [0; VISITED], count: 1 };
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
    fn effect(&self) -> ([u32; VISITED], usize) {
        let mut out = [0; VISITED];
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
                let mut bits = [0u64; 64];
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

/// An allowed string kept as a possible twin of longer ones, in a list per fingerprint.
struct Twin {
    moves: Moves,
    next: u32,
}

/// The allowed strings kept as possible twins of longer strings: lists by fingerprint. Only
/// fingerprints are stored; a candidate twin is played again to compare effects exactly.
struct Twins {
    heads: HashMap<u64, u32, BuildHasherDefault<Identity>>,
    list: Vec<Twin>,
}

impl Twins {
    const END: u32 = u32::MAX;

    fn insert(&mut self, moves: Moves, fingerprint: u64) {
        let head = self.heads.get(&fingerprint).copied().unwrap_or(Self::END);
        self.heads.insert(fingerprint, self.list.len() as u32);
        self.list.push(Twin { moves, next: head });
    }

    /// Whether a kept string has `sim`'s effect and an extent inside its.
    fn has_twin(&self, sim: &Sim, fingerprint: u64, fit: Fit) -> bool {
        let mut t = self.heads.get(&fingerprint).copied().unwrap_or(Self::END);
        if t == Self::END {
            return false;
        }
        let (effect, extent) = (sim.effect(), sim.extent(fit));
        while t != Self::END {
            let other = Sim::run(self.list[t as usize].moves);
            if other.effect() == effect && other.extent(fit).inside(&extent) {
                return true;
            }
            t = self.list[t as usize].next;
        }
        false
    }
}

/// One thread's share of a length's candidates: those without a shorter twin as (fingerprint,
/// code), and the codes of those with one.
type Part = (Vec<(u64, u64)>, Vec<u64>);

/// Whether the string `t` has `s`'s effect and an extent inside `s`'s.
fn is_twin(t: Moves, s: &Sim, fit: Fit) -> bool {
    let other = Sim::run(t);
    other.effect() == s.effect() && other.extent(fit).inside(&s.extent(fit))
}

/// The minimal forbidden strings of up to `max_len` moves, by length then direction order.
///
/// Length by length: the candidates are the strings whose prefix and suffix one move shorter
/// are allowed (else a substring is forbidden, and the string is not minimal). A move is a
/// transposition of the blank with a tile, so twins have lengths of the same parity: a
/// candidate is forbidden by a shorter twin (two or more moves shorter, kept by fingerprint in
/// [`Twins`]) or by an earlier twin of its own length. For the latter, the candidates without a
/// shorter twin are sorted by fingerprint and each is compared with the earlier ones of its
/// fingerprint. (Comparing with every earlier candidate, not only the allowed ones, forbids the
/// same strings: a forbidden twin has an allowed twin earlier still, whose extent is inside its
/// own.) Only the lengths that can be twins of longer strings are kept in [`Twins`], and the
/// sort runs in passes by fingerprint: strings of up to 18 moves take about 9 minutes and 8 GB on
/// 2 cores (445 million candidates of 18 moves).
pub(crate) fn forbidden_strings(max_len: usize, fit: Fit) -> Vec<Moves> {
    assert!(max_len <= MAX_LEN, "the grid holds strings of up to MAX_LEN moves");
    let mut twins = Twins { heads: HashMap::default(), list: Vec::new() };
    let empty = Moves { code: 0, len: 0 };
    twins.insert(empty, Sim::run(empty).fingerprint());
    // The allowed strings of the previous length, in order.
    let mut allowed: Vec<u64> = vec![0];
    let mut forbidden = Vec::new();
    for len in 1..=max_len {
        let suffix_mask = (1u64 << (2 * (len - 1))) - 1;
        // Candidates without a shorter twin, as (fingerprint, code), made in `passes` rounds by
        // the fingerprint's top bits to bound their memory (16 bytes each).
        let passes = (allowed.len() * 3 / 100_000_000).max(1).next_power_of_two() as u64;
        let mut banned: Vec<u64> = Vec::new();
        for pass in 0..passes {
            let in_pass = |fp: u64| passes == 1 || fp >> (64 - passes.trailing_zeros()) == pass;
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
            let chunk = allowed.len().div_ceil(threads);
            let parts: Vec<Part> = std::thread::scope(|scope| {
                let handles: Vec<_> = allowed
                    .chunks(chunk.max(1))
                    .map(|prefixes| {
                        let (allowed, twins) = (&allowed, &twins);
                        scope.spawn(move || {
                            let (mut keep, mut shorter) = (Vec::new(), Vec::new());
                            for &prefix in prefixes {
                                for d in 0..4 {
                                    let code = prefix << 2 | d;
                                    if allowed.binary_search(&(code & suffix_mask)).is_err() {
                                        continue;
                                    }
                                    let sim = Sim::run(Moves { code, len: len as u8 });
                                    let fp = sim.fingerprint();
                                    if !in_pass(fp) {
                                        continue;
                                    }
                                    if twins.has_twin(&sim, fp, fit) {
                                        shorter.push(code);
                                    } else {
                                        keep.push((fp, code));
                                    }
                                }
                            }
                            (keep, shorter)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a generator thread panicked"))
                    .collect()
            });
            let mut keep = Vec::new();
            for (k, s) in parts {
                keep.extend(k);
                banned.extend(s);
            }
            keep.sort_unstable();
            for run in keep.chunk_by(|a, b| a.0 == b.0).filter(|r| r.len() > 1) {
                for (i, &(_, code)) in run.iter().enumerate().skip(1) {
                    let sim = Sim::run(Moves { code, len: len as u8 });
                    let l = len as u8;
                    if run[..i].iter().any(|&(_, t)| is_twin(Moves { code: t, len: l }, &sim, fit))
                    {
                        banned.push(code);
                    }
                }
            }
        }
        banned.sort_unstable();
        forbidden.extend(banned.iter().map(|&code| Moves { code, len: len as u8 }));
        if len == max_len {
            break;
        }
        // The next length's candidates extend this length's allowed strings.
        let mut longer = Vec::with_capacity(allowed.len() * 3);
        for &prefix in &allowed {
            for d in 0..4 {
                let code = prefix << 2 | d;
                if allowed.binary_search(&(code & suffix_mask)).is_ok()
                    && banned.binary_search(&code).is_err()
                {
                    longer.push(code);
                }
            }
        }
        if len + 2 <= max_len {
            for &code in &longer {
                let m = Moves { code, len: len as u8 };
                twins.insert(m, Sim::run(m).fingerprint());
            }
        }
        allowed = longer;
    }
    forbidden
}
