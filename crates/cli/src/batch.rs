//! `fifteen solve --input FILE`: many positions, solved in parallel, answered in input order.
//!
//! The input is streamed: a reader thread reads one line at a time (at most [`MAX_LINE`]
//! bytes; a longer line is skipped without being buffered and fails alone), parses it, and hands
//! it to the workers (a rayon pool of `--threads`) through a multi-consumer channel. The main thread prints each answer as soon
//! as every earlier one is printed. At most [`window`] positions are between the reader and the
//! printer at any time (queued, being solved, or finished and waiting for an earlier one), so a
//! batch of millions of lines runs in bounded memory.
//!
//! Because the printer waits for the earliest unanswered position and the reader for the
//! printer, a worker must never block while it holds searches in its lanes: it only takes jobs
//! that are ready, and waits for new work only with every lane idle. No lock is held across a
//! wait (the job channel is crossbeam's, which needs none).
//!
//! Ctrl-C stops the reader and every running search (`Limits::cancel`); the answers finished
//! until then are printed in order, then the summary, and the exit code is 130.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use anyhow::Context;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use fifteen_core::{
    Algorithm, AnyHeuristic, Board, BoundedLines, LimitKind, Limits, Problem, SearchError, Size,
    parse_position_line,
};
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::{PdbOpts, SolveArgs};
use crate::exit;
use crate::heuristics::choose;
use crate::input;
use crate::output::Record;
use crate::solve::{Outcome, Settings, attempt, limits};

mod running;

use running::Running;

/// The longest line read, in bytes (a 8x8 board with an id is under 200).
pub(crate) const MAX_LINE: usize = 64 * 1024;

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

/// The goal and heuristic for one board size, or why the goal does not fit that size.
type Setup = Result<(Board, AnyHeuristic), String>;

/// A position on its way to the workers, with the setup of its size (if it is a board).
type Job = (usize, Item, Option<Arc<Setup>>);

/// How many positions may be between the reader and the printer.
fn window(workers: usize) -> usize {
    (workers * 8).max(64)
}

/// The Ctrl-C flag, set by the handler installed on first use. A second Ctrl-C exits at once.
pub(crate) fn interrupt_flag() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let set = flag.clone();
        let installed = ctrlc::set_handler(move || {
            if set.swap(true, Ordering::SeqCst) {
                std::process::exit(exit::INTERRUPTED.into());
            }
        });
        if let Err(e) = installed {
            eprintln!("warning: Ctrl-C will not print a summary: {e}");
        }
        flag
    })
    .clone()
}

