//! `fifteen solve --input FILE`: many positions, solved in parallel, answered in input order.
//!
//! Workers (a rayon pool of `--threads`) take the next unsolved line from a shared counter, so
//! answers finish roughly in order; the main thread prints each answer as soon as every earlier
//! one is printed, holding back only those that finish early.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufWriter, IsTerminal, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::Context;
use fifteen_core::{AnyHeuristic, Board, Size};
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::SolveArgs;
use crate::exit;
use crate::heuristics::choose;
use crate::input;
use crate::output::Record;
use crate::solve::{Outcome, Settings, attempt};

/// One position of the input.
#[derive(Debug)]
struct Item {
    /// 1-based line number.
    line: usize,
    /// The instance number at the start of the line, if any.
    id: Option<String>,
    /// The optimal length given on the line, if any.
    expected: Option<u32>,
    /// The board, or why the line is not one.
    board: Result<Board, String>,
}

/// The goal and heuristic for each board size met, or why the goal does not fit that size.
type Setups = HashMap<Size, Result<(Board, AnyHeuristic), String>>;

/// Runs the batch mode.
pub(crate) fn run(args: &SolveArgs) -> anyhow::Result<u8> {
    let Some(path) = &args.input else {
        anyhow::bail!(exit::Usage("no --input file".into()));
    };
    let text = read_input(path)?;
    let size = input::size(args.board_opts.size.as_deref())?;
    let items: Vec<Item> =
        text.lines().enumerate().filter_map(|(i, l)| parse_line(i + 1, l, size)).collect();
    let setups = setups(&items, args)?;
    let settings = Settings::from_args(args);

    let mut out: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(BufWriter::new(
            File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(std::io::stdout().lock()),
    };
    let progress = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(items.len() as u64);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} positions, {elapsed} (eta {eta})")
        {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let threads = args.threads.map_or(0, usize::from);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start the worker threads")?;
    let workers = pool.current_num_threads().min(items.len()).max(1);

    let t0 = Instant::now();
    let mut summary = Summary::default();
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, Record)>();
    let printed: anyhow::Result<()> = std::thread::scope(|s| {
        let (items, setups, settings, next) = (&items, &setups, &settings, &next);
        let pool = &pool;
        s.spawn(move || {
            pool.scope(|ps| {
                for _ in 0..workers {
                    let tx = tx.clone();
                    ps.spawn(move |_| {
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(item) = items.get(i) else { break };
                            let record = solve_item(item, setups, settings, args);
                            if tx.send((i, record)).is_err() {
                                break;
                            }
                        }
                    });
                }
            });
        });
        let mut pending = BTreeMap::new();
        let mut want = 0;
        for (i, record) in rx {
            pending.insert(i, record);
            while let Some(record) = pending.remove(&want) {
                let line = if args.json { record.to_json()? } else { record.text_line() };
                progress.suspend(|| writeln!(out, "{line}"))?;
                progress.inc(1);
                summary.add(&record);
                want += 1;
            }
        }
        Ok(())
    });
    progress.finish_and_clear();
    printed?;
    out.flush()?;
    eprintln!("{}", summary.text(t0.elapsed().as_secs_f64()));
    Ok(if summary.failed.is_empty() { exit::OK } else { exit::FAILED })
}

/// The whole input: a file, or stdin for `-`.
fn read_input(path: &std::path::Path) -> anyhow::Result<String> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).context("cannot read stdin")?;
        Ok(text)
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
    }
}

/// One input line: `None` if blank or a comment. A line may start with an id (one token more
/// than the cells: a number or a word such as `H01`) or an id and the optimal length (two
/// more, Korf's format).
fn parse_line(line: usize, text: &str, size: Option<Size>) -> Option<Item> {
    let content = text.split('#').next().unwrap_or_default();
    if content.trim().is_empty() {
        return None;
    }
    let tokens: Vec<&str> =
        content.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()).collect();
    let is_cell = |t: &&str| t.parse::<u64>().is_ok() || *t == "_";
    let is_board = |k: usize| match size {
        Some(s) => k == s.cells(),
        None => Size::square_of(k).is_some(),
    };
    let is_id =
        |t: &str| t != "_" && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    let (mut id, mut expected, mut body) = (None, None, content.to_string());
    let n = tokens.len();
    if n >= 2 && !is_board(n) && is_id(tokens[0]) && tokens[2..].iter().all(is_cell) {
        if is_board(n - 1) && is_cell(&tokens[1]) {
            id = Some(tokens[0].to_string());
            body = tokens[1..].join(" ");
        } else if n >= 3
            && is_board(n - 2)
            && let Ok(e) = tokens[1].parse::<u32>()
        {
            id = Some(tokens[0].to_string());
            expected = Some(e);
            body = tokens[2..].join(" ");
        }
    }
    let board = Board::parse(&body, size).map_err(|e| format!("bad board: {e}"));
    Some(Item { line, id, expected, board })
}

