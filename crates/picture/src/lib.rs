//! `fifteen-picture`: pictures of boards and solutions, for `fifteen solve --svg / --gif`.
//!
//! - [`board_svg`]: one board with a caption (the start position);
//! - [`strip_svg`]: the solution as a strip of boards, wrapped into rows, each captioned with
//!   its move number, the tile moved and its direction;
//! - [`write_gif`]: the solution animated, each tile sliding in a few frames, with the move
//!   count on every frame.
//!
//! Both formats draw the same picture: tiles numbered in large type, the blank as an empty
//! darker cell, tiles already on their goal cell in green. The SVG is composed with the `svg`
//! crate (which escapes text), and the GIF frames are drawn with `embedded-graphics` (shapes
//! and its 10x20 bitmap font, doubled for the tile numbers) and encoded with the `gif` crate,
//! each frame reduced to the rectangle that changed. No font file is needed, so the pictures
//! look the same everywhere.

mod gif_anim;
mod svg_strip;

use fifteen_core::{Board, Dir};

pub use gif_anim::write_gif;
pub use svg_strip::{board_svg, strip_svg};

/// A solution to draw.
#[derive(Clone, Copy, Debug)]
pub struct Solution<'a> {
    /// The start.
    pub start: &'a Board,
    /// The goal.
    pub goal: &'a Board,
    /// The blank's moves.
    pub moves: &'a [Dir],
    /// A line such as `66 moves, proven optimal`, drawn at the top.
    pub summary: &'a str,
}

/// Why a picture could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PictureError {
    /// The GIF encoder failed (for example, the output could not be written).
    #[error("cannot write the GIF: {0}")]
    Gif(#[from] gif::EncodingError),
    /// A move leaves the board.
    #[error("move {0} leaves the board")]
    IllegalMove(usize),
}

/// RGB colors shared by both formats.
pub(crate) mod colors {
    pub(crate) const BACKGROUND: [u8; 3] = [0xf6, 0xf4, 0xef];
    pub(crate) const FRAME: [u8; 3] = [0xc9, 0xc2, 0xb3];
    pub(crate) const BLANK: [u8; 3] = [0xa8, 0x9f, 0x8c];
    pub(crate) const TILE: [u8; 3] = [0x2f, 0x6d, 0xb5];
    pub(crate) const HOME: [u8; 3] = [0x2d, 0x8a, 0x4e];
    pub(crate) const MOVING: [u8; 3] = [0xe0, 0x9a, 0x00];
    pub(crate) const NUMBER: [u8; 3] = [0xff, 0xff, 0xff];
    pub(crate) const INK: [u8; 3] = [0x1d, 0x24, 0x30];

    pub(crate) fn hex(c: [u8; 3]) -> String {
        format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
    }
}

/// The word for the direction a tile slides when the blank moves `d`.
pub(crate) fn tile_word(d: Dir) -> &'static str {
    match d.opposite() {
        Dir::Up => "up",
        Dir::Down => "down",
        Dir::Left => "left",
        Dir::Right => "right",
    }
}

/// The boards along `moves` from `start` and the tile moved at each step.
pub(crate) fn boards(start: &Board, moves: &[Dir]) -> Result<(Vec<Board>, Vec<u8>), PictureError> {
    let mut boards = vec![start.clone()];
    let mut tiles = Vec::with_capacity(moves.len());
    for (i, &d) in moves.iter().enumerate() {
        let mut b = boards[boards.len() - 1].clone();
        tiles.push(b.apply(d).ok_or(PictureError::IllegalMove(i + 1))?);
        boards.push(b);
    }
    Ok((boards, tiles))
}

#[cfg(test)]
mod tests;
