//! The terminal session and the event loop shared by both screens.

use std::io;
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEvent, KeyEventKind, MouseEvent,
};
use ratatui::crossterm::execute;

/// What a screen wants after an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Quit,
}

/// A screen: drawn each frame, fed with keys, clicks and the clock.
pub(crate) trait Screen {
    fn draw(&mut self, frame: &mut Frame<'_>, now: Instant);
    fn key(&mut self, key: KeyEvent, now: Instant) -> Flow;
    fn mouse(&mut self, _event: MouseEvent, _now: Instant) -> Flow {
        Flow::Continue
    }
    /// Called every frame: animations, autoplay, background answers.
    fn tick(&mut self, now: Instant) -> Flow;
}

/// Frames per second while something moves; events are read in between.
const FRAME: Duration = Duration::from_millis(30);

/// Restores the terminal when dropped, however the screen ends.
struct Session {
    mouse: bool,
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.mouse {
            let _ = execute!(io::stdout(), DisableMouseCapture);
        }
        ratatui::restore();
    }
}

/// Runs `screen` on the real terminal until it quits.
pub(crate) fn run(screen: &mut dyn Screen, mouse: bool) -> io::Result<()> {
    let mut terminal = ratatui::try_init()?;
    let _session = Session { mouse };
    if mouse {
        execute!(io::stdout(), EnableMouseCapture)?;
    }
    loop {
        let now = Instant::now();
        if screen.tick(now) == Flow::Quit {
            return Ok(());
        }
        terminal.draw(|f| screen.draw(f, now))?;
        if event::poll(FRAME)? {
            let now = Instant::now();
            let flow = match event::read()? {
                Event::Key(k) if k.kind != KeyEventKind::Release => screen.key(k, now),
                Event::Mouse(m) => screen.mouse(m, now),
                _ => Flow::Continue,
            };
            if flow == Flow::Quit {
                return Ok(());
            }
        }
    }
}
