//! Drawing a board into a ratatui buffer: the frame, the tiles (one sliding between two cells
//! during an animation), and the mapping from a mouse position back to a cell.

use std::time::{Duration, Instant};

use fifteen_core::{Board, Size};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Widget};

use crate::Look;

/// The screen of both screens: a title line (`name` in bold, then `rest`), the board's area,
/// two lines of status and a line of key help, which is drawn here. Returns the board's area and
/// the two status lines.
pub(crate) fn screen(frame: &mut Frame<'_>, name: &str, rest: String, help: &str) -> [Rect; 3] {
    let [title, board, first, second, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    let bold = Style::new().add_modifier(Modifier::BOLD);
    frame.render_widget(
        Paragraph::new(Line::from(vec![Span::styled(format!("{name} "), bold), Span::raw(rest)])),
        title,
    );
    frame.render_widget(Paragraph::new(help).style(Style::new().add_modifier(Modifier::DIM)), keys);
    [board, first, second]
}

/// Where the tiles go in an area: the top-left corner of cell 0 and each cell's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub(crate) x: u16,
    pub(crate) y: u16,
    pub(crate) tile_w: u16,
    pub(crate) tile_h: u16,
    pub(crate) width: usize,
    pub(crate) height: usize,
}

impl Geometry {
    /// The largest tiles that fit `area` (with a frame), centred; `None` if even the smallest
    /// (3 columns, 1 row) do not.
    pub(crate) fn fit(area: Rect, size: Size) -> Option<Geometry> {
        let (w, h) = (size.width() as u16, size.height() as u16);
        let max_w = area.width.saturating_sub(2) / w;
        let max_h = area.height.saturating_sub(2) / h;
        // Terminal cells are about twice as tall as wide.
        let tile_h = max_h.min(4).min(max_w.saturating_sub(1) / 2).max(1);
        let tile_w = max_w.min(2 * tile_h + 1).max(3);
        if tile_w > max_w || tile_h > max_h {
            return None;
        }
        let board_w = tile_w * w + 2;
        let board_h = tile_h * h + 2;
        Some(Geometry {
            x: area.x + (area.width - board_w) / 2 + 1,
            y: area.y + (area.height - board_h) / 2 + 1,
            tile_w,
            tile_h,
            width: size.width(),
            height: size.height(),
        })
    }

    /// The frame around the tiles.
    pub(crate) fn frame(&self) -> Rect {
        Rect {
            x: self.x - 1,
            y: self.y - 1,
            width: self.tile_w * self.width as u16 + 2,
            height: self.tile_h * self.height as u16 + 2,
        }
    }

    /// The cell under the screen position (`column`, `row`).
    pub(crate) fn cell_at(&self, column: u16, row: u16) -> Option<usize> {
        let dx = column.checked_sub(self.x)? / self.tile_w;
        let dy = row.checked_sub(self.y)? / self.tile_h;
        let (c, r) = (usize::from(dx), usize::from(dy));
        (c < self.width && r < self.height).then_some(r * self.width + c)
    }

    /// The top-left corner of `cell`'s tile, in fractional screen positions.
    fn corner(&self, cell: usize) -> (f32, f32) {
        let (r, c) = (cell / self.width, cell % self.width);
        (
            f32::from(self.x) + (c as f32) * f32::from(self.tile_w),
            f32::from(self.y) + (r as f32) * f32::from(self.tile_h),
        )
    }
}

/// A tile on its way from one cell to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slide {
    pub(crate) tile: u8,
    pub(crate) from: usize,
    pub(crate) to: usize,
    pub(crate) started: Instant,
    pub(crate) duration: Duration,
}

impl Slide {
    /// How far along it is at `now`, from 0 to 1.
    pub(crate) fn progress(&self, now: Instant) -> f32 {
        if self.duration.is_zero() {
            return 1.0;
        }
        (now.saturating_duration_since(self.started).as_secs_f32() / self.duration.as_secs_f32())
            .min(1.0)
    }
}

/// A board as drawn: `board` with `slide`'s tile on its way to its cell, and one tile picked
/// out (a hint).
pub(crate) struct BoardView<'a> {
    pub(crate) board: &'a Board,
    pub(crate) goal: &'a Board,
    pub(crate) slide: Option<Slide>,
    pub(crate) highlight: Option<u8>,
    pub(crate) look: Look,
    pub(crate) now: Instant,
}

impl BoardView<'_> {
    fn style(&self, tile: u8, cell: usize) -> Style {
        let home = self.goal.cells().get(cell) == Some(&tile);
        let picked = self.highlight == Some(tile);
        if self.look.color {
            let (bg, fg) = match (picked, home) {
                (true, _) => (Color::Yellow, Color::Black),
                (false, true) => (Color::Green, Color::Black),
                (false, false) => (Color::Blue, Color::White),
            };
            Style::new().bg(bg).fg(fg).add_modifier(Modifier::BOLD)
        } else {
            let style = Style::new().add_modifier(Modifier::REVERSED);
            match (picked, home) {
                (true, _) => style.add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                (false, true) => style.add_modifier(Modifier::BOLD),
                (false, false) => style,
            }
        }
    }

    fn tile(&self, buf: &mut Buffer, g: &Geometry, tile: u8, (x, y): (f32, f32), style: Style) {
        let body_w = g.tile_w - 1;
        let body_h = if g.tile_h >= 3 { g.tile_h - 1 } else { 1 };
        let (x, y) = (x.round() as u16, y.round() as u16);
        let area = Rect { x, y, width: body_w, height: body_h }.intersection(buf.area);
        buf.set_style(area, style);
        let label = tile.to_string();
        let lx = x + body_w.saturating_sub(label.len() as u16).div_ceil(2);
        let ly = y + (body_h - 1) / 2;
        if area.contains((lx, ly).into()) {
            buf.set_string(lx, ly, &label, style);
        }
    }
}

impl BoardView<'_> {
    /// Draws into `area`; returns where the tiles went (`None` if the area is too small, in
    /// which case it says so instead).
    pub(crate) fn draw(&self, area: Rect, buf: &mut Buffer) -> Option<Geometry> {
        let Some(g) = Geometry::fit(area, self.board.size()) else {
            buf.set_string(
                area.x,
                area.y,
                "the terminal is too small for this board",
                Style::new(),
            );
            return None;
        };
        let block = Block::bordered().border_type(BorderType::Rounded);
        let block =
            if self.look.color { block.border_style(Style::new().fg(Color::Gray)) } else { block };
        block.render(g.frame(), buf);
        let sliding = self.slide.filter(|s| s.progress(self.now) < 1.0);
        for (cell, &tile) in self.board.cells().iter().enumerate() {
            if tile == 0 || sliding.is_some_and(|s| s.tile == tile) {
                continue;
            }
            self.tile(buf, &g, tile, g.corner(cell), self.style(tile, cell));
        }
        if let Some(s) = sliding {
            let p = s.progress(self.now);
            let (fx, fy) = g.corner(s.from);
            let (tx, ty) = g.corner(s.to);
            let at = (fx + (tx - fx) * p, fy + (ty - fy) * p);
            self.tile(buf, &g, s.tile, at, self.style(s.tile, s.to));
        }
        Some(g)
    }
}
