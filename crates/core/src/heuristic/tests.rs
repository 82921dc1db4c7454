//! Tests of the heuristics: incremental updates agree with recomputation.

use super::*;
use crate::{Dir, Size};

/// Walks `steps` pseudo-random moves, checking `step` against `init` after each.
fn check_incremental<H: Heuristic>(h: &H, goal: &Board, steps: usize)
where
    H::State: PartialEq + std::fmt::Debug,
{
    let mut b = goal.clone();
    let mut s = h.init(b.cells());
    let mut x = 12345u64;
    for _ in 0..steps {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let d = Dir::ALL[(x >> 33) as usize % 4];
        let blank = b.blank();
        let Some(to) = d.neighbor(b.size(), blank) else { continue };
        let tile = b.apply(d).unwrap();
        s = h.step(&s, b.cells(), tile, to, blank);
        assert_eq!(s, h.init(b.cells()), "after moving {tile} on {b:?}");
    }
}

#[test]
fn incremental_updates_match_recomputation() {
    for size in [Size::S3X3, Size::S4X4, Size::new(3, 5).unwrap(), Size::new(8, 8).unwrap()] {
        for goal in [Board::blank_last(size), Board::blank_first(size)] {
            check_incremental(&Manhattan::new(&goal), &goal, 2000);
            check_incremental(&Misplaced::new(&goal), &goal, 2000);
            check_incremental(&LinearConflict::new(&goal), &goal, 2000);
        }
    }
}

#[test]
fn linear_conflict_counts_a_reversed_row() {
    // Row 1 2 3 reversed: 3 2 1 needs two tiles out of the row: +4 over Manhattan.
    let goal = Board::parse("1 2 3 4 5 6 7 8 0", None).unwrap();
    let b = Board::parse("3 2 1 4 5 6 7 8 0", None).unwrap();
    let md = Manhattan::new(&goal).estimate(b.cells());
    assert_eq!(md, 4);
    assert_eq!(LinearConflict::new(&goal).estimate(b.cells()), md + 4);
}
