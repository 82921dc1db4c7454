//! `cargo xtask bench --big`: the near-optimal answers on large boards, per size, against
//! DeepCubeA's published table (Agostinelli et al. 2019).
//!
//! For each size it draws positions with `fifteen random` (random walks of the length that
//! gives DeepCubeA's mean Manhattan distance, and with `--big-uniform` also uniformly random
//! ones), solves them as one batch on one thread (one core per position) with `--time-limit`,
//! and prints the mean and worst length, the mean proven lower bound, the mean and worst search
//! time, the mean Manhattan distance and the ratio of the mean length to it, the quantity that
//! carries over between position sets.
//!
//! With `--optimal` it also solves the same positions optimally (IDA* with the default tables,
//! two threads, no limit) and prints the optimal mean, the near-optimal mean over it and how
//! many answers were optimal: the 5x5 target is a mean within 1% of the optimal one.
//! `--optimal-timeout SECS` bounds each optimal solve; positions it leaves unsolved are left out
//! of both means and counted.
//!
//! Solving a 5x5 walk optimally takes seconds to hours, so the optima found once are kept in
//! [`KNOWN_OPTIMA`] (Korf's line format: id, optimal length, cells). A position whose optimal
//! solve ran out of time has a range instead of a length, `LOW-HIGH`: the lower bound that solve
//! proved and the shortest path known. Every run compares the answers with the optima known for
//! its positions, found by their cells, and brackets the gap over all of them: at most, with each
//! optimum not known at the larger of its recorded and its own proven lower bound; at least, with
//! it at the shortest path known (the answer itself if that is shorter). `--optima FILE` reads
//! another such file.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

/// (size, random-walk length, DeepCubeA's mean length over mean Manhattan distance).
const SIZES: &[(&str, u32, Option<f64>)] = &[
    ("5x5", 300, Some(1.371)),
    ("6x6", 330, Some(1.358)),
    ("7x7", 1550, Some(1.310)),
    ("8x8", 3000, None),
];

/// The optimal lengths known for walks of `bench --big`, from the project root.
const KNOWN_OPTIMA: &str = "data/reference/5x5-walks-optima.txt";

const USAGE: &str =
    "usage: cargo xtask bench --big [--count N] [--time-limit SECS] [--sizes 5x5,6x6,...]
       [--big-uniform] [--pdb-dir DIR] [--bin DIR] [--optimal] [--optimal-timeout SECS]
       [--optima FILE]

  --count N          positions per size (default 100)
  --time-limit SECS  the anytime search's limit per position (default 10)
  --sizes LIST       board sizes (default 6x6,7x7,8x8)
  --big-uniform      also uniformly random positions
  --pdb-dir DIR      databases to solve with
  --bin DIR          the folder of the `fifteen` binary (default: a release build)
  --optimal          also solve the positions optimally, for the gap to the optimal mean
  --optimal-timeout SECS  the same, each optimal solve limited to SECS
  --optima FILE      optimal lengths known for some positions (id, length or LOW-HIGH,
                     cells per line; default data/reference/5x5-walks-optima.txt)";

/// Options of `bench --big`.
struct Options {
    count: u32,
    time_limit: String,
    sizes: Vec<String>,
    uniform: bool,
    pdb_dir: Option<String>,
    bin: Option<String>,
    optimal: bool,
    /// Seconds each optimal solve may take (a few 5x5 walks take hours).
    optimal_timeout: Option<String>,
    /// The file of known optimal lengths.
    optima: Option<String>,
}

