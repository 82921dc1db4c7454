//! The dual lookups' table indices of a 16-cell board, all of a view's patterns at once in the
//! sixteen byte lanes of an SSE register.
//!
//! Why: a dual lookup cannot update its index from the parent's (it depends on the whole
//! board), so every node with the blank on a corner ranks every dual view's patterns afresh.
//! Ranked one tile at a time (`rank_cells`), those ranks were a fifth of the 7-8 search's
//! instructions. Here one view's 15 pattern tiles go through each step together:
//!
//! 1. the tiles' cells: two byte shuffles, `through[board[src[i]]]` for every lane `i`;
//! 2. each tile's digit, its cell minus the cells of the tiles ranked before it in its pattern
//!    that are lower: for each distance `k` up to the longest pattern's length - 1, every lane
//!    compared with the lane `k` before it (a byte shuffle that gives nothing where that lane
//!    is in another pattern): 7 rounds for 7-8, instead of 15 of every lane against one lane;
//! 3. the index of each pattern: the digits times their place values, summed over the
//!    pattern's lanes. Where the patterns fit whole groups of 4 lanes (7-8, not 6-6-3), by
//!    Horner's rule in three multiply-adds ([`Sum::Packed`]).
//!
//! [`DualLanes::indices`] gives exactly what `rank_cells` gives (the tests compare them). On
//! other targets, or built without SSE4.1, [`DualLanes::new`] gives `None` and the caller ranks
//! tile by tile. (What each step was worth: `docs/performance.md`.)

use super::rank::placements;

/// Lanes in a register: the most cells, and so pattern tiles, this module handles.
pub(super) const LANES: usize = 16;

/// Whether this build can rank in lanes.
const SIMD: bool =
    cfg!(all(target_arch = "x86_64", target_feature = "ssse3", target_feature = "sse4.1"));

/// One dual view's constants, laid out for [`DualLanes::indices`]. Lane `i` holds the view's
/// `i`-th pattern tile, patterns one after another in rank order.
#[derive(Clone, Debug)]
pub(super) struct DualLanes {
    /// The board cell whose tile decides where lane `i`'s tile sits (0 for unused lanes).
    src: [u8; LANES],
    /// 0x80 on unused lanes, so that their cell (and digit) is 0.
    unused: [u8; LANES],
    /// `through[t]`: the view cell that tile `t`'s goal cell maps to.
    through: [u8; LANES],
    /// `back[k - 1]`: the byte shuffle that moves lane `i - k` to lane `i` where both are in
    /// the same pattern (so lane `i - k` is ranked before lane `i`), and gives 0 elsewhere.
    back: [[u8; LANES]; LANES - 1],
    /// How many of `back` to use: the longest pattern's length - 1.
    rounds: usize,
    /// How the digits become indices.
    sum: Sum,
}

/// How [`DualLanes::indices`] turns digits into indices.
#[derive(Clone, Debug)]
enum Sum {
    /// Each pattern on whole groups of 4 lanes, its first tile as late in its first group as
    /// the group's end allows (the lanes before it unused: leading zero digits). Digits are
    /// then combined as in Horner's rule: pairs of lanes by a multiply-add of bytes, pairs of
    /// pairs by one of 16-bit words, and each group by its place value in 32-bit lanes. 3
    /// multiplies instead of 4 widenings and 4 multiplies.
    Packed {
        /// Per lane pair, the radix of the second lane's digit then 1.
        pairs: [u8; LANES],
        /// Per pair of pairs, the product of the radices of the second pair then 1.
        quads: [u16; 8],
        /// Per group of 4 lanes, the place value of its 4-digit number in its pattern.
        groups: [u32; 4],
        /// Per pattern, all ones on its groups.
        patterns: Vec<[u32; 4]>,
    },
    /// Patterns one after another; each lane's digit widened and multiplied by its place value.
    Wide {
        /// The place value of each lane's digit in its pattern's index (0 for unused lanes).
        weights: [[u32; 4]; 4],
        /// Per pattern, all ones on its lanes.
        patterns: Vec<[[u32; 4]; 4]>,
    },
}

