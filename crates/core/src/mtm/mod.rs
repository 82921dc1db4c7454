//! The multi-tile metric (MTM): sliding a whole line of 1 to `side - 1` tiles toward the blank is
//! one move, as speed-solvers and their simulators count.
//!
//! A move here is a [`Line`]: a direction (the blank's, as everywhere in this crate) and a count.
//! Paths are still stored as single-tile steps ([`Dir`]s) in a [`Solution`](crate::Solution), so
//! that replay, pictures and `--boards` work unchanged; [`lines`] groups a path's steps into
//! lines. Two consecutive lines of an optimal MTM path are never on the same axis (two slides in
//! one row compose to one slide of that row, or to nothing), so the lines of an MTM search's path
//! are exactly the maximal runs of equal steps: the MTM length of any path is its number of runs.
//!
//! Notation ([`format_lines`], [`parse_lines`]): a letter per line slid (in tile or blank
//! notation), followed by the count when it is more than one: `R3D2LU`, or spaced `R3 D2 L U`.
//! A parser of this form also reads moves written out (`RRRDDLU`), each letter a line of one.
//!
//! The searches live in `search` ([`ida_mtm`], [`bfs_mtm`]) and `ida` (IDA* with colour tables),
//! which prunes duplicate paths with `prune` (an automaton over line moves); the admissible MTM
//! heuristics in `wd` (walking distance counting line moves, any board up to a table size),
//! `crossings` (boundaries crossed, any board, no tables), `colour` (tables of a coloured
//! abstraction of the 4x4, built in the MTM metric) and `views` (their regular and dual views,
//! ranked move by move). Boards without an optimal MTM search get beams over line moves ranked by a
//! single-tile heuristic (`beam`).

mod beam;
mod colour;
mod crossings;
mod ida;
mod prune;
mod search;
mod views;
mod wd;

#[cfg(test)]
mod tests;

pub use beam::{MTM_BEAM_MAX_WIDTH, MtmBeamAnswer, anytime_mtm};
pub use colour::{
    COLOUR_PRESET, ColourTable, Colouring, DEFAULT_4X4, DEFAULT_4X4_BLANKS, MAX_CLASSES,
    MAX_COLOUR_CELLS, SPLIT_4X4, SPLIT_PRESET, build_colour_table, colour_file, default_4x4_set,
    split_4x4_set, split_file, table_goal, write_colour_table,
};
pub(crate) use colour::{class_sizes, goal_rank, multinomial};
pub use crossings::Crossings;
pub use search::{MtmHeuristic, MtmHeuristicKind, bfs_mtm, ida_mtm, mtm_lower_bound};
pub use wd::WalkingDistance;

use std::fmt;

use crate::board::{Board, Size};
use crate::moves::{Dir, Notation};

/// How moves are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub enum Metric {
    /// Single-tile moves: each tile slid one cell is one move.
    #[default]
    Stm,
    /// Multi-tile moves: a line of tiles slid toward the blank is one move.
    Mtm,
}