pub(crate) fn run(root: &Path, args: &[String]) -> anyhow::Result<()> {
    let mut o = Options {
        count: 100,
        time_limit: "10".into(),
        sizes: vec!["6x6".into(), "7x7".into(), "8x8".into()],
        uniform: false,
        pdb_dir: None,
        bin: None,
        optimal: false,
        optimal_timeout: None,
        optima: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--big" => {}
            "--count" => o.count = value()?.parse().context("--count: a number")?,
            "--time-limit" => o.time_limit = value()?.clone(),
            "--sizes" => o.sizes = value()?.split(',').map(str::to_string).collect(),
            "--big-uniform" => o.uniform = true,
            "--pdb-dir" => o.pdb_dir = Some(value()?.clone()),
            "--bin" => o.bin = Some(value()?.clone()),
            "--optimal" => o.optimal = true,
            "--optimal-timeout" => {
                o.optimal = true;
                o.optimal_timeout = Some(value()?.clone());
            }
            "--optima" => o.optima = Some(value()?.clone()),
            "--help" | "-h" => {
                eprintln!("{USAGE}");
                return Ok(());
            }
            other => bail!("bench --big: unknown argument {other:?}\n\n{USAGE}"),
        }
    }
    let optima_file = match &o.optima {
        Some(f) => Some(Path::new(f).to_path_buf()),
        None => Some(root.join(KNOWN_OPTIMA)).filter(|p| p.exists()),
    };
    let known = match &optima_file {
        Some(f) => read_optima(
            &std::fs::read_to_string(f).with_context(|| format!("cannot read {}", f.display()))?,
        )
        .with_context(|| format!("{}", f.display()))?,
        None => HashMap::new(),
    };
    let fifteen = match &o.bin {
        Some(dir) => Path::new(dir).join("fifteen"),
        None => crate::release_build(root, &["fifteen-cli"])?.join("fifteen"),
    };
    println!(
        "{} positions per size and kind, --time-limit {} s, one thread (batch, --threads 1)",
        o.count, o.time_limit
    );
    println!(
        "| board | positions | mean length | worst | mean lower bound | mean time | worst time | mean Manhattan | length / Manhattan | DeepCubeA |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for size in &o.sizes {
        let Some(&(_, walk, dca)) = SIZES.iter().find(|(s, _, _)| s == size) else {
            bail!("bench --big: no walk length for {size}");
        };
        let mut kinds =
            vec![(format!("--moves {walk}"), vec!["--moves".to_string(), walk.to_string()])];
        if o.uniform {
            kinds.push(("uniform".into(), vec!["--uniform".into()]));
        }
        for (label, kind) in kinds {
            let mut random = Command::new(&fifteen);
            random.args(["random", "--size", size, "--count", &o.count.to_string(), "--seed", "1"]);
            random.args(&kind);
            let positions = output(&mut random)?;
            let file = root.join("target").join(format!("bench-big-{size}.txt"));
            std::fs::write(&file, &positions)?;
            let mut solve = Command::new(&fifteen);
            solve.args(["solve", "--json", "--threads", "1", "--time-limit", &o.time_limit]);
            solve.arg("--input").arg(&file);
            if let Some(d) = &o.pdb_dir {
                solve.args(["--pdb-dir", d]);
            }
            let text = output(&mut solve)?;
            let mut stats = Stats::default();
            let mut answers = Vec::new();
            for line in text.lines() {
                let v: serde_json::Value = serde_json::from_str(line)?;
                let board = v["board"].as_str().context("board")?;
                stats.add(&v, manhattan(board, size)?);
                answers.push(Answer {
                    board: cells_key(board),
                    length: v["length"].as_u64(),
                    lower_bound: v["lower_bound"].as_u64().or(v["length"].as_u64()),
                });
            }
            stats.print(&format!("{size} ({label})"), dca);
            let gap = Gap::of(&known, &answers)?;
            if gap.n > 0 {
                gap.print(optima_file.as_deref().unwrap_or(Path::new("-")));
            }
            if o.optimal {
                optimal(&fifteen, &file, &o, &answers)?;
            }
        }
    }
    Ok(())
}

