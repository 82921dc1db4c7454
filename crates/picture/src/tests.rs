//! The pictures read back: the SVG by the `svg` crate's parser, the GIF by the `gif` decoder,
//! and checked against the boards they should show.

use fifteen_core::{Board, Dir, Size};

use super::*;

fn board(text: &str) -> Board {
    Board::parse(text, None).expect("a board")
}

/// 3x3, two moves from the goal: tiles 7 and 8 slide left.
fn solution_parts() -> (Board, Board, Vec<Dir>) {
    (board("1 2 3 4 5 6 0 7 8"), Board::blank_last(Size::S3X3), vec![Dir::Right, Dir::Right])
}

/// The texts of an SVG document with their attributes `x` and `y`, in order.
fn svg_texts(doc: &str) -> Vec<(String, f32, f32)> {
    use svg::parser::Event;
    let mut out = Vec::new();
    let mut pending: Option<(f32, f32)> = None;
    let mut offset = (0.0, 0.0);
    for event in svg::read(doc).expect("the SVG parses") {
        match event {
            Event::Tag("g", svg::node::element::tag::Type::Start, attrs) => {
                let t = attrs.get("transform").map(|v| v.to_string()).unwrap_or_default();
                let nums: Vec<f32> = t
                    .trim_start_matches("translate(")
                    .trim_end_matches(')')
                    .split(',')
                    .filter_map(|n| n.parse().ok())
                    .collect();
                offset = (nums[0], nums[1]);
            }
            Event::Tag("g", svg::node::element::tag::Type::End, _) => offset = (0.0, 0.0),
            Event::Tag("text", svg::node::element::tag::Type::Start, attrs) => {
                let get = |k: &str| attrs.get(k).and_then(|v| v.to_string().parse::<f32>().ok());
                pending =
                    Some((get("x").unwrap_or(0.0) + offset.0, get("y").unwrap_or(0.0) + offset.1));
            }
            Event::Text(text) => {
                if let Some((x, y)) = pending.take() {
                    out.push((text.to_string(), x, y));
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn the_strip_shows_every_board_and_ends_on_the_goal() {
    let (start, goal, moves) = solution_parts();
    let s =
        Solution { start: &start, goal: &goal, moves: &moves, summary: "2 moves, proven optimal" };
    let doc = strip_svg(&s).expect("svg");
    let texts = svg_texts(&doc);
    assert_eq!(texts[0].0, "3x3 · 2 moves, proven optimal");
    let captions: Vec<&str> = texts
        .iter()
        .map(|t| t.0.as_str())
        .filter(|t| t.starts_with("start") || t.contains('/'))
        .collect();
    assert_eq!(captions, ["start", "1/2: 7 left", "2/2: 8 left · goal"]);
    // The last board's numbers, in reading order (by y, then x), are the goal's tiles.
    let last: Vec<&(String, f32, f32)> = texts
        .iter()
        .skip_while(|t| t.0 != "1/2: 7 left")
        .skip(1)
        .take_while(|t| t.0.parse::<u8>().is_ok())
        .collect();
    let mut cells: Vec<_> = last.iter().map(|t| (t.2 as i32, t.1 as i32, t.0.clone())).collect();
    cells.sort();
    let tiles: Vec<String> = cells.into_iter().map(|c| c.2).collect();
    let expected: Vec<String> =
        goal.cells().iter().filter(|&&t| t != 0).map(u8::to_string).collect();
    assert_eq!(tiles, expected);
}

#[test]
fn one_board_with_its_caption_and_text_escaped() {
    let b = board("1 2 3 4 5 6 0 7 8");
    let doc = board_svg(&b, &Board::blank_last(Size::S3X3), "start <&> 3x3");
    assert!(doc.contains("start &lt;&amp;&gt; 3x3"), "{doc}");
    let numbers: Vec<String> =
        svg_texts(&doc).into_iter().map(|t| t.0).filter(|t| t.parse::<u8>().is_ok()).collect();
    assert_eq!(numbers, ["1", "2", "3", "4", "5", "6", "7", "8"]);
}

#[test]
fn an_illegal_move_is_refused() {
    let (start, goal, _) = solution_parts();
    let moves = [Dir::Left];
    let s = Solution { start: &start, goal: &goal, moves: &moves, summary: "" };
    assert!(matches!(strip_svg(&s), Err(PictureError::IllegalMove(1))));
    assert!(matches!(write_gif(&s, Vec::new()), Err(PictureError::IllegalMove(1))));
}

/// A decoded GIF: its width, each full frame (palette indices) with its delay, and the palette.
struct Decoded {
    width: usize,
    frames: Vec<(Vec<u8>, u16)>,
    palette: Vec<u8>,
}

/// Decodes a GIF into full frames of palette indices, with each frame's delay.
fn decode(bytes: &[u8]) -> Decoded {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options.read_info(bytes).expect("a GIF");
    let (w, h) = (decoder.width() as usize, decoder.height() as usize);
    let palette = decoder.global_palette().expect("a palette").to_vec();
    let mut canvas = vec![0u8; w * h];
    let mut frames = Vec::new();
    while let Some(f) = decoder.read_next_frame().expect("a frame") {
        for y in 0..f.height as usize {
            for x in 0..f.width as usize {
                canvas[(f.top as usize + y) * w + f.left as usize + x] =
                    f.buffer[y * f.width as usize + x];
            }
        }
        frames.push((canvas.clone(), f.delay));
    }
    Decoded { width: w, frames, palette }
}

/// The color of the pixel a few pixels inside `cell`'s tile (clear of the number).
fn tile_color(frame: &[u8], width: usize, palette: &[u8], cell: usize, board_w: usize) -> [u8; 3] {
    let x = 10 + 6 + (cell % board_w) * 56 + 6;
    let y = 54 + 6 + (cell / board_w) * 56 + 6;
    let i = frame[y * width + x] as usize * 3;
    [palette[i], palette[i + 1], palette[i + 2]]
}

#[test]
fn the_gif_slides_each_tile_and_ends_on_the_goal() {
    let (start, goal, moves) = solution_parts();
    let s =
        Solution { start: &start, goal: &goal, moves: &moves, summary: "2 moves, proven optimal" };
    let mut bytes = Vec::new();
    write_gif(&s, &mut bytes).expect("gif");
    let Decoded { width: w, frames, palette } = decode(&bytes);
    // The start, then 3 in-between frames and the landing of each move.
    assert_eq!(frames.len(), 1 + 2 * 4);
    assert_eq!(frames[0].1, 100);
    assert_eq!(frames.last().map(|f| f.1), Some(300));
    let color_of = |frame: &[u8], cell| tile_color(frame, w, &palette, cell, 3);
    // Start: tiles 1-6 home (green), 7 and 8 not, the blank on cell 6.
    for cell in 0..6 {
        assert_eq!(color_of(&frames[0].0, cell), colors::HOME, "cell {cell}");
    }
    assert_eq!(color_of(&frames[0].0, 6), colors::BLANK);
    assert_eq!(color_of(&frames[0].0, 7), colors::TILE);
    // Half-way through the first move, tile 7 (highlighted) is between cells 6 and 7.
    let mid = &frames[2].0;
    let moving: Vec<usize> = (0..w)
        .filter(|&x| {
            let i = mid[(54 + 6 + 2 * 56 + 28) * w + x] as usize * 3;
            palette[i..i + 3] == colors::MOVING
        })
        .collect();
    let (left, right) = (moving[0], moving[moving.len() - 1]);
    assert!(left > 16 + 6 && right < 16 + 2 * 56, "{left}..{right}");
    // The end: every tile home, the blank in the corner.
    let last = &frames.last().expect("frames").0;
    for cell in 0..8 {
        assert_eq!(color_of(last, cell), colors::HOME, "cell {cell}");
    }
    assert_eq!(color_of(last, 8), colors::BLANK);
}
