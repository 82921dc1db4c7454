//! Reading batch lines.

use fifteen_core::Size;

use super::parse_line;

#[test]
fn plain_board() {
    let item = parse_line(3, "1 2 3 4 5 6 7 8 0", None).expect("an item");
    assert_eq!((item.line, item.id, item.expected), (3, None, None));
    assert_eq!(item.board.expect("a board").size(), Size::S3X3);
}

#[test]
fn id_and_expected_length() {
    let item = parse_line(1, "7 1 2 3 4 5 6 7 8 0", None).expect("an item");
    assert_eq!((item.id, item.expected), (Some("7".to_string()), None));
    let item = parse_line(1, "55 41 13 8 14 3 9 1 0 7 15 5 4 10 12 2 6 11", None).expect("an item");
    assert_eq!((item.id, item.expected), (Some("55".to_string()), Some(41)));
    assert_eq!(item.board.expect("a board").size(), Size::S4X4);
    // With --size the count decides: 3x4 has 12 cells, so 13 numbers start with an id.
    let size = Size::new(3, 4).ok();
    let item = parse_line(1, "9 1 2 3 4 5 6 7 8 9 10 11 0", size).expect("an item");
    assert_eq!(item.id.as_deref(), Some("9"));
    // Word ids, as in hardest15.txt.
    let item =
        parse_line(1, "H01 80 15 11 8 12 14 10 9 13 2 6 1 4 3 7 5 0", None).expect("an item");
    assert_eq!((item.id.as_deref(), item.expected), (Some("H01"), Some(80)));
    assert!(item.board.is_ok());
}

#[test]
fn comments_and_blank_lines_are_skipped() {
    assert!(parse_line(1, "", None).is_none());
    assert!(parse_line(1, "   # a comment", None).is_none());
    let item = parse_line(1, "1 2 3 4 5 6 7 8 0 # solved", None).expect("an item");
    assert!(item.board.is_ok());
}

#[test]
fn bad_lines_keep_the_reason() {
    let item = parse_line(2, "1 2 x 4", None).expect("an item");
    assert!(item.board.expect_err("not a board").contains("\"x\""));
    let item = parse_line(2, "1 2 3 / 4 0 5", None).expect("an item");
    assert!(item.board.is_ok());
}

#[test]
fn lines_are_capped_without_buffering_them_whole() {
    use super::Lines;
    let long = "7 ".repeat(1000);
    let text = format!("1 2 3\n{long}\nend\n\u{ff}\u{fe}\nlast");
    let mut bytes = text.into_bytes();
    // Line 4: invalid UTF-8.
    let at = bytes.iter().position(|&b| b == 0xc3).expect("the non-ASCII line");
    bytes[at] = 0xff;
    // A tiny buffer, so the long line arrives in many chunks.
    let reader = std::io::BufReader::with_capacity(16, &bytes[..]);
    let mut lines = Lines::new(reader, 100);
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
    let (n, e) = &got[1];
    assert_eq!(*n, 2);
    assert!(e.as_ref().is_err_and(|e| e.contains("line 2 is 2000 bytes long")), "{e:?}");
    assert_eq!(got[2], (3, Ok("end".to_string())));
    assert!(got[3].1.as_ref().is_err_and(|e| e.contains("not UTF-8")), "{:?}", got[3]);
    assert_eq!(got[4], (5, Ok("last".to_string())));
}
