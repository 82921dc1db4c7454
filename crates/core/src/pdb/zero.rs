//! The index of zero-aware tables: an entry per (pattern placement, blank region).
//!
//! An ordinary table keeps, per placement of the pattern tiles, the least over the blank's
//! positions. A *zero-aware* table (Clausecker & Reinefeld 2019) keeps one entry per region the
//! blank can be in: the cells no pattern tile holds fall into connected regions, the blank moves
//! freely inside its own, and a pattern tile moves only into the blank's region. Entries are then
//! larger (a region cut off from the goal's blank cell costs moves to leave), still admissible,
//! and still additive over disjoint patterns.
//!
//! The index has three parts, so that its size is the number of (map, region) pairs times `k!`
//! instead of a slot per blank cell:
//!
//! - the *map*, the set of cells the `k` pattern tiles hold, ranked in colexicographic order
//!   (the k-subsets of the cells in increasing order as bit masks);
//! - the *region* of the blank among the map's regions, numbered by their lowest cell;
//! - the *order*, which pattern tile holds which of the map's cells: tile `i` holds the `p_i`-th
//!   lowest, and the `p_i` are ranked as a permutation ([`rank_cells`] on `k` cells).
//!
//! `index = block * k! + order`. Most maps leave the free cells in one region, so the blocks
//! are laid out for them: region 0 of map `m` is block `m`, and the other regions of the maps
//! with several follow all the maps, in map order (`maps + beyond[m] + region - 1`, where
//! `beyond[m]` counts the regions past the first of the maps ranked before). Finding a block
//! then needs no table for a map with one region, which [`ZeroIndex`] tells from a bit per map;
//! for the others, a word per map gives each cell's region, two bits a cell (measured: a record
//! for every map, 1.4 to 2.8 MB in all, read for every lookup, waited on the cache for a quarter
//! to a third of the search's time; a flood fill instead took 400 instructions a node).
//!
//! # Invariants
//!
//! - Regions are numbered by their lowest cell, so the numbering depends only on the map.
//! - `index` is a bijection from the (placement, region) pairs onto `0..entries()`.
//! - Region 0 of map `m` is block `m`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::rank::{rank_cells, unrank};
use crate::board::Size;

/// `cell_regions` of a map with more regions than two bits number.
const MANY: u64 = 1 << 63;

/// Boards and patterns whose per-map table would exceed this many bytes are refused (the 5x5
/// with 7 tiles needs 12 MB).
const MAX_TABLE_BYTES: u64 = 1 << 28;

/// The zero-aware index of one board size and pattern size.
#[derive(Clone, Debug)]
pub struct ZeroIndex {
    n: usize,
    k: usize,
    width: usize,
    /// `binom[c * (k + 1) + j]` = C(c, j).
    binom: Vec<u32>,
    /// `beyond[m]`: the regions past the first of the maps ranked below `m`; one more entry
    /// holds the total.
    beyond: Vec<u32>,
    /// Bit `m % 64` of word `m / 64`: map `m` leaves more than one region.
    several: Vec<u64>,
    /// `ranked[w]`: the maps with several regions in the words of `several` before `w`, so that
    /// such a map's rank among them is this plus a popcount.
    ranked: Vec<u32>,
    /// Per map with several regions, in map order: two bits per cell, its region, or
    /// [`MANY`] for a map with more than four regions (then `region` tells).
    cell_regions: Vec<u64>,
    /// Per map with several regions: its `beyond`.
    several_beyond: Vec<u32>,
    /// `region[m * n + c]`: the region of free cell `c` in map `m` (`u8::MAX` on the map's own
    /// cells).
    region: Vec<u8>,
    /// k!
    orders: u32,
    /// The map rank in three table reads (boards of at most 32 cells, tables of a few kB): the
    /// mask's bits in three chunks of `chunk` bits, `ranks[((c << chunk) + bits) * (k + 1) +
    /// before]` ranking chunk `c`'s `bits` when `before` set bits come below them.
    ranks: Vec<u32>,
    chunk: u32,
    /// Whether the chunks are 9 bits and the patterns 6 tiles (the 5x5 catalogue's), which
    /// [`ZeroIndex::map_rank_fixed`] ranks with constants.
    fixed_9_6: bool,
}

