//! The batch line format and the bounded line reader.

use super::*;

#[test]
fn plain_board() {
    let p = parse_position_line("1 2 3 4 5 6 7 8 0", None).expect("a position");
    assert_eq!((p.id, p.expected), (None, None));
    assert_eq!(p.board.expect("a board").size(), Size::S3X3);
}

#[test]
fn id_and_expected_length() {
    let p = parse_position_line("7 1 2 3 4 5 6 7 8 0", None).expect("a position");
    assert_eq!((p.id, p.expected), (Some("7".to_string()), None));
    let p = parse_position_line("55 41 13 8 14 3 9 1 0 7 15 5 4 10 12 2 6 11", None)
        .expect("a position");
    assert_eq!((p.id, p.expected), (Some("55".to_string()), Some(41)));
    assert_eq!(p.board.expect("a board").size(), Size::S4X4);
    // With a size the count decides: 3x4 has 12 cells, so 13 numbers start with an id.
    let size = Size::new(3, 4).ok();
    let p = parse_position_line("9 1 2 3 4 5 6 7 8 9 10 11 0", size).expect("a position");
    assert_eq!(p.id.as_deref(), Some("9"));
    // Word ids, as in hardest15.txt.
    let p = parse_position_line("H01 80 15 11 8 12 14 10 9 13 2 6 1 4 3 7 5 0", None)
        .expect("a position");
    assert_eq!((p.id.as_deref(), p.expected), (Some("H01"), Some(80)));
    assert!(p.board.is_ok());
}

#[test]
fn comments_and_blank_lines_are_skipped() {
    assert!(parse_position_line("", None).is_none());
    assert!(parse_position_line("   # a comment", None).is_none());
    let p = parse_position_line("1 2 3 4 5 6 7 8 0 # solved", None).expect("a position");
    assert!(p.board.is_ok());
}

#[test]
fn bad_lines_keep_the_reason() {
    let p = parse_position_line("1 2 x 4", None).expect("a position");
    assert!(p.board.expect_err("not a board").to_string().contains("\"x\""));
    let p = parse_position_line("1 2 3 / 4 0 5", None).expect("a position");
    assert!(p.board.is_ok());
}

#[test]
fn lines_are_capped_without_buffering_them_whole() {
    let long = "7 ".repeat(1000);
    let text = format!("1 2 3\n{long}\nend\n\u{ff}\u{fe}\nlast");
    let mut bytes = text.into_bytes();
    // Line 4: invalid UTF-8.
    let at = bytes.iter().position(|&b| b == 0xc3).expect("the non-ASCII line");
    bytes[at] = 0xff;
    // A tiny buffer, so the long line arrives in many chunks.
    let reader = std::io::BufReader::with_capacity(16, &bytes[..]);
    let mut lines = BoundedLines::new(reader, 100);
    let mut got = Vec::new();
    while let Some(line) = lines.next_line().expect("reads") {
        if line.0 == 2 {
            // The 2000-byte line was never held: at most the first 100 bytes and a chunk.
            assert!(lines.buf.capacity() <= 128, "buffered {} bytes", lines.buf.capacity());
        }
        got.push(line);
    }
    assert_eq!(got.len(), 5, "{got:?}");
    assert_eq!(got[0], (1, Ok("1 2 3".to_string())));
    assert_eq!(got[1], (2, Err(LineError::TooLong { line: 2, len: 2000, max: 100 })));
    assert!(got[1].1.as_ref().is_err_and(|e| e.to_string().contains("line 2 is 2000 bytes long")));
    assert_eq!(got[2], (3, Ok("end".to_string())));
    assert_eq!(got[3], (4, Err(LineError::NotUtf8 { line: 4 })));
    assert_eq!(got[4], (5, Ok("last".to_string())));
}
