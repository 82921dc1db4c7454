//! Tests of reading `fifteen`'s notes and the output of the `lookups` benchmark.

use super::{Among, Row, SolveRun, huge_percent, median_run, parse_lookups};

#[test]
fn the_huge_page_share_is_read_from_the_note() {
    let note = "using pattern databases 4x4-7-8 from /data (mmap, 97% in 2 MiB pages)\n";
    assert_eq!(huge_percent(note), Some(97));
    let hint = "warning: x\nusing pattern databases 4x4-6-6-3 from d (resident, 100% in 2 MiB pages; `cargo xtask gen-pdb` builds the faster 7-8 set)";
    assert_eq!(huge_percent(hint), Some(100));
    assert_eq!(huge_percent("using pattern databases 4x4-7-8 from data (mmap)"), None);
    assert_eq!(huge_percent(""), None);
}

#[test]
fn the_lookups_benchmark_is_read_line_by_line() {
    let out = "lookup-limit 4KiB 90.0\nlookup-limit 2MiB 107.4\nnoise\n\
               lookup-among-work 4 18.1 22.0\nlookup-among-work 8 x 21.8\nlookup-limit 1GiB\n";
    let (limits, among) = parse_lookups(out);
    assert_eq!(limits, vec![("4KiB".to_string(), 90.0), ("2MiB".to_string(), 107.4)]);
    assert_eq!(among, vec![Among { burst: 4, work_ns: 18.1, with_ns: 22.0 }]);
    assert_eq!(parse_lookups(""), (vec![], vec![]));
}

/// A run of one position with `lookups` reads in `ms` milliseconds.
fn run(lookups: u64, ms: f64) -> SolveRun {
    let row = Row {
        id: "1".into(),
        length: 57,
        expected: Some(57),
        optimal: true,
        nodes: lookups / 2,
        lookups,
        ms,
    };
    SolveRun { rows: vec![row], wall: ms / 1e3, heuristic: "pdb".into(), huge_percent: None }
}

#[test]
fn the_ratio_comes_from_the_median_run() {
    // 1 M lookups in 20, 10, 40, 25 and 50 ms: 50, 100, 25, 40 and 20 M/s.
    let runs = [20.0, 10.0, 40.0, 25.0, 50.0].map(|ms| run(1_000_000, ms));
    let (median, rates) = median_run(runs.into()).unwrap();
    assert_eq!(median.search_secs(), 0.025);
    assert_eq!(rates, vec![20.0, 25.0, 40.0, 50.0, 100.0]);
    // An even count takes the faster of the middle two; one run is its own median.
    let (median, _) = median_run(vec![run(1_000_000, 10.0), run(1_000_000, 20.0)]).unwrap();
    assert_eq!(median.search_secs(), 0.01);
    let (median, rates) = median_run(vec![run(3_000_000, 30.0)]).unwrap();
    assert_eq!((median.lookup_rate(), rates), (100.0, vec![100.0]));
    assert!(median_run(Vec::new()).is_none());
}
