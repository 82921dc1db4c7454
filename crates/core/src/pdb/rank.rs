//! The one ranking of pattern placements to table indices. `pdb-gen` writes tables in this
//! order and the solver reads them in this order, so it exists here only.
//!
//! A placement lists the cell of each pattern tile, in pattern order. Its index is a mixed-radix
//! number whose i-th digit (radix `n - i`) is the rank of tile i's cell among the cells not used
//! by tiles `0..i`. The first tile is the most significant digit, so placements that differ only
//! in the last tiles are near each other in the table.

/// How many placements `k` distinct tiles have on `n` cells: n! / (n - k)!.
///
/// ```
/// assert_eq!(fifteen_core::pdb::placements(16, 8), 518_918_400);
/// ```
pub const fn placements(n: usize, k: usize) -> u64 {
    let mut total = 1u64;
    let mut i = 0;
    while i < k {
        total *= (n - i) as u64;
        i += 1;
    }
    total
}

/// The index of a placement of `cells.len()` tiles on a board of `n` cells (`n <= 64`, cells
/// distinct and below `n`).
///
/// ```
/// use fifteen_core::pdb::{rank, unrank};
/// let mut back = [0u8; 3];
/// unrank(16, rank(16, &[5, 0, 15]), &mut back);
/// assert_eq!(back, [5, 0, 15]);
/// ```
#[inline]
pub fn rank(n: usize, cells: &[u8]) -> u64 {
    rank_cells(n, cells.iter().copied())
}

/// [`rank`] of the cells `cells` yields, in order: for callers that compute each cell on the way
/// (the solver maps tiles through a view), so that no placement array is filled first.
#[inline(always)]
pub fn rank_cells(n: usize, cells: impl IntoIterator<Item = u8>) -> u64 {
    let mut index = 0u64;
    let mut used = 0u64;
    for (i, p) in cells.into_iter().enumerate() {
        let below = used & ((1u64 << p) - 1);
        let digit = p as u64 - below.count_ones() as u64;
        index = index * (n - i) as u64 + digit;
        used |= 1u64 << p;
    }
    index
}

/// The placement with index `index` of `out.len()` tiles on `n` cells; the inverse of [`rank`].
#[inline]
pub fn unrank(n: usize, mut index: u64, out: &mut [u8]) {
    let k = out.len();
    for i in (0..k).rev() {
        let radix = (n - i) as u64;
        out[i] = (index % radix) as u8;
        index /= radix;
    }
    let mut used = 0u64;
    for digit in out.iter_mut() {
        // The digit-th free cell: skip used cells below it.
        let mut free = !used;
        for _ in 0..*digit {
            free &= free - 1;
        }
        let cell = free.trailing_zeros() as u8;
        *digit = cell;
        used |= 1u64 << cell;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_and_unrank_are_inverse_and_dense() {
        for (n, k) in [(9, 8), (16, 3), (6, 6), (25, 2)] {
            let total = placements(n, k);
            let step = (total / 5000).max(1);
            let mut cells = vec![0u8; k];
            let mut i = 0;
            while i < total {
                unrank(n, i, &mut cells);
                assert!(cells.iter().all(|&c| (c as usize) < n));
                let mut sorted = cells.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), k, "cells distinct");
                assert_eq!(rank(n, &cells), i);
                i += step;
            }
        }
    }

    #[test]
    fn last_index_is_the_reverse_placement() {
        let mut cells = [0u8; 7];
        unrank(16, placements(16, 7) - 1, &mut cells);
        assert_eq!(cells, [15, 14, 13, 12, 11, 10, 9]);
    }
}