/// Runs the batch mode.
pub(crate) fn run(args: &SolveArgs) -> anyhow::Result<u8> {
    let Some(path) = &args.input else {
        anyhow::bail!(exit::Usage("no --input file".into()));
    };
    let size = input::size(args.board_opts.size.as_deref())?;
    let reader_input = open_input(path)?;
    let cancel = interrupt_flag();
    let mut settings = Settings::from_args(args);
    settings.cancel = Some(cancel.clone());

    let mut out: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(BufWriter::new(
            File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(std::io::stdout().lock()),
    };
    let progress = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::no_length();
        if let Ok(style) =
            ProgressStyle::with_template("{spinner} {pos} positions, {elapsed} ({per_sec}) {msg}")
        {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let threads = args.threads.map_or(0, usize::from);
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool,
        Err(e) => {
            // The system refused threads (memory or process limits): one worker still answers.
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .context("cannot start a worker thread")?;
            let wanted = match threads {
                0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
                n => n,
            };
            eprintln!("warning: cannot start {wanted} worker threads ({e}); using one");
            pool
        }
    };
    let workers = pool.current_num_threads().max(1);
    let window = window(workers);

    // Tokens bound the positions in flight: the reader takes one per position, the printer
    // gives it back once the answer is printed.
    let (token_tx, token_rx) = mpsc::sync_channel::<()>(window);
    for _ in 0..window {
        let _ = token_tx.send(());
    }
    let (job_tx, job_rx) = crossbeam_channel::bounded::<Job>(window);
    let reader = Reader {
        size,
        goal: args.board_opts.goal.clone(),
        heuristic: args.search.heuristic.map(|h| h.kind()),
        pdb: args.search.pdb.clone(),
        cancel: cancel.clone(),
        metric: args.metric.metric(),
        ida_may_run: settings.ida_may_run(),
    };
    // The reader is not joined: on Ctrl-C it may be blocked reading stdin. It leaves its result
    // in `read_result` before closing the job channel, so the result is there once the workers
    // have drained it.
    let read_result: Arc<Mutex<anyhow::Result<()>>> = Arc::new(Mutex::new(Ok(())));
    let slot = read_result.clone();
    std::thread::Builder::new()
        .name("batch-reader".into())
        .spawn(move || {
            let result = reader.run(reader_input, &token_rx, &job_tx);
            if let Ok(mut s) = slot.lock() {
                *s = result;
            }
            drop(job_tx);
        })
        .context("cannot start the reader thread")?;

    let t0 = Instant::now();
    let mut summary = Summary::default();
    let (tx, rx) = mpsc::channel::<(usize, Option<Record>)>();
    let mut interrupted = false;
    let running = Running::default();
    let finished = AtomicBool::new(false);
    let printed: anyhow::Result<()> = std::thread::scope(|s| {
        let (settings, job_rx, cancel, pool) = (&settings, &job_rx, &cancel, &pool);
        let (running, finished, bar) = (&running, &finished, &progress);
        // The workers run on the pool's threads; this thread only waits for them.
        std::thread::Builder::new()
            .spawn_scoped(s, move || {
                pool.scope(|ps| {
                    for _ in 0..workers {
                        let tx = tx.clone();
                        ps.spawn(move |_| work(job_rx, &tx, settings, args, cancel, running));
                    }
                });
            })
            .context("cannot start the batch's threads")?;
        // Progress of the positions that run long (without a thread, the batch goes on
        // without). Spawned after the last `?`, so that `finished` is always set for it.
        let _ = std::thread::Builder::new().spawn_scoped(s, move || {
            show_running(running, finished, bar, args.progress);
        });
        let mut pending = BTreeMap::new();
        let mut want = 0;
        let mut result = Ok(());
        for (i, record) in rx {
            pending.insert(i, record);
            while result.is_ok() && !interrupted {
                let Some(record) = pending.remove(&want) else { break };
                // A position stopped by Ctrl-C ends the output: later answers are dropped.
                let Some(record) = record else {
                    interrupted = true;
                    break;
                };
                let line = match if args.json { record.to_json() } else { Ok(record.text_line()) } {
                    Ok(line) => line,
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                };
                if let Err(e) = progress.suspend(|| writeln!(out, "{line}")) {
                    result = Err(e.into());
                    break;
                }
                progress.inc(1);
                summary.add(&record);
                want += 1;
                let _ = token_tx.send(());
            }
            if result.is_err() {
                // Output failed (a closed pipe...): stop everything.
                cancel.store(true, Ordering::SeqCst);
                break;
            }
        }
        finished.store(true, Ordering::Relaxed);
        result
    });
    drop(token_tx);
    progress.finish_and_clear();
    printed?;
    out.flush()?;
    let interrupted = interrupted || cancel.load(Ordering::SeqCst);
    let wall = t0.elapsed().as_secs_f64();
    if interrupted {
        eprintln!("interrupted; solved so far:\n{}", summary.text(wall));
        return Ok(exit::INTERRUPTED);
    }
    let read = std::mem::replace(
        &mut *read_result.lock().map_err(|_| anyhow::anyhow!("the reader failed"))?,
        Ok(()),
    );
    eprintln!("{}", summary.text(wall));
    read?;
    Ok(if summary.failed.is_empty() { exit::OK } else { exit::FAILED })
}

/// One worker: takes positions until the channel closes or Ctrl-C, and sends each answer (`None`
/// for a position stopped by Ctrl-C). With IDA* it interleaves `--lanes` positions that share a
/// heuristic (see [`fifteen_core::ida_lanes`]) on boards under
/// [`fifteen_core::ORDERED_MIN_CELLS`] cells, whose IDA* orders its subtrees; other lines are
/// answered as they come, each as alone.
fn work(
    jobs: &Receiver<Job>,
    tx: &mpsc::Sender<(usize, Option<Record>)>,
    settings: &Settings,
    args: &SolveArgs,
    cancel: &AtomicBool,
    running: &Running,
) {
    let interleave =
        settings.algorithm == Algorithm::Ida && settings.metric == fifteen_core::mtm::Metric::Stm;
    // A job taken while lanes of another heuristic were running: it starts the next run.
    let mut held: Option<Job> = None;
    loop {
        let Some((i, item, setup)) = held.take().or_else(|| take(jobs, cancel, true)) else {
            return;
        };
        let search = match (&item.board, setup.as_deref()) {
            (Ok(board), Some(Ok((goal, h))))
                if interleave
                    && settings.lanes(h) > 1
                    && board.size().cells() < fifteen_core::ORDERED_MIN_CELLS
                    && crate::near::mode_for(settings, board.size(), h).is_none()
                    && !cancel.load(Ordering::Relaxed) =>
            {
                Problem::new(board.clone(), goal.clone()).ok().map(|p| (p, h))
            }
            _ => None,
        };
        let Some((problem, h)) = search else {
            let record = if cancel.load(Ordering::Relaxed) {
                None
            } else {
                // Counters for the progress lines, as the lanes' positions have.
                let mut own = settings.clone();
                own.progress = Some(running.start(item.line));
                let record = solve_item(&item, setup.as_deref(), &own, args);
                running.end(item.line);
                record
            };
            if tx.send((i, record)).is_err() {
                return;
            }
            continue;
        };
        // Lanes over `h`: positions with the same setup join the run; any other line is
        // answered at once, and a position of another setup ends the run once it drains.
        let mut first = Some(((i, item), problem));
        let failed_send = Cell::new(false);
        h.solve_lanes(
            settings.lanes(h),
            |wait| {
                if let Some((tag, problem)) = first.take() {
                    let limits = watched(limits(settings, 1, 1), running, tag.1.line);
                    return Some((tag, problem, limits));
                }
                while held.is_none() && !failed_send.get() {
                    let (i, item, other) = take(jobs, cancel, wait)?;
                    let same = matches!((&setup, &other), (Some(a), Some(b)) if Arc::ptr_eq(a, b));
                    if let (true, Ok(board), Some(Ok((goal, _)))) =
                        (same, &item.board, other.as_deref())
                        && let Ok(problem) = Problem::new(board.clone(), goal.clone())
                    {
                        let limits = watched(limits(settings, 1, 1), running, item.line);
                        return Some(((i, item), problem, limits));
                    }
                    if same || !matches!((&item.board, other.as_deref()), (Ok(_), Some(Ok(_)))) {
                        // Not a search (a bad line, an unsolvable position): answer it now.
                        let record = solve_item(&item, other.as_deref(), settings, args);
                        failed_send.set(tx.send((i, record)).is_err());
                    } else {
                        held = Some((i, item, other));
                    }
                }
                None
            },
            |(i, item), result| {
                running.end(item.line);
                let outcome = match result {
                    Ok(solution) => Outcome::Solved(solution),
                    Err(e) => Outcome::Failed(e),
                };
                let record = match (&item.board, setup.as_deref()) {
                    (Ok(board), Some(Ok((goal, h)))) => {
                        searched(&item, board, goal, h, &outcome, settings, args)
                    }
                    _ => None,
                };
                if tx.send((i, record)).is_err() {
                    failed_send.set(true);
                }
            },
        );
        if failed_send.get() {
            return;
        }
    }
}

/// `limits` with counters for the position on `line`, which [`show_running`] reads.
fn watched(mut limits: Limits, running: &Running, line: usize) -> Limits {
    limits.progress = Some(running.start(line));
    limits
}

/// Shows the positions searched for longer than `after` (`--progress`; 3 s on a terminal, in
/// the bar, redrawn every second; else 30 s, a line each every 30 s) until `finished`.
fn show_running(
    running: &Running,
    finished: &AtomicBool,
    bar: &ProgressBar,
    after: Option<Duration>,
) {
    let terminal = std::io::stderr().is_terminal();
    let after = after.unwrap_or(Duration::from_secs(if terminal { 3 } else { 30 }));
    let every = if terminal { Duration::from_secs(1) } else { after };
    let mut next = Instant::now() + every;
    while !finished.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        if Instant::now() < next {
            continue;
        }
        next += every;
        let lines = running.report(after);
        if terminal {
            bar.set_message(lines.first().cloned().unwrap_or_default());
        } else {
            for line in lines {
                eprintln!("{line}");
            }
        }
    }
}

