//! `fifteen play`: a person plays; the solver says how far the goal is and gives hints.
//!
//! Keys: the arrows slide a tile that way (↑ slides the tile below the blank up), a click slides
//! the tiles between the clicked one and the blank, h or ? shows the next move of the best known
//! solution, u undoes, r restarts, q or Esc quits.
//!
//! Each position the player reaches is sent to the [`Advisor`] on a background thread (the
//! previous request is cancelled). The answer is a path; while the player follows it, distance
//! and hints come from that path without a new search.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use fifteen_core::{Board, Dir};
use ratatui::Frame;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::Paragraph;

use crate::board_view::{BoardView, Geometry, Slide, screen};
use crate::term::{self, Flow, Screen};
use crate::{Advice, Advisor, Look};

const SLIDE: Duration = Duration::from_millis(90);

/// Lets a person play from `start` to `goal` on the terminal, with `advisor` for distances and
/// hints. Returns the number of moves made and whether the goal was reached.
pub fn play(
    start: Board,
    goal: Board,
    advisor: Arc<dyn Advisor>,
    look: Look,
) -> io::Result<(usize, bool)> {
    let mut screen = Live::new(Game::new(start, goal, look), advisor);
    let result = term::run(&mut screen, true);
    screen.cancel();
    result.map(|()| (screen.game.moves_made, screen.game.board == screen.game.goal))
}

/// A path from a board along which distances and hints are known.
#[derive(Clone, Debug)]
pub(crate) struct Known {
    boards: Vec<Board>,
    moves: Vec<Dir>,
    optimal: bool,
    lower_bound: u32,
}

impl Known {
    fn new(from: &Board, moves: Vec<Dir>, optimal: bool, lower_bound: u32) -> Known {
        let mut boards = vec![from.clone()];
        for &d in &moves {
            let mut b = boards[boards.len() - 1].clone();
            b.apply(d);
            boards.push(b);
        }
        Known { boards, moves, optimal, lower_bound }
    }

    fn index(&self, board: &Board) -> Option<usize> {
        self.boards.iter().position(|b| b == board)
    }
}

/// What is known about the distance of the current position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Distance {
    /// Exactly this many moves.
    Exact(usize),
    /// At most `upper`, at least `lower`.
    Between { upper: usize, lower: u32 },
    /// At least this many (no path found yet).
    AtLeast(u32),
    /// Being worked out.
    Thinking,
    /// The solver failed.
    Failed(String),
}

/// The game's state, without threads or a terminal.
pub(crate) struct Game {
    pub(crate) start: Board,
    pub(crate) board: Board,
    pub(crate) goal: Board,
    history: Vec<Board>,
    pub(crate) moves_made: usize,
    known: Option<Known>,
    /// The last answer for a position off every known path.
    unknown: Option<(Board, Distance)>,
    /// The optimal length from the start, once known.
    start_distance: Option<usize>,
    /// The tile the last hint picked out, while it is still the next move.
    pub(crate) hint: Option<(u8, Board)>,
    /// A hint was asked for before the answer came.
    want_hint: bool,
    pub(crate) message: String,
    slide: Option<Slide>,
    pub(crate) geometry: Option<Geometry>,
    look: Look,
}

impl Game {
    pub(crate) fn new(start: Board, goal: Board, look: Look) -> Game {
        Game {
            board: start.clone(),
            start,
            goal,
            history: Vec::new(),
            moves_made: 0,
            known: None,
            unknown: None,
            start_distance: None,
            hint: None,
            want_hint: false,
            message: String::new(),
            slide: None,
            geometry: None,
            look,
        }
    }

    pub(crate) fn distance(&self) -> Distance {
        if self.board == self.goal {
            return Distance::Exact(0);
        }
        if let Some(k) = &self.known
            && let Some(i) = k.index(&self.board)
        {
            let left = k.moves.len() - i;
            return if k.optimal {
                Distance::Exact(left)
            } else {
                Distance::Between { upper: left, lower: k.lower_bound.saturating_sub(i as u32) }
            };
        }
        match &self.unknown {
            Some((b, d)) if *b == self.board => d.clone(),
            _ => Distance::Thinking,
        }
    }

    /// The position the solver should be asked about, if any.
    pub(crate) fn wanted(&self) -> Option<&Board> {
        (self.distance() == Distance::Thinking).then_some(&self.board)
    }

