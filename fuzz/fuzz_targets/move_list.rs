//! Fuzzes `fifteen verify`'s move lists: `parse_moves` in both notations over arbitrary text,
//! then a replay on a board named by the first line (a size, or the 4x4). Any text must give
//! moves or an error naming a 1-based index inside the text, never a panic; parsed moves
//! written back parse to the same moves; a replay stops at the first illegal move, and a legal
//! list replayed and then undone in reverse comes back to the start. The multi-tile notation
//! (`verify --metric mtm`: `R3D2LU`) gets the same checks, and its replay agrees with the
//! single-tile replay of the same moves.
#![no_main]

use fifteen_core::mtm::{LineError, expand, format_lines, parse_lines, replay_lines};
use fifteen_core::{Board, MoveListError, Notation, Size, format_moves, parse_moves, replay};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (first, rest) = text.split_once('\n').unwrap_or(("", text));
    let size = first.parse::<Size>().unwrap_or(Size::S4X4);
    let start = Board::blank_last(size);
    for notation in [Notation::Tile, Notation::Blank] {
        mtm(rest, notation, &start);
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

/// The multi-tile notation: parse, write back, replay against the single-tile replay.
fn mtm(text: &str, notation: Notation, start: &Board) {
    let size = start.size();
    let lines = match parse_lines(text, notation, size) {
        Ok(lines) => lines,
        Err(e) => {
            let index = match &e {
                LineError::UnknownLetter { index, .. }
                | LineError::CountWithoutLetter { index, .. }
                | LineError::ZeroCount { index, .. }
                | LineError::CountTooLarge { index, .. } => *index,
                other => panic!("parsing gave a replay error: {other:?}"),
            };
            assert!(index >= 1 && index <= text.chars().count(), "{text:?}: {e}");
            return;
        }
    };
    for l in &lines {
        let side = match l.dir {
            fifteen_core::Dir::Left | fifteen_core::Dir::Right => size.width(),
            _ => size.height(),
        };
        assert!(l.count >= 1 && usize::from(l.count) < side, "{text:?}");
    }
    let written = format_lines(&lines, notation);
    assert_eq!(parse_lines(&written, notation, size).as_ref(), Ok(&lines));
    let steps = expand(&lines);
    match (replay_lines(start, &lines, notation), replay(start, &steps)) {
        (Ok((a, ta)), Some((b, tb))) => assert_eq!((a, ta), (b, tb)),
        (Err(LineError::OffBoard { index, .. }), None) => {
            assert!(index >= 1 && index <= lines.len())
        }
        (a, b) => panic!("{text:?}: line replay {a:?}, single-tile replay {b:?}"),
    }
}