/// The next job: waits for one if `wait` (`None` once the channel closes or on Ctrl-C), or
/// only takes one that is ready.
///
/// Invariant: a worker with searches in its lanes calls this with `wait` false and never blocks,
/// and nothing here holds a lock. The printer waits for the earliest unanswered position, and
/// the reader waits for the printer before it sends more jobs; a worker that blocked here with
/// that position in its lanes would stall all three.
fn take(jobs: &Receiver<Job>, cancel: &AtomicBool, wait: bool) -> Option<Job> {
    loop {
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        if !wait {
            return jobs.try_recv().ok();
        }
        // A timeout, so that Ctrl-C is seen while the reader is blocked on stdin.
        match jobs.recv_timeout(Duration::from_millis(50)) {
            Ok(job) => return Some(job),
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return None,
        }
    }
}

/// The input: a file, or stdin for `-`.
fn open_input(path: &Path) -> anyhow::Result<Box<dyn BufRead + Send>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(BufReader::new(std::io::stdin())));
    }
    let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let meta = file.metadata().with_context(|| format!("cannot read {}", path.display()))?;
    if meta.is_dir() {
        return Err(
            exit::BadInput(format!("cannot read {}: it is a folder", path.display())).into()
        );
    }
    Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
}

/// What the reader thread needs: how to parse lines and build each size's heuristic.
struct Reader {
    size: Option<Size>,
    goal: String,
    heuristic: Option<fifteen_core::HeuristicKind>,
    pdb: PdbOpts,
    cancel: Arc<AtomicBool>,
    /// `--metric`: where the MTM search is optimal, the single-tile heuristic is not used.
    metric: fifteen_core::mtm::Metric,
    /// Whether a single-tile IDA* can run ([`Settings::ida_may_run`]); if not, its
    /// duplicate-path machine is not built.
    ida_may_run: bool,
}