impl Metric {
    /// The command-line and JSON name.
    pub const fn name(self) -> &'static str {
        match self {
            Metric::Stm => "stm",
            Metric::Mtm => "mtm",
        }
    }

    /// The length of `moves` (single-tile steps) in this metric.
    pub fn length(self, moves: &[Dir]) -> usize {
        match self {
            Metric::Stm => moves.len(),
            Metric::Mtm => lines(moves).len(),
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One MTM move: the blank moves `count` cells in `dir`, the tiles between slide the other way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Line {
    /// The blank's direction.
    pub dir: Dir,
    /// How many tiles slide (at least 1).
    pub count: u8,
}

/// The maximal runs of equal steps in `moves`: the MTM moves of the path.
///
/// ```
/// use fifteen_core::{Dir, mtm::lines};
/// let moves = [Dir::Left, Dir::Left, Dir::Up, Dir::Right];
/// assert_eq!(lines(&moves).len(), 3);
/// ```
pub fn lines(moves: &[Dir]) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    for &d in moves {
        match out.last_mut() {
            Some(last) if last.dir == d => last.count += 1,
            _ => out.push(Line { dir: d, count: 1 }),
        }
    }
    out
}

/// The single-tile steps of `lines`.
pub fn expand(lines: &[Line]) -> Vec<Dir> {
    lines.iter().flat_map(|l| std::iter::repeat_n(l.dir, l.count as usize)).collect()
}

/// Writes lines as a letter in `notation` and the count when it is more than one, with no
/// spaces: `R3D2LU`.
pub fn format_lines(lines: &[Line], notation: Notation) -> String {
    let mut s = String::new();
    for l in lines {
        s.push(l.dir.letter(notation));
        if l.count > 1 {
            s.push_str(&l.count.to_string());
        }
    }
    s
}

/// Why an MTM move list does not parse or does not replay. Every variant names the move by its
/// 1-based index.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// A character that is not U, D, L, R, a digit, a space or a comma.
    #[error("move {index} ({found:?}) is not one of the letters U, D, L, R")]
    UnknownLetter {
        /// 1-based move index.
        index: usize,
        /// The character.
        found: char,
    },
    /// A count before any letter.
    #[error("move {index}: the count {count} follows no letter")]
    CountWithoutLetter {
        /// 1-based move index.
        index: usize,
        /// The count as written.
        count: String,
    },
    /// A count of zero.
    #[error("move {index} ({text}): a line of zero tiles is not a move")]
    ZeroCount {
        /// 1-based move index.
        index: usize,
        /// The move as written.
        text: String,
    },
    /// A count larger than any line of the board in that direction.
    #[error("move {index} ({text}): at most {max} tiles of a {size} board slide in that direction")]
    CountTooLarge {
        /// 1-based move index.
        index: usize,
        /// The move as written.
        text: String,
        /// The longest slide on this board in that direction.
        max: usize,
        /// The board's size.
        size: Size,
    },
    /// A move that runs off the board from the position it is played in.
    #[error(
        "move {index} ({text}): only {room} tile(s) can slide that way from this board after {before} move(s):\n{board}"
    )]
    OffBoard {
        /// 1-based move index.
        index: usize,
        /// The move as written.
        text: String,
        /// Tiles that could slide that way.
        room: usize,
        /// Moves played before it.
        before: usize,
        /// The board it was played on.
        board: Board,
    },
}

/// Parses an MTM move list for a `size` board: letters in `notation`, each optionally followed
/// by a count (`R3D2LU`, `R3 D2 L U`, `RRRDDLU`); spaces and commas are ignored. A count must be
/// at least 1 and at most the board's side minus one in that direction.
pub fn parse_lines(text: &str, notation: Notation, size: Size) -> Result<Vec<Line>, LineError> {
    let mut out: Vec<(Line, String)> = Vec::new();
    let mut chars = text.chars().filter(|&c| !c.is_whitespace() && c != ',').peekable();
    while let Some(c) = chars.next() {
        let index = out.len() + 1;
        if c.is_ascii_digit() {
            let mut count = c.to_string();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                count.push(d);
                chars.next();
            }
            return Err(LineError::CountWithoutLetter { index, count });
        }
        let Some(dir) = Dir::from_letter(c, notation) else {
            return Err(LineError::UnknownLetter { index, found: c });
        };
        let mut digits = String::new();
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            digits.push(d);
            chars.next();
        }
        let text = format!("{c}{digits}");
        let max = match dir {
            Dir::Left | Dir::Right => size.width() - 1,
            Dir::Up | Dir::Down => size.height() - 1,
        };
        let count = if digits.is_empty() {
            1
        } else {
            let value = digits.trim_start_matches('0');
            if value.is_empty() {
                return Err(LineError::ZeroCount { index, text });
            }
            match value.parse::<usize>() {
                Ok(n) if n <= max => n,
                _ => return Err(LineError::CountTooLarge { index, text, max, size }),
            }
        };
        out.push((Line { dir, count: count as u8 }, text));
    }
    Ok(out.into_iter().map(|(l, _)| l).collect())
}

/// Replays `lines` from `start`: the board reached and the tiles moved (one per single-tile
/// step), or the first line that runs off the board. `notation` only names the move in the error.
pub fn replay_lines(
    start: &Board,
    lines: &[Line],
    notation: Notation,
) -> Result<(Board, Vec<u8>), LineError> {
    let mut board = start.clone();
    let mut tiles = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let before = board.clone();
        for done in 0..l.count as usize {
            match board.apply(l.dir) {
                Some(t) => tiles.push(t),
                None => {
                    let mut text = l.dir.letter(notation).to_string();
                    if l.count > 1 {
                        text.push_str(&l.count.to_string());
                    }
                    return Err(LineError::OffBoard {
                        index: i + 1,
                        text,
                        room: done,
                        before: i,
                        board: before,
                    });
                }
            }
        }
    }
    Ok((board, tiles))
}