/// Why a zero-aware index cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a zero-aware table of {k} tiles on {n} cells is too large to index")]
pub struct ZeroIndexTooLarge {
    /// Cells.
    pub n: usize,
    /// Pattern tiles.
    pub k: usize,
}

impl ZeroIndex {
    /// The index for patterns of `k` tiles on boards of `size`.
    pub fn new(size: Size, k: usize) -> Result<ZeroIndex, ZeroIndexTooLarge> {
        let n = size.cells();
        let too_large = ZeroIndexTooLarge { n, k };
        if k == 0 || k >= n || k > 12 {
            return Err(too_large);
        }
        let mut binom = vec![0u32; (n + 1) * (k + 1)];
        for c in 0..=n {
            binom[c * (k + 1)] = 1;
            for j in 1..=k.min(c) {
                let a = u64::from(binom[(c - 1) * (k + 1) + j - 1]);
                let b = if j < c { u64::from(binom[(c - 1) * (k + 1) + j]) } else { 0 };
                binom[c * (k + 1) + j] = u32::try_from(a + b).map_err(|_| too_large.clone())?;
            }
        }
        let maps = u64::from(binom[n * (k + 1) + k]);
        if maps * n as u64 > MAX_TABLE_BYTES {
            return Err(too_large);
        }
        let orders = (1..=k as u32).product::<u32>();
        let width = size.width();
        let board = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut not_first_col = 0u64;
        let mut not_last_col = 0u64;
        for c in 0..n {
            if c % width != 0 {
                not_first_col |= 1 << c;
            }
            if c % width != width - 1 {
                not_last_col |= 1 << c;
            }
        }
        let flood = |seed: u64, free: u64| {
            let mut r = seed;
            loop {
                let grown = (r
                    | (r << 1 & not_first_col)
                    | (r >> 1 & not_last_col)
                    | r << width
                    | r >> width)
                    & free;
                if grown == r {
                    return r;
                }
                r = grown;
            }
        };
        let mut beyond = Vec::with_capacity(maps as usize + 1);
        let mut several = vec![0u64; (maps as usize).div_ceil(64)];
        let mut region = vec![u8::MAX; maps as usize * n];
        let mut extra = 0u64;
        // The k-subsets in increasing order (Gosper's hack): colexicographic rank order.
        let mut mask = (1u64 << k) - 1;
        for m in 0..maps as usize {
            beyond.push(u32::try_from(extra).map_err(|_| too_large.clone())?);
            let mut free = board & !mask;
            let mut id = 0u8;
            while free != 0 {
                let cells = flood(free & free.wrapping_neg(), free);
                free &= !cells;
                let mut c = cells;
                while c != 0 {
                    region[m * n + c.trailing_zeros() as usize] = id;
                    c &= c - 1;
                }
                id += 1;
            }
            if id > 1 {
                several[m / 64] |= 1 << (m % 64);
            }
            extra += u64::from(id) - 1;
            let low = mask & mask.wrapping_neg();
            let ripple = mask + low;
            mask = ripple | (((mask ^ ripple) >> 2) / low);
        }
        if (maps + extra) * u64::from(orders) > u64::from(u32::MAX) {
            return Err(too_large);
        }
        beyond.push(extra as u32);
        let mut z = ZeroIndex {
            n,
            k,
            width,
            binom,
            beyond,
            several,
            ranked: Vec::new(),
            cell_regions: Vec::new(),
            several_beyond: Vec::new(),
            region,
            orders,
            ranks: Vec::new(),
            chunk: 0,
            fixed_9_6: false,
        };
        if n <= 32 {
            z.rank_tables();
            z.several_tables();
        }
        Ok(z)
    }

    /// Builds the per-map words of the maps with several regions.
    fn several_tables(&mut self) {
        let n = self.n;
        let mut seen = 0u32;
        for (w, &word) in self.several.iter().enumerate() {
            self.ranked.push(seen);
            seen += word.count_ones();
            let mut bits = word;
            while bits != 0 {
                let m = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let mut cells = 0u64;
                for c in 0..n {
                    match self.region[m * n + c] {
                        u8::MAX => {}
                        r if r < 4 => cells |= u64::from(r) << (2 * c),
                        _ => cells = MANY,
                    }
                    if cells == MANY {
                        break;
                    }
                }
                self.cell_regions.push(cells);
                self.several_beyond.push(self.beyond[m]);
            }
        }
    }

