//! Reading boards, goals and sizes from the command line, with the context the messages need.

use anyhow::Context;
use fifteen_core::{Board, Size};

use crate::args::BoardOpts;

/// `--size`, if given.
pub(crate) fn size(text: Option<&str>) -> anyhow::Result<Option<Size>> {
    text.map(|s| s.parse::<Size>().context("bad --size")).transpose()
}

/// A board from one or more command-line words (joined with spaces).
pub(crate) fn board(words: &[String], size: Option<Size>) -> anyhow::Result<Board> {
    let text = words.join(" ");
    Board::parse(&text, size).with_context(|| format!("bad board {:?}", text.trim()))
}

/// The goal for boards of `size`.
pub(crate) fn goal(text: &str, size: Size) -> anyhow::Result<Board> {
    Board::parse_goal(text, size).with_context(|| format!("bad goal {:?}", text.trim()))
}

/// The board and goal of a command that takes one board.
pub(crate) fn board_and_goal(words: &[String], opts: &BoardOpts) -> anyhow::Result<(Board, Board)> {
    let board = board(words, size(opts.size.as_deref())?)?;
    let goal = goal(&opts.goal, board.size())?;
    Ok((board, goal))
}
