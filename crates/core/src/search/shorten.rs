//! Shortening a path: windows of it re-solved optimally, and loops cut out.
//!
//! A weighted search's answer is made of stretches that wander. Any stretch between two boards
//! of the path can be replaced by a shortest path between them, which IDA* with linear conflict
//! (towards the stretch's end board) finds quickly while the stretch is short. Windows of
//! [`WINDOWS`] moves slide along the path by half their length; each IDA* gets at most
//! [`NODES_PER_WINDOW`] nodes, so a hard window is skipped rather than waited on, and the
//! whole shortening at most [`NODES_IN_ALL`]. Then a board
//! visited twice has the loop between its visits removed. The result replays from the same start
//! to the same goal and is never longer.

use std::collections::HashMap;

use super::{Limits, Problem, Stats, ida};
use crate::board::Board;
use crate::heuristic::LinearConflict;
use crate::moves::Dir;

/// Window lengths, one pass each, in order.
pub(crate) const WINDOWS: [usize; 3] = [12, 20, 28];

/// The most nodes one window's IDA* may generate.
pub(crate) const NODES_PER_WINDOW: u64 = 20_000;

/// The most nodes one shortening may generate in all (long paths have many windows).
pub(crate) const NODES_IN_ALL: u64 = 2_000_000;

/// `moves` from `start`, shortened; stops early (returning what it has) when `limits`' deadline
/// or cancel flag says so. Nodes are added to `stats`.
pub(crate) fn shorten(
    start: &Board,
    moves: &[Dir],
    limits: &Limits,
    stats: &mut Stats,
) -> Vec<Dir> {
    let mut moves = cut_loops(start, moves);
    let mut spent = 0;
    for window in WINDOWS {
        let mut boards = boards_along(start, &moves);
        let mut i = 0;
        while i + 2 <= moves.len() {
            if limits.check_slow().is_some() || spent >= NODES_IN_ALL {
                return cut_loops(start, &moves);
            }
            let j = (i + window).min(moves.len());
            let Ok(problem) = Problem::new(boards[i].clone(), boards[j].clone()) else {
                break;
            };
            let h = LinearConflict::new(&boards[j]);
            let window_limits = Limits {
                max_nodes: Some(NODES_PER_WINDOW),
                deadline: limits.deadline,
                cancel: limits.cancel.clone(),
                ..Limits::default()
            };
            match ida(&problem, &h, &window_limits) {
                Ok(sol) => {
                    spent += sol.stats.generated;
                    stats.generated += sol.stats.generated;
                    stats.expanded += sol.stats.expanded;
                    if sol.len() < j - i {
                        let mut spliced = moves[..i].to_vec();
                        spliced.extend_from_slice(&sol.moves);
                        spliced.extend_from_slice(&moves[j..]);
                        moves = spliced;
                        boards = boards_along(start, &moves);
                    }
                }
                Err(super::SearchError::LimitReached { stats: s, .. }) => {
                    spent += s.generated;
                    stats.generated += s.generated;
                    stats.expanded += s.expanded;
                }
                Err(_) => {}
            }
            if j == moves.len() {
                break;
            }
            i += window / 2;
        }
    }
    cut_loops(start, &moves)
}

/// The boards from `start` along `moves` (one more than the moves).
fn boards_along(start: &Board, moves: &[Dir]) -> Vec<Board> {
    let mut b = start.clone();
    let mut out = Vec::with_capacity(moves.len() + 1);
    out.push(b.clone());
    for &d in moves {
        b.apply(d);
        out.push(b.clone());
    }
    out
}

/// `moves` without the loops: from each board, on to just after its last visit.
pub(crate) fn cut_loops(start: &Board, moves: &[Dir]) -> Vec<Dir> {
    let boards = boards_along(start, moves);
    let mut last: HashMap<&[u8], usize> = HashMap::new();
    for (i, b) in boards.iter().enumerate() {
        last.insert(b.cells(), i);
    }
    let mut out = Vec::with_capacity(moves.len());
    let mut i = 0;
    while i < moves.len() {
        i = last.get(boards[i].cells()).copied().unwrap_or(i);
        if i < moves.len() {
            out.push(moves[i]);
            i += 1;
        }
    }
    out
}
