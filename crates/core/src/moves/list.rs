//! Move lists as people type them: letters U, D, L, R in either notation, with spaces and commas
//! between them ignored.
//!
//! `fifteen verify` parses its argument here, so that the parser is part of the core, where a
//! fuzz target (`fuzz/fuzz_targets/move_list.rs`) reaches it without the CLI. The parser only
//! reads letters; whether a move is legal depends on the board and is checked when the list is
//! replayed (`search::replay`, or `Board::apply` one move at a time).
//!
//! Invariant: a parsed list, written back with [`format_moves`](super::format_moves) in the
//! same notation and parsed again, gives the same moves.

use thiserror::Error;

use super::{Dir, Notation};

/// Why a move list cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MoveListError {
    /// A character that is neither a move letter nor a separator.
    #[error("move {index} ({found:?}) is not one of the letters U, D, L, R")]
    NotALetter {
        /// The 1-based index of the move it stands in for.
        index: usize,
        /// The character found.
        found: char,
    },
}

/// The moves in `text`: letters U, D, L, R in `notation`, case-insensitive; whitespace and
/// commas are ignored.
///
/// ```
/// use fifteen_core::{Dir, Notation, parse_moves};
/// let moves = parse_moves("R, d l", Notation::Blank).unwrap();
/// assert_eq!(moves, [Dir::Right, Dir::Down, Dir::Left]);
/// assert!(parse_moves("RX", Notation::Tile).is_err());
/// ```
pub fn parse_moves(text: &str, notation: Notation) -> Result<Vec<Dir>, MoveListError> {
    let mut moves = Vec::new();
    for c in text.chars().filter(|&c| !c.is_whitespace() && c != ',') {
        match Dir::from_letter(c, notation) {
            Some(d) => moves.push(d),
            None => {
                return Err(MoveListError::NotALetter { index: moves.len() + 1, found: c });
            }
        }
    }
    Ok(moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format_moves;

    #[test]
    fn both_notations_read_the_same_letters_the_opposite_way() {
        let tile = parse_moves("UDLR", Notation::Tile).unwrap();
        let blank = parse_moves("udlr", Notation::Blank).unwrap();
        assert_eq!(tile.len(), 4);
        for (t, b) in tile.iter().zip(&blank) {
            assert_eq!(t.opposite(), *b);
        }
    }

    #[test]
    fn separators_are_ignored_and_empty_is_no_moves() {
        assert_eq!(parse_moves(" ,\t\n", Notation::Tile), Ok(vec![]));
        assert_eq!(
            parse_moves("L, L\tU", Notation::Blank),
            Ok(vec![Dir::Left, Dir::Left, Dir::Up])
        );
    }

    #[test]
    fn a_bad_character_is_named_with_its_move_index() {
        assert_eq!(
            parse_moves("LU, X", Notation::Tile),
            Err(MoveListError::NotALetter { index: 3, found: 'X' })
        );
        assert_eq!(
            parse_moves("é", Notation::Tile),
            Err(MoveListError::NotALetter { index: 1, found: 'é' })
        );
    }

    #[test]
    fn written_back_and_read_again_gives_the_same_moves() {
        for notation in [Notation::Tile, Notation::Blank] {
            let moves = parse_moves("uurrddllRDLU", notation).unwrap();
            let text = format_moves(&moves, notation);
            assert_eq!(parse_moves(&text, notation), Ok(moves));
        }
    }
}