/// Solves the positions of `file` optimally and prints how far `answers` (the near-optimal
/// ones) are from the optimal lengths.
fn optimal(fifteen: &Path, file: &Path, o: &Options, answers: &[Answer]) -> anyhow::Result<()> {
    let mut solve = Command::new(fifteen);
    solve.args(["solve", "--json", "--threads", "2", "--algorithm", "ida"]);
    solve.arg("--input").arg(file);
    if let Some(d) = &o.pdb_dir {
        solve.args(["--pdb-dir", d]);
    }
    if let Some(t) = &o.optimal_timeout {
        solve.args(["--timeout", t]);
    }
    let text = output(&mut solve)?;
    let (mut solved, mut unsolved, mut ms) = (HashMap::new(), 0, 0.0);
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let Some(opt) = v["length"].as_u64() else {
            unsolved += 1;
            continue;
        };
        if v["optimal"].as_bool() != Some(true) {
            bail!("bench --big --optimal: an answer not proven optimal: {line}");
        }
        solved.insert(cells_key(v["board"].as_str().context("board")?), Known::optimum(opt));
        ms += v["time_ms"].as_f64().unwrap_or(0.0);
    }
    let g = Gap::of(&solved, answers).context("bench --big --optimal")?;
    let (n, same) = (g.n, g.same);
    println!(
        "|   optimal (IDA*, 2 threads) | {n} | {:.2} | near-optimal mean / optimal mean {:.4} | {same} of {n} optimal | {:.2} s mean | {unsolved} not solved within the timeout (left out) |",
        g.opt_sum as f64 / n.max(1) as f64,
        g.near_sum as f64 / g.opt_sum.max(1) as f64,
        ms / solved.len().max(1) as f64 / 1e3,
    );
    Ok(())
}

/// A board's cells as one key: its numbers joined by single spaces.
fn cells_key(cells: &str) -> String {
    cells.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One answer of the near-optimal batch.
struct Answer {
    /// The cells, as the JSON's `board` gives them.
    board: String,
    /// `None`: unanswered.
    length: Option<u64>,
    /// The lower bound the search proved (its length when optimal).
    lower_bound: Option<u64>,
}

/// What is known of a position's optimal length: at least `low`, and a path of `high` moves
/// (equal when the optimum is known).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Known {
    low: u64,
    high: u64,
}

impl Known {
    /// A known optimum.
    fn optimum(length: u64) -> Known {
        Known { low: length, high: length }
    }

    fn exact(&self) -> Option<u64> {
        (self.low == self.high).then_some(self.low)
    }
}

/// Reads optimal lengths in Korf's line format (`ID LENGTH t0 t1 ...`; `#` starts a comment),
/// or for a position not solved a range `LOW-HIGH` in the length's place, keyed by the cells
/// joined by single spaces.
fn read_optima(text: &str) -> anyhow::Result<HashMap<String, Known>> {
    let mut known = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.is_empty() {
            continue;
        }
        if tokens.len() < 3 {
            bail!("line {}: expected an id, an optimal length (or LOW-HIGH) and the cells", i + 1);
        }
        let number = |t: &str| -> anyhow::Result<u64> {
            t.parse().with_context(|| format!("line {}: length {:?}", i + 1, tokens[1]))
        };
        let k = match tokens[1].split_once('-') {
            Some((low, high)) => Known { low: number(low)?, high: number(high)? },
            None => Known::optimum(number(tokens[1])?),
        };
        if k.low > k.high {
            bail!("line {}: a range whose lower end is above its upper end", i + 1);
        }
        if known.insert(tokens[2..].join(" "), k).is_some_and(|old| old != k) {
            bail!("line {}: the same position with two optimal lengths", i + 1);
        }
    }
    Ok(known)
}

/// The answers against the optima known for some of them.
#[derive(Debug, Default, PartialEq)]
struct Gap {
    /// Answered positions with a known optimum.
    n: u64,
    opt_sum: u64,
    /// Their answers' lengths.
    near_sum: u64,
    /// How many of them were optimal.
    same: u64,
    /// Over every answered position: the answers' lengths; each optimum or, not known, the
    /// largest lower bound proven (recorded, or by the answer's own search); and each optimum
    /// or, not known, the shortest path known (recorded, or the answer).
    all: u64,
    all_near: u64,
    all_bound: u64,
    all_path: u64,
}

