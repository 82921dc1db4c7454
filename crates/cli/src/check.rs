//! `fifteen check BOARD`: whether the position can reach the goal and why, and what each
//! heuristic estimates.

use std::io::Write;

use fifteen_core::HeuristicKind;

use crate::args::CheckArgs;
use crate::exit;
use crate::heuristics::{available, build_heuristic};
use crate::input;
use crate::show;

/// Runs `fifteen check`.
pub(crate) fn run(args: &CheckArgs) -> anyhow::Result<u8> {
    let (board, goal) = input::board_and_goal(&args.board, &args.board_opts)?;
    let size = board.size();
    let mut out = std::io::stdout().lock();
    writeln!(out, "board ({size}):\n{board}")?;
    writeln!(out, "goal:\n{goal}")?;
    let solvable = board.solvability(&goal);
    match &solvable {
        Ok(()) => {
            let d = size.distance(board.blank(), goal.blank());
            let parity = if d % 2 == 0 { "even" } else { "odd" };
            writeln!(
                out,
                "solvable: yes (the blank is {d} step(s) from its goal cell and the permutation to the goal is {parity}: the parities agree)"
            )?;
        }
        Err(why) => writeln!(out, "solvable: no ({why})")?,
    }
    writeln!(out, "heuristics:")?;
    for kind in HeuristicKind::ALL {
        let name = kind.name();
        if !available(kind, size.cells()) {
            writeln!(out, "  {name:<16} -  (not for {size} boards)")?;
            continue;
        }
        if kind == HeuristicKind::Exact && solvable.is_err() {
            writeln!(out, "  {name:<16} -  (no distance: unsolvable)")?;
            continue;
        }
        match build_heuristic(kind, &goal, &args.pdb) {
            Ok(h) if kind == HeuristicKind::Pdb => {
                writeln!(out, "  {name:<16} {}  ({})", h.estimate(board.cells()), h.name())?;
            }
            Ok(h) => writeln!(out, "  {name:<16} {}", h.estimate(board.cells()))?,
            Err(e) if kind == HeuristicKind::Pdb => writeln!(out, "  {name:<16} -  ({e:#})")?,
            Err(e) => return Err(e),
        }
    }
    if let Some(path) = &args.svg {
        let caption = match &solvable {
            Ok(()) => format!("{size} · solvable"),
            Err(_) => format!("{size} · no solution (parity)"),
        };
        show::board_picture(path, &board, &goal, &caption)?;
    }
    Ok(if solvable.is_ok() { exit::OK } else { exit::UNSOLVABLE })
}
