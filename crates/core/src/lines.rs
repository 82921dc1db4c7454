//! Files of positions, one per line, as `fifteen solve --input` reads them: the line reader
//! ([`BoundedLines`]) and the line format ([`parse_position_line`]).
//!
//! The reader never holds more than a bounded number of bytes of a line, whatever the input:
//! a longer line is skipped in chunks and reported as [`LineError::TooLong`], so a batch of
//! millions of lines, or one endless line, runs in bounded memory. A line that is not UTF-8 is
//! reported too; neither ends the reading.
//!
//! A line holds a board in any form [`Board::parse`] reads, optionally after an instance id (a
//! number or a word such as `H01`: one token more than the board's cells), or an id and the
//! optimal length (two more, as in Korf's `korf100.txt`). `#` starts a comment; a blank or
//! comment-only line is no position.

use std::io::BufRead;

use crate::board::{Board, ParseError, Size};

/// Why a line of the input is unusable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// Longer than the reader's limit: skipped without being held.
    #[error("line {line} is {len} bytes long, over the limit of {max} bytes; it was skipped")]
    TooLong {
        /// 1-based line number.
        line: usize,
        /// Its length in bytes (saturating).
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Not UTF-8 text.
    #[error("line {line} is not UTF-8 text")]
    NotUtf8 {
        /// 1-based line number.
        line: usize,
    },
}

/// Lines of at most `max` bytes from a reader, numbered from 1.
#[derive(Debug)]
pub struct BoundedLines<R> {
    input: R,
    max: usize,
    line: usize,
    buf: Vec<u8>,
}

impl<R: BufRead> BoundedLines<R> {
    /// Lines of `input`, each of at most `max` bytes (without its newline).
    pub fn new(input: R, max: usize) -> BoundedLines<R> {
        BoundedLines { input, max, line: 0, buf: Vec::new() }
    }

    /// The next line's number and text (or why it is unusable); `None` at the end. Only an
    /// error of the reader itself is an `Err`.
    pub fn next_line(&mut self) -> std::io::Result<Option<(usize, Result<String, LineError>)>> {
        self.buf.clear();
        let (mut len, mut any) = (0usize, false);
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                if !any {
                    return Ok(None);
                }
                break;
            }
            any = true;
            let (take, end) = match chunk.iter().position(|&b| b == b'\n') {
                Some(p) => (p + 1, true),
                None => (chunk.len(), false),
            };
            let content = if end { take - 1 } else { take };
            len = len.saturating_add(content);
            if len <= self.max {
                self.buf.extend_from_slice(&chunk[..content]);
            }
            self.input.consume(take);
            if end {
                break;
            }
        }
        self.line += 1;
        let line = self.line;
        let text = if len > self.max {
            Err(LineError::TooLong { line, len, max: self.max })
        } else {
            String::from_utf8(std::mem::take(&mut self.buf))
                .map_err(|_| LineError::NotUtf8 { line })
        };
        Ok(Some((line, text)))
    }
}

/// One position of a file of positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionLine {
    /// The instance id at the start of the line, if any.
    pub id: Option<String>,
    /// The optimal length given after the id, if any.
    pub expected: Option<u32>,
    /// The board, or why the rest of the line is not one.
    pub board: Result<Board, ParseError>,
}

/// Reads one line of a file of positions (boards of `size`, or square boards if `None`):
/// `None` if it is blank or a comment.
///
/// ```
/// use fifteen_core::parse_position_line;
/// let line = parse_position_line("H01 80 15 11 8 12 14 10 9 13 2 6 1 4 3 7 5 0", None).unwrap();
/// assert_eq!((line.id.as_deref(), line.expected), (Some("H01"), Some(80)));
/// assert!(line.board.is_ok());
/// assert!(parse_position_line("  # a comment", None).is_none());
/// ```
pub fn parse_position_line(text: &str, size: Option<Size>) -> Option<PositionLine> {
    let content = text.split('#').next().unwrap_or_default();
    if content.trim().is_empty() {
        return None;
    }
    let tokens: Vec<&str> =
        content.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()).collect();
    let is_cell = |t: &&str| t.parse::<u64>().is_ok() || *t == "_";
    let is_board = |k: usize| match size {
        Some(s) => k == s.cells(),
        None => Size::square_of(k).is_some(),
    };
    let is_id =
        |t: &str| t != "_" && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    let (mut id, mut expected, mut body) = (None, None, content.to_string());
    let n = tokens.len();
    if n >= 2 && !is_board(n) && is_id(tokens[0]) && tokens[2..].iter().all(is_cell) {
        if is_board(n - 1) && is_cell(&tokens[1]) {
            id = Some(tokens[0].to_string());
            body = tokens[1..].join(" ");
        } else if n >= 3
            && is_board(n - 2)
            && let Ok(e) = tokens[1].parse::<u32>()
        {
            id = Some(tokens[0].to_string());
            expected = Some(e);
            body = tokens[2..].join(" ");
        }
    }
    Some(PositionLine { id, expected, board: Board::parse(&body, size) })
}

#[cfg(test)]
mod tests;
