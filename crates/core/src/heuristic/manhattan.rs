//! Manhattan distance: the sum over tiles of the taxicab distance to the goal cell. Each move
//! changes it by exactly one, so the search updates it with one table read.

use super::{GoalCells, Heuristic};
use crate::board::{Board, MAX_CELLS, Size};

/// Sum of each tile's taxicab distance to its goal cell.
#[derive(Clone, Debug)]
pub struct Manhattan {
    size: Size,
    /// `delta[tile][from][to]` would be 256 KiB; instead `dist[tile * 64 + cell]` is 4 KiB and
    /// stays in L1.
    dist: Box<[u8; MAX_CELLS * MAX_CELLS]>,
}

impl Manhattan {
    /// The heuristic for `goal`.
    pub fn new(goal: &Board) -> Manhattan {
        let size = goal.size();
        let goal = GoalCells::new(goal);
        let mut dist = Box::new([0u8; MAX_CELLS * MAX_CELLS]);
        for tile in 1..size.cells() {
            for cell in 0..size.cells() {
                dist[tile * MAX_CELLS + cell] = size.distance(cell, goal.cell[tile] as usize) as u8;
            }
        }
        Manhattan { size, dist }
    }

    /// Distance of `tile` on `cell` from its goal cell.
    #[inline(always)]
    pub(crate) fn tile_distance(&self, tile: u8, cell: usize) -> u32 {
        self.dist[(tile as usize * MAX_CELLS + cell) & (MAX_CELLS * MAX_CELLS - 1)] as u32
    }
}

impl Heuristic for Manhattan {
    type State = u32;

    fn name(&self) -> &str {
        "manhattan"
    }

    fn size(&self) -> Size {
        self.size
    }

    fn init(&self, cells: &[u8]) -> u32 {
        cells.iter().enumerate().map(|(c, &t)| self.tile_distance(t, c)).sum()
    }

    #[inline(always)]
    fn h(&self, state: &u32) -> u32 {
        *state
    }

    #[inline(always)]
    fn step(&self, state: &u32, _after: &[u8], tile: u8, from: usize, to: usize) -> u32 {
        *state + self.tile_distance(tile, to) - self.tile_distance(tile, from)
    }
}
