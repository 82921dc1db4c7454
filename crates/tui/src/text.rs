//! The text versions, for when standard output is not a terminal.

use std::io::{self, Write};

use fifteen_core::{Board, Dir};

use crate::{Advice, Shown};

fn word(tile_dir: Dir) -> &'static str {
    match tile_dir {
        Dir::Up => "up",
        Dir::Down => "down",
        Dir::Left => "left",
        Dir::Right => "right",
    }
}

/// The solution as text: the summary, the start, then each move (`move 3/20: tile 6 slides
/// up`) followed by the board it leads to.
pub fn write_playback(out: &mut dyn Write, shown: &Shown) -> io::Result<()> {
    writeln!(out, "{}", shown.summary)?;
    writeln!(out, "start:\n{}", shown.start)?;
    let mut board = shown.start.clone();
    let n = shown.moves.len();
    for (i, &d) in shown.moves.iter().enumerate() {
        let Some(tile) = board.apply(d) else { break };
        writeln!(out, "\nmove {}/{n}: tile {tile} slides {}\n{board}", i + 1, word(d.opposite()))?;
    }
    if board == shown.goal {
        writeln!(out, "\ngoal reached")?;
    }
    Ok(())
}

/// A position and what the solver says about it: its distance and the next move.
pub fn write_advice(out: &mut dyn Write, board: &Board, advice: &Advice) -> io::Result<()> {
    writeln!(out, "{board}")?;
    match advice {
        Advice::Path { moves, .. } if moves.is_empty() => writeln!(out, "at the goal")?,
        Advice::Path { moves, optimal, lower_bound } => {
            if *optimal {
                writeln!(out, "distance: {} moves (optimal)", moves.len())?;
            } else {
                writeln!(out, "distance: at most {} moves, at least {lower_bound}", moves.len())?;
            }
            let mut next = board.clone();
            if let Some(tile) = next.apply(moves[0]) {
                writeln!(out, "hint: slide tile {tile} {}", word(moves[0].opposite()))?;
            }
        }
        Advice::Unknown { lower_bound, why } => {
            writeln!(out, "distance: at least {lower_bound} moves ({why})")?;
        }
        Advice::Failed(why) => writeln!(out, "distance unknown: {why}")?,
    }
    Ok(())
}
