//! Fuzzes the text parsers: `Size::from_str`, `Board::parse` (with and without a size) and
//! `Board::parse_goal`. Any input must give `Ok` or `Err`, never a panic; a board that parses
//! must print back to a line that parses to the same board.
#![no_main]

use fifteen_core::{Board, Size};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // The first line may name a size, as `--size` does.
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let size = first.parse::<Size>().ok();
    for s in [None, size] {
        if let Ok(board) = Board::parse(rest, s) {
            let again = Board::parse(&board.to_line(), Some(board.size()));
            assert_eq!(again.as_ref().ok(), Some(&board), "round trip of {rest:?}");
            let _ = board.solvability(&Board::blank_last(board.size()));
        }
        if let Some(s) = s {
            let _ = Board::parse_goal(rest, s);
        }
    }
    let _ = Board::parse(text, None);
    let _ = text.parse::<Size>();
});