impl Reader {
    /// Reads, parses and sends every position, taking a token for each. Builds the goal and
    /// heuristic of each board size on its first line: a goal that does not fit a size fails
    /// only the lines of that size; a heuristic that cannot be built ends the run.
    fn run(
        &self,
        input: Box<dyn BufRead + Send>,
        tokens: &mpsc::Receiver<()>,
        jobs: &Sender<Job>,
    ) -> anyhow::Result<()> {
        let mut lines = BoundedLines::new(input, MAX_LINE);
        let mut setups: HashMap<Size, Arc<Setup>> = HashMap::new();
        let mut index = 0;
        while !self.cancel.load(Ordering::Relaxed) {
            let Some((line, text)) = lines.next_line().context("cannot read the input")? else {
                break;
            };
            let item = match text {
                Ok(text) => match parse_position_line(&text, self.size) {
                    Some(p) => Item {
                        line,
                        id: p.id,
                        expected: p.expected,
                        board: p.board.map_err(|e| format!("bad board: {e}")),
                    },
                    None => continue,
                },
                Err(why) => Item { line, id: None, expected: None, board: Err(why.to_string()) },
            };
            let setup = match &item.board {
                Ok(board) => Some(match setups.get(&board.size()) {
                    Some(setup) => setup.clone(),
                    None => {
                        let setup = Arc::new(self.setup(board.size())?);
                        setups.insert(board.size(), setup.clone());
                        setup
                    }
                }),
                Err(_) => None,
            };
            if tokens.recv().is_err() || jobs.send((index, item, setup)).is_err() {
                break;
            }
            index += 1;
        }
        Ok(())
    }

    fn setup(&self, size: Size) -> anyhow::Result<Setup> {
        Ok(match input::goal(&self.goal, size) {
            Ok(goal) => {
                let named = crate::mtm::stm_heuristic_for(self.metric, self.heuristic, size);
                let h = choose(named, &goal, &self.pdb)?;
                // Before any position of this size starts its time limit.
                if self.ida_may_run {
                    fifteen_core::prepare_ida(size);
                }
                if self.metric == fifteen_core::mtm::Metric::Mtm {
                    crate::mtm::heuristic(&goal, &self.pdb)?;
                }
                Ok((goal, h))
            }
            Err(e) => Err(format!("{e:#}")),
        })
    }
}

/// Solves one line; `None` if Ctrl-C stopped the search.
fn solve_item(
    item: &Item,
    setup: Option<&Setup>,
    settings: &Settings,
    args: &SolveArgs,
) -> Option<Record> {
    let mut record = match (&item.board, setup) {
        (Ok(board), Some(Ok((goal, h)))) => {
            let outcome = attempt(board, goal, h, settings);
            return searched(item, board, goal, h, &outcome, settings, args);
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
    label(&mut record, item);
    Some(record)
}

/// The answer for a position whose search ended with `outcome`; `None` if Ctrl-C stopped it.
fn searched(
    item: &Item,
    board: &Board,
    goal: &Board,
    h: &AnyHeuristic,
    outcome: &Outcome,
    settings: &Settings,
    args: &SolveArgs,
) -> Option<Record> {
    if let Outcome::Failed(SearchError::LimitReached { kind: LimitKind::Cancelled, .. }) = outcome {
        return None;
    }
    let mut r = Record::new(board, goal, outcome, settings, args);
    r.heuristic = crate::mtm::heuristic_name(goal, settings, h.name());
    // An expected length on the line counts single tiles; MTM answers are not checked by it.
    if let (Outcome::Solved(s), Some(e)) = (outcome, item.expected)
        && settings.metric == fifteen_core::mtm::Metric::Stm
        && s.optimal
        && s.len() != e as usize
    {
        r.status = "mismatch";
        r.error = Some(format!("length {} differs from the expected {e}", s.len()));
    }
    label(&mut r, item);
    if settings.metric == fifteen_core::mtm::Metric::Mtm {
        r.expected = None;
    }
    Some(r)
}

/// Marks `record` with the line's number, id and expected length.
fn label(record: &mut Record, item: &Item) {
    record.line = Some(item.line);
    record.id = item.id.clone();
    record.expected = item.expected;
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
