//! Boards of any size from 2x2 to 8x8: the [`Size`], the [`Board`] itself, parsing of what people
//! paste, display, and the exact solvability rule.
//!
//! A board is a list of cells in row-major order; each cell holds a tile number, `0` being the
//! blank. A `Board` can only be built valid (every tile `0..W*H` exactly once), so nothing
//! downstream re-checks it.

use std::fmt;
use std::str::FromStr;

/// Smallest supported width or height.
pub const MIN_SIDE: u8 = 2;
/// Largest supported width or height (64 cells keep every tile in a `u8` and a board in one cache line).
pub const MAX_SIDE: u8 = 8;
/// Largest number of cells a board can have.
pub const MAX_CELLS: usize = (MAX_SIDE as usize) * (MAX_SIDE as usize);

/// Width and height of a board, each between [`MIN_SIDE`] and [`MAX_SIDE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Size {
    width: u8,
    height: u8,
}

impl Size {
    /// The 3x3 board (the 8-puzzle).
    pub const S3X3: Size = Size { width: 3, height: 3 };
    /// The 4x4 board (the 15-puzzle).
    pub const S4X4: Size = Size { width: 4, height: 4 };
    /// The 5x5 board (the 24-puzzle).
    pub const S5X5: Size = Size { width: 5, height: 5 };

    /// A size of `width` columns and `height` rows.
    ///
    /// ```
    /// use fifteen_core::Size;
    /// assert_eq!(Size::new(3, 4).unwrap().cells(), 12);
    /// assert!(Size::new(1, 4).is_err());
    /// ```
    pub fn new(width: usize, height: usize) -> Result<Size, ParseError> {
        let ok = |s: usize| (MIN_SIDE as usize..=MAX_SIDE as usize).contains(&s);
        if ok(width) && ok(height) {
            Ok(Size { width: width as u8, height: height as u8 })
        } else {
            Err(ParseError::SizeOutOfRange { width, height })
        }
    }

    /// The square size with `cells` cells, if `cells` is a supported square (4, 9, 16, ... 64).
    pub fn square_of(cells: usize) -> Option<Size> {
        let side = (1..=MAX_SIDE as usize).find(|s| s * s == cells)?;
        Size::new(side, side).ok()
    }

    /// Number of columns.
    #[inline(always)]
    pub const fn width(self) -> usize {
        self.width as usize
    }

    /// Number of rows.
    #[inline(always)]
    pub const fn height(self) -> usize {
        self.height as usize
    }

    /// Number of cells (and of tiles, counting the blank).
    #[inline(always)]
    pub const fn cells(self) -> usize {
        self.width as usize * self.height as usize
    }

    /// Row of `cell`.
    #[inline(always)]
    pub const fn row(self, cell: usize) -> usize {
        cell / self.width as usize
    }

    /// Column of `cell`.
    #[inline(always)]
    pub const fn col(self, cell: usize) -> usize {
        cell % self.width as usize
    }

