//! One position solved on request, for `fifteen serve` (the JSON API) and `fifteen play`
//! (distances and hints).
//!
//! It takes the path of `fifteen solve --json`: the same parsing (`input`), the default
//! heuristic for the board (`heuristics::choose`), the same search (`solve::attempt`) and the
//! same record (`output::Record`), so the API answers with the object the command line prints.
//! Two things differ, both because a person is waiting:
//! - heuristics are kept per goal (a database is loaded once, not per request);
//! - the search runs within a [`Budget`]. The default search gets [`optimal_share`] of it; if
//!   it runs out, the rest goes to near-optimal searches and the answer says `"optimal": false`
//!   (unless they prove it) with the larger of the searches' proven lower bounds: on the 5x5
//!   with its databases the anytime search (`fifteen solve --time-limit`: beams, and IDA* that
//!   may still prove the answer optimal), on boards up to 16 cells, where the optimal search
//!   nearly always finishes, weighted A* with decreasing weights, the shortest answer kept.
//!   Where the default search is the anytime search (6x5 and up, and boards of 17 to 25 cells
//!   without databases, `near::auto_anytime`), it flows through `choose` and `attempt`
//!   unchanged.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use fifteen_core::{
    Algorithm, AnyHeuristic, Board, LimitKind, Limits, Problem, SearchError, Size, Solution, Stats,
};
use fifteen_serve::{Backend, Budget, RandomQuery, Reply, SolveRequest, error_body};

use crate::args::{Cli, Command, PdbOpts, SolveArgs};
use crate::exit;
use crate::heuristics::choose;
use crate::input;
use crate::near::NearMode;
use crate::output::Record;
use crate::random::{self, SplitMix64};
use crate::solve::{self, Outcome, Settings};

/// The share of the budget the default search gets before the near-optimal ones: nearly all of
/// it where the default is the anytime search ([`crate::near::auto_anytime`]); else the optimal
/// search's, which on boards of at most 16 cells almost always finishes, and on larger ones (the
/// 5x5 with its databases) answers the easy positions in its tenth, the anytime search getting
/// the rest.
pub(crate) fn optimal_share(size: Size, heuristic: &AnyHeuristic) -> f64 {
    let cells = size.cells();
    if crate::near::auto_anytime(size, heuristic) {
        // The default there is the anytime search, which answers and then improves.
        0.9
    } else if cells <= 16 {
        0.6
    } else {
        0.1
    }
}

/// The share of what is left that the anytime search gets after the optimal search ran out, on
/// boards of 17 to 25 cells (the rest is for writing the answer).
const ANYTIME_SHARE: f64 = 0.9;

/// The near-optimal searches run when the optimal one runs out, the shortest answer kept:
/// weighted A* finds at most W times the optimal length. The greediest first, so that there is
/// an answer soon (measured on uniformly random 8x8 boards: W = 10 answers in 0.2 s, W = 5 and
/// less run out of `MAX_STORED`; on 5x5, W = 2 answers in about a second).
const NEAR_OPTIMAL: [f64; 3] = [10.0, 3.0, 2.0];

/// Nodes each weighted A* may store (about 250 bytes each on an 8x8 board).
const MAX_STORED: usize = 500_000;

/// Longest random walk `GET /api/random` makes.
const MAX_WALK: u32 = 1_000_000;

/// Goals whose heuristics are kept.
const CACHED_GOALS: usize = 32;

/// The heuristics built, by goal (size and cells).
type Heuristics = HashMap<(Size, Vec<u8>), Arc<AnyHeuristic>>;

/// What a solve came to: the record `--json` prints and the solution, if any.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) record: Record,
    pub(crate) solution: Option<Solution>,
}

/// Solves positions on request.
#[derive(Debug)]
pub(crate) struct Service {
    /// `fifteen solve --json --threads N`: what the records are made from.
    args: SolveArgs,
    heuristics: Mutex<Heuristics>,
}

impl Service {
    /// A service whose searches use `threads` threads and the databases of `pdb`.
    pub(crate) fn new(threads: usize, pdb: &PdbOpts) -> anyhow::Result<Service> {
        let threads = threads.max(1).to_string();
        let cli = Cli::try_parse_from(["fifteen", "solve", "--json", "--threads", &threads, "0"])
            .context("the solve settings")?;
        let Command::Solve(mut args) = cli.command else {
            anyhow::bail!("the solve settings did not parse as `solve`");
        };
        args.search.pdb = pdb.clone();
        Ok(Service { args, heuristics: Mutex::new(HashMap::new()) })
    }