    /// Builds the chunked rank tables.
    fn rank_tables(&mut self) {
        let (n, k) = (self.n, self.k);
        let chunk = n.div_ceil(3) as u32;
        let rank_of = |mask: u64, first: usize| {
            // Colex contributions of `mask`'s bits, the lowest being the `first`-th set bit.
            let mut rank = 0u32;
            let mut m = mask;
            let mut j = first + 1;
            while m != 0 && j <= k {
                let c = m.trailing_zeros() as usize;
                rank += self.binom[c * (k + 1) + j];
                j += 1;
                m &= m - 1;
            }
            rank
        };
        let mut ranks = vec![0u32; (3usize << chunk) * (k + 1)];
        for c in 0..3u32 {
            for bits in 0..1u64 << chunk {
                let mask = bits << (c * chunk);
                if mask >> n != 0 {
                    continue;
                }
                for before in 0..=k {
                    ranks[((c as usize) << chunk | bits as usize) * (k + 1) + before] =
                        rank_of(mask, before);
                }
            }
        }
        self.ranks = ranks;
        self.chunk = chunk;
        self.fixed_9_6 = chunk == 9 && k == 6;
    }

    /// The block of the map `mask` with the blank on `blank`.
    #[inline(always)]
    pub fn block(&self, mask: u64, blank: usize) -> u32 {
        // The 5x5's 6-tile patterns (its default catalogue) rank with constant shifts and
        // strides.
        let map = match self.fixed_9_6 {
            true => self.map_rank_fixed::<9, 7>(mask),
            false => self.map_rank(mask),
        } as usize;
        let word = self.several[map / 64];
        if word >> (map % 64) & 1 == 0 {
            return map as u32;
        }
        if self.cell_regions.is_empty() {
            return self.block_of(map as u32, self.region(map as u32, blank));
        }
        let i =
            self.ranked[map / 64] as usize + (word & ((1 << (map % 64)) - 1)).count_ones() as usize;
        let cells = self.cell_regions[i];
        let region = match cells {
            MANY => self.region(map as u32, blank),
            _ => (cells >> (2 * blank) & 3) as u32,
        };
        match region {
            0 => map as u32,
            r => self.maps() as u32 + self.several_beyond[i] + r - 1,
        }
    }

    /// The number of maps, `C(n, k)`.
    #[inline(always)]
    pub fn maps(&self) -> usize {
        self.beyond.len() - 1
    }

    /// The number of regions of the map ranked `map`.
    pub fn regions(&self, map: u32) -> u32 {
        self.beyond[map as usize + 1] - self.beyond[map as usize] + 1
    }

    /// `k!`: entries per block.
    #[inline(always)]
    pub fn orders(&self) -> u32 {
        self.orders
    }

