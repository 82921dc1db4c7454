//! Moves: the four directions, their letters in both notations, and the per-size move table the
//! searches walk.

use std::fmt;

use crate::board::{MAX_CELLS, Size};

mod list;
mod prune;

pub use list::{MoveListError, parse_moves};

pub(crate) use prune::{Fsm, PRUNE};

/// A direction the **blank** moves in. The tile that slides moves the opposite way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Dir {
    /// The blank moves up (the tile above it slides down).
    Up = 0,
    /// The blank moves left.
    Left = 1,
    /// The blank moves right.
    Right = 2,
    /// The blank moves down.
    Down = 3,
}

/// How moves are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Notation {
    /// The direction the tile slides (U/D/L/R), as speed-solvers write it. `U` means a tile
    /// slides up into the blank, i.e. the blank moves down.
    #[default]
    Tile,
    /// The direction the blank moves.
    Blank,
}

impl Dir {
    /// All four, in the order the searches try them.
    pub const ALL: [Dir; 4] = [Dir::Up, Dir::Left, Dir::Right, Dir::Down];

    /// The reverse move. The numbering makes this `3 - d`.
    #[inline(always)]
    pub const fn opposite(self) -> Dir {
        Dir::ALL[3 - self as usize]
    }

    /// The cell next to `cell` in this direction, if on the board.
    #[inline]
    pub fn neighbor(self, size: Size, cell: usize) -> Option<usize> {
        let (w, h) = (size.width(), size.height());
        let (r, c) = (cell / w, cell % w);
        match self {
            Dir::Up if r > 0 => Some(cell - w),
            Dir::Down if r + 1 < h => Some(cell + w),
            Dir::Left if c > 0 => Some(cell - 1),
            Dir::Right if c + 1 < w => Some(cell + 1),
            _ => None,
        }
    }

    /// The letter for the blank's direction.
    pub const fn blank_letter(self) -> char {
        match self {
            Dir::Up => 'U',
            Dir::Down => 'D',
            Dir::Left => 'L',
            Dir::Right => 'R',
        }
    }

    /// The letter in `notation`.
    pub const fn letter(self, notation: Notation) -> char {
        match notation {
            Notation::Blank => self.blank_letter(),
            Notation::Tile => self.opposite().blank_letter(),
        }
    }

    /// The move a letter stands for in `notation` (case-insensitive).
    pub fn from_letter(c: char, notation: Notation) -> Option<Dir> {
        let blank = match c.to_ascii_uppercase() {
            'U' => Dir::Up,
            'D' => Dir::Down,
            'L' => Dir::Left,
            'R' => Dir::Right,
            _ => return None,
        };
        Some(match notation {
            Notation::Blank => blank,
            Notation::Tile => blank.opposite(),
        })
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.blank_letter())
    }
}

/// Writes moves as a string of letters.
pub fn format_moves(moves: &[Dir], notation: Notation) -> String {
    moves.iter().map(|d| d.letter(notation)).collect()
}

/// Sentinel for "no neighbour" in a [`MoveTable`].
pub(crate) const NONE: u8 = u8::MAX;

/// For every cell, its neighbour in each [`Dir`] (or [`NONE`]): the searches read this instead
/// of doing row/column arithmetic per node.
#[derive(Clone, Debug)]
pub(crate) struct MoveTable {
    next: [[u8; 4]; MAX_CELLS],
}

impl MoveTable {
    pub(crate) fn new(size: Size) -> MoveTable {
        let mut next = [[NONE; 4]; MAX_CELLS];
        for (cell, slot) in next.iter_mut().enumerate().take(size.cells()) {
            for d in Dir::ALL {
                if let Some(n) = d.neighbor(size, cell) {
                    slot[d as usize] = n as u8;
                }
            }
        }
        MoveTable { next }
    }

    /// Neighbours of `cell` by direction; entries are [`NONE`] off the board.
    #[inline(always)]
    pub(crate) fn of(&self, cell: usize) -> &[u8; 4] {
        &self.next[cell & (MAX_CELLS - 1)]
    }
}
