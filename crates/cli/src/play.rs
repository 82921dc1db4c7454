//! `fifteen play [BOARD]`: the game of `fifteen-tui`, with the solver of `service` behind its
//! distances and hints.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::Context;
use fifteen_core::{Board, Size};
use fifteen_serve::Budget;
use fifteen_tui::{Advice, Advisor, Look};

use crate::args::PlayArgs;
use crate::exit;
use crate::input;
use crate::random::{self, SplitMix64};
use crate::service::Service;
use crate::solve::no_solution;

/// The solver as the game's advisor: each position solved within `time`.
struct Hints {
    service: Arc<Service>,
    goal: Board,
    time: Duration,
}

impl Advisor for Hints {
    fn advise(&self, board: &Board, cancel: Arc<AtomicBool>) -> Advice {
        let budget = Budget { deadline: Instant::now() + self.time, max_nodes: None, cancel };
        match self.service.answer(board, &self.goal, &budget) {
            Ok(answer) => match answer.solution {
                Some(s) => {
                    let len = s.len() as u32;
                    let lower_bound = if s.optimal {
                        len
                    } else {
                        answer.record.lower_bound.unwrap_or(s.initial_h)
                    };
                    Advice::Path { moves: s.moves, optimal: s.optimal, lower_bound }
                }
                None if answer.record.status == "limit" => Advice::Unknown {
                    lower_bound: answer.record.lower_bound.unwrap_or(0),
                    why: answer.record.error.unwrap_or_default(),
                },
                None => Advice::Failed(answer.record.error.unwrap_or_default()),
            },
            Err(e) => Advice::Failed(format!("{e:#}")),
        }
    }
}

/// The position to play: the one given, or a random one.
fn position(args: &PlayArgs) -> anyhow::Result<(Board, Board)> {
    if !args.board.is_empty() {
        return input::board_and_goal(&args.board, &args.board_opts);
    }
    let size: Size =
        args.board_opts.size.as_deref().unwrap_or("4x4").parse().context("bad --size")?;
    let goal = input::goal(&args.board_opts.goal, size)?;
    let mut rng = SplitMix64::new(args.seed.unwrap_or_else(random::clock_seed));
    let board = match args.moves {
        Some(m) => random::walk(&goal, m, &mut rng),
        None => random::uniform(&goal, &mut rng)?,
    };
    Ok((board, goal))
}

/// Runs `fifteen play`.
pub(crate) fn run(args: &PlayArgs) -> anyhow::Result<u8> {
    let (board, goal) = position(args)?;
    let mut out = std::io::stdout();
    if let Err(why) = board.solvability(&goal) {
        writeln!(out, "{}", no_solution(&why))?;
        return Ok(exit::UNSOLVABLE);
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let service = Arc::new(Service::new(threads, &args.pdb)?);
    // Databases are loaded (or built, with a progress bar) before the screen takes over.
    service.heuristic(&goal)?;
    let hints = Hints { service, goal: goal.clone(), time: args.hint_time };
    if !out.is_terminal() {
        let advice = hints.advise(&board, Arc::new(AtomicBool::new(false)));
        fifteen_tui::write_advice(&mut out.lock(), &board, &advice)?;
        return Ok(exit::OK);
    }
    let (moves, solved) = fifteen_tui::play(board, goal, Arc::new(hints), Look::from_env())
        .context("the terminal")?;
    if solved {
        writeln!(out, "solved in {moves} moves")?;
    } else {
        writeln!(out, "{moves} moves made; not solved")?;
    }
    Ok(exit::OK)
}