    /// The solver's answer for `board`.
    pub(crate) fn receive(&mut self, board: &Board, advice: Advice) {
        match advice {
            Advice::Path { moves, optimal, lower_bound } => {
                if *board == self.start && optimal {
                    self.start_distance = Some(moves.len());
                }
                self.known = Some(Known::new(board, moves, optimal, lower_bound));
            }
            Advice::Unknown { lower_bound, why } => {
                let _ = why;
                self.unknown = Some((board.clone(), Distance::AtLeast(lower_bound)));
            }
            Advice::Failed(why) => {
                self.unknown = Some((board.clone(), Distance::Failed(why)));
            }
        }
        if self.want_hint && *board == self.board {
            self.want_hint = false;
            self.show_hint();
        }
    }

    /// The player slides a tile: `dir` is the direction the tile moves.
    pub(crate) fn slide_tile(&mut self, tile_dir: Dir, now: Instant) -> bool {
        let blank = self.board.blank();
        let mut next = self.board.clone();
        // The tile slides `tile_dir`, so the blank moves the opposite way.
        let Some(tile) = next.apply(tile_dir.opposite()) else { return false };
        let to = blank;
        let from = next.blank();
        self.history.push(std::mem::replace(&mut self.board, next));
        self.moves_made += 1;
        self.slide = Some(Slide { tile, from, to, started: now, duration: SLIDE });
        self.after_move();
        true
    }

    fn after_move(&mut self) {
        self.want_hint = false;
        if self.hint.as_ref().is_some_and(|(_, b)| *b != self.board) {
            self.hint = None;
        }
        self.message = if self.board == self.goal {
            match self.start_distance {
                Some(best) => format!(
                    "solved in {} moves! The shortest solution from the start has {best}",
                    self.moves_made
                ),
                None => format!("solved in {} moves!", self.moves_made),
            }
        } else {
            String::new()
        };
    }

    /// A click on `cell`: slides every tile between it and the blank, if they are in line.
    pub(crate) fn click(&mut self, cell: usize, now: Instant) {
        let size = self.board.size();
        let w = size.width();
        let blank = self.board.blank();
        let (br, bc, cr, cc) = (blank / w, blank % w, cell / w, cell % w);
        let (dir, count) = if br == cr && cc != bc {
            if cc > bc { (Dir::Left, cc - bc) } else { (Dir::Right, bc - cc) }
        } else if bc == cc && cr != br {
            if cr > br { (Dir::Up, cr - br) } else { (Dir::Down, br - cr) }
        } else {
            return;
        };
        for _ in 0..count {
            self.slide_tile(dir, now);
        }
    }

    pub(crate) fn undo(&mut self) {
        if let Some(prev) = self.history.pop() {
            self.board = prev;
            self.moves_made = self.moves_made.saturating_sub(1);
            self.slide = None;
            self.after_move();
        }
    }

    pub(crate) fn restart(&mut self) {
        self.board = self.start.clone();
        self.history.clear();
        self.moves_made = 0;
        self.slide = None;
        self.after_move();
    }

    /// Shows the next move of the known path, or asks for one.
    pub(crate) fn show_hint(&mut self) {
        if self.board == self.goal {
            self.message = "this is the goal".into();
            return;
        }
        let next = self.known.as_ref().and_then(|k| k.index(&self.board).map(|i| k.moves[i]));
        match next {
            Some(blank_dir) => {
                let cell = blank_dir.neighbor(self.board.size(), self.board.blank());
                let tile = cell.map_or(0, |c| self.board.cells()[c]);
                let word = match blank_dir.opposite() {
                    Dir::Up => "up",
                    Dir::Down => "down",
                    Dir::Left => "left",
                    Dir::Right => "right",
                };
                self.hint = Some((tile, self.board.clone()));
                self.message = format!("hint: slide tile {tile} {word}");
            }
            None => match self.distance() {
                Distance::Failed(why) => self.message = format!("no hint: {why}"),
                Distance::AtLeast(lb) => {
                    self.message =
                        format!("no hint: no solution found in time (at least {lb} moves)");
                }
                _ => {
                    self.want_hint = true;
                    self.message = "thinking…".into();
                }
            },
        }
    }

