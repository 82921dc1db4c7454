//! Showing a solution: `fifteen solve --play` (crate `fifteen-tui`), `--svg` and `--gif`, and
//! `fifteen check --svg` (crate `fifteen-picture`). Files are written whole or not at all:
//! into a temporary file beside the target, then renamed.

use std::io::IsTerminal;
use std::path::Path;

use anyhow::Context;
use fifteen_core::{Algorithm, Board, Solution};
use fifteen_picture::{board_svg, strip_svg, write_gif};
use fifteen_tui::{Look, Shown};

use crate::args::SolveArgs;
use crate::output;

/// `66 moves, proven optimal`.
fn summary(solution: &Solution, algorithm: Algorithm) -> String {
    format!("{} moves, {}", solution.len(), output::optimality(solution, algorithm))
}

/// Writes the pictures `--svg` and `--gif` ask for.
pub(crate) fn pictures(
    args: &SolveArgs,
    board: &Board,
    goal: &Board,
    solution: &Solution,
    algorithm: Algorithm,
) -> anyhow::Result<()> {
    if args.svg.is_none() && args.gif.is_none() {
        return Ok(());
    }
    let summary = summary(solution, algorithm);
    let picture =
        fifteen_picture::Solution { start: board, goal, moves: &solution.moves, summary: &summary };
    if let Some(path) = &args.svg {
        write_whole(path, strip_svg(&picture)?.as_bytes())?;
    }
    if let Some(path) = &args.gif {
        let mut bytes = Vec::new();
        write_gif(&picture, &mut bytes)?;
        write_whole(path, &bytes)?;
    }
    Ok(())
}

/// `fifteen check --svg`: the position alone.
pub(crate) fn board_picture(
    path: &Path,
    board: &Board,
    goal: &Board,
    caption: &str,
) -> anyhow::Result<()> {
    write_whole(path, board_svg(board, goal, caption).as_bytes())
}

/// `--play`: the animation on a terminal, else the boards as text.
pub(crate) fn play(
    board: &Board,
    goal: &Board,
    solution: &Solution,
    algorithm: Algorithm,
) -> anyhow::Result<()> {
    let shown = Shown {
        start: board.clone(),
        goal: goal.clone(),
        moves: solution.moves.clone(),
        summary: summary(solution, algorithm),
    };
    if std::io::stdout().is_terminal() {
        fifteen_tui::playback(&shown, Look::from_env()).context("the terminal")?;
    } else {
        fifteen_tui::write_playback(&mut std::io::stdout().lock(), &shown)?;
    }
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
fn write_whole(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let name =
        path.file_name().with_context(|| format!("{} is not a file name", path.display()))?;
    let tmp =
        path.with_file_name(format!(".{}.tmp-{}", name.to_string_lossy(), std::process::id()));
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.with_context(|| format!("cannot write {}", path.display()))
}
