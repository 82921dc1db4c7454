//! What the commands print: the JSON record of one position (field names are part of the
//! interface: see `fifteen solve --help`), the one-line batch answer, and the statistics.

use std::fmt::Write as _;

use fifteen_core::{Algorithm, Board, SearchError, Solution, format_moves};
use serde::Serialize;

use crate::args::SolveArgs;
use crate::solve::{Outcome, Settings, no_solution};

/// One position's answer, as printed by `--json`.
#[derive(Debug, Serialize)]
pub(crate) struct Record {
    /// Batch: the 1-based input line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) line: Option<usize>,
    /// Batch: the instance number at the start of the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) id: Option<String>,
    /// The start, cells in row-major order separated by spaces (null if it did not parse).
    pub(crate) board: Option<String>,
    /// `WxH`.
    pub(crate) size: Option<String>,
    /// The goal, like `board`.
    pub(crate) goal: Option<String>,
    /// `solved`, `unsolvable`, `limit`, `error` or `mismatch`.
    pub(crate) status: &'static str,
    /// Number of moves, counted in `metric`.
    pub(crate) length: Option<usize>,
    /// `stm` or `mtm`: how `length` counts moves.
    pub(crate) metric: &'static str,
    /// Number of single-tile moves.
    pub(crate) stm_length: Option<usize>,
    /// Whether the length is proven minimal.
    pub(crate) optimal: Option<bool>,
    /// Batch: the optimal length given on the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) expected: Option<u32>,
    /// The moves as letters in `notation`.
    pub(crate) moves: Option<String>,
    /// `tile` or `blank`.
    pub(crate) notation: &'static str,
    /// The tile moved at each step.
    pub(crate) tiles: Option<Vec<u8>>,
    /// Nodes generated.
    pub(crate) nodes: u64,
    /// Nodes expanded.
    pub(crate) expanded: u64,
    /// Database lookups (IDA* with databases).
    pub(crate) lookups: u64,
    /// Search time in milliseconds.
    pub(crate) time_ms: f64,
    /// The heuristic's name.
    pub(crate) heuristic: String,
    /// The algorithm's name (`weighted(W)` for weighted A*).
    pub(crate) algorithm: String,
    /// With `--stats`: IDA*'s f-bounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) thresholds: Option<Vec<u32>>,
    /// After a limit, and with every answer not proven optimal: every solution has at least
    /// this many moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lower_bound: Option<u32>,
    /// `--within F`: the answer is at most this times the optimal length.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) bound: Option<f64>,
    /// Why the position failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
}

impl Record {
    /// A record with nothing known but the settings.
    pub(crate) fn empty(settings: &Settings, args: &SolveArgs) -> Record {
        Record {
            line: None,
            id: None,
            board: None,
            size: None,
            goal: None,
            status: "error",
            length: None,
            metric: settings.metric.name(),
            stm_length: None,
            optimal: None,
            expected: None,
            moves: None,
            notation: args.notation.name(),
            tiles: None,
            nodes: 0,
            expanded: 0,
            lookups: 0,
            time_ms: 0.0,
            heuristic: args.search.heuristic.map_or("default", |h| h.kind().name()).to_string(),
            algorithm: settings.algorithm.to_string(),
            thresholds: None,
            lower_bound: None,
            bound: None,
            error: None,
        }
    }

    /// The record of `outcome` for `board` and `goal`.
    pub(crate) fn new(
        board: &Board,
        goal: &Board,
        outcome: &Outcome,
        settings: &Settings,
        args: &SolveArgs,
    ) -> Record {
        let mut r = Record::empty(settings, args);
        r.board = Some(board.to_line());
        r.size = Some(board.size().to_string());
        r.goal = Some(goal.to_line());
        match outcome {
            Outcome::Solved(s) => {
                r.status = "solved";
                r.length = Some(s.len());
                r.optimal = Some(s.optimal);
                r.moves = Some(format_moves(&s.moves, args.notation.notation()));
                r.stm_length = Some(s.len());
                if settings.metric == fifteen_core::mtm::Metric::Mtm {
                    let lines = fifteen_core::mtm::lines(&s.moves);
                    r.length = Some(lines.len());
                    r.moves =
                        Some(fifteen_core::mtm::format_lines(&lines, args.notation.notation()));
                    if !s.optimal {
                        r.lower_bound = Some(s.initial_h);
                    }
                    // `--time-limit` runs the MTM beams with IDA* (`mtm::beams_first`).
                    if matches!(settings.near, Some(crate::near::NearMode::Anytime(_))) {
                        r.algorithm = "anytime".to_string();
                    }
                }
                r.tiles = Some(s.tiles.clone());
                r.nodes = s.stats.generated;
                r.expanded = s.stats.expanded;
                r.lookups = s.stats.lookups;
                r.time_ms = s.stats.elapsed.as_secs_f64() * 1e3;
                if args.stats {
                    r.thresholds = Some(s.stats.thresholds.clone());
                }
            }
            Outcome::Near(n) => {
                let s = &n.solution;
                r.status = "solved";
                r.length = Some(s.len());
                r.optimal = Some(s.optimal);
                r.moves = Some(format_moves(&s.moves, args.notation.notation()));
                r.tiles = Some(s.tiles.clone());
                r.nodes = s.stats.generated;
                r.expanded = s.stats.expanded;
                r.time_ms = s.stats.elapsed.as_secs_f64() * 1e3;
                r.algorithm = crate::near::algorithm_name(n);
                r.lower_bound = Some(n.lower_bound);
                r.bound = n.bound;
            }
            Outcome::Unsolvable(why) => {
                r.status = "unsolvable";
                r.error = Some(no_solution(why));
            }
            Outcome::Failed(e) => {
                r.error = Some(e.to_string());
                if let SearchError::LimitReached { lower_bound, stats, .. } = e {
                    r.status = "limit";
                    r.lower_bound = Some(*lower_bound);
                    r.nodes = stats.generated;
                    r.expanded = stats.expanded;
                    r.lookups = stats.lookups;
                    r.time_ms = stats.elapsed.as_secs_f64() * 1e3;
                } else {
                    r.status = "error";
                }
            }
        }
        r
    }

