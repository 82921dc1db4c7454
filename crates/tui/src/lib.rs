//! `fifteen-tui`: watching a solution and playing in the terminal (ratatui on crossterm).
//!
//! Two screens. [`playback`] animates a solution: tiles slide from cell to cell, with pause,
//! step forward and back, speed control and quit. [`play`] lets a person play with the arrow
//! keys or the mouse; it asks an [`Advisor`] (the binary's solver) for the distance to the goal
//! and for hints on a background thread, so the screen never waits for a search, and a newer
//! position cancels the search of an older one.
//!
//! The screens are plain state machines ([`playback`]'s `Playback`, [`play`]'s `Game`) fed with
//! keys, clicks and clock ticks and drawn into any ratatui backend: the tests drive them with
//! `TestBackend`, the binary with the real terminal.
//!
//! Colors follow [`Look`]: [`Look::from_env`] turns them off when `NO_COLOR` is set, and the
//! screens then use reverse video and bold only. When standard output is not a terminal the
//! binary calls the text versions instead ([`write_playback`], [`write_advice`]).
//!
//! Invariant: the terminal is restored (raw mode off, main screen back, mouse released) on
//! every way out of a screen, errors included.

mod board_view;
mod game;
mod playback;
mod term;
mod text;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use fifteen_core::{Board, Dir};

pub use game::play;
pub use playback::playback;
pub use text::{write_advice, write_playback};

/// How the screens look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Look {
    /// Colored tiles (else reverse video and bold only).
    pub color: bool,
}

impl Look {
    /// Colors unless `NO_COLOR` is set to a non-empty value (<https://no-color.org>).
    pub fn from_env() -> Look {
        Look { color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) }
    }
}

/// A solution to show: the start, the goal, the blank's moves and a one-line summary such as
/// `66 moves, proven optimal`.
#[derive(Clone, Debug)]
pub struct Shown {
    /// The start.
    pub start: Board,
    /// The goal.
    pub goal: Board,
    /// The blank's moves from the start to the goal.
    pub moves: Vec<Dir>,
    /// Printed above the board.
    pub summary: String,
}

/// What the solver says about a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Advice {
    /// A path to the goal (the blank's moves).
    Path {
        /// The blank's moves.
        moves: Vec<Dir>,
        /// Whether no shorter path exists.
        optimal: bool,
        /// Every path has at least this many moves.
        lower_bound: u32,
    },
    /// No path found within the solver's limits; every path has at least `lower_bound` moves.
    Unknown {
        /// The proven lower bound.
        lower_bound: u32,
        /// Why (for example "time limit reached").
        why: String,
    },
    /// The solver could not run (the message says why).
    Failed(String),
}

/// The solver behind [`play`]: the distance to the goal and the next move.
pub trait Advisor: Send + Sync + 'static {
    /// Advice for `board`. Runs on a background thread; should return soon after `cancel`
    /// becomes true.
    fn advise(&self, board: &Board, cancel: Arc<AtomicBool>) -> Advice;
}

#[cfg(test)]
mod tests;
