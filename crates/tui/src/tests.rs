//! The screens driven with keys, clicks and a clock, drawn into ratatui's `TestBackend`.

use std::time::Instant;

use fifteen_core::{Board, Dir, Size};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;
use ratatui::style::Color;

use crate::board_view::Geometry;
use crate::game::{Distance, Game};
use crate::playback::Playback;
use crate::term::Flow;
use crate::{Advice, Look, Shown};

const COLOR: Look = Look { color: true };
const MONO: Look = Look { color: false };

fn board(text: &str) -> Board {
    Board::parse(text, None).expect("a board")
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// 3x3, two moves from the goal: the blank moves right twice (tiles 7 and 8 slide left).
fn shown() -> Shown {
    Shown {
        start: board("1 2 3 4 5 6 0 7 8"),
        goal: Board::blank_last(Size::S3X3),
        moves: vec![Dir::Right, Dir::Right],
        summary: "2 moves, proven optimal".into(),
    }
}

fn text_rows(buf: &Buffer) -> Vec<String> {
    let area = buf.area;
    (0..area.height)
        .map(|y| (0..area.width).map(|x| buf[(x, y)].symbol().to_string()).collect())
        .collect()
}

/// The numbers drawn between rows `from` and `to` (exclusive), in reading order, with their
/// column and row.
fn labels(buf: &Buffer, from: u16, to: u16) -> Vec<(u8, u16, u16)> {
    let mut out = Vec::new();
    for y in from..to {
        let mut x = 0;
        while x < buf.area.width {
            let mut digits = String::new();
            let start = x;
            while x < buf.area.width && buf[(x, y)].symbol().chars().all(|c| c.is_ascii_digit()) {
                digits.push_str(buf[(x, y)].symbol());
                x += 1;
            }
            if let Ok(n) = digits.parse() {
                out.push((n, start, y));
            }
            x += 1;
        }
    }
    out
}

fn tiles_in_reading_order(b: &Board) -> Vec<u8> {
    b.cells().iter().copied().filter(|&t| t != 0).collect()
}

fn draw_playback(p: &Playback, now: Instant) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(50, 20)).expect("terminal");
    t.draw(|f| p.render(f, now)).expect("draw");
    t.backend().buffer().clone()
}

#[test]
fn geometry_maps_every_cell_back_from_its_corner() {
    for (w, h, area) in [(4, 4, (80, 24)), (8, 8, (80, 30)), (3, 5, (40, 20)), (2, 2, (12, 6))] {
        let size = Size::new(w, h).expect("size");
        let area = Rect::new(0, 0, area.0, area.1);
        let g = Geometry::fit(area, size).expect("fits");
        assert!(g.frame().width <= area.width && g.frame().height <= area.height, "{g:?}");
        for cell in 0..w * h {
            let (col, row) =
                (g.x + (cell % w) as u16 * g.tile_w, g.y + (cell / w) as u16 * g.tile_h);
            assert_eq!(g.cell_at(col, row), Some(cell), "{g:?}");
            assert_eq!(g.cell_at(col + g.tile_w - 1, row + g.tile_h - 1), Some(cell), "{g:?}");
        }
        assert_eq!(g.cell_at(g.x - 1, g.y), None);
        assert_eq!(g.cell_at(g.x + g.tile_w * w as u16, g.y), None);
    }
    assert_eq!(Geometry::fit(Rect::new(0, 0, 20, 5), Size::new(8, 8).expect("size")), None);
}

#[test]
fn playback_draws_each_board_in_place() {
    let t0 = Instant::now();
    let s = shown();
    let mut p = Playback::new(&s, COLOR, t0);
    p.playing = false;
    let buf = draw_playback(&p, t0);
    assert_eq!(
        labels(&buf, 1, 17).iter().map(|l| l.0).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6, 7, 8]
    );
    let rows = text_rows(&buf);
    assert!(rows[17].starts_with("move 0/2 · paused"), "{rows:#?}");
    assert!(rows[18].starts_with("LL"), "{rows:#?}");
    // The tiles of the bottom row: 7 and 8 right of the blank.
    let start_cols: Vec<u16> = labels(&buf, 1, 17).iter().map(|l| l.1).collect();

    p.handle_key(key(KeyCode::End), t0);
    let buf = draw_playback(&p, t0);
    let rows = text_rows(&buf);
    assert!(rows[17].starts_with("move 2/2 · paused · 3 moves/s · goal reached"), "{rows:#?}");
    let end = labels(&buf, 1, 17);
    assert_eq!(end.iter().map(|l| l.0).collect::<Vec<_>>(), tiles_in_reading_order(&s.goal));
    // 7 and 8 moved one tile left each; 1..6 stayed.
    assert_eq!(&end[..6].iter().map(|l| l.1).collect::<Vec<_>>(), &start_cols[..6]);
    assert!(end[6].1 < start_cols[6] && end[7].1 < start_cols[7]);
}

