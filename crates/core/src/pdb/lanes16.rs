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
//!    is in another pattern). 7 rounds for 7-8, instead of 15 of every lane against one lane:
//!    0.96 of the time, Korf's 100 x5 on one thread;
//! 3. the index of each pattern: the digits times their place values, summed over the
//!    pattern's lanes.
//!
//! [`DualLanes::indices`] gives exactly what `rank_cells` gives (the tests compare them). On
//! other targets, or built without SSE4.1, [`DualLanes::new`] gives `None` and the caller ranks
//! tile by tile.

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
    /// `through[t]`: the view cell that tile `t`'s goal cell maps to.
    through: [u8; LANES],
    /// `back[k - 1]`: the byte shuffle that moves lane `i - k` to lane `i` where both are in
    /// the same pattern (so lane `i - k` is ranked before lane `i`), and gives 0 elsewhere.
    back: [[u8; LANES]; LANES - 1],
    /// How many of `back` to use: the longest pattern's length - 1.
    rounds: usize,
    /// The place value of each lane's digit in its pattern's index (0 for unused lanes).
    weights: [[u32; 4]; 4],
    /// Per pattern, all ones on its lanes.
    patterns: Vec<[[u32; 4]; 4]>,
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
        let mut lanes = DualLanes {
            src: [0; LANES],
            through: [0; LANES],
            back: [[0x80; LANES]; LANES - 1],
            rounds: 0,
            weights: [[0; 4]; 4],
            patterns: Vec::new(),
        };
        lanes.through.copy_from_slice(&through[..LANES]);
        for p in 0..starts.len().saturating_sub(1) {
            let (first, end) = (starts[p] as usize, starts[p + 1] as usize);
            if end > LANES || first > end || placements(n, end - first) > u64::from(u32::MAX) {
                return None;
            }
            let mut mask = [[0u32; 4]; 4];
            for i in first..end {
                lanes.src[i] = src[i];
                let r = i - first;
                // Below the pattern's placements, so it fits (checked above).
                lanes.weights[i / 4][i % 4] = placements(n - r - 1, end - first - r - 1) as u32;
                mask[i / 4][i % 4] = u32::MAX;
                for j in first..i {
                    lanes.back[i - j - 1][i] = j as u8;
                }
            }
            lanes.patterns.push(mask);
            lanes.rounds = lanes.rounds.max((end - first).saturating_sub(1));
        }
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
            _mm_cvtsi128_si32, _mm_loadu_si128, _mm_mullo_epi32, _mm_set1_epi8, _mm_setzero_si128,
            _mm_shuffle_epi8, _mm_shuffle_epi32, _mm_srli_si128, _mm_sub_epi8,
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
        let cells =
            _mm_shuffle_epi8(load(&self.through), _mm_shuffle_epi8(load(board), load(&self.src)));
        // Count, per lane, the lower cells of the tiles ranked before it. Cells count down from
        // 127 (`high`), so that a lane the shuffle leaves 0 (another pattern's) is never higher.
        let high = _mm_sub_epi8(_mm_set1_epi8(127), cells);
        let mut lower = _mm_setzero_si128();
        for back in &self.back[..self.rounds.min(LANES - 1)] {
            let other = _mm_shuffle_epi8(high, load(back));
            lower = _mm_sub_epi8(lower, _mm_cmpgt_epi8(other, high));
        }
        let digits = _mm_sub_epi8(cells, lower);
        let wide = [
            _mm_cvtepu8_epi32(digits),
            _mm_cvtepu8_epi32(_mm_srli_si128::<4>(digits)),
            _mm_cvtepu8_epi32(_mm_srli_si128::<8>(digits)),
            _mm_cvtepu8_epi32(_mm_srli_si128::<12>(digits)),
        ];
        // (No closure: closures do not get the function's target features.)
        let terms: [__m128i; 4] = [
            _mm_mullo_epi32(wide[0], load(&self.weights[0])),
            _mm_mullo_epi32(wide[1], load(&self.weights[1])),
            _mm_mullo_epi32(wide[2], load(&self.weights[2])),
            _mm_mullo_epi32(wide[3], load(&self.weights[3])),
        ];
        for (mask, out) in self.patterns.iter().zip(out) {
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
                assert_eq!(lanes.patterns.len(), splits.len());
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
