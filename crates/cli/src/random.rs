//! `fifteen random`: scrambles, by a random walk from the goal or uniformly among the solvable
//! positions, from a small seeded generator so that the same seed gives the same output on
//! every platform and version.

use std::io::Write;

use anyhow::Context;
use fifteen_core::{Board, Dir, Size};

use crate::args::RandomArgs;
use crate::exit;
use crate::input;

/// SplitMix64 (Steele, Lea and Flood 2014): tiny, fast, and good enough to shuffle boards. Written
/// out here so the output for a seed never changes with a dependency's version.
#[derive(Debug)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), by rejection so that no value is favoured.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        let n = n.max(1) as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }
}

/// Runs `fifteen random`.
pub(crate) fn run(args: &RandomArgs) -> anyhow::Result<u8> {
    let size: Size = args.size.parse().context("bad --size")?;
    let goal = input::goal(&args.goal, size)?;
    let seed = args.seed.unwrap_or_else(clock_seed);
    let mut rng = SplitMix64::new(seed);
    let mut out = std::io::stdout().lock();
    for _ in 0..args.count {
        let board = if args.uniform {
            uniform(&goal, &mut rng)?
        } else {
            walk(&goal, args.moves, &mut rng)
        };
        writeln!(out, "{}", line(&board))?;
    }
    out.flush()?;
    Ok(exit::OK)
}

/// A seed from the clock and the process id, for runs without `--seed`.
pub(crate) fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (u64::from(std::process::id()) << 32)
}

/// `moves` random moves from `goal`, never undoing the previous one.
pub(crate) fn walk(goal: &Board, moves: u32, rng: &mut SplitMix64) -> Board {
    let size = goal.size();
    let mut board = goal.clone();
    let mut prev: Option<Dir> = None;
    for _ in 0..moves {
        let blank = board.blank();
        let options: Vec<Dir> = Dir::ALL
            .into_iter()
            .filter(|&d| Some(d.opposite()) != prev && d.neighbor(size, blank).is_some())
            .collect();
        // Every cell of a board of at least 2x2 has two neighbours, so one is always left.
        let Some(&d) = options.get(rng.below(options.len())) else { break };
        board.apply(d);
        prev = Some(d);
    }
    board
}

/// A uniformly random position that can reach `goal`: a shuffle, and if it has the wrong parity,
/// the first two tiles swapped (a bijection between the two halves, so still uniform).
pub(crate) fn uniform(goal: &Board, rng: &mut SplitMix64) -> anyhow::Result<Board> {
    let mut cells = goal.cells().to_vec();
    for i in (1..cells.len()).rev() {
        let j = rng.below(i + 1);
        cells.swap(i, j);
    }
    let board = Board::from_cells(goal.size(), &cells)?;
    if board.solvability(goal).is_ok() {
        return Ok(board);
    }
    let tiles: Vec<usize> = (0..cells.len()).filter(|&c| cells[c] != 0).take(2).collect();
    if let [a, b] = tiles[..] {
        cells.swap(a, b);
    }
    Ok(Board::from_cells(goal.size(), &cells)?)
}

/// One line that `solve` parses back: the cells, with rows separated by `/` unless the board
/// is square (whose size the count gives).
pub(crate) fn line(board: &Board) -> String {
    let size = board.size();
    if size.width() == size.height() {
        return board.to_line();
    }
    board
        .cells()
        .chunks(size.width())
        .map(|row| row.iter().map(u8::to_string).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join(" / ")
}

#[cfg(test)]
mod tests;
