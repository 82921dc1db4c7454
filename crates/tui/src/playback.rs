//! `fifteen solve BOARD --play`: a solution animated in place.
//!
//! Keys: space plays or pauses, → / l / . one move forward, ← / h / , one back, + and -
//! change the speed, Home / g and End / G jump to the start or the end, q or Esc quits.

use std::io;
use std::time::{Duration, Instant};

use fifteen_core::{Board, Notation};
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::board_view::{BoardView, Slide, screen};
use crate::term::{self, Flow, Screen};
use crate::{Look, Shown};

/// Speeds in moves per second.
pub(crate) const SPEEDS: [f64; 10] = [0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0];
const DEFAULT_SPEED: usize = 3;

/// The time between moves at speed `index`.
pub(crate) fn interval(index: usize) -> Duration {
    Duration::from_secs_f64(1.0 / SPEEDS[index])
}

/// Plays `shown` on the terminal until the user quits.
pub fn playback(shown: &Shown, look: Look) -> io::Result<()> {
    let mut screen = Playback::new(shown, look, Instant::now());
    term::run(&mut screen, false)
}

/// The state of a playback.
pub(crate) struct Playback {
    pub(crate) boards: Vec<Board>,
    /// The tile moved at each step.
    pub(crate) tiles: Vec<u8>,
    /// Each move's letter in tile notation.
    letters: Vec<char>,
    goal: Board,
    summary: String,
    pub(crate) step: usize,
    pub(crate) playing: bool,
    pub(crate) speed: usize,
    last_move: Instant,
    pub(crate) slide: Option<Slide>,
    look: Look,
}

impl Playback {
    pub(crate) fn new(shown: &Shown, look: Look, now: Instant) -> Playback {
        let mut boards = vec![shown.start.clone()];
        let mut tiles = Vec::with_capacity(shown.moves.len());
        for &d in &shown.moves {
            let mut next = boards[boards.len() - 1].clone();
            // The moves come from a solution that replays, so every one applies.
            if let Some(t) = next.apply(d) {
                tiles.push(t);
                boards.push(next);
            }
        }
        Playback {
            boards,
            tiles,
            letters: shown.moves.iter().map(|d| d.letter(Notation::Tile)).collect(),
            goal: shown.goal.clone(),
            summary: shown.summary.clone(),
            step: 0,
            playing: true,
            speed: DEFAULT_SPEED,
            last_move: now,
            slide: None,
            look,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.boards.len() - 1
    }

    fn slide_time(&self) -> Duration {
        Duration::from_secs_f64((0.7 / SPEEDS[self.speed]).min(0.25))
    }

    /// One move on, sliding its tile.
    pub(crate) fn forward(&mut self, now: Instant) {
        if self.step >= self.len() {
            return;
        }
        let tile = self.tiles[self.step];
        let from = self.boards[self.step].position(tile);
        self.step += 1;
        let to = self.boards[self.step].position(tile);
        self.slide = Some(Slide { tile, from, to, started: now, duration: self.slide_time() });
        self.last_move = now;
    }

    /// One move back, sliding the tile back.
    pub(crate) fn back(&mut self, now: Instant) {
        if self.step == 0 {
            return;
        }
        let tile = self.tiles[self.step - 1];
        let from = self.boards[self.step].position(tile);
        self.step -= 1;
        let to = self.boards[self.step].position(tile);
        self.slide = Some(Slide { tile, from, to, started: now, duration: self.slide_time() });
        self.last_move = now;
    }

    fn jump(&mut self, step: usize, now: Instant) {
        self.step = step.min(self.len());
        self.slide = None;
        self.last_move = now;
    }

    pub(crate) fn handle_key(&mut self, key: KeyEvent, now: Instant) -> Flow {
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => return Flow::Quit,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return Flow::Quit;
            }
            KeyCode::Char(' ') | KeyCode::Char('p') => {
                if !self.playing && self.step == self.len() {
                    self.jump(0, now);
                }
                self.playing = !self.playing;
                self.last_move = now;
            }
            KeyCode::Right | KeyCode::Char('l') | KeyCode::Char('.') => {
                self.playing = false;
                self.forward(now);
            }
            KeyCode::Left | KeyCode::Char('h') | KeyCode::Char(',') => {
                self.playing = false;
                self.back(now);
            }
            KeyCode::Char('+') | KeyCode::Char('=') | KeyCode::Up => {
                self.speed = (self.speed + 1).min(SPEEDS.len() - 1);
            }
            KeyCode::Char('-') | KeyCode::Down => self.speed = self.speed.saturating_sub(1),
            KeyCode::Home | KeyCode::Char('g') => {
                self.playing = false;
                self.jump(0, now);
            }
            KeyCode::End | KeyCode::Char('G') => {
                self.playing = false;
                self.jump(self.len(), now);
            }
            _ => {}
        }
        Flow::Continue
    }

    /// Autoplay: the next move when its time has come.
    pub(crate) fn advance(&mut self, now: Instant) {
        if !self.playing {
            return;
        }
        if self.step >= self.len() {
            self.playing = false;
            return;
        }
        if now.saturating_duration_since(self.last_move) >= interval(self.speed) {
            self.forward(now);
        }
    }

    pub(crate) fn render(&self, frame: &mut Frame<'_>, now: Instant) {
        let [board, status, moves] = screen(
            frame,
            "fifteen",
            format!("{} · {}", self.goal.size(), self.summary),
            "space play/pause · ←/→ step · +/- speed · Home/End · q quit",
        );
        let view = BoardView {
            board: &self.boards[self.step],
            goal: &self.goal,
            slide: self.slide,
            highlight: None,
            look: self.look,
            now,
        };
        view.draw(board, frame.buffer_mut());
        let state = if self.playing { "playing" } else { "paused" };
        let done = if self.step == self.len() && self.boards[self.step] == self.goal {
            " · goal reached"
        } else {
            ""
        };
        let speed = SPEEDS[self.speed];
        frame.render_widget(
            Paragraph::new(format!(
                "move {}/{} · {state} · {speed} moves/s{done}",
                self.step,
                self.len()
            )),
            status,
        );
        frame.render_widget(Paragraph::new(self.moves_line(moves)), moves);
    }

    /// The move letters around the current one, which is highlighted.
    fn moves_line(&self, area: Rect) -> Line<'static> {
        let width = usize::from(area.width).max(1);
        let start = self.step.saturating_sub(width / 2);
        let end = (start + width).min(self.letters.len());
        let mut spans = Vec::new();
        for (i, &c) in self.letters.iter().enumerate().take(end).skip(start) {
            let style = if i == self.step {
                Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
            } else if i < self.step {
                Style::new().add_modifier(Modifier::DIM)
            } else {
                Style::new()
            };
            spans.push(Span::styled(c.to_string(), style));
        }
        Line::from(spans)
    }
}

impl Screen for Playback {
    fn draw(&mut self, frame: &mut Frame<'_>, now: Instant) {
        self.render(frame, now);
    }

    fn key(&mut self, key: KeyEvent, now: Instant) -> Flow {
        self.handle_key(key, now)
    }

    fn tick(&mut self, now: Instant) -> Flow {
        self.advance(now);
        Flow::Continue
    }
}
