//! Fuzzes `--goal`: `Board::parse_goal` for every board size named on the first line (or the
//! 3x3, 4x4 and 5x5). Any text must give a goal or an error, never a panic; a goal of a size
//! has that size, and the named goals are the boards they name.
#![no_main]

use fifteen_core::pdb::serves_goal;
use fifteen_core::{Board, Size};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (first, rest) = text.split_once('\n').unwrap_or(("", text));
    let sizes: Vec<Size> = match first.parse::<Size>() {
        Ok(size) => vec![size],
        Err(_) => vec![Size::S3X3, Size::S4X4, Size::new(5, 5).expect("5x5")],
    };
    for size in sizes {
        let Ok(goal) = Board::parse_goal(rest, size) else { continue };
        assert_eq!(goal.size(), size, "{rest:?}");
        match rest.trim() {
            "blank-first" => assert_eq!(goal, Board::blank_first(size)),
            "blank-last" => assert_eq!(goal, Board::blank_last(size)),
            _ => {}
        }
        // Every goal can be reached from itself, and the databases' canonical goal serves it
        // exactly when its blank is on a corner (any tile order).
        assert!(goal.solvability(&goal).is_ok());
        let corner = [0, size.width() - 1, size.cells() - size.width(), size.cells() - 1];
        let serves = serves_goal(&Board::blank_first(size), &goal);
        assert_eq!(serves, corner.contains(&goal.blank()), "{rest:?} on {size}");
    }
});
