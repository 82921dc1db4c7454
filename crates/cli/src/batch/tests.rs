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