impl Gap {
    /// Fails on an answer shorter than a known optimum or than a proven lower bound, or on a
    /// proven lower bound above a known path: one of the two figures is wrong.
    fn of(known: &HashMap<String, Known>, answers: &[Answer]) -> anyhow::Result<Gap> {
        let mut g = Gap::default();
        for a in answers {
            let Some(len) = a.length else { continue };
            let k = known.get(&a.board).copied();
            let bound = k.map_or(0, |k| k.low).max(a.lower_bound.unwrap_or(0));
            if len < bound {
                bail!("an answer of {len} moves below a lower bound ({bound}) for {}", a.board);
            }
            if let Some(k) = k
                && a.lower_bound.is_some_and(|b| b > k.high)
            {
                bail!("a proven lower bound above a known path of {} for {}", k.high, a.board);
            }
            if let Some(opt) = k.and_then(|k| k.exact()) {
                g.n += 1;
                g.opt_sum += opt;
                g.near_sum += len;
                g.same += u64::from(len == opt);
            }
            g.all += 1;
            g.all_near += len;
            g.all_bound += bound;
            g.all_path += k.map_or(len, |k| k.high.min(len));
        }
        Ok(g)
    }

    fn print(&self, file: &Path) {
        let pct = |near: u64, opt: u64| 100.0 * (near as f64 / opt.max(1) as f64 - 1.0);
        println!(
            "|   known optima ({}) | {} | {:.2} | {:.2}% above the optimal mean | {} of {} optimal | all {}: {:.2}% to {:.2}% above (optima not known between their proven lower bounds and the shortest paths known) |",
            file.display(),
            self.n,
            self.opt_sum as f64 / self.n.max(1) as f64,
            pct(self.near_sum, self.opt_sum),
            self.same,
            self.n,
            self.all,
            pct(self.all_near, self.all_path),
            pct(self.all_near, self.all_bound),
        );
    }
}

