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

/// An allowed string kept as a possible twin of later ones, in a list per fingerprint.
struct Twin {
    moves: Moves,
    next: u32,
}

/// The minimal forbidden strings of up to `max_len` moves, by length then direction order.
pub(crate) fn forbidden_strings(max_len: usize, fit: Fit) -> Vec<Moves> {
    assert!(max_len <= MAX_LEN, "strings are packed two bits a move into a u32");
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
        let suffix_mask = ((1u64 << (2 * (len - 1))) - 1) as u32;
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