impl DualLanes {
    /// The constants of a dual view whose pattern `p` reads the tiles on the cells
    /// `src[starts[p]..starts[p + 1]]` through `through`, on a board of `n` cells; `None` unless
    /// the build has SSE4.1, the board has 16 cells (the lanes' byte shuffles index 16 bytes) and
    /// every pattern's index fits 32 bits.
    pub(super) fn new(n: usize, src: &[u8], through: &[u8], starts: &[u8]) -> Option<DualLanes> {
        if !SIMD || n != LANES || through.len() < LANES {
            return None;
        }
        let patterns: Vec<(usize, usize)> =
            starts.windows(2).map(|w| (w[0] as usize, w[1] as usize)).collect();
        for &(first, end) in &patterns {
            if end > LANES || first > end || placements(n, end - first) > u64::from(u32::MAX) {
                return None;
            }
        }
        // Packed if every pattern fits whole groups of 4 lanes together.
        let groups: usize = patterns.iter().map(|&(first, end)| (end - first).div_ceil(4)).sum();
        let packed = groups <= 4;
        let mut lanes = DualLanes {
            src: [0; LANES],
            unused: [0x80; LANES],
            through: [0; LANES],
            back: [[0x80; LANES]; LANES - 1],
            rounds: 0,
            sum: Sum::Wide { weights: [[0; 4]; 4], patterns: Vec::new() },
        };
        lanes.through.copy_from_slice(&through[..LANES]);
        // Per lane, the radix of its digit (n - rank); 1 on unused lanes.
        let mut radices = [1u32; LANES];
        let mut group_values = [0u32; 4];
        let mut group_masks = Vec::new();
        let mut weights = [[0u32; 4]; 4];
        let mut lane_masks = Vec::new();
        let mut next_group = 0;
        for &(first, end) in &patterns {
            let k = end - first;
            // The lane of the pattern's tile of rank `r`.
            let start = if packed {
                let span = k.div_ceil(4) * 4;
                next_group += span / 4;
                next_group * 4 - k
            } else {
                first
            };
            let radix = |r: usize| (n - r) as u32;
            let mut mask = [[0u32; 4]; 4];
            let mut group_mask = [0u32; 4];
            for r in 0..k {
                let lane = start + r;
                lanes.src[lane] = src[first + r];
                lanes.unused[lane] = 0;
                for before in 0..r {
                    lanes.back[r - before - 1][lane] = (start + before) as u8;
                }
                // Below the pattern's placements, so it fits (checked above).
                weights[lane / 4][lane % 4] = placements(n - r - 1, k - r - 1) as u32;
                mask[lane / 4][lane % 4] = u32::MAX;
                group_mask[lane / 4] = u32::MAX;
                radices[lane] = radix(r);
            }
            if packed {
                // Each group's place value: the product of the radices of the pattern's
                // lanes after it.
                let groups = group_values.iter_mut().enumerate();
                for (g, value) in groups.take((start + k).div_ceil(4)).skip(start / 4) {
                    let after = (g + 1) * 4;
                    *value = ((after.max(start) - start)..k).map(radix).product();
                }
            }
            lane_masks.push(mask);
            group_masks.push(group_mask);
            lanes.rounds = lanes.rounds.max(k.saturating_sub(1));
        }
        lanes.sum = if packed {
            // Radices are at most 16, and two of them multiply to at most 256.
            let pairs = std::array::from_fn(|i| if i % 2 == 0 { radices[i + 1] as u8 } else { 1 });
            let quads = std::array::from_fn(|w| {
                if w % 2 == 0 { (radices[2 * w + 2] * radices[2 * w + 3]) as u16 } else { 1 }
            });
            Sum::Packed { pairs, quads, groups: group_values, patterns: group_masks }
        } else {
            Sum::Wide { weights, patterns: lane_masks }
        };
        Some(lanes)
    }

