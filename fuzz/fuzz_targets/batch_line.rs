//! Fuzzes the batch input: `BoundedLines` over arbitrary bytes (ids, expected lengths, over-long
//! lines, non-UTF-8) and `parse_position_line` on each line, with and without a board size. Any
//! input must give lines or errors, never a panic; no line longer than the limit comes back; a
//! board that parses prints back to a line that parses to the same board and carries no id.
#![no_main]

use fifteen_core::{Board, BoundedLines, LineError, Size, parse_position_line};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else { return };
    // The first byte sets the line limit (1 to 256 bytes) and the size the lines are read with.
    let max = usize::from(first) + 1;
    let size = match first % 4 {
        0 => None,
        1 => Some(Size::S3X3),
        2 => Some(Size::S4X4),
        _ => Size::new(3, 4).ok(),
    };
    // A small buffer, so that lines arrive in pieces.
    let reader = std::io::BufReader::with_capacity(7, rest);
    let mut lines = BoundedLines::new(reader, max);
    let mut last = 0;
    while let Some((number, text)) = lines.next_line().expect("reading a slice never fails") {
        assert_eq!(number, last + 1, "lines are numbered in order");
        last = number;
        let text = match text {
            Ok(text) => text,
            Err(LineError::TooLong { len, max: m, .. }) => {
                assert!(len > m && m == max);
                continue;
            }
            Err(_) => continue,
        };
        assert!(text.len() <= max, "a line of {} bytes over the limit {max}", text.len());
        let Some(position) = parse_position_line(&text, size) else { continue };
        if let Ok(board) = position.board {
            if let Some(s) = size {
                assert_eq!(board.size(), s);
            }
            let again = parse_position_line(&board.to_line(), Some(board.size()))
                .expect("a board's line is a position");
            assert_eq!(again.board.as_ref().ok(), Some(&board), "round trip of {text:?}");
            assert_eq!((again.id, again.expected), (None, None), "{text:?}");
            let _ = board.solvability(&Board::blank_first(board.size()));
        }
    }
});
