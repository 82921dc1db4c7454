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

/// The published count of 3x3 positions at each distance, from
/// `../shared/instances/8puzzle-depths.txt` (`#` lines are comments, others are `d count`).
fn published_8puzzle_depths() -> Vec<u64> {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/instances/8puzzle-depths.txt"
    ));
    let mut counts = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let mut parts = line.split_whitespace().map(|x| x.parse::<u64>().unwrap());
        let (d, count) = (parts.next().unwrap() as usize, parts.next().unwrap());
        assert_eq!(d, counts.len(), "depths are listed in order");
        counts.push(count);
    }
    counts
}

#[test]
fn exact_histogram_matches_published_8puzzle_depths() {
    let want = published_8puzzle_depths();
    assert_eq!(want.iter().sum::<u64>(), 181_440);
    assert_eq!(want.len(), 32);
    for goal in [Board::blank_last(Size::S3X3), Board::blank_first(Size::S3X3)] {
        let exact = Exact::new(&goal).unwrap();
        assert_eq!(exact.histogram(), want, "goal {goal:?}");
        assert_eq!(exact.distance(goal.cells()), Some(0));
    }
}

#[test]
fn exact_covers_every_small_board() {
    for (w, h) in [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)] {
        let size = Size::new(w, h).unwrap();
        for goal in [Board::blank_last(size), Board::blank_first(size)] {
            let exact = Exact::new(&goal).unwrap();
            let reachable: u64 = (1..=size.cells() as u64).product::<u64>() / 2;
            assert_eq!(exact.histogram().iter().sum::<u64>(), reachable, "{size}");
            check_incremental(&exact, &goal, 500);
        }
    }
    // The 2x2 positions form one cycle of 12.
    let two = Exact::new(&Board::blank_last(Size::new(2, 2).unwrap())).unwrap();
    assert_eq!(two.histogram(), [1, 2, 2, 2, 2, 2, 1]);
    for (w, h) in [(4, 4), (2, 5), (5, 2), (3, 4), (8, 8)] {
        assert!(Exact::new(&Board::blank_last(Size::new(w, h).unwrap())).is_none());
    }
}

#[test]
fn exact_rank_is_the_pdb_rank_and_rejects_garbage() {
    let mut cells = [0u8; 9];
    for index in (0..362_880u64).step_by(97) {
        crate::pdb::unrank(9, index, &mut cells);
        assert_eq!(exact::lehmer_rank(&cells), Some(index as usize));
        assert_eq!(crate::pdb::rank(9, &cells), index);
    }
    let goal = Board::blank_last(Size::S3X3);
    let exact = Exact::new(&goal).unwrap();
    // Not boards of this size: no panic, no distance, a large estimate.
    for bad in [&[][..], &[0, 1, 2], &[1, 1, 2, 3, 4, 5, 6, 7, 8], &[9, 1, 2, 3, 4, 5, 6, 7, 0]] {
        assert_eq!(exact.distance(bad), None);
        assert_eq!(exact.estimate(bad), 255);
    }
    let unreachable = Board::parse("2 1 3 4 5 6 7 8 0", None).unwrap();
    assert_eq!(exact.distance(unreachable.cells()), None);
    assert!(format!("{exact:?}").len() < 100, "Debug prints the shape, not the table");
}
