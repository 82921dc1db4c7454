//! Experiment: interleaved lanes against one position at a time (Korf's 100, 7-8).
use std::path::Path;
use std::time::Instant;

use fifteen_core::pdb::{LoadMode, best_set};
use fifteen_core::{AnyHeuristic, Board, Limits, Problem, Size};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let input = args.get(1).map_or("../shared/instances/korf100.txt", |s| s.as_str());
    let dir = args.get(2).map_or("data", |s| s.as_str());
    let goal = Board::blank_first(Size::S4X4);
    let mode = if std::env::var("RESIDENT").is_ok() { LoadMode::Resident } else { LoadMode::Mmap };
    let set = best_set(Path::new(dir), &goal, mode).expect("a set");
    let h = AnyHeuristic::Pdb(set.heuristic(&goal, true, true).expect("h"));
    let text = std::fs::read_to_string(input).expect("input");
    let problems: Vec<Problem> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            let b = Board::parse(&t[2..].join(" "), None).expect("board");
            Problem::new(b, goal.clone()).expect("solvable")
        })
        .collect();
    let mut base = Vec::new();
    let t0 = Instant::now();
    let skip = std::env::var("LANES").is_ok();
    for p in problems.iter().filter(|_| !skip) {
        let s = h.solve(p, fifteen_core::Algorithm::Ida, &Limits::default()).expect("solved");
        base.push((s.moves.clone(), s.stats.generated));
    }
    let t_base = t0.elapsed().as_secs_f64();
    let nodes: u64 = base.iter().map(|b| b.1).sum();
    println!("one at a time: {t_base:.3} s, {:.2} M nodes/s", nodes as f64 / t_base / 1e6);
    let only: Option<usize> = std::env::var("LANES").ok().and_then(|v| v.parse().ok());
    let counts: Vec<usize> = only.map_or(vec![1, 2, 3, 4, 6, 8], |k| vec![k]);
    for lanes in counts {
        let mut it = problems.iter().enumerate();
        let mut out = vec![None; problems.len()];
        let t0 = Instant::now();
        h.solve_lanes(
            lanes,
            |_| it.next().map(|(i, p)| (i, p.clone(), Limits::default())),
            |i, r| out[i] = Some(r.expect("solved")),
        );
        let t = t0.elapsed().as_secs_f64();
        let same = skip
            || out.iter().zip(&base).all(|(o, b)| {
                o.as_ref().is_some_and(|s| s.moves == b.0 && s.stats.generated == b.1)
            });
        let nodes: u64 = out.iter().flatten().map(|s| s.stats.generated).sum();
        let lookups: u64 = out.iter().flatten().map(|s| s.stats.lookups).sum();
        println!("nodes {nodes} lookups {lookups}: {:.2} M lookups/s", lookups as f64 / t / 1e6);
        println!(
            "lanes {lanes}: {t:.3} s, {:.2} M nodes/s, ratio {:.3}, same {same}",
            nodes as f64 / t / 1e6,
            t / t_base
        );
    }
}