    /// Writes pattern `p`'s index for the 16-cell board `board` to `out[p]`.
    #[inline(always)]
    pub(super) fn indices(&self, board: &[u8; LANES], out: &mut [u32]) {
        #[cfg(all(target_arch = "x86_64", target_feature = "ssse3", target_feature = "sse4.1"))]
        // SAFETY: the function needs SSSE3 and SSE4.1, which this build enables for every
        // function (the `cfg` above), so the processor it runs on has them.
        #[expect(unsafe_code)]
        unsafe {
            self.indices_sse(board, out)
        }
        // Never built: `new` gives `None` without SSE4.1.
        #[cfg(not(all(
            target_arch = "x86_64",
            target_feature = "ssse3",
            target_feature = "sse4.1"
        )))]
        let _ = (board, out);
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3", target_feature = "sse4.1"))]
    #[target_feature(enable = "ssse3,sse4.1")]
    #[inline]
    fn indices_sse(&self, board: &[u8; LANES], out: &mut [u32]) {
        use std::arch::x86_64::{
            __m128i, _mm_add_epi32, _mm_and_si128, _mm_cmpgt_epi8, _mm_cvtepu8_epi32,
            _mm_cvtsi128_si32, _mm_loadu_si128, _mm_madd_epi16, _mm_maddubs_epi16, _mm_mullo_epi32,
            _mm_or_si128, _mm_set1_epi8, _mm_setzero_si128, _mm_shuffle_epi8, _mm_shuffle_epi32,
            _mm_srli_si128, _mm_sub_epi8,
        };
        /// 16 bytes as a register.
        #[inline(always)]
        fn load<T>(bytes: &T) -> __m128i {
            const { assert!(size_of::<T>() == 16) };
            // SAFETY: `bytes` is 16 readable bytes (checked above), and the load is unaligned.
            #[expect(unsafe_code)]
            unsafe {
                _mm_loadu_si128((bytes as *const T).cast())
            }
        }
        // The tiles' cells in the view, lane by lane.
        let tiles =
            _mm_or_si128(_mm_shuffle_epi8(load(board), load(&self.src)), load(&self.unused));
        let cells = _mm_shuffle_epi8(load(&self.through), tiles);
        // Count, per lane, the lower cells of the tiles ranked before it. Cells count down from
        // 127 (`high`), so that a lane the shuffle leaves 0 (another pattern's) is never higher.
        let high = _mm_sub_epi8(_mm_set1_epi8(127), cells);
        let mut lower = _mm_setzero_si128();
        for back in &self.back[..self.rounds.min(LANES - 1)] {
            let other = _mm_shuffle_epi8(high, load(back));
            lower = _mm_sub_epi8(lower, _mm_cmpgt_epi8(other, high));
        }
        let digits = _mm_sub_epi8(cells, lower);
        let (weights, patterns) = match &self.sum {
            Sum::Wide { weights, patterns } => (weights, patterns),
            Sum::Packed { pairs, quads, groups, patterns } => {
                let words = _mm_maddubs_epi16(digits, load(pairs));
                let quads = _mm_madd_epi16(words, load(quads));
                let terms = _mm_mullo_epi32(quads, load(groups));
                for (mask, out) in patterns.iter().zip(out) {
                    let mut sum = _mm_and_si128(terms, load(mask));
                    sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0x4E>(sum));
                    sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0xB1>(sum));
                    *out = _mm_cvtsi128_si32(sum) as u32;
                }
                return;
            }
        };
        let wide = [
            _mm_cvtepu8_epi32(digits),
            _mm_cvtepu8_epi32(_mm_srli_si128::<4>(digits)),
            _mm_cvtepu8_epi32(_mm_srli_si128::<8>(digits)),
            _mm_cvtepu8_epi32(_mm_srli_si128::<12>(digits)),
        ];
        // (No closure: closures do not get the function's target features.)
        let terms: [__m128i; 4] = [
            _mm_mullo_epi32(wide[0], load(&weights[0])),
            _mm_mullo_epi32(wide[1], load(&weights[1])),
            _mm_mullo_epi32(wide[2], load(&weights[2])),
            _mm_mullo_epi32(wide[3], load(&weights[3])),
        ];
        for (mask, out) in patterns.iter().zip(out) {
            let mut sum = _mm_and_si128(terms[0], load(&mask[0]));
            for k in 1..4 {
                sum = _mm_add_epi32(sum, _mm_and_si128(terms[k], load(&mask[k])));
            }
            sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0x4E>(sum));
            sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0xB1>(sum));
            *out = _mm_cvtsi128_si32(sum) as u32;
        }
    }
}

