//! The animated GIF: frames drawn with embedded-graphics on an indexed canvas, each written as
//! the rectangle that changed since the previous frame.

use std::borrow::Cow;
use std::convert::Infallible;
use std::io::Write;

use embedded_graphics::mono_font::MonoTextStyle;
use embedded_graphics::mono_font::iso_8859_1::FONT_10X20;
use embedded_graphics::pixelcolor::Rgb888;
use embedded_graphics::prelude::*;
use embedded_graphics::primitives::{CornerRadii, PrimitiveStyle, Rectangle, RoundedRectangle};
use embedded_graphics::text::{Alignment, Baseline, Text, TextStyleBuilder};
use fifteen_core::Board;
use gif::{DisposalMethod, Encoder, Frame, Repeat};

use crate::colors;
use crate::{PictureError, Solution, boards, tile_word};

const CELL: u32 = 56;
const PAD: u32 = 6;
const MARGIN: u32 = 10;
/// Two lines of text above the board.
const TOP: u32 = 54;
const PALETTE: [[u8; 3]; 8] = [
    colors::BACKGROUND,
    colors::FRAME,
    colors::BLANK,
    colors::TILE,
    colors::HOME,
    colors::MOVING,
    colors::NUMBER,
    colors::INK,
];

fn rgb(c: [u8; 3]) -> Rgb888 {
    Rgb888::new(c[0], c[1], c[2])
}

/// Pixels as indices into [`PALETTE`]. With `scale` 2, each pixel drawn is a 2x2 block (large
/// numbers from the bitmap font) and the canvas looks half as wide and tall.
struct Canvas {
    width: u32,
    height: u32,
    scale: u32,
    pixels: Vec<u8>,
}

impl OriginDimensions for Canvas {
    fn size(&self) -> Size {
        Size::new(self.width / self.scale, self.height / self.scale)
    }
}

impl DrawTarget for Canvas {
    type Color = Rgb888;
    type Error = Infallible;