#[test]
fn a_tile_slides_through_the_cells_between() {
    let t0 = Instant::now();
    let mut p = Playback::new(&shown(), COLOR, t0);
    p.playing = false;
    let at = |buf: &Buffer, tile: u8| {
        labels(buf, 1, 17).into_iter().find(|l| l.0 == tile).map(|l| l.1).expect("drawn")
    };
    let before = at(&draw_playback(&p, t0), 7);
    p.handle_key(key(KeyCode::Right), t0);
    let slide = p.slide.expect("a slide");
    assert_eq!((slide.tile, p.step), (7, 1));
    let middle = at(&draw_playback(&p, t0 + slide.duration / 2), 7);
    let after = at(&draw_playback(&p, t0 + slide.duration), 7);
    assert!(after < middle && middle < before, "{before} {middle} {after}");
    // Back again: it slides the other way.
    p.handle_key(key(KeyCode::Left), t0 + slide.duration);
    assert_eq!(p.step, 0);
    let back = p.slide.expect("a slide");
    assert_eq!((back.tile, back.from, back.to), (7, slide.to, slide.from));
}

#[test]
fn playback_keys_and_autoplay() {
    let t0 = Instant::now();
    let mut p = Playback::new(&shown(), COLOR, t0);
    assert!(p.playing, "starts playing");
    let step = crate::playback::interval(p.speed);
    p.advance(t0 + step / 2);
    assert_eq!(p.step, 0, "not yet");
    p.advance(t0 + step);
    assert_eq!(p.step, 1);
    p.advance(t0 + step * 2);
    assert_eq!(p.step, 2);
    p.advance(t0 + step * 3);
    assert!(!p.playing, "stops at the end");
    // Space at the end starts over.
    p.handle_key(key(KeyCode::Char(' ')), t0);
    assert!(p.playing);
    assert_eq!(p.step, 0);
    p.handle_key(key(KeyCode::Char(' ')), t0);
    assert!(!p.playing);
    let speed = p.speed;
    p.handle_key(key(KeyCode::Char('+')), t0);
    assert_eq!(p.speed, speed + 1);
    p.handle_key(key(KeyCode::Char('-')), t0);
    p.handle_key(key(KeyCode::Char('-')), t0);
    assert_eq!(p.speed, speed - 1);
    p.handle_key(key(KeyCode::Left), t0);
    assert_eq!(p.step, 0, "cannot go before the start");
    assert_eq!(p.handle_key(key(KeyCode::Char('q')), t0), Flow::Quit);
    assert_eq!(p.handle_key(key(KeyCode::Esc), t0), Flow::Quit);
    assert_eq!(
        p.handle_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL), t0),
        Flow::Quit
    );
}

#[test]
fn no_color_draws_without_colors() {
    let t0 = Instant::now();
    let s = shown();
    for (look, colored) in [(MONO, false), (COLOR, true)] {
        let mut p = Playback::new(&s, look, t0);
        p.playing = false;
        let buf = draw_playback(&p, t0);
        let any_color = buf.content.iter().any(|c| c.fg != Color::Reset || c.bg != Color::Reset);
        assert_eq!(any_color, colored, "{look:?}");
    }
}

fn game() -> Game {
    Game::new(board("1 2 3 4 5 6 0 7 8"), Board::blank_last(Size::S3X3), COLOR)
}

#[test]
fn arrows_slide_tiles_the_way_they_point() {
    let t0 = Instant::now();
    let mut g = game();
    // The blank is bottom left: nothing below or left of it to slide up or right.
    g.handle_key(key(KeyCode::Up), t0);
    g.handle_key(key(KeyCode::Right), t0);
    assert_eq!((g.moves_made, &g.board), (0, &board("1 2 3 4 5 6 0 7 8")));
    g.handle_key(key(KeyCode::Down), t0);
    assert_eq!(g.board, board("1 2 3 0 5 6 4 7 8"));
    g.handle_key(key(KeyCode::Left), t0);
    assert_eq!(g.board, board("1 2 3 5 0 6 4 7 8"));
    g.handle_key(key(KeyCode::Char('u')), t0);
    assert_eq!((g.moves_made, &g.board), (1, &board("1 2 3 0 5 6 4 7 8")));
    g.handle_key(key(KeyCode::Char('r')), t0);
    assert_eq!((g.moves_made, &g.board), (0, &g.start.clone()));
}