    /// The default heuristic for `goal`, built (or loaded, or for a database built on first
    /// use) once.
    pub(crate) fn heuristic(&self, goal: &Board) -> anyhow::Result<Arc<AnyHeuristic>> {
        let key = (goal.size(), goal.cells().to_vec());
        if let Some(h) = self.lock().get(&key) {
            return Ok(Arc::clone(h));
        }
        // Built without the lock: a first-use build takes seconds, and other goals need not
        // wait for it (two builds of one set take turns on the folder's lock file).
        // Sets of boards over 25 cells take minutes to build: not while a person waits.
        let mut pdb = self.args.search.pdb.clone();
        pdb.no_pdb_build |= goal.size().cells() >= crate::near::AUTO_MIN_CELLS;
        let h = Arc::new(choose(None, goal, &pdb)?);
        let mut cache = self.lock();
        if cache.len() >= CACHED_GOALS {
            cache.clear();
        }
        Ok(Arc::clone(cache.entry(key).or_insert(h)))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Heuristics> {
        // A panic while holding the lock cannot leave the map half-updated: keep using it.
        self.heuristics.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn settings(&self, budget: &Budget, share: f64) -> Settings {
        let mut settings = Settings::from_args(&self.args);
        let left = budget.deadline.saturating_duration_since(Instant::now());
        settings.limits.timeout = Some(left.mul_f64(share).max(Duration::from_millis(1)));
        settings.limits.max_nodes = budget.max_nodes.map(|n| (n as f64 * share) as u64);
        settings.cancel = Some(Arc::clone(&budget.cancel));
        settings.report = false;
        settings
    }

    /// Solves `board` for `goal` within `budget`.
    pub(crate) fn answer(
        &self,
        board: &Board,
        goal: &Board,
        budget: &Budget,
    ) -> anyhow::Result<Answer> {
        if let Err(why) = board.solvability(goal) {
            let settings = self.settings(budget, 1.0);
            let record = Record::new(board, goal, &Outcome::Unsolvable(why), &settings, &self.args);
            return Ok(Answer { record, solution: None });
        }
        let heuristic = self.heuristic(goal)?;
        let mut settings = self.settings(budget, optimal_share(board.size(), &heuristic));
        let outcome = solve::attempt(board, goal, &heuristic, &settings);
        // Boards from 17 cells up to the 5x5 go on with the anytime search; those that ran it
        // already (their default without databases, and larger boards) do not, smaller ones go
        // on with weighted A*.
        let anytime_next = (17..crate::near::AUTO_MIN_CELLS).contains(&board.size().cells())
            && crate::near::mode_for(&settings, board.size(), &heuristic).is_none();
        if let Outcome::Failed(SearchError::LimitReached {
            kind: LimitKind::Nodes | LimitKind::Time,
            lower_bound,
            stats,
        }) = &outcome
        {
            if anytime_next {
                if let Some(answer) =
                    self.anytime(board, goal, &heuristic, budget, stats, *lower_bound)
                {
                    return Ok(answer);
                }
                // Nothing found in the time left: the optimal search's record, with its bound.
            } else if let Some((solution, algorithm, work)) =
                self.near_optimal(board, goal, &heuristic, budget, stats.generated)
            {
                settings.algorithm = algorithm;
                let mut record = Record::new(
                    board,
                    goal,
                    &Outcome::Solved(solution.clone()),
                    &settings,
                    &self.args,
                );
                record.heuristic = heuristic.name().to_string();
                record.lower_bound = Some((*lower_bound).max(solution.initial_h));
                // The work of every search that ran.
                record.nodes = stats.generated + work.generated;
                record.expanded = stats.expanded + work.expanded;
                record.lookups = stats.lookups + work.lookups;
                record.time_ms = (stats.elapsed + work.elapsed).as_secs_f64() * 1e3;
                return Ok(Answer { record, solution: Some(solution) });
            }
        }
        let mut record = Record::new(board, goal, &outcome, &settings, &self.args);
        record.heuristic = heuristic.name().to_string();
        let solution = match outcome {
            Outcome::Solved(s) => Some(s),
            Outcome::Near(n) => Some(n.solution),
            _ => None,
        };
        Ok(Answer { record, solution })
    }

    /// The anytime search's answer within what is left of `budget`, after an optimal search
    /// that used `first` and proved `first_bound`: the record counts the work of both, and its
    /// lower bound is the larger of the two (so the answer is optimal if it reaches it). `None`
    /// if the anytime search found nothing.
    fn anytime(
        &self,
        board: &Board,
        goal: &Board,
        heuristic: &AnyHeuristic,
        budget: &Budget,
        first: &Stats,
        first_bound: u32,
    ) -> Option<Answer> {
        let mut settings = self.settings(budget, ANYTIME_SHARE);
        settings.near = settings.limits.timeout.map(NearMode::Anytime);
        settings.limits.max_nodes = budget.max_nodes.map(|n| n.saturating_sub(first.generated));
        let Outcome::Near(mut near) = solve::attempt(board, goal, heuristic, &settings) else {
            return None;
        };
        near.lower_bound = near.lower_bound.max(first_bound);
        let solution = &mut near.solution;
        solution.optimal |= near.lower_bound as usize >= solution.len();
        let mut record =
            Record::new(board, goal, &Outcome::Near(near.clone()), &settings, &self.args);
        record.heuristic = heuristic.name().to_string();
        record.nodes += first.generated;
        record.expanded += first.expanded;
        record.lookups += first.lookups;
        record.time_ms += first.elapsed.as_secs_f64() * 1e3;
        Some(Answer { record, solution: Some(near.solution) })
    }

    /// The shortest answer of the near-optimal searches within what is left of `budget`, its
    /// algorithm, and the work of them all.
    fn near_optimal(
        &self,
        board: &Board,
        goal: &Board,
        heuristic: &AnyHeuristic,
        budget: &Budget,
        used_nodes: u64,
    ) -> Option<(Solution, Algorithm, Stats)> {
        let problem = Problem::new(board.clone(), goal.clone()).ok()?;
        let mut best: Option<(Solution, Algorithm)> = None;
        let mut work = Stats::default();
        for w in NEAR_OPTIMAL {
            if budget.cancel.load(Ordering::Relaxed) || Instant::now() >= budget.deadline {
                break;
            }
            let algorithm = Algorithm::Weighted(w);
            let limits = Limits {
                max_nodes: budget.max_nodes.map(|n| n.saturating_sub(used_nodes + work.generated)),
                deadline: Some(budget.deadline),
                cancel: Some(Arc::clone(&budget.cancel)),
                max_stored: Some(MAX_STORED),
                threads: 1,
                lanes: 1,
                progress: None,
            };
            let stats = match heuristic.solve(&problem, algorithm, &limits) {
                Ok(s) => {
                    let stats = s.stats.clone();
                    if best.as_ref().is_none_or(|(b, _)| s.len() < b.len()) {
                        best = Some((s, algorithm));
                    }
                    stats
                }
                Err(SearchError::LimitReached { stats, .. }) => stats,
                Err(_) => Stats::default(),
            };
            work.generated += stats.generated;
            work.expanded += stats.expanded;
            work.lookups += stats.lookups;
            work.elapsed += stats.elapsed;
        }
        best.map(|(s, a)| (s, a, work))
    }

    /// A random position as `GET /api/random` gives it.
    fn random_position(&self, q: &RandomQuery) -> anyhow::Result<serde_json::Value> {
        let size: Size = q.size.as_deref().unwrap_or("4x4").parse().context("bad --size")?;
        let goal = input::goal(q.goal.as_deref().unwrap_or("blank-last"), size)?;
        let seed = q.seed.unwrap_or_else(random::clock_seed);
        let mut rng = SplitMix64::new(seed);
        let board = match q.moves {
            Some(m) if m > MAX_WALK => {
                anyhow::bail!(exit::BadInput(format!(
                    "bad moves: a random walk has at most {MAX_WALK} moves, not {m}"
                )))
            }
            Some(m) => random::walk(&goal, m, &mut rng),
            None => random::uniform(&goal, &mut rng)?,
        };
        Ok(serde_json::json!({
            "board": random::line(&board),
            "size": size.to_string(),
            "goal": goal.to_line(),
            "seed": seed,
            "moves": q.moves,
        }))
    }
}

/// An error's reply: `422` for the user's mistakes (the exit codes of bad input and usage),
/// `500` for the server's.
fn error_reply(err: &anyhow::Error) -> Reply {
    let body = error_body(&format!("{err:#}"));
    match exit::code_for(err) {
        exit::BAD_INPUT | exit::USAGE | exit::UNSOLVABLE => Reply::Unprocessable(body),
        _ => Reply::Failed(body),
    }
}

/// The board and goal of a request, read as `fifteen solve` reads them.
fn parse(request: &SolveRequest) -> anyhow::Result<(Board, Board)> {
    let size = input::size(request.size.as_deref())?;
    let board = input::board(std::slice::from_ref(&request.board), size)?;
    let goal = input::goal(request.goal.as_deref().unwrap_or("blank-last"), board.size())?;
    Ok((board, goal))
}

impl Backend for Service {
    /// Refuses what does not parse, and answers an unsolvable position (no search needed).
    fn check(&self, request: &SolveRequest) -> Result<(), Reply> {
        let (board, goal) = parse(request).map_err(|e| error_reply(&e))?;
        if let Err(why) = board.solvability(&goal) {
            let settings = Settings::from_args(&self.args);
            let record =
                Record::new(&board, &goal, &Outcome::Unsolvable(why), &settings, &self.args);
            return Err(match serde_json::to_value(&record) {
                Ok(v) => Reply::Unprocessable(v),
                Err(e) => Reply::Failed(error_body(&e.to_string())),
            });
        }
        Ok(())
    }

    fn solve(&self, request: &SolveRequest, budget: &Budget) -> Reply {
        let answer = parse(request).and_then(|(board, goal)| self.answer(&board, &goal, budget));
        match answer {
            Ok(a) => match serde_json::to_value(&a.record) {
                Ok(v) if a.record.status == "unsolvable" => Reply::Unprocessable(v),
                Ok(v) => Reply::Ok(v),
                Err(e) => Reply::Failed(error_body(&e.to_string())),
            },
            Err(e) => error_reply(&e),
        }
    }

    fn random(&self, query: &RandomQuery) -> Reply {
        match self.random_position(query) {
            Ok(v) => Reply::Ok(v),
            Err(e) => error_reply(&e),
        }
    }
}

#[cfg(test)]
mod tests;
