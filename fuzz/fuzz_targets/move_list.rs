//! Fuzzes `fifteen verify`'s move lists: `parse_moves` in both notations over arbitrary text,
//! then a replay on a board named by the first line (a size, or the 4x4). Any text must give
//! moves or an error naming a 1-based index inside the text, never a panic; parsed moves
//! written back parse to the same moves; a replay stops at the first illegal move, and a legal
//! list replayed and then undone in reverse comes back to the start.
#![no_main]

use fifteen_core::{Board, MoveListError, Notation, Size, format_moves, parse_moves, replay};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (first, rest) = text.split_once('\n').unwrap_or(("", text));
    let size = first.parse::<Size>().unwrap_or(Size::S4X4);
    let start = Board::blank_last(size);
    for notation in [Notation::Tile, Notation::Blank] {
        let moves = match parse_moves(rest, notation) {
            Ok(moves) => moves,
            Err(MoveListError::NotALetter { index, found }) => {
                assert!(index >= 1 && index <= rest.chars().count(), "{rest:?}");
                assert!(!found.is_whitespace() && found != ',', "{rest:?}");
                continue;
            }
        };
        let text = format_moves(&moves, notation);
        assert_eq!(parse_moves(&text, notation).as_ref(), Ok(&moves));
        // One move at a time, as `verify` does, against the replay the searches use.
        let mut board = start.clone();
        let mut legal = 0;
        for &d in &moves {
            if board.apply(d).is_none() {
                break;
            }
            legal += 1;
        }
        let whole = replay(&start, &moves);
        assert_eq!(whole.is_some(), legal == moves.len());
        if let Some((end, tiles)) = whole {
            assert_eq!(end, board);
            assert_eq!(tiles.len(), moves.len());
            let mut back = end;
            for &d in moves.iter().rev() {
                assert!(back.apply(d.opposite()).is_some());
            }
            assert_eq!(back, start);
        }
    }
});
