//! SVG: one board, or a solution as a strip of boards wrapped into rows.

use fifteen_core::Board;
use svg::Document;
use svg::node::element::{Group, Rectangle, Text};

use crate::colors::{self, hex};
use crate::{PictureError, Solution, boards, tile_word};

const CELL: u32 = 40;
const PAD: u32 = 4;
const GAP: u32 = 16;
const CAPTION: u32 = 22;
const TITLE: u32 = 30;
/// Boards per row of the strip.
const PER_ROW: usize = 6;

/// One board at (`x`, `y`): its frame, the blank and the tiles. `moved` is drawn in the
/// highlight color.
fn board_group(board: &Board, goal: &Board, x: u32, y: u32, moved: Option<u8>) -> Group {
    let size = board.size();
    let (w, h) = (size.width() as u32, size.height() as u32);
    let mut g = Group::new().set("transform", format!("translate({x},{y})"));
    g = g.add(
        Rectangle::new()
            .set("width", w * CELL + 2 * PAD)
            .set("height", h * CELL + 2 * PAD)
            .set("rx", 6)
            .set("fill", hex(colors::FRAME)),
    );
    for (cell, &tile) in board.cells().iter().enumerate() {
        let cx = PAD + (cell as u32 % w) * CELL;
        let cy = PAD + (cell as u32 / w) * CELL;
        let rect = Rectangle::new()
            .set("x", cx + 2)
            .set("y", cy + 2)
            .set("width", CELL - 4)
            .set("height", CELL - 4)
            .set("rx", 5);
        if tile == 0 {
            g = g.add(rect.set("fill", hex(colors::BLANK)));
            continue;
        }
        let fill = if moved == Some(tile) {
            colors::MOVING
        } else if goal.cells()[cell] == tile {
            colors::HOME
        } else {
            colors::TILE
        };
        g = g.add(rect.set("fill", hex(fill))).add(
            Text::new(tile.to_string())
                .set("x", cx + CELL / 2)
                .set("y", cy + CELL / 2)
                .set("dy", "0.35em")
                .set("text-anchor", "middle")
                .set("font-size", 18)
                .set("font-weight", "bold")
                .set("fill", hex(colors::NUMBER)),
        );
    }
    g
}

fn caption(text: &str, x: u32, y: u32) -> Text {
    Text::new(text).set("x", x).set("y", y).set("font-size", 13).set("fill", hex(colors::INK))
}

fn document(width: u32, height: u32) -> Document {
    Document::new()
        .set("width", width)
        .set("height", height)
        .set("viewBox", (0, 0, width, height))
        .set("font-family", "DejaVu Sans, Verdana, Arial, sans-serif")
        .add(
            Rectangle::new()
                .set("width", "100%")
                .set("height", "100%")
                .set("fill", hex(colors::BACKGROUND)),
        )
}

/// One board with a caption under it, as an SVG document.
pub fn board_svg(board: &Board, goal: &Board, text: &str) -> String {
    let size = board.size();
    let bw = size.width() as u32 * CELL + 2 * PAD;
    let bh = size.height() as u32 * CELL + 2 * PAD;
    let width = (bw + 2 * GAP).max(7 * text.chars().count() as u32 + 2 * GAP);
    let doc = document(width, bh + 2 * GAP + CAPTION)
        .add(board_group(board, goal, GAP, GAP, None))
        .add(caption(text, GAP, GAP + bh + CAPTION - 6));
    doc.to_string()
}

/// The solution as a strip of boards: the start, then the board after each move, wrapped
/// every six boards, under a title line with the summary.
pub fn strip_svg(solution: &Solution<'_>) -> Result<String, PictureError> {
    let (boards, tiles) = boards(solution.start, solution.moves)?;
    let size = solution.start.size();
    let bw = size.width() as u32 * CELL + 2 * PAD;
    let bh = size.height() as u32 * CELL + 2 * PAD;
    let per_row = PER_ROW.min(boards.len());
    let rows = boards.len().div_ceil(per_row);
    let width = GAP + per_row as u32 * (bw + GAP);
    let height = TITLE + GAP + rows as u32 * (bh + CAPTION + GAP);
    let n = solution.moves.len();
    let mut doc = document(width.max(360), height).add(
        Text::new(format!("{} · {}", solution.start.size(), solution.summary))
            .set("x", GAP)
            .set("y", TITLE - 4)
            .set("font-size", 16)
            .set("font-weight", "bold")
            .set("fill", hex(colors::INK)),
    );
    for (i, board) in boards.iter().enumerate() {
        let x = GAP + (i % per_row) as u32 * (bw + GAP);
        let y = TITLE + GAP + (i / per_row) as u32 * (bh + CAPTION + GAP);
        let moved = i.checked_sub(1).map(|k| tiles[k]);
        doc = doc.add(board_group(board, solution.goal, x, y, moved));
        let text = match i {
            0 => "start".to_string(),
            _ => format!("{i}/{n}: {} {}", tiles[i - 1], tile_word(solution.moves[i - 1])),
        };
        let text =
            if i == n && *board == *solution.goal { format!("{text} · goal") } else { text };
        doc = doc.add(caption(&text, x, y + bh + CAPTION - 6));
    }
    Ok(doc.to_string())
}