    /// Taxicab distance between two cells.
    #[inline(always)]
    pub const fn distance(self, a: usize, b: usize) -> usize {
        self.row(a).abs_diff(self.row(b)) + self.col(a).abs_diff(self.col(b))
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

impl FromStr for Size {
    type Err = ParseError;

    /// Parses `WxH` (also `W*H` or `WXH`) or a single side `N` for a square.
    fn from_str(s: &str) -> Result<Size, ParseError> {
        let s = s.trim();
        let bad = || ParseError::BadSize { text: s.to_string() };
        let mut parts = s.split(['x', 'X', '*']);
        let w: usize = parts.next().ok_or_else(bad)?.trim().parse().map_err(|_| bad())?;
        let h: usize = match parts.next() {
            Some(h) => h.trim().parse().map_err(|_| bad())?,
            None => w,
        };
        if parts.next().is_some() {
            return Err(bad());
        }
        Size::new(w, h)
    }
}

/// Why a text is not a board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// Nothing but separators.
    #[error("empty board: expected {expected} numbers")]
    Empty {
        /// How many numbers a board needs, if the size is known.
        expected: String,
    },
    /// A token that is not a number, `_` or a separator.
    #[error("token {index} ({token:?}) is not a tile number")]
    BadToken {
        /// The token as written.
        token: String,
        /// 1-based position of the token.
        index: usize,
    },
    /// A size outside 2x2..=8x8.
    #[error("size {width}x{height} is out of range: width and height must each be 2 to 8")]
    SizeOutOfRange {
        /// Requested width.
        width: usize,
        /// Requested height.
        height: usize,
    },
    /// A size that does not parse.
    #[error("size {text:?} is not of the form WxH (for example 4x4 or 3x5)")]
    BadSize {
        /// The text given.
        text: String,
    },
    /// The number count is not a square and no size was given.
    #[error(
        "{found} numbers is not a square board (4, 9, 16, 25 ... 64 numbers); give rows on separate lines or pass --size WxH"
    )]
    NotSquare {
        /// How many numbers were found.
        found: usize,
    },
    /// The rows given have different lengths.
    #[error("row {row} has {found} numbers but row 1 has {expected}")]
    RaggedRows {
        /// 1-based row number.
        row: usize,
        /// Its length.
        found: usize,
        /// The first row's length.
        expected: usize,
    },
    /// The row layout contradicts the size given.
    #[error("the rows given form a {found} board but the size is {expected}")]
    ShapeMismatch {
        /// Shape of the rows given.
        found: Size,
        /// Size requested.
        expected: Size,
    },
    /// Wrong number of numbers for the size.
    #[error("wrong count: a {size} board has {expected} cells but {found} numbers were given")]
    WrongCount {
        /// The board size.
        size: Size,
        /// Cells expected.
        expected: usize,
        /// Numbers found.
        found: usize,
    },
    /// A number larger than the largest tile.
    #[error("tile {tile} at position {index} is out of range: a {size} board has tiles 0 to {max}")]
    TileOutOfRange {
        /// The tile.
        tile: usize,
        /// 1-based position.
        index: usize,
        /// The board size.
        size: Size,
        /// Largest tile.
        max: usize,
    },
    /// The same tile twice.
    #[error("tile {tile} is repeated (positions {first} and {second}){}", missing_note(.missing))]
    Duplicate {
        /// The tile.
        tile: u8,
        /// 1-based position of its first occurrence.
        first: usize,
        /// 1-based position of its second occurrence.
        second: usize,
        /// A tile that is missing as a consequence, if any.
        missing: Option<u8>,
    },
}

fn missing_note(missing: &Option<u8>) -> String {
    match missing {
        Some(0) => "; the blank (0) is missing".to_string(),
        Some(t) => format!("; tile {t} is missing"),
        None => String::new(),
    }
}

/// A valid board: every tile `0..size.cells()` appears exactly once; `0` is the blank.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    size: Size,
    cells: Vec<u8>,
}

impl Board {
    /// A board from row-major cells.
    ///
    /// ```
    /// use fifteen_core::{Board, Size};
    /// let b = Board::from_cells(Size::S3X3, &[1, 2, 3, 4, 5, 6, 7, 8, 0]).unwrap();
    /// assert_eq!(b.blank(), 8);
    /// assert!(Board::from_cells(Size::S3X3, &[1, 1, 3, 4, 5, 6, 7, 8, 0]).is_err());
    /// ```
    pub fn from_cells(size: Size, cells: &[u8]) -> Result<Board, ParseError> {
        let n = size.cells();
        if cells.len() != n {
            return Err(ParseError::WrongCount { size, expected: n, found: cells.len() });
        }
        let mut seen = [0usize; MAX_CELLS];
        for (i, &t) in cells.iter().enumerate() {
            let t = t as usize;
            if t >= n {
                return Err(ParseError::TileOutOfRange { tile: t, index: i + 1, size, max: n - 1 });
            }
            if seen[t] != 0 {
                let missing = (0..n).find(|&m| seen[m] == 0 && !cells[i..].contains(&(m as u8)));
                return Err(ParseError::Duplicate {
                    tile: t as u8,
                    first: seen[t],
                    second: i + 1,
                    missing: missing.map(|m| m as u8),
                });
            }
            seen[t] = i + 1;
        }
        Ok(Board { size, cells: cells.to_vec() })
    }