#[test]
fn a_click_slides_the_tiles_between_it_and_the_blank() {
    let t0 = Instant::now();
    let mut g = game();
    let mut t = Terminal::new(TestBackend::new(40, 16)).expect("terminal");
    t.draw(|f| g.render(f, t0)).expect("draw");
    let geometry = g.geometry.expect("drawn");
    let click = |cell: usize| MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: geometry.x + (cell % 3) as u16 * geometry.tile_w + 1,
        row: geometry.y + (cell / 3) as u16 * geometry.tile_h,
        modifiers: KeyModifiers::NONE,
    };
    // Tile 8 on the bottom right: 7 and 8 slide left.
    g.handle_mouse(click(8), t0);
    assert_eq!((g.moves_made, &g.board), (2, &g.goal.clone()));
    assert!(g.message.starts_with("solved in 2 moves"), "{}", g.message);
    // Not in line with the blank: nothing moves.
    g.handle_mouse(click(0), t0);
    assert_eq!(g.moves_made, 2);
    // A click outside the board does nothing.
    g.handle_mouse(MouseEvent { column: 0, row: 0, ..click(0) }, t0);
    assert_eq!(g.moves_made, 2);
}

#[test]
fn distances_and_hints_follow_the_known_path() {
    let t0 = Instant::now();
    let mut g = game();
    let start = g.board.clone();
    assert_eq!(g.wanted(), Some(&start));
    assert_eq!(g.distance(), Distance::Thinking);
    g.handle_key(key(KeyCode::Char('h')), t0);
    assert_eq!(g.message, "thinking…");
    g.receive(
        &start,
        Advice::Path { moves: vec![Dir::Right, Dir::Right], optimal: true, lower_bound: 2 },
    );
    // The hint asked for before the answer is shown when it comes.
    assert_eq!(g.message, "hint: slide tile 7 left");
    assert_eq!(g.hint.as_ref().map(|h| h.0), Some(7));
    assert_eq!(g.distance(), Distance::Exact(2));
    assert_eq!(g.wanted(), None);
    g.handle_key(key(KeyCode::Left), t0);
    assert_eq!(g.distance(), Distance::Exact(1), "along the path: no new search");
    assert_eq!(g.wanted(), None);
    assert_eq!(g.hint, None, "the hint was for the previous position");
    g.show_hint();
    assert_eq!(g.message, "hint: slide tile 8 left");
    // Off the path: a new question.
    g.handle_key(key(KeyCode::Down), t0);
    assert_eq!(g.distance(), Distance::Thinking);
    assert_eq!(g.wanted(), Some(&g.board.clone()));
    let here = g.board.clone();
    g.receive(&here, Advice::Unknown { lower_bound: 3, why: "time limit".into() });
    assert_eq!(g.distance(), Distance::AtLeast(3));
    g.show_hint();
    assert!(g.message.starts_with("no hint"), "{}", g.message);
    g.receive(
        &here,
        Advice::Path { moves: vec![Dir::Up, Dir::Right], optimal: false, lower_bound: 1 },
    );
    assert_eq!(g.distance(), Distance::Between { upper: 2, lower: 1 });
    // An answer for a position the player has left changes nothing shown.
    g.handle_key(key(KeyCode::Char('u')), t0);
    assert_eq!(g.distance(), Distance::Thinking);
}

#[test]
fn text_versions() {
    let mut out = Vec::new();
    crate::write_playback(&mut out, &shown()).expect("write");
    let text = String::from_utf8(out).expect("utf-8");
    assert!(text.starts_with("2 moves, proven optimal\nstart:\n1 2 3\n4 5 6\n0 7 8\n"), "{text}");
    assert!(text.contains("move 1/2: tile 7 slides left\n1 2 3\n4 5 6\n7 0 8\n"), "{text}");
    assert!(text.ends_with("move 2/2: tile 8 slides left\n1 2 3\n4 5 6\n7 8 0\n\ngoal reached\n"));
    let mut out = Vec::new();
    let advice =
        Advice::Path { moves: vec![Dir::Right, Dir::Right], optimal: true, lower_bound: 2 };
    crate::write_advice(&mut out, &shown().start, &advice).expect("write");
    let text = String::from_utf8(out).expect("utf-8");
    assert_eq!(text, "1 2 3\n4 5 6\n0 7 8\ndistance: 2 moves (optimal)\nhint: slide tile 7 left\n");
}