    /// One line of JSON.
    pub(crate) fn to_json(&self) -> anyhow::Result<String> {
        Ok(serde_json::to_string(self)?)
    }

    /// Whether the position counts as failed for the exit code.
    pub(crate) fn failed(&self) -> bool {
        self.status != "solved"
    }

    /// The batch text answer: `line N (id I): ...`.
    pub(crate) fn text_line(&self) -> String {
        let mut s = String::new();
        match self.line {
            Some(line) => {
                let _ = write!(s, "line {line}");
            }
            None => s.push_str("input"),
        }
        if let Some(id) = &self.id {
            let _ = write!(s, " (id {id})");
        }
        s.push_str(": ");
        match (self.status, self.length) {
            ("solved" | "mismatch", Some(len)) => {
                let proven = if self.optimal == Some(true) {
                    "proven optimal"
                } else {
                    "not proven optimal"
                };
                let _ = write!(s, "{len} moves, {proven}");
                if let (Some(false), Some(lb)) = (self.optimal, self.lower_bound) {
                    let _ = write!(s, " (at least {lb})");
                }
                if let Some(e) = self.expected {
                    if e as usize == len {
                        let _ = write!(s, ", as expected");
                    } else {
                        let _ = write!(s, ", but {e} expected");
                    }
                }
                let _ = write!(s, ": {}", self.moves.as_deref().unwrap_or(""));
            }
            ("unsolvable", _) => s.push_str(self.error.as_deref().unwrap_or("no solution")),
            ("limit", _) => {
                let _ = write!(s, "gave up: {}", self.error.as_deref().unwrap_or("limit reached"));
            }
            _ => {
                let _ = write!(s, "error: {}", self.error.as_deref().unwrap_or("unknown"));
            }
        }
        s
    }
}

/// "proven optimal", or why not.
pub(crate) fn optimality(solution: &Solution, algorithm: Algorithm) -> String {
    if solution.optimal {
        return "proven optimal".to_string();
    }
    match algorithm {
        Algorithm::Greedy => "not proven optimal: greedy search".to_string(),
        Algorithm::Weighted(w) => {
            format!("not proven optimal: weighted A* finds at most {w} times the optimal length")
        }
        Algorithm::Beam(w) => format!("not proven optimal: beam search of width {w}"),
        _ => "not proven optimal: the heuristic may overestimate".to_string(),
    }
}

/// Numbers separated by spaces.
pub(crate) fn join<T: ToString>(items: &[T]) -> String {
    items.iter().map(T::to_string).collect::<Vec<_>>().join(" ")
}

/// The `--stats` lines.
pub(crate) fn stats_text(solution: &Solution, heuristic: &str, algorithm: Algorithm) -> String {
    let st = &solution.stats;
    let mut s = String::new();
    let _ = writeln!(s, "heuristic: {heuristic} (estimate at the start: {})", solution.initial_h);
    let _ = writeln!(s, "algorithm: {algorithm}");
    let _ = writeln!(s, "nodes expanded: {}", st.expanded);
    let _ = writeln!(s, "nodes generated: {}", st.generated);
    if st.lookups > 0 {
        let _ = writeln!(s, "database lookups: {}", st.lookups);
    }
    if !st.thresholds.is_empty() {
        let _ = writeln!(s, "thresholds: {}", join(&st.thresholds));
    }
    let _ = writeln!(s, "time: {:.3} ms", st.elapsed.as_secs_f64() * 1e3);
    s
}
