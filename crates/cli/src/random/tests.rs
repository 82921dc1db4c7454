//! The generator and the scrambles.

use fifteen_core::{Board, Size};

use super::{SplitMix64, line, uniform, walk};

#[test]
fn generator_is_fixed() {
    // SplitMix64's published first output for seed 0.
    assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    let mut rng = SplitMix64::new(5);
    assert!((0..1000).all(|_| rng.below(7) < 7));
}

#[test]
fn scrambles_are_solvable() {
    let size = Size::new(4, 3).expect("a size");
    let goal = Board::blank_last(size);
    let mut rng = SplitMix64::new(1);
    for _ in 0..200 {
        let w = walk(&goal, 31, &mut rng);
        assert!(w.solvability(&goal).is_ok());
        let u = uniform(&goal, &mut rng).expect("a board");
        assert!(u.solvability(&goal).is_ok());
        assert_eq!(Board::parse(&line(&u), None).expect("parses back"), u);
    }
}

#[test]
fn a_walk_of_one_move_moves_once() {
    let goal = Board::blank_last(Size::S3X3);
    let b = walk(&goal, 1, &mut SplitMix64::new(9));
    let moved = b.cells().iter().zip(goal.cells()).filter(|(a, b)| a != b).count();
    assert_eq!(moved, 2);
}