    /// The goal with tiles `1..N-1` in order and the blank last (bottom right).
    pub fn blank_last(size: Size) -> Board {
        let n = size.cells();
        let cells = (1..n as u8).chain(std::iter::once(0)).collect();
        Board { size, cells }
    }

    /// The goal with the blank first (top left) and tile `p` on cell `p` (Korf's goal).
    pub fn blank_first(size: Size) -> Board {
        Board { size, cells: (0..size.cells() as u8).collect() }
    }

    /// Parses a board as people paste it: numbers separated by spaces and/or commas, optionally in
    /// `< >` or `[ ]`; rows on separate lines or separated by `/`; `0` or `_` for the blank.
    ///
    /// The size is `size` if given, else the shape of the rows (when there are several rows of
    /// equal length), else the square with that many cells.
    ///
    /// ```
    /// use fifteen_core::Board;
    /// let a = Board::parse("< 1, 0, 2, 4, 6, 3, 7, 5, 8 >", None).unwrap();
    /// let b = Board::parse("1 _ 2/4 6 3/7 5 8", None).unwrap();
    /// assert_eq!(a, b);
    /// ```
    pub fn parse(text: &str, size: Option<Size>) -> Result<Board, ParseError> {
        let mut rows: Vec<Vec<u8>> = Vec::new();
        let mut index = 0;
        for line in text.split(['\n', '/', ';']) {
            let mut row = Vec::new();
            let line = line.trim().trim_matches(['<', '>', '[', ']', '(', ')', '{', '}']);
            for token in line.split(|c: char| c.is_whitespace() || c == ',') {
                let token = token.trim_matches(['<', '>', '[', ']', '(', ')', '{', '}']);
                if token.is_empty() {
                    continue;
                }
                index += 1;
                let value = if token == "_" || token == "." {
                    0
                } else {
                    match token.parse::<usize>() {
                        Ok(v) if v <= 255 => v as u8,
                        Ok(v) => {
                            let size = size.unwrap_or(Size { width: 8, height: 8 });
                            return Err(ParseError::TileOutOfRange {
                                tile: v,
                                index,
                                size,
                                max: size.cells() - 1,
                            });
                        }
                        Err(_) => {
                            return Err(ParseError::BadToken { token: token.to_string(), index });
                        }
                    }
                };
                row.push(value);
            }
            if !row.is_empty() {
                rows.push(row);
            }
        }
        let cells: Vec<u8> = rows.concat();
        if cells.is_empty() {
            let expected =
                size.map_or_else(|| "4, 9, 16 ...".to_string(), |s| s.cells().to_string());
            return Err(ParseError::Empty { expected });
        }
        let shape = if rows.len() > 1 {
            let width = rows[0].len();
            if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != width) {
                return Err(ParseError::RaggedRows { row: i + 1, found: r.len(), expected: width });
            }
            Some(Size::new(width, rows.len())?)
        } else {
            None
        };
        let size = match (size, shape) {
            (Some(s), Some(shape)) if s != shape => {
                return Err(ParseError::ShapeMismatch { found: shape, expected: s });
            }
            (Some(s), _) => s,
            (None, Some(shape)) => shape,
            (None, None) => {
                Size::square_of(cells.len()).ok_or(ParseError::NotSquare { found: cells.len() })?
            }
        };
        Board::from_cells(size, &cells)
    }

    /// Parses a goal: `blank-last`, `blank-first`, or an arrangement as in [`Board::parse`].
    pub fn parse_goal(text: &str, size: Size) -> Result<Board, ParseError> {
        match text.trim() {
            "blank-last" | "last" => Ok(Board::blank_last(size)),
            "blank-first" | "first" => Ok(Board::blank_first(size)),
            other => Board::parse(other, Some(size)),
        }
    }

    /// The board's size.
    #[inline]
    pub fn size(&self) -> Size {
        self.size
    }

    /// The tiles, row-major, `0` for the blank.
    #[inline]
    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    /// The blank's cell.
    pub fn blank(&self) -> usize {
        self.position(0)
    }

    /// The cell holding `tile`.
    pub fn position(&self, tile: u8) -> usize {
        self.cells.iter().position(|&t| t == tile).unwrap_or(0)
    }

    /// Cell of each tile: `positions()[t]` is where tile `t` is.
    pub fn positions(&self) -> Vec<u8> {
        let mut pos = vec![0u8; self.cells.len()];
        for (cell, &t) in self.cells.iter().enumerate() {
            pos[t as usize] = cell as u8;
        }
        pos
    }

    /// Swaps the blank with its neighbour in `dir` (the blank's direction), if there is one.
    pub fn apply(&mut self, dir: crate::Dir) -> Option<u8> {
        let blank = self.blank();
        let to = dir.neighbor(self.size, blank)?;
        let tile = self.cells[to];
        self.cells.swap(blank, to);
        Some(tile)
    }

    /// One line: the cells separated by spaces.
    pub fn to_line(&self) -> String {
        let mut s = String::with_capacity(self.cells.len() * 3);
        for (i, t) in self.cells.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(&t.to_string());
        }
        s
    }

    /// Whether `self` can reach `goal`, and why not.
    ///
    /// The exact rule for every W x H: treat the blank as a tile; the permutation taking `self`
    /// to `goal` must have the same parity as the taxicab distance between the two blank cells,
    /// since each move is one transposition and moves the blank one step.
    ///
    /// ```
    /// use fifteen_core::{Board, Size};
    /// let goal = Board::blank_last(Size::S3X3);
    /// let swapped = Board::parse("2 1 3 4 5 6 7 8 0", None).unwrap();
    /// assert!(swapped.solvability(&goal).is_err());
    /// ```
    pub fn solvability(&self, goal: &Board) -> Result<(), Unsolvable> {
        if self.size != goal.size {
            return Err(Unsolvable::SizeMismatch { board: self.size, goal: goal.size });
        }
        let n = self.cells.len();
        let goal_pos = goal.positions();
        // perm[cell] = where the tile on `cell` must go.
        let perm: Vec<usize> = self.cells.iter().map(|&t| goal_pos[t as usize] as usize).collect();
        let mut seen = vec![false; n];
        let mut transpositions = 0usize;
        for start in 0..n {
            if seen[start] {
                continue;
            }
            let mut len = 0;
            let mut c = start;
            while !seen[c] {
                seen[c] = true;
                c = perm[c];
                len += 1;
            }
            transpositions += len - 1;
        }
        let blank_distance = self.size.distance(self.blank(), goal.blank());
        if transpositions % 2 == blank_distance % 2 {
            Ok(())
        } else {
            Err(Unsolvable::Parity {
                permutation: if transpositions.is_multiple_of(2) { "even" } else { "odd" },
                blank_distance,
            })
        }
    }
}

/// Why a board cannot reach a goal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unsolvable {
    /// Different sizes.
    #[error("the board is {board} but the goal is {goal}")]
    SizeMismatch {
        /// The board's size.
        board: Size,
        /// The goal's size.
        goal: Size,
    },
    /// The parity invariant differs.
    #[error(
        "no solution: the permutation to the goal is {permutation} but the blank is {blank_distance} step(s) from its goal cell; every move changes both parities, so they can never agree"
    )]
    Parity {
        /// "even" or "odd".
        permutation: &'static str,
        /// Taxicab distance between the blank's cell and its goal cell.
        blank_distance: usize,
    },
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({} {})", self.size, self.to_line())
    }
}

/// A grid: one row per line, numbers right-aligned, the blank as `0` so the output parses back.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = (self.cells.len() - 1).to_string().len();
        for (r, row) in self.cells.chunks(self.size.width()).enumerate() {
            if r > 0 {
                writeln!(f)?;
            }
            for (i, t) in row.iter().enumerate() {
                if i > 0 {
                    write!(f, " ")?;
                }
                write!(f, "{t:>width$}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
