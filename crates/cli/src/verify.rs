//! `fifteen verify BOARD MOVES`: replays a move list and says whether it reaches the goal.

use std::io::Write;

use fifteen_core::{Dir, Notation, parse_moves};

use crate::args::VerifyArgs;
use crate::exit::{self, BadInput};
use crate::input;

/// Runs `fifteen verify`.
pub(crate) fn run(args: &VerifyArgs) -> anyhow::Result<u8> {
    let (start, goal) = input::board_and_goal(std::slice::from_ref(&args.board), &args.board_opts)?;
    let notation = args.notation.notation();
    let moves = parse_moves(&args.moves, notation).map_err(|e| BadInput(e.to_string()))?;
    let mut out = std::io::stdout().lock();
    let mut board = start.clone();
    let mut tiles = Vec::with_capacity(moves.len());
    for (i, &d) in moves.iter().enumerate() {
        match board.apply(d) {
            Some(tile) => tiles.push(tile),
            None => {
                let letter = d.letter(notation);
                let why = match notation {
                    Notation::Tile => format!("no tile can slide {}", word(d.opposite())),
                    Notation::Blank => format!("the blank cannot move {}", word(d)),
                };
                writeln!(
                    out,
                    "illegal move {} ({letter}): {why} from this board after {i} move(s):\n{board}",
                    i + 1
                )?;
                return Ok(exit::FAILED);
            }
        }
    }
    if board == goal {
        writeln!(out, "reaches the goal: {} moves", moves.len())?;
        writeln!(out, "tiles: {}", crate::output::join(&tiles))?;
        Ok(exit::OK)
    } else {
        writeln!(
            out,
            "does not reach the goal: after {} moves the board is\n{board}",
            moves.len()
        )?;
        Ok(exit::FAILED)
    }
}

/// The direction as a word.
fn word(d: Dir) -> &'static str {
    match d {
        Dir::Up => "up",
        Dir::Down => "down",
        Dir::Left => "left",
        Dir::Right => "right",
    }
}