    fn draw_iter<I: IntoIterator<Item = Pixel<Rgb888>>>(
        &mut self,
        pixels: I,
    ) -> Result<(), Infallible> {
        for Pixel(p, c) in pixels {
            let index = PALETTE.iter().position(|q| *q == [c.r(), c.g(), c.b()]).unwrap_or(0) as u8;
            let (Ok(x0), Ok(y0)) = (u32::try_from(p.x), u32::try_from(p.y)) else { continue };
            for y in y0 * self.scale..(y0 + 1) * self.scale {
                for x in x0 * self.scale..(x0 + 1) * self.scale {
                    if x < self.width && y < self.height {
                        self.pixels[(y * self.width + x) as usize] = index;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A tile on its way: where it comes from and goes to, and how far along it is.
struct Moving {
    tile: u8,
    from: usize,
    to: usize,
    progress: f32,
}

struct Painter<'a> {
    goal: &'a Board,
    summary: String,
    width: usize,
}

impl Painter<'_> {
    fn cell_corner(&self, cell: usize) -> (f32, f32) {
        let x = MARGIN + PAD + (cell % self.width) as u32 * CELL;
        let y = TOP + PAD + (cell / self.width) as u32 * CELL;
        (x as f32, y as f32)
    }

    fn tile(&self, canvas: &mut Canvas, tile: u8, (x, y): (f32, f32), fill: [u8; 3]) {
        let (x, y) = (x.round() as i32, y.round() as i32);
        let body = Rectangle::new(Point::new(x + 2, y + 2), Size::new(CELL - 4, CELL - 4));
        let _ = RoundedRectangle::new(body, CornerRadii::new(Size::new(7, 7)))
            .into_styled(PrimitiveStyle::with_fill(rgb(fill)))
            .draw(canvas);
        if tile == 0 {
            return;
        }
        let label = tile.to_string();
        let style = MonoTextStyle::new(&FONT_10X20, rgb(colors::NUMBER));
        let centred =
            TextStyleBuilder::new().alignment(Alignment::Center).baseline(Baseline::Middle).build();
        let centre = Point::new(x + CELL as i32 / 2, y + CELL as i32 / 2);
        canvas.scale = 2;
        let _ = Text::with_text_style(&label, centre / 2, style, centred).draw(canvas);
        canvas.scale = 1;
    }

    fn paint(&self, canvas: &mut Canvas, board: &Board, moving: Option<&Moving>, status: &str) {
        let _ = canvas.clear(rgb(colors::BACKGROUND));
        let ink = MonoTextStyle::new(&FONT_10X20, rgb(colors::INK));
        let _ =
            Text::with_baseline(&self.summary, Point::new(MARGIN as i32, 4), ink, Baseline::Top)
                .draw(canvas);
        let _ = Text::with_baseline(status, Point::new(MARGIN as i32, 26), ink, Baseline::Top)
            .draw(canvas);
        let size = board.size();
        let frame = Rectangle::new(
            Point::new(MARGIN as i32, TOP as i32),
            Size::new(size.width() as u32 * CELL + 2 * PAD, size.height() as u32 * CELL + 2 * PAD),
        );
        let _ = RoundedRectangle::new(frame, CornerRadii::new(Size::new(9, 9)))
            .into_styled(PrimitiveStyle::with_fill(rgb(colors::FRAME)))
            .draw(canvas);
        // The empty cells first (the blank, and the cell a moving tile leaves), then the tiles.
        for (cell, &tile) in board.cells().iter().enumerate() {
            if tile == 0 || moving.is_some_and(|m| m.tile == tile) {
                self.tile(canvas, 0, self.cell_corner(cell), colors::BLANK);
            }
        }
        for (cell, &tile) in board.cells().iter().enumerate() {
            if tile == 0 || moving.is_some_and(|m| m.tile == tile) {
                continue;
            }
            let fill = if self.goal.cells()[cell] == tile { colors::HOME } else { colors::TILE };
            self.tile(canvas, tile, self.cell_corner(cell), fill);
        }
        if let Some(m) = moving {
            let (fx, fy) = self.cell_corner(m.from);
            let (tx, ty) = self.cell_corner(m.to);
            let at = (fx + (tx - fx) * m.progress, fy + (ty - fy) * m.progress);
            self.tile(canvas, m.tile, at, colors::MOVING);
        }
    }
}

/// Writes frames, each cropped to what changed since the one before.
struct Writer<W: Write> {
    encoder: Encoder<W>,
    previous: Option<Vec<u8>>,
    width: u32,
}

impl<W: Write> Writer<W> {
    fn frame(&mut self, canvas: &Canvas, delay: u16) -> Result<(), PictureError> {
        let w = self.width as usize;
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        match &self.previous {
            Some(prev) => {
                for (i, (a, b)) in prev.iter().zip(&canvas.pixels).enumerate() {
                    if a != b {
                        let (x, y) = (i % w, i / w);
                        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
                    }
                }
                if x0 == usize::MAX {
                    (x0, y0, x1, y1) = (0, 0, 0, 0);
                }
            }
            None => (x0, y0, x1, y1) = (0, 0, w - 1, canvas.height as usize - 1),
        }
        let buffer: Vec<u8> = (y0..=y1)
            .flat_map(|y| canvas.pixels[y * w + x0..=y * w + x1].iter().copied())
            .collect();
        let frame = Frame {
            delay,
            dispose: DisposalMethod::Keep,
            left: x0 as u16,
            top: y0 as u16,
            width: (x1 - x0 + 1) as u16,
            height: (y1 - y0 + 1) as u16,
            buffer: Cow::Owned(buffer),
            ..Frame::default()
        };
        self.encoder.write_frame(&frame)?;
        self.previous = Some(canvas.pixels.clone());
        Ok(())
    }
}

/// Writes the solution as an animated GIF that loops: the start held for a second, each move
/// sliding its tile (in fewer in-between frames on long solutions), the goal held for three
/// seconds.
pub fn write_gif(solution: &Solution<'_>, out: impl Write) -> Result<(), PictureError> {
    let (boards, tiles) = boards(solution.start, solution.moves)?;
    let size = solution.start.size();
    let n = solution.moves.len();
    let summary = format!("{} · {}", size, solution.summary);
    let board_w = size.width() as u32 * CELL + 2 * PAD;
    let text_w = 10 * summary.chars().count().max(16) as u32;
    let width = 2 * MARGIN + board_w.max(text_w);
    let height = TOP + size.height() as u32 * CELL + 2 * PAD + MARGIN;
    let palette: Vec<u8> = PALETTE.iter().flatten().copied().collect();
    let mut encoder = Encoder::new(out, width as u16, height as u16, &palette)?;
    encoder.set_repeat(Repeat::Infinite)?;
    let mut writer = Writer { encoder, previous: None, width };
    let painter = Painter { goal: solution.goal, summary, width: size.width() };
    let mut canvas = Canvas { width, height, scale: 1, pixels: vec![0; (width * height) as usize] };
    let between = match n {
        0..=60 => 3,
        61..=150 => 1,
        _ => 0,
    };
    painter.paint(&mut canvas, &boards[0], None, &format!("start · {n} moves to go"));
    writer.frame(&canvas, 100)?;
    for k in 0..n {
        let tile = tiles[k];
        let (from, to) = (boards[k].position(tile), boards[k + 1].position(tile));
        let status = format!("move {}/{n}: {tile} {}", k + 1, tile_word(solution.moves[k]));
        for s in 1..=between {
            let progress = s as f32 / (between + 1) as f32;
            let moving = Moving { tile, from, to, progress };
            painter.paint(&mut canvas, &boards[k + 1], Some(&moving), &status);
            writer.frame(&canvas, 3)?;
        }
        let done = k + 1 == n && boards[n] == *solution.goal;
        let status = if done { format!("{status} · goal") } else { status };
        painter.paint(&mut canvas, &boards[k + 1], None, &status);
        writer.frame(&canvas, if done { 300 } else { 15 })?;
    }
    Ok(())
}
