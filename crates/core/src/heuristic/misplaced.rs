//! Misplaced tiles: the number of tiles not on their goal cell. Admissible (each misplaced tile
//! needs at least one move) and weak; kept for teaching comparisons.

use super::{GoalCells, Heuristic};
use crate::board::{Board, Size};

/// The number of tiles (not counting the blank) away from their goal cell.
#[derive(Clone, Debug)]
pub struct Misplaced {
    goal: GoalCells,
}

impl Misplaced {
    /// The heuristic for `goal`.
    pub fn new(goal: &Board) -> Misplaced {
        Misplaced { goal: GoalCells::new(goal) }
    }
}

impl Heuristic for Misplaced {
    type State = u32;

    fn name(&self) -> &str {
        "misplaced"
    }

    fn size(&self) -> Size {
        self.goal.size
    }

    fn init(&self, cells: &[u8]) -> u32 {
        cells
            .iter()
            .enumerate()
            .filter(|&(c, &t)| t != 0 && self.goal.cell[t as usize] as usize != c)
            .count() as u32
    }

    #[inline(always)]
    fn h(&self, state: &u32) -> u32 {
        *state
    }

    #[inline(always)]
    fn step(&self, state: &u32, _after: &[u8], tile: u8, from: usize, to: usize) -> u32 {
        let home = self.goal.cell[tile as usize] as usize;
        *state + (home == from) as u32 - (home == to) as u32
    }
}
