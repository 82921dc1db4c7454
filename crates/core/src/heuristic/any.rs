//! Choosing a heuristic at run time. Each search is still monomorphised per heuristic: the
//! `match` happens once per solve, never per node.

use std::fmt;
use std::str::FromStr;

use super::{Exact, Heuristic, LinearConflict, Manhattan, Misplaced};
use crate::board::Board;
use crate::moves::Dir;
use crate::mtm::{MtmBeamAnswer, anytime_mtm};
use crate::pdb::PdbHeuristic;
use crate::search::{
    Algorithm, Improvement, Limits, NearOptimal, Problem, SearchError, Solution, anytime, bounded,
    ida_lanes, solve_with,
};

/// The heuristics by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeuristicKind {
    /// [`Misplaced`].
    Misplaced,
    /// [`Manhattan`].
    Manhattan,
    /// [`LinearConflict`].
    LinearConflict,
    /// [`Exact`] (boards of at most 9 cells).
    Exact,
    /// Additive pattern databases (loaded separately).
    Pdb,
}

impl HeuristicKind {
    /// All kinds, weakest first.
    pub const ALL: [HeuristicKind; 5] = [
        HeuristicKind::Misplaced,
        HeuristicKind::Manhattan,
        HeuristicKind::LinearConflict,
        HeuristicKind::Pdb,
        HeuristicKind::Exact,
    ];

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            HeuristicKind::Misplaced => "misplaced",
            HeuristicKind::Manhattan => "manhattan",
            HeuristicKind::LinearConflict => "linear-conflict",
            HeuristicKind::Exact => "exact",
            HeuristicKind::Pdb => "pdb",
        }
    }
}

impl fmt::Display for HeuristicKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for HeuristicKind {
    type Err = String;

    fn from_str(s: &str) -> Result<HeuristicKind, String> {
        HeuristicKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            format!(
                "unknown heuristic {s:?}: expected one of misplaced, manhattan, linear-conflict, exact, pdb"
            )
        })
    }
}

/// A built heuristic of any kind.
#[derive(Clone, Debug)]
#[non_exhaustive]
#[expect(
    clippy::large_enum_variant,
    reason = "built once per run and searched by reference: its size costs nothing"
)]
pub enum AnyHeuristic {
    /// See [`Misplaced`].
    Misplaced(Misplaced),
    /// See [`Manhattan`].
    Manhattan(Manhattan),
    /// See [`LinearConflict`].
    LinearConflict(LinearConflict),
    /// See [`Exact`].
    Exact(Exact),
    /// See [`PdbHeuristic`].
    Pdb(PdbHeuristic),
}

impl AnyHeuristic {
    /// Whether interleaving searches on one thread (lanes: `Limits::lanes`) pays with this
    /// heuristic. It does with the additive tables (3 lanes: 0.77 - 0.89 of the time with 7-8),
    /// whose state is small; not with a catalogue, whose state is about 300 bytes a node and
    /// whose reads mostly hit the cache (Korf's 24-puzzle #25, 5x5-14x6-bits: 12.6 s with 3
    /// lanes, 11.5 s with 1 on one thread; 8.5 s and 6.1 s on two).
    pub fn interleaving_pays(&self) -> bool {
        !matches!(
            self,
            AnyHeuristic::Pdb(PdbHeuristic::Catalogue(_) | PdbHeuristic::CatalogueLarge(_))
        )
    }
}

/// Runs `$body` with `$h` bound to the concrete heuristic inside `$any`.
macro_rules! dispatch {
    ($any:expr, $h:ident => $body:expr) => {
        match $any {
            AnyHeuristic::Misplaced($h) => $body,
            AnyHeuristic::Manhattan($h) => $body,
            AnyHeuristic::LinearConflict($h) => $body,
            AnyHeuristic::Exact($h) => $body,
            AnyHeuristic::Pdb(PdbHeuristic::Pair($h)) => $body,
            AnyHeuristic::Pdb(PdbHeuristic::Triple($h)) => $body,
            AnyHeuristic::Pdb(PdbHeuristic::Small($h)) => $body,
            AnyHeuristic::Pdb(PdbHeuristic::Large($h)) => $body,
            AnyHeuristic::Pdb(PdbHeuristic::Catalogue($h)) => $body,
            AnyHeuristic::Pdb(PdbHeuristic::CatalogueLarge($h)) => $body,
        }
    };
}

impl AnyHeuristic {
    /// Builds a heuristic that needs nothing but the goal. `Pdb` needs its databases loaded
    /// first, and `Exact` needs a board of at most 9 cells; both give `None` here otherwise.
    pub fn build(kind: HeuristicKind, goal: &Board) -> Option<AnyHeuristic> {
        Some(match kind {
            HeuristicKind::Misplaced => AnyHeuristic::Misplaced(Misplaced::new(goal)),
            HeuristicKind::Manhattan => AnyHeuristic::Manhattan(Manhattan::new(goal)),
            HeuristicKind::LinearConflict => {
                AnyHeuristic::LinearConflict(LinearConflict::new(goal))
            }
            HeuristicKind::Exact => AnyHeuristic::Exact(Exact::new(goal)?),
            HeuristicKind::Pdb => return None,
        })
    }

    /// The heuristic's name.
    pub fn name(&self) -> &str {
        dispatch!(self, h => h.name())
    }

    /// The estimate for a whole board.
    pub fn estimate(&self, cells: &[u8]) -> u32 {
        dispatch!(self, h => h.estimate(cells))
    }

    /// Solves `problem` with `algorithm`, statically dispatched on the heuristic.
    pub fn solve(
        &self,
        problem: &Problem,
        algorithm: Algorithm,
        limits: &Limits,
    ) -> Result<Solution, SearchError> {
        dispatch!(self, h => solve_with(problem, h, algorithm, limits))
    }

    /// [`bounded`]: an answer at most `within` times the optimum, statically dispatched.
    pub fn solve_bounded(
        &self,
        problem: &Problem,
        within: f64,
        limits: &Limits,
    ) -> Result<NearOptimal, SearchError> {
        dispatch!(self, h => bounded(problem, h, within, limits))
    }

    /// [`anytime`]: better answers until a limit, each reported to `on_improve`.
    pub fn solve_anytime(
        &self,
        problem: &Problem,
        limits: &Limits,
        on_improve: &mut (dyn FnMut(&Improvement) + Send),
    ) -> Result<NearOptimal, SearchError> {
        dispatch!(self, h => anytime(problem, h, limits, on_improve))
    }

    /// [`anytime_mtm`]: beams over line moves ranked by this heuristic, statically
    /// dispatched.
    pub fn anytime_mtm(
        &self,
        problem: &Problem,
        incumbent: Option<&[Dir]>,
        max_width: usize,
        limits: &Limits,
    ) -> MtmBeamAnswer {
        dispatch!(self, h => anytime_mtm(problem, h, incumbent, max_width, limits))
    }

    /// Solves many problems with IDA*, `lanes` at a time interleaved on the calling thread:
    /// see [`ida_lanes`].
    pub fn solve_lanes<T>(
        &self,
        lanes: usize,
        next: impl FnMut(bool) -> Option<(T, Problem, Limits)>,
        done: impl FnMut(T, Result<Solution, SearchError>),
    ) {
        dispatch!(self, h => ida_lanes(h, lanes, next, done))
    }
}