fn output(c: &mut Command) -> anyhow::Result<String> {
    let out = c.output().context("cannot run fifteen")?;
    // A batch exits with 1 when some positions failed: they are counted as unanswered.
    if !matches!(out.status.code(), Some(0 | 1)) {
        bail!("{c:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8(out.stdout)?)
}

/// The Manhattan distance of `board` (cells in row-major order) to the blank-last goal.
fn manhattan(board: &str, size: &str) -> anyhow::Result<u64> {
    let w: usize = size.split('x').next().context("size")?.parse()?;
    let mut sum = 0;
    for (cell, t) in board.split_whitespace().enumerate() {
        let t: usize = t.parse()?;
        if t != 0 {
            let goal = t - 1;
            sum += (cell / w).abs_diff(goal / w) + (cell % w).abs_diff(goal % w);
        }
    }
    Ok(sum as u64)
}

#[derive(Default)]
struct Stats {
    n: u64,
    failed: u64,
    len: u64,
    worst: u64,
    lower: u64,
    ms: f64,
    worst_ms: f64,
    manhattan: u64,
}

impl Stats {
    fn add(&mut self, v: &serde_json::Value, manhattan: u64) {
        self.n += 1;
        self.manhattan += manhattan;
        let ms = v["time_ms"].as_f64().unwrap_or(0.0);
        self.ms += ms;
        self.worst_ms = self.worst_ms.max(ms);
        match v["length"].as_u64() {
            Some(len) => {
                self.len += len;
                self.worst = self.worst.max(len);
                self.lower += v["lower_bound"].as_u64().unwrap_or(len);
            }
            None => self.failed += 1,
        }
    }

    fn print(&self, label: &str, dca: Option<f64>) {
        let solved = (self.n - self.failed).max(1) as f64;
        let n = self.n.max(1) as f64;
        let mean_len = self.len as f64 / solved;
        let mean_md = self.manhattan as f64 / n;
        let failed =
            if self.failed > 0 { format!(" ({} unanswered)", self.failed) } else { String::new() };
        println!(
            "| {label} | {}{failed} | {mean_len:.2} | {} | {:.2} | {:.2} s | {:.2} s | {mean_md:.1} | {:.3} | {} |",
            self.n,
            self.worst,
            self.lower as f64 / solved,
            self.ms / n / 1e3,
            self.worst_ms / 1e3,
            mean_len / mean_md,
            dca.map_or("-".to_string(), |r| format!("{r:.3}")),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(board: &str, length: u64, lower_bound: u64) -> Answer {
        Answer { board: board.into(), length: Some(length), lower_bound: Some(lower_bound) }
    }

    #[test]
    fn known_optima_are_read_by_their_cells() {
        let text = "# a comment\n\n1 6 1 2 3  4 0 5 6 7 8 # trailing\n2 0 1 2 3 4 5 6 7 8 0\n\
                    3 20-24 1 2 3 4 5 6 0 7 8\n";
        let known = read_optima(text).unwrap();
        assert_eq!(known.len(), 3);
        assert_eq!(known.get("1 2 3 4 0 5 6 7 8"), Some(&Known { low: 6, high: 6 }));
        assert_eq!(known.get("1 2 3 4 5 6 7 8 0"), Some(&Known { low: 0, high: 0 }));
        assert_eq!(known.get("1 2 3 4 5 6 0 7 8"), Some(&Known { low: 20, high: 24 }));
        assert!(read_optima("1 x 1 2 3").is_err());
        assert!(read_optima("1 6").is_err());
        assert!(read_optima("1 6 1 2 3 0\n2 8 1 2 3 0").is_err());
        assert!(read_optima("1 6 1 2 3 0\n2 6-8 1 2 3 0").is_err());
        assert_eq!(read_optima("1 6 1 2 3 0\n2 6 1 2 3 0").unwrap().len(), 1);
        assert!(read_optima("1 24-20 1 2 3 0").is_err());
        assert!(read_optima("1 20- 1 2 3 0").is_err());
        assert!(read_optima("1 -20 1 2 3 0").is_err());
    }

    #[test]
    fn the_gap_counts_known_optima_and_brackets_the_rest() {
        let known = read_optima("1 80 a\n2 90 b\n9 70 z\n4 98-102 e\n5 98-104 f").unwrap();
        let answers = vec![
            answer("a", 82, 76),
            answer("b", 90, 84),
            answer("c", 100, 96),
            Answer { board: "d".into(), length: None, lower_bound: Some(50) },
            // A range: its lower end counts unless the answer's own bound is larger, its upper
            // end unless the answer is shorter.
            answer("e", 104, 94),
            answer("f", 100, 99),
        ];
        let g = Gap::of(&known, &answers).unwrap();
        let want = Gap {
            n: 2,
            opt_sum: 170,
            near_sum: 172,
            same: 1,
            all: 5,
            all_near: 476,
            all_bound: 80 + 90 + 96 + 98 + 99,
            all_path: 80 + 90 + 100 + 102 + 100,
        };
        assert_eq!(g, want);
        // An answer shorter than the known optimum, or a bound over it, is a wrong figure.
        assert!(Gap::of(&known, &[answer("a", 78, 70)]).is_err());
        assert!(Gap::of(&known, &[answer("a", 84, 82)]).is_err());
        assert!(Gap::of(&known, &[answer("c", 90, 92)]).is_err());
        // So is an answer below a recorded lower bound, or a bound above a recorded path.
        assert!(Gap::of(&known, &[answer("e", 96, 90)]).is_err());
        assert!(Gap::of(&known, &[answer("e", 104, 103)]).is_err());
    }
}
