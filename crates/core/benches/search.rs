//! `cargo bench -p fifteen-core --bench search`: IDA* with Manhattan distance and with linear
//! conflict on a fixed set of Korf's 100, printing nodes, time and nodes per second (one thread).
//!
//! Set `FIFTEEN_BENCH_IDS=1,2,3` to choose other instances.

use std::hint::black_box;
use std::time::Instant;

use fifteen_core::{Board, Heuristic, Limits, LinearConflict, Manhattan, Problem, Size, ida};

/// Instances that Manhattan distance alone solves in seconds: the ten shortest of Korf's 100.
const DEFAULT_IDS: &[u32] = &[55, 79, 8, 84, 61, 12, 97, 96, 51, 48];

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/instances/korf100.txt");
    let text = std::fs::read_to_string(path).expect("../shared/instances/korf100.txt");
    let ids: Vec<u32> = match std::env::var("FIFTEEN_BENCH_IDS") {
        Ok(s) => s.split(',').map(|x| x.trim().parse().expect("instance id")).collect(),
        Err(_) => DEFAULT_IDS.to_vec(),
    };
    let goal = Board::blank_first(Size::S4X4);
    let mut problems = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let nums: Vec<u32> = line.split_whitespace().map(|x| x.parse().unwrap()).collect();
        if ids.contains(&nums[0]) {
            let cells: Vec<u8> = nums[2..].iter().map(|&x| x as u8).collect();
            let start = Board::from_cells(Size::S4X4, &cells).unwrap();
            problems.push((nums[0], nums[1], Problem::new(start, goal.clone()).unwrap()));
        }
    }
    run("manhattan", &Manhattan::new(&goal), &problems);
    run("linear-conflict", &LinearConflict::new(&goal), &problems);
}

fn run<H: Heuristic>(name: &str, h: &H, problems: &[(u32, u32, Problem)]) {
    println!("IDA* + {name}, one thread");
    println!("{:>4} {:>4} {:>14} {:>10} {:>10}", "id", "len", "generated", "ms", "Mnodes/s");
    let (mut nodes, t0) = (0u64, Instant::now());
    for (id, opt, p) in problems {
        let t = Instant::now();
        let s = ida(black_box(p), h, &Limits::default()).unwrap();
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(s.len() as u32, *opt, "instance {id}: wrong length");
        nodes += s.stats.generated;
        println!(
            "{id:>4} {:>4} {:>14} {:>10.1} {:>10.1}",
            s.len(),
            s.stats.generated,
            secs * 1e3,
            s.stats.generated as f64 / secs / 1e6
        );
    }
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "total: {nodes} nodes in {:.2} s = {:.1} M nodes/s per core\n",
        secs,
        nodes as f64 / secs / 1e6
    );
}
