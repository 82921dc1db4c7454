//! Tests of parsing, display and solvability.

use super::*;

#[test]
fn parses_every_pasted_form() {
    let want = Board::from_cells(Size::S3X3, &[1, 0, 2, 4, 6, 3, 7, 5, 8]).unwrap();
    for text in [
        "1 0 2 4 6 3 7 5 8",
        "< 1, 0, 2, 4, 6, 3, 7, 5, 8 >",
        "[1,0,2,4,6,3,7,5,8]",
        "1 _ 2\n4 6 3\n7 5 8\n",
        "1 0 2/4 6 3/7 5 8",
    ] {
        assert_eq!(Board::parse(text, None).unwrap(), want, "{text:?}");
    }
}

#[test]
fn rows_give_rectangular_sizes() {
    let b = Board::parse("1 2 3\n4 5 0", None).unwrap();
    assert_eq!(b.size(), Size::new(3, 2).unwrap());
    let b = Board::parse("1 2 3 4 5 0", Some("3x2".parse().unwrap())).unwrap();
    assert_eq!(b.size().height(), 2);
}

#[test]
fn errors_name_the_problem() {
    let e = |t: &str| Board::parse(t, None).unwrap_err().to_string();
    assert!(e("1 2 3 4 5 6 7 8").contains("not a square"));
    assert!(e("1 1 2 3 4 5 6 7 8").contains("tile 1 is repeated"));
    assert!(e("1 1 2 3 4 5 6 7 8").contains("blank (0) is missing"));
    assert!(e("1 2 x 3 4 5 6 7 0").contains("token 3"));
    assert!(e("1 2 3 4 5 6 7 8 9").contains("out of range"));
    assert!(e("1 2 3\n4 5\n6 7 0").contains("row 2"));
    assert!(e("").contains("empty"));
    assert!(
        Board::parse("1 2 3 4 5 6 7 8 0", Some(Size::S4X4))
            .unwrap_err()
            .to_string()
            .contains("wrong count")
    );
    assert!("9x9".parse::<Size>().is_err());
}

#[test]
fn solvability_parity_for_any_goal() {
    let last = Board::blank_last(Size::S3X3);
    let first = Board::blank_first(Size::S3X3);
    // One swap of two tiles flips solvability.
    let swapped = Board::parse("2 1 3 4 5 6 7 8 0", None).unwrap();
    assert!(swapped.solvability(&last).is_err());
    assert!(last.solvability(&last).is_ok());
    // 0 1 .. 8 and 1 .. 8 0 differ by a cycle of 9 (even) and a blank distance of 4 (even).
    assert!(first.solvability(&last).is_ok());
    // 4x4: the blank's row matters.
    let g = Board::blank_last(Size::S4X4);
    let mut cells = g.cells().to_vec();
    cells.swap(14, 13);
    let b = Board::from_cells(Size::S4X4, &cells).unwrap();
    assert!(b.solvability(&g).is_err());
}

#[test]
fn display_round_trips() {
    let b = Board::blank_last(Size::S4X4);
    assert_eq!(Board::parse(&b.to_string(), None).unwrap(), b);
}

mod never_panics {
    //! Parsing takes whatever people paste: it returns `Ok` or `Err`, never panics.

    use proptest::prelude::*;

    use super::super::*;

    /// A size, or none, from the supported range and a little beyond it.
    fn size() -> impl Strategy<Value = Option<Size>> {
        proptest::option::of((0usize..=10, 0usize..=10)).prop_map(|s| {
            let (w, h) = s?;
            Size::new(w, h).ok()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn on_arbitrary_text(text in ".{0,120}", size in size()) {
            let _ = Board::parse(&text, size);
            if let Some(size) = size {
                let _ = Board::parse_goal(&text, size);
            }
            let _ = text.parse::<Size>();
        }

        #[test]
        fn on_board_like_text(text in "[0-9 ,_./;\n<>()\\[\\]{}xX*-]{0,80}", size in size()) {
            let _ = Board::parse(&text, size);
            let _ = text.parse::<Size>();
        }

        #[test]
        fn on_any_cells(cells in proptest::collection::vec(any::<u8>(), 0..70), size in size()) {
            if let Some(size) = size {
                let _ = Board::from_cells(size, &cells);
            }
        }

        #[test]
        fn display_round_trips_any_permutation(
            cells in Just((0u8..12).collect::<Vec<u8>>()).prop_shuffle(),
        ) {
            let b = Board::from_cells(Size::new(4, 3).unwrap(), &cells).unwrap();
            prop_assert_eq!(Board::parse(&b.to_string(), None).unwrap(), b.clone());
            prop_assert_eq!(Board::parse(&b.to_line(), Some(b.size())).unwrap(), b);
        }
    }
}