    /// The index for `k` tiles on `size`, built once per process and shared (tables of one
    /// catalogue share it, and a header's entry count needs it).
    pub fn shared(size: Size, k: usize) -> Result<Arc<ZeroIndex>, ZeroIndexTooLarge> {
        type Cache = Mutex<HashMap<(usize, usize, usize), Arc<ZeroIndex>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let key = (size.width(), size.height(), k);
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        if let Some(z) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(z);
        }
        let z = Arc::new(ZeroIndex::new(size, k)?);
        if let Ok(mut c) = cache.lock() {
            c.insert(key, z.clone());
        }
        Ok(z)
    }

    /// The number of entries: (map, region) pairs times `k!`.
    pub fn entries(&self) -> u64 {
        (self.maps() as u64 + u64::from(self.beyond[self.maps()])) * u64::from(self.orders)
    }

    /// Pattern tiles.
    pub fn tiles(&self) -> usize {
        self.k
    }

    /// The colexicographic rank of a map (`k` bits set below bit `n`).
    #[inline(always)]
    pub fn map_rank(&self, mask: u64) -> u32 {
        if self.chunk > 0 {
            let (c, k1) = (self.chunk, self.k + 1);
            let low = (1u64 << c) - 1;
            let (a, b, d) = (mask & low, mask >> c & low, mask >> (2 * c));
            let before_b = a.count_ones() as usize;
            let before_d = before_b + b.count_ones() as usize;
            return self.ranks[a as usize * k1]
                + self.ranks[((1 << c) + b as usize) * k1 + before_b]
                + self.ranks[((2 << c) + d as usize) * k1 + before_d];
        }
        let mut rank = 0;
        let mut m = mask;
        let mut j = 1;
        while m != 0 {
            let c = m.trailing_zeros() as usize;
            rank += self.binom[c * (self.k + 1) + j];
            j += 1;
            m &= m - 1;
        }
        rank
    }

    /// [`ZeroIndex::map_rank`] with the chunk width `C` and `K1` = k + 1 known at compile time
    /// (the caller checks that they are this index's).
    #[inline(always)]
    fn map_rank_fixed<const C: u32, const K1: usize>(&self, mask: u64) -> u32 {
        let low = (1u64 << C) - 1;
        let (a, b, d) = (mask & low, mask >> C & low, mask >> (2 * C) & low);
        let before_b = a.count_ones() as usize;
        let before_d = before_b + b.count_ones() as usize;
        let r = &self.ranks;
        r[a as usize * K1]
            + r[((1 << C) + b as usize) * K1 + before_b]
            + r[((2 << C) + d as usize) * K1 + before_d]
    }

    /// The rank of the order of the pattern tiles on `mask` (tile `i` on `cells[i]`).
    #[inline(always)]
    pub fn order_rank(&self, mask: u64, cells: impl IntoIterator<Item = u8>) -> u32 {
        rank_cells(self.k, cells.into_iter().map(|c| (mask & ((1u64 << c) - 1)).count_ones() as u8))
            as u32
    }

    /// The region of `blank` (a free cell) in the map ranked `map`.
    #[inline(always)]
    pub fn region(&self, map: u32, blank: usize) -> u32 {
        u32::from(self.region[map as usize * self.n + blank])
    }

    /// The entry index of the pattern tiles on `cells` (tile `i` on `cells[i]`) with the blank
    /// on `blank`.
    #[inline(always)]
    pub fn index(&self, cells: &[u8], blank: usize) -> u32 {
        let mask = cells.iter().fold(0u64, |m, &c| m | 1 << c);
        self.block(mask, blank) * self.orders + self.order_rank(mask, cells.iter().copied())
    }

    /// The block of region `region` of the map ranked `map`.
    #[inline(always)]
    pub fn block_of(&self, map: u32, region: u32) -> u32 {
        match region {
            0 => map,
            r => self.maps() as u32 + self.beyond[map as usize] + r - 1,
        }
    }

    /// The entries one move of a pattern tile away from entry `index` (a pattern tile next to
    /// the blank's region moves into it, the blank takes its cell), each once per move.
    pub fn neighbours(&self, index: u32, out: &mut Vec<u32>) {
        out.clear();
        let mut cells = [0u8; 16];
        let k = self.k;
        let blank = self.unindex(index, &mut cells[..k]);
        let mask = cells[..k].iter().fold(0u64, |m, &c| m | 1 << c);
        let board = if self.n == 64 { u64::MAX } else { (1u64 << self.n) - 1 };
        let free = board & !mask;
        let w = self.width;
        let neighbours_of = |c: usize| {
            let mut m = 0u64;
            if !c.is_multiple_of(w) {
                m |= 1 << (c - 1);
            }
            if c % w != w - 1 {
                m |= 1 << (c + 1);
            }
            if c >= w {
                m |= 1 << (c - w);
            }
            if c + w < self.n {
                m |= 1 << (c + w);
            }
            m
        };
        // The blank's region.
        let mut region = 1u64 << blank;
        loop {
            let mut grown = region;
            let mut r = region;
            while r != 0 {
                grown |= neighbours_of(r.trailing_zeros() as usize) & free;
                r &= r - 1;
            }
            if grown == region {
                break;
            }
            region = grown;
        }
        for i in 0..k {
            let c = cells[i];
            let mut into = neighbours_of(c as usize) & region;
            while into != 0 {
                let d = into.trailing_zeros() as u8;
                into &= into - 1;
                let mut moved = cells;
                moved[i] = d;
                out.push(self.index(&moved[..k], c as usize));
            }
        }
    }

    /// The number of the map's cells of one colour of the checkerboard: every move of a pattern
    /// tile changes it by one, so an entry's parity is this count's minus the goal map's.
    #[inline(always)]
    pub fn colour_count(&self, mask: u64) -> u32 {
        let w = self.width;
        let mut dark = 0u64;
        for c in 0..self.n {
            if (c / w + c % w) % 2 == 1 {
                dark |= 1 << c;
            }
        }
        (mask & dark).count_ones()
    }

    /// The exact value of entry `index` of a table stored as bit 1 of each value
    /// ([`super::EntryEncoding::ZeroAwareBits`]; `bit(i)` reads entry `i`'s bit), whose parity
    /// is `parity`: a walk to the goal, each step to the neighbour one move closer. Every
    /// move of a pattern tile changes the distance by exactly one (it flips the parity), so a
    /// neighbour's value is one more or one less, and its bit says which.
    pub fn descend(&self, bit: impl Fn(u32) -> u8, index: u32, parity: u32) -> u8 {
        // The value modulo 4, lifted so that it never goes below zero on the way.
        let mut value = 256 + ((u32::from(bit(index)) << 1) | (parity & 1));
        let mut cur = index;
        let mut steps = 0u8;
        let mut around = Vec::new();
        loop {
            self.neighbours(cur, &mut around);
            let lower = value - 1;
            match around.iter().find(|&&nb| u32::from(bit(nb)) == (lower >> 1 & 1)) {
                Some(&nb) => {
                    cur = nb;
                    value = lower;
                    steps = steps.saturating_add(1);
                }
                None => return steps,
            }
        }
    }

    /// The placement and a cell of the blank's region of entry `index`: the inverse of
    /// [`ZeroIndex::index`] up to where in its region the blank is. `cells` gets `k` cells.
    pub fn unindex(&self, index: u32, cells: &mut [u8]) -> usize {
        let block = index / self.orders;
        let order = index % self.orders;
        let (map, region) = match (block as usize).checked_sub(self.maps()) {
            None => (block as usize, 0),
            Some(past) => {
                // The map whose regions past the first hold block `past`.
                let map = self.beyond.partition_point(|&b| b as usize <= past) - 1;
                (map, (past - self.beyond[map] as usize) as u32 + 1)
            }
        };
        // Unrank the map: the highest cell c with C(c, j) <= the rest, for j = k down to 1.
        let mut rest = map as u32;
        let mut mask = 0u64;
        for j in (1..=self.k).rev() {
            let mut c = j - 1;
            while c + 1 < self.n && self.binom[(c + 1) * (self.k + 1) + j] <= rest {
                c += 1;
            }
            rest -= self.binom[c * (self.k + 1) + j];
            mask |= 1 << c;
        }
        let mut order_digits = [0u8; 16];
        unrank(self.k, u64::from(order), &mut order_digits[..self.k]);
        for (cell, &p) in cells.iter_mut().zip(&order_digits[..self.k]) {
            let mut m = mask;
            for _ in 0..p {
                m &= m - 1;
            }
            *cell = m.trailing_zeros() as u8;
        }
        (0..self.n).find(|&c| self.region[map * self.n + c] == region as u8).unwrap_or(0)
    }
}