/// Builds the goal and heuristic for every size in the input. A goal that does not fit a size
/// fails only the lines of that size; a heuristic that cannot be built fails the whole run.
fn setups(items: &[Item], args: &SolveArgs) -> anyhow::Result<Setups> {
    let mut setups = Setups::new();
    for item in items {
        let Ok(board) = &item.board else { continue };
        let size = board.size();
        if setups.contains_key(&size) {
            continue;
        }
        let setup = match input::goal(&args.board_opts.goal, size) {
            Ok(goal) => {
                let kind = args.search.heuristic.map(|h| h.kind());
                let h = choose(kind, &goal, &args.search.pdb)?;
                Ok((goal, h))
            }
            Err(e) => Err(format!("{e:#}")),
        };
        setups.insert(size, setup);
    }
    Ok(setups)
}

/// Solves one line.
fn solve_item(item: &Item, setups: &Setups, settings: &Settings, args: &SolveArgs) -> Record {
    let mut record =
        match (&item.board, item.board.as_ref().ok().and_then(|b| setups.get(&b.size()))) {
            (Ok(board), Some(Ok((goal, h)))) => {
                let outcome = attempt(board, goal, h, settings);
                let mut r = Record::new(board, goal, &outcome, settings, args);
                r.heuristic = h.name().to_string();
                if let (Outcome::Solved(s), Some(e)) = (&outcome, item.expected)
                    && s.optimal
                    && s.len() != e as usize
                {
                    r.status = "mismatch";
                    r.error = Some(format!("length {} differs from the expected {e}", s.len()));
                }
                r
            }
            (Ok(board), Some(Err(goal_error))) => {
                let mut r = Record::empty(settings, args);
                r.board = Some(board.to_line());
                r.size = Some(board.size().to_string());
                r.error = Some(goal_error.clone());
                r
            }
            (Ok(board), None) => {
                let mut r = Record::empty(settings, args);
                r.board = Some(board.to_line());
                r.error =
                    Some(format!("internal error: no goal was built for {} boards", board.size()));
                r
            }
            (Err(e), _) => {
                let mut r = Record::empty(settings, args);
                r.error = Some(e.clone());
                r
            }
        };
    record.line = Some(item.line);
    record.id = item.id.clone();
    record.expected = item.expected;
    record
}

/// Totals for the summary line.
#[derive(Debug, Default)]
struct Summary {
    count: usize,
    solved: usize,
    nodes: u64,
    search_ms: f64,
    failed: Vec<usize>,
}

impl Summary {
    fn add(&mut self, record: &Record) {
        self.count += 1;
        self.nodes += record.nodes;
        self.search_ms += record.time_ms;
        if record.failed() {
            self.failed.push(record.line.unwrap_or(0));
        } else {
            self.solved += 1;
        }
    }

    fn text(&self, wall_secs: f64) -> String {
        let mean = if self.count == 0 { 0.0 } else { self.nodes as f64 / self.count as f64 };
        let mut s = format!(
            "{} positions: {} solved, {} failed; nodes generated: {} total, {:.0} mean; time: {:.3} s wall, {:.3} s searching",
            self.count,
            self.solved,
            self.failed.len(),
            self.nodes,
            mean,
            wall_secs,
            self.search_ms / 1e3,
        );
        if !self.failed.is_empty() {
            let shown: Vec<String> = self.failed.iter().take(10).map(usize::to_string).collect();
            let more = if self.failed.len() > 10 { ", ..." } else { "" };
            s.push_str(&format!("\nfailed lines: {}{more}", shown.join(", ")));
        }
        s
    }
}

#[cfg(test)]
mod tests;