    pub(crate) fn handle_key(&mut self, key: KeyEvent, now: Instant) -> Flow {
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => return Flow::Quit,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return Flow::Quit;
            }
            KeyCode::Up => _ = self.slide_tile(Dir::Up, now),
            KeyCode::Down => _ = self.slide_tile(Dir::Down, now),
            KeyCode::Left => _ = self.slide_tile(Dir::Left, now),
            KeyCode::Right => _ = self.slide_tile(Dir::Right, now),
            KeyCode::Char('h') | KeyCode::Char('?') => self.show_hint(),
            KeyCode::Char('u') | KeyCode::Backspace => self.undo(),
            KeyCode::Char('r') => self.restart(),
            _ => {}
        }
        Flow::Continue
    }

    pub(crate) fn handle_mouse(&mut self, event: MouseEvent, now: Instant) {
        if event.kind == MouseEventKind::Down(MouseButton::Left)
            && let Some(cell) = self.geometry.and_then(|g| g.cell_at(event.column, event.row))
        {
            self.click(cell, now);
        }
    }

    fn distance_text(&self) -> String {
        match self.distance() {
            Distance::Exact(0) => "at the goal".into(),
            Distance::Exact(n) => format!("{n} moves from the goal (optimal)"),
            Distance::Between { upper, lower } => {
                format!("at most {upper} moves from the goal, at least {lower}")
            }
            Distance::AtLeast(lb) => format!("at least {lb} moves from the goal"),
            Distance::Thinking => "distance: thinking…".into(),
            Distance::Failed(why) => format!("distance unknown: {why}"),
        }
    }

    pub(crate) fn render(&mut self, frame: &mut Frame<'_>, now: Instant) {
        let [board, status, message] = screen(
            frame,
            "fifteen play",
            format!("{} · moves made: {}", self.board.size(), self.moves_made),
            "arrows/click slide · h hint · u undo · r restart · q quit",
        );
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let highlight = self.hint.as_ref().filter(|(_, b)| *b == self.board).map(|(t, _)| *t);
        let view = BoardView {
            board: &self.board,
            goal: &self.goal,
            slide: self.slide,
            highlight,
            look: self.look,
            now,
        };
        self.geometry = view.draw(board, frame.buffer_mut());
        frame.render_widget(Paragraph::new(self.distance_text()), status);
        frame.render_widget(Paragraph::new(self.message.as_str()).style(bold), message);
    }
}

/// A game with its solver thread.
struct Live {
    game: Game,
    advisor: Arc<dyn Advisor>,
    answers: Receiver<(Board, Advice)>,
    send: Sender<(Board, Advice)>,
    /// The position being worked on and its cancel flag.
    asked: Option<(Board, Arc<AtomicBool>)>,
}

impl Live {
    fn new(game: Game, advisor: Arc<dyn Advisor>) -> Live {
        let (send, answers) = channel();
        Live { game, advisor, answers, send, asked: None }
    }

    fn cancel(&mut self) {
        if let Some((_, flag)) = self.asked.take() {
            flag.store(true, Ordering::Relaxed);
        }
    }

    /// Starts a search for the position the game wants, cancelling one for an older position.
    fn ask(&mut self) {
        let Some(board) = self.game.wanted().cloned() else {
            self.cancel();
            return;
        };
        if self.asked.as_ref().is_some_and(|(b, _)| *b == board) {
            return;
        }
        self.cancel();
        let flag = Arc::new(AtomicBool::new(false));
        let (advisor, send, cancel) =
            (Arc::clone(&self.advisor), self.send.clone(), Arc::clone(&flag));
        let b = board.clone();
        std::thread::spawn(move || {
            let advice = advisor.advise(&b, Arc::clone(&cancel));
            if !cancel.load(Ordering::Relaxed) {
                let _ = send.send((b, advice));
            }
        });
        self.asked = Some((board, flag));
    }
}

impl Screen for Live {
    fn draw(&mut self, frame: &mut Frame<'_>, now: Instant) {
        self.game.render(frame, now);
    }

    fn key(&mut self, key: KeyEvent, now: Instant) -> Flow {
        self.game.handle_key(key, now)
    }

    fn mouse(&mut self, event: MouseEvent, now: Instant) -> Flow {
        self.game.handle_mouse(event, now);
        Flow::Continue
    }

    fn tick(&mut self, _now: Instant) -> Flow {
        while let Ok((board, advice)) = self.answers.try_recv() {
            if self.asked.as_ref().is_some_and(|(b, _)| *b == board) {
                self.asked = None;
            }
            self.game.receive(&board, advice);
        }
        self.ask();
        Flow::Continue
    }
}