/// Packs bit 1 of each value (a zero-aware table's entries) 8 to a byte, entry `i` in bit `i % 8`
/// of byte `i / 8`: the payload of [`super::EntryEncoding::ZeroAwareBits`].
pub fn pack_bit1(values: &[u8]) -> Vec<u8> {
    values
        .chunks(8)
        .map(|chunk| chunk.iter().enumerate().fold(0u8, |b, (i, &v)| b | (v >> 1 & 1) << i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_is_a_bijection_onto_the_entries() {
        for (size, k) in
            [(Size::S3X3, 3), (Size::S4X4, 2), (Size::S4X4, 3), (Size::new(4, 3).unwrap(), 4)]
        {
            let z = ZeroIndex::new(size, k).unwrap();
            let n = size.cells();
            let mut seen = vec![false; z.entries() as usize];
            let mut cells = vec![0u8; k];
            let mut placement = vec![0u8; k];
            for p in 0..super::super::rank::placements(n, k) {
                unrank(n, p, &mut placement);
                let used = placement.iter().fold(0u64, |m, &c| m | 1 << c);
                for blank in (0..n).filter(|&b| used >> b & 1 == 0) {
                    let i = z.index(&placement, blank);
                    seen[i as usize] = true;
                    let b = z.unindex(i, &mut cells);
                    assert_eq!(cells, placement);
                    // The blank found is in the same region.
                    assert_eq!(z.index(&cells, b), i);
                }
            }
            assert!(seen.iter().all(|&s| s), "{size} k={k}: every entry is some state's");
        }
    }

    #[test]
    fn the_fast_path_agrees_with_the_tables() {
        for (size, k) in [(Size::S4X4, 3), (Size::S5X5, 6), (Size::S5X5, 2)] {
            let z = ZeroIndex::new(size, k).unwrap();
            assert!(z.chunk > 0);
            let n = size.cells();
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            for _ in 0..20_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let mut mask = 0u64;
                let mut y = x;
                while mask.count_ones() < k as u32 {
                    mask |= 1 << (y % n as u64);
                    y = y.rotate_left(7) ^ 0x1234_5678;
                }
                let map = z.map_rank(mask);
                let free = (0..n).filter(|&c| mask >> c & 1 == 0).collect::<Vec<_>>();
                let blank = free[(x >> 40) as usize % free.len()];
                let slow = z.block_of(map, z.region(map, blank));
                // The map rank of the chunked tables, by the definition's loop.
                let mut loop_rank = 0;
                let (mut m, mut j) = (mask, 1);
                while m != 0 {
                    loop_rank += z.binom[m.trailing_zeros() as usize * (k + 1) + j];
                    j += 1;
                    m &= m - 1;
                }
                assert_eq!(map, loop_rank);
                assert_eq!(z.block(mask, blank), slow, "{size} k={k} mask {mask:b}");
            }
        }
    }

    /// Every map and every blank cell of the 5x5 with 5, 6 and 7 tiles (the default catalogue
    /// uses 6): `block` against the definition, with the regions found by a plain flood fill
    /// over a grid rather than by the index's own tables. Random maps miss the few maps with
    /// more than four regions (12 of the 177,100 with 6 tiles), whose blocks take another path.
    #[test]
    fn every_5x5_map_and_blank_has_the_block_of_the_definition() {
        let (w, n) = (5usize, 25usize);
        for k in [5usize, 6, 7] {
            let z = ZeroIndex::new(Size::S5X5, k).unwrap();
            let mut regions_past_first = 0u32;
            let mut many = 0;
            let mut mask = (1u64 << k) - 1;
            for map in 0..z.maps() as u32 {
                // Regions numbered by their lowest cell: scan cells in order, flood each new one.
                let mut region = [u8::MAX; 25];
                let mut count = 0u8;
                for start in 0..n {
                    if mask >> start & 1 == 1 || region[start] != u8::MAX {
                        continue;
                    }
                    let mut stack = vec![start];
                    region[start] = count;
                    while let Some(c) = stack.pop() {
                        let (row, col) = (c / w, c % w);
                        let mut next = Vec::with_capacity(4);
                        if col > 0 {
                            next.push(c - 1);
                        }
                        if col + 1 < w {
                            next.push(c + 1);
                        }
                        if row > 0 {
                            next.push(c - w);
                        }
                        if c + w < n {
                            next.push(c + w);
                        }
                        for d in next {
                            if mask >> d & 1 == 0 && region[d] == u8::MAX {
                                region[d] = count;
                                stack.push(d);
                            }
                        }
                    }
                    count += 1;
                }
                if count > 4 {
                    many += 1;
                }
                assert_eq!(z.map_rank(mask), map, "k={k} mask {mask:b}");
                assert_eq!(z.regions(map), u32::from(count), "k={k} mask {mask:b}");
                for blank in (0..n).filter(|&c| mask >> c & 1 == 0) {
                    let want = match u32::from(region[blank]) {
                        0 => map,
                        r => z.maps() as u32 + regions_past_first + r - 1,
                    };
                    assert_eq!(z.block(mask, blank), want, "k={k} mask {mask:b} blank {blank}");
                }
                regions_past_first += u32::from(count) - 1;
                let low = mask & mask.wrapping_neg();
                let ripple = mask + low;
                mask = ripple | (((mask ^ ripple) >> 2) / low);
            }
            assert!(mask >> n != 0, "k={k}: the enumeration covered every map");
            if k == 6 {
                assert_eq!(many, 12, "the 6-tile maps with more than four regions");
            }
        }
    }

    #[test]
    fn the_5x5_six_tile_index_has_the_published_size() {
        let z = ZeroIndex::new(Size::S5X5, 6).unwrap();
        // 251,400 (map, region) pairs times 720 (Clausecker & Reinefeld's count).
        assert_eq!(z.entries(), 181_008_000);
    }
}
