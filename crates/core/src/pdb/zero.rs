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
//! `index = (offset[map] + region) * k! + order`, where `offset[map]` counts the regions of the
//! maps ranked before. [`ZeroIndex`] holds, per map, that offset and each free cell's region
//! (built once per board and pattern size by flood fills), so a lookup never floods.
//!
//! # Invariants
//!
//! - Regions are numbered by their lowest cell, so the numbering depends only on the map.
//! - `index` is a bijection from the (placement, region) pairs onto `0..entries()`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::rank::{rank_cells, unrank};
use crate::board::Size;

/// Boards and patterns whose per-map table would exceed this many bytes are refused (the 5x5
/// with 7 tiles needs 12 MB).
const MAX_TABLE_BYTES: u64 = 1 << 28;

/// The zero-aware index of one board size and pattern size.
#[derive(Clone, Debug)]
pub struct ZeroIndex {
    n: usize,
    k: usize,
    /// `binom[c * (k + 1) + j]` = C(c, j).
    binom: Vec<u32>,
    /// `offset[m]`: regions of the maps ranked below `m`; one more entry holds the total.
    offset: Vec<u32>,
    /// `region[m * n + c]`: the region of free cell `c` in map `m` (`u8::MAX` on the map's own
    /// cells).
    region: Vec<u8>,
    /// k!
    orders: u32,
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
        let mut offset = Vec::with_capacity(maps as usize + 1);
        let mut region = vec![u8::MAX; maps as usize * n];
        let mut total = 0u64;
        // The k-subsets in increasing order (Gosper's hack): colexicographic rank order.
        let mut mask = (1u64 << k) - 1;
        for m in 0..maps as usize {
            offset.push(u32::try_from(total).map_err(|_| too_large.clone())?);
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
            total += u64::from(id);
            let low = mask & mask.wrapping_neg();
            let ripple = mask + low;
            mask = ripple | (((mask ^ ripple) >> 2) / low);
        }
        if total * u64::from(orders) > u64::from(u32::MAX) {
            return Err(too_large);
        }
        offset.push(total as u32);
        Ok(ZeroIndex { n, k, binom, offset, region, orders })
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
        u64::from(self.offset[self.offset.len() - 1]) * u64::from(self.orders)
    }

    /// Pattern tiles.
    pub fn tiles(&self) -> usize {
        self.k
    }

    /// The colexicographic rank of a map (`k` bits set below bit `n`).
    #[inline(always)]
    pub fn map_rank(&self, mask: u64) -> u32 {
        let mut rank = 0;
        let mut m = mask;
        let mut j = 1;
        while m != 0 {
            let c = m.trailing_zeros() as usize;
            rank += self.binom[(c * (self.k + 1) + j) % self.binom.len()];
            j += 1;
            m &= m - 1;
        }
        rank
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
        u32::from(self.region[(map as usize * self.n + blank) % self.region.len()])
    }

    /// The entry index of the pattern tiles on `cells` (tile `i` on `cells[i]`) with the blank
    /// on `blank`.
    #[inline(always)]
    pub fn index(&self, cells: &[u8], blank: usize) -> u32 {
        let mask = cells.iter().fold(0u64, |m, &c| m | 1 << c);
        let map = self.map_rank(mask);
        self.index_parts(map, self.region(map, blank), self.order_rank(mask, cells.iter().copied()))
    }

    /// The entry index from its parts.
    #[inline(always)]
    pub fn index_parts(&self, map: u32, region: u32, order: u32) -> u32 {
        (self.offset[map as usize % self.offset.len()] + region) * self.orders + order
    }

    /// The placement and a cell of the blank's region of entry `index`: the inverse of
    /// [`ZeroIndex::index`] up to where in its region the blank is. `cells` gets `k` cells.
    pub fn unindex(&self, index: u32, cells: &mut [u8]) -> usize {
        let block = index / self.orders;
        let order = index % self.orders;
        let map = self.offset.partition_point(|&o| o <= block) - 1;
        let region = block - self.offset[map];
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
    fn the_5x5_six_tile_index_has_the_published_size() {
        let z = ZeroIndex::new(Size::S5X5, 6).unwrap();
        // 251,400 (map, region) pairs times 720 (Clausecker & Reinefeld's count).
        assert_eq!(z.entries(), 181_008_000);
    }
}
