//! Building heuristics. Every command goes through [`build_heuristic`], so the pattern-database
//! heuristic plugs in here (loading its files from options added to [`HeuristicOptions`]).

use fifteen_core::{AnyHeuristic, Board, EXACT_MAX_CELLS, HeuristicKind};

use crate::exit::Usage;

/// What building a heuristic may need beyond the goal. Empty until pattern databases arrive
/// (their directory will go here).
#[derive(Debug, Default, Clone)]
pub(crate) struct HeuristicOptions {}

/// The heuristic `kind` for `goal`, or why it cannot be built.
pub(crate) fn build_heuristic(
    kind: HeuristicKind,
    goal: &Board,
    _opts: &HeuristicOptions,
) -> anyhow::Result<AnyHeuristic> {
    let cells = goal.size().cells();
    match kind {
        HeuristicKind::Pdb => Err(Usage(
            "the pdb heuristic is not available yet (pattern databases are not part of this build); use --heuristic linear-conflict".into(),
        )
        .into()),
        HeuristicKind::Exact if cells > EXACT_MAX_CELLS => Err(Usage(format!(
            "the exact heuristic needs a board of at most {EXACT_MAX_CELLS} cells, but a {} board has {cells}",
            goal.size()
        ))
        .into()),
        _ => AnyHeuristic::build(kind, goal)
            .ok_or_else(|| Usage(format!("the {kind} heuristic cannot be built for this board")).into()),
    }
}

/// Whether `kind` can be built for boards of `cells` cells without extra files.
pub(crate) fn available(kind: HeuristicKind, cells: usize) -> bool {
    match kind {
        HeuristicKind::Pdb => false,
        HeuristicKind::Exact => cells <= EXACT_MAX_CELLS,
        _ => true,
    }
}
