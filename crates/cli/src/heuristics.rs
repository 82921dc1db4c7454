//! Building heuristics. Every command goes through [`build_heuristic`] (a named kind) or
//! [`choose`] (the `--heuristic` option, where no choice means the best available: pattern
//! databases on the 4x4 and 5x5, linear conflict elsewhere).

use fifteen_core::{AnyHeuristic, Board, EXACT_MAX_CELLS, HeuristicKind, Size};

use crate::args::PdbOpts;
use crate::exit::Usage;
use crate::pdb::{self, DbError, Found};

/// The heuristic used when none is named: databases on the 4x4 and the 5x5 (which fall back to
/// linear conflict, saying so, when no set serves the goal), linear conflict elsewhere.
pub(crate) fn default_kind(size: Size) -> HeuristicKind {
    // Boards over 25 cells get the anytime search by default. Measured (docs/performance.md):
    // the 6x6 set guides it well; on 7x7 and 8x8 the 4-tile sets answered fewer positions
    // within 5 s than linear conflict, so there they are used only when named.
    let cells = size.cells();
    if size == Size::S4X4
        || size == Size::S5X5
        || (crate::near::AUTO_MIN_CELLS..=36).contains(&cells)
    {
        HeuristicKind::Pdb
    } else {
        HeuristicKind::LinearConflict
    }
}

/// The heuristic `kind` for `goal`, or why it cannot be built. A database that is missing and
/// cannot be built falls back to linear conflict, with a warning, only if `fallback`.
fn build(
    kind: HeuristicKind,
    goal: &Board,
    opts: &PdbOpts,
    fallback: bool,
) -> anyhow::Result<AnyHeuristic> {
    let cells = goal.size().cells();
    match kind {
        HeuristicKind::Pdb => match pdb::load(goal, opts)? {
            Found::Heuristic(h) => Ok(*h),
            Found::BuildFailed(why) => {
                eprintln!("warning: {why}; using linear-conflict instead");
                build(HeuristicKind::LinearConflict, goal, opts, false)
            }
            Found::Missing(why) if fallback => {
                eprintln!("note: {why}; using linear-conflict");
                build(HeuristicKind::LinearConflict, goal, opts, false)
            }
            Found::Missing(why) => Err(DbError(why).into()),
        },
        HeuristicKind::Exact if cells > EXACT_MAX_CELLS => Err(Usage(format!(
            "the exact heuristic needs a board of at most {EXACT_MAX_CELLS} cells, but a {} board has {cells}",
            goal.size()
        ))
        .into()),
        _ => AnyHeuristic::build(kind, goal).ok_or_else(|| {
            Usage(format!("the {kind} heuristic cannot be built for this board")).into()
        }),
    }
}

/// The heuristic `kind` for `goal` (databases are loaded, or built on first use).
pub(crate) fn build_heuristic(
    kind: HeuristicKind,
    goal: &Board,
    opts: &PdbOpts,
) -> anyhow::Result<AnyHeuristic> {
    build(kind, goal, opts, false)
}

/// The heuristic named by `--heuristic`, or the default for the board, which falls back to
/// linear conflict when no database serves the goal.
pub(crate) fn choose(
    named: Option<HeuristicKind>,
    goal: &Board,
    opts: &PdbOpts,
) -> anyhow::Result<AnyHeuristic> {
    match named {
        Some(kind) => build(kind, goal, opts, false),
        None => build(default_kind(goal.size()), goal, opts, true),
    }
}

/// Whether `kind` can apply to boards of `cells` cells at all.
pub(crate) fn available(kind: HeuristicKind, cells: usize) -> bool {
    match kind {
        HeuristicKind::Exact => cells <= EXACT_MAX_CELLS,
        _ => true,
    }
}