// Without SSE4.1 nothing here is used.
#[cfg(all(test, target_arch = "x86_64", target_feature = "ssse3", target_feature = "sse4.1"))]
mod tests {
    use super::*;
    use crate::pdb::rank::rank_cells;

    /// Random permutations of 16 cells (a fixed linear congruential sequence).
    fn boards(count: usize) -> Vec<[u8; LANES]> {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        (0..count)
            .map(|_| {
                let mut b: [u8; LANES] = std::array::from_fn(|i| i as u8);
                for i in (1..LANES).rev() {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    b.swap(i, (seed >> 33) as usize % (i + 1));
                }
                b
            })
            .collect()
    }

    #[test]
    fn lanes_rank_as_rank_cells_does() {
        // Pattern splits of the 4x4 sets (7-8, 6-6-3, 5-5-5) and odd ones; a `through` that
        // is a permutation, so the cells of a pattern are distinct.
        let through = boards(1)[0];
        for splits in
            [vec![7, 8], vec![6, 6, 3], vec![5, 5, 5], vec![4, 4, 4, 3], vec![1, 7], vec![3]]
        {
            let mut starts = vec![0u8];
            for k in &splits {
                starts.push(starts.last().unwrap() + k);
            }
            let players = *starts.last().unwrap() as usize;
            for (round, src) in boards(20).into_iter().enumerate() {
                let lanes = DualLanes::new(16, &src[..players], &through, &starts).unwrap();
                let (packed, patterns) = match &lanes.sum {
                    Sum::Packed { patterns, .. } => (true, patterns.len()),
                    Sum::Wide { patterns, .. } => (false, patterns.len()),
                };
                assert_eq!(patterns, splits.len());
                // Packed when the patterns fit whole groups of 4 lanes: 7-8, 4-4-4-3, 1-7, 3.
                let groups: usize = splits.iter().map(|&k| usize::from(k).div_ceil(4)).sum();
                assert_eq!(packed, groups <= 4, "{splits:?}");
                for board in boards(50 + round) {
                    let mut got = vec![0; splits.len()];
                    lanes.indices(&board, &mut got);
                    let want: Vec<u32> = (0..splits.len())
                        .map(|p| {
                            let tiles = &src[starts[p] as usize..starts[p + 1] as usize];
                            rank_cells(
                                16,
                                tiles.iter().map(|&c| through[board[c as usize] as usize]),
                            ) as u32
                        })
                        .collect();
                    assert_eq!(got, want, "splits {splits:?} src {src:?} board {board:?}");
                }
            }
        }
    }

    #[test]
    fn other_boards_and_large_patterns_are_refused() {
        assert!(DualLanes::new(9, &[0, 1], &[0; 9], &[0, 2]).is_none());
        assert!(DualLanes::new(25, &[0, 1], &[0; 25], &[0, 2]).is_none());
        // 16!/6! placements of 10 tiles do not fit 32 bits; 16!/7! of 9 do.
        assert!(DualLanes::new(16, &[0; 10], &[0; 16], &[0, 10]).is_none());
        assert!(DualLanes::new(16, &[0; 9], &[0; 16], &[0, 9]).is_some());
        assert!(DualLanes::new(16, &[0; 8], &[0; 16], &[0, 8]).is_some());
    }
}
