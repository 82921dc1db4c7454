//! The service without HTTP: replies, the near-optimal fallbacks and their lower bounds, and
//! cancellation. Boards here are 3x3 and 4x5 (linear conflict, no database) and a 5x5 with a
//! small set built here; the 4x4 path through the databases is tested end to end in
//! `tests/it/serve.rs`.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use fifteen_core::{Board, Dir, Notation, Size, replay};
use fifteen_serve::{Backend, Budget, RandomQuery, Reply, SolveRequest};
use serde_json::Value;

use super::Service;
use crate::args::PdbOpts;

fn service() -> Service {
    let opts = PdbOpts { no_pdb_build: true, ..PdbOpts::default() };
    Service::new(1, &opts).expect("a service")
}

fn budget(secs: u64, max_nodes: Option<u64>) -> Budget {
    Budget {
        deadline: Instant::now() + Duration::from_secs(secs),
        max_nodes,
        cancel: Arc::new(AtomicBool::new(false)),
    }
}

fn request(board: &str) -> SolveRequest {
    SolveRequest { board: board.into(), goal: None, size: None }
}

fn ok(reply: Reply) -> Value {
    match reply {
        Reply::Ok(v) => v,
        other => panic!("expected an answer, got {other:?}"),
    }
}

fn refused(reply: Reply) -> Value {
    match reply {
        Reply::Unprocessable(v) => v,
        other => panic!("expected 422, got {other:?}"),
    }
}

/// Asserts that the record's moves take its board to its goal in `length` moves.
fn assert_replays(v: &Value) {
    let size: Size = v["size"].as_str().and_then(|s| s.parse().ok()).expect("size");
    let start = Board::parse(v["board"].as_str().expect("board"), Some(size)).expect("board");
    let goal = Board::parse(v["goal"].as_str().expect("goal"), Some(size)).expect("goal");
    let moves: Vec<Dir> = v["moves"]
        .as_str()
        .expect("moves")
        .chars()
        .map(|c| Dir::from_letter(c, Notation::Tile).expect("a letter"))
        .collect();
    assert_eq!(Some(moves.len() as u64), v["length"].as_u64());
    assert_eq!(replay(&start, &moves).map(|r| r.0), Some(goal), "{v}");
}

/// The hardest 3x3 positions need 31 moves (Reinefeld 1993; the depth counts in
/// `../shared/instances` end at 31).
const HARDEST: &str = "8 6 7 2 5 4 3 0 1";

#[test]
fn answers_optimally_within_the_budget() {
    let v = ok(service().solve(&request(HARDEST), &budget(30, None)));
    assert_eq!(
        (v["status"].as_str(), v["length"].as_u64(), v["optimal"].as_bool()),
        (Some("solved"), Some(31), Some(true))
    );
    assert_eq!(v["heuristic"], "linear-conflict");
    assert_eq!(v["algorithm"], "ida");
    assert!(v.get("lower_bound").is_none(), "{v}");
    assert_replays(&v);
}

#[test]
fn runs_near_optimal_with_a_lower_bound_when_the_optimal_search_runs_out() {
    // Enough nodes for weighted A*, not for IDA*'s share.
    let v = ok(service().solve(&request(HARDEST), &budget(30, Some(3_000))));
    assert_eq!(v["status"], "solved", "{v}");
    assert_eq!(v["optimal"], false);
    assert!(v["algorithm"].as_str().is_some_and(|a| a.starts_with("weighted(")), "{v}");
    let length = v["length"].as_u64().expect("length");
    let bound = v["lower_bound"].as_u64().expect("a lower bound");
    assert!(bound <= 31 && 31 <= length, "{bound} <= 31 <= {length}");
    assert!(v["nodes"].as_u64().is_some_and(|n| n <= 3_000), "{v}");
    assert_replays(&v);
}

/// The optimal length of `board` for the blank-last goal, found here by IDA* with Manhattan
/// distance (a heuristic the service does not use).
fn optimum(board: &str) -> u64 {
    let start = Board::parse(board, None).expect("board");
    let goal = Board::blank_last(start.size());
    let manhattan = fifteen_core::Manhattan::new(&goal);
    let problem = fifteen_core::Problem::new(start, goal).expect("solvable");
    fifteen_core::ida(&problem, &manhattan, &fifteen_core::Limits::default())
        .expect("an optimal answer")
        .len() as u64
}

/// `fifteen random --size 4x5 --moves 80 --seed 3` (IDA* with Manhattan distance needs about
/// 36 million nodes for it, with linear conflict about 1.7 million).
const FOUR_BY_FIVE: &str = "3 6 1 12 / 2 14 0 4 / 10 7 11 19 / 13 16 8 18 / 15 9 5 17";

/// `fifteen random --size 5x5 --moves 80 --seed 10`.
const FIVE_BY_FIVE: &str =
    "2 4 0 3 12 / 1 7 6 11 9 / 21 8 13 10 5 / 17 16 14 19 15 / 22 23 18 24 20";

/// A folder with a small 5x5 set (blank-last goal, six 4-tile patterns), built here.
fn five_by_five_set() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fifteen-service-5x5-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder");
    let spec = pdb_gen::SetSpec {
        name: "5x5-test".into(),
        preset: None,
        size: Size::S5X5,
        goal: Board::blank_last(Size::S5X5),
        patterns: vec![
            vec![1, 2, 6, 7],
            vec![3, 4, 5, 8],
            vec![9, 10, 14, 15],
            vec![11, 12, 16, 17],
            vec![13, 18, 19, 20],
            vec![21, 22, 23, 24],
        ],
        encoding: fifteen_core::pdb::EntryEncoding::U8,
    };
    pdb_gen::build_set(&spec, &dir, Some(1), pdb_gen::Progress::Quiet).expect("the 5x5 set");
    dir
}

/// Asserts an anytime answer within `max_nodes` with a lower bound at most `optimum`.
fn assert_anytime_answer(v: &Value, optimum: u64, max_nodes: u64) {
    assert_eq!((v["status"].as_str(), v["algorithm"].as_str()), (Some("solved"), Some("anytime")));
    let length = v["length"].as_u64().expect("length");
    let bound = v["lower_bound"].as_u64().expect("a lower bound");
    assert!(bound <= optimum && optimum <= length, "{bound} <= {optimum} <= {length}");
    assert_eq!(v["optimal"].as_bool(), Some(length == bound), "{v}");
    assert!(v["nodes"].as_u64().is_some_and(|n| n <= max_nodes), "{v}");
    assert_replays(v);
}

/// Past 16 cells without databases the anytime search is the default, as on the command line:
/// it gets nearly all of the budget at once.
#[test]
fn larger_boards_without_databases_get_the_anytime_search() {
    let v = ok(service().solve(&request(FOUR_BY_FIVE), &budget(60, Some(100_000))));
    assert_anytime_answer(&v, optimum(FOUR_BY_FIVE), 100_000);
    assert_eq!(v["heuristic"], "linear-conflict");
    assert!(v["nodes"].as_u64().is_some_and(|n| n > 10_000), "{v}");
}

/// Past 16 cells with databases the optimal search gets a tenth of the budget and the anytime
/// search the rest: its answer, the work of both counted.
#[test]
fn larger_boards_with_databases_fall_back_to_the_anytime_search() {
    let dir = five_by_five_set();
    let opts = PdbOpts { pdb_dir: Some(dir.clone()), no_pdb_build: true, ..PdbOpts::default() };
    let s = Service::new(1, &opts).expect("a service");
    let v = ok(s.solve(&request(FIVE_BY_FIVE), &budget(60, Some(100_000))));
    assert_anytime_answer(&v, optimum(FIVE_BY_FIVE), 100_000);
    assert!(v["heuristic"].as_str().is_some_and(|h| h.starts_with("pdb ")), "{v}");
    assert!(v["nodes"].as_u64().is_some_and(|n| n > 10_000), "{v}");
    std::fs::remove_dir_all(&dir).expect("cleaned up");
}

#[test]
fn a_cancelled_search_gives_up_with_its_lower_bound() {
    let b = budget(30, None);
    b.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    let v = ok(service().solve(&request(HARDEST), &b));
    assert_eq!(v["status"], "limit", "{v}");
    assert!(v["error"].as_str().is_some_and(|e| e.starts_with("cancelled")), "{v}");
    assert!(v["lower_bound"].as_u64().is_some_and(|b| b <= 31));
}

#[test]
fn refuses_bad_input_with_the_command_line_message() {
    let s = service();
    let v = refused(s.solve(&request("1 2 x 4 5 6 7 8 0"), &budget(5, None)));
    assert_eq!(v["error"], r#"bad board "1 2 x 4 5 6 7 8 0": token 3 ("x") is not a tile number"#);
    let v = refused(s.solve(
        &SolveRequest {
            board: "1 2 3 4 5 6 7 8 0".into(),
            goal: Some("sideways".into()),
            size: None,
        },
        &budget(5, None),
    ));
    assert!(v["error"].as_str().is_some_and(|e| e.starts_with("bad goal \"sideways\"")), "{v}");
    let v = refused(s.solve(
        &SolveRequest { board: "1 2 3".into(), goal: None, size: Some("9x9".into()) },
        &budget(5, None),
    ));
    assert!(v["error"].as_str().is_some_and(|e| e.starts_with("bad --size")), "{v}");
    // Unsolvable: the record, as `--json` prints it.
    let v = refused(s.solve(&request("2 1 3 4 5 6 7 8 0"), &budget(5, None)));
    assert_eq!(v["status"], "unsolvable");
    assert!(v["error"].as_str().is_some_and(|e| e.starts_with("no solution: ")), "{v}");
    // The quick check before the queue refuses both the same way.
    let early =
        s.check(&request("2 1 3 4 5 6 7 8 0")).map(|()| Value::Null).unwrap_or_else(refused);
    assert_eq!(early, v);
    let early =
        s.check(&request("1 2 x 4 5 6 7 8 0")).map(|()| Value::Null).unwrap_or_else(refused);
    assert_eq!(
        early["error"],
        r#"bad board "1 2 x 4 5 6 7 8 0": token 3 ("x") is not a tile number"#
    );
    assert!(s.check(&request(HARDEST)).is_ok());
}

#[test]
fn random_positions_repeat_by_seed_and_refuse_bad_queries() {
    let s = service();
    let q = RandomQuery { size: Some("3x4".into()), seed: Some(9), goal: None, moves: None };
    let a = ok(s.random(&q));
    assert_eq!(a, ok(s.random(&q)));
    assert_eq!((a["size"].as_str(), a["seed"].as_u64()), (Some("3x4"), Some(9)));
    let b = Board::parse(a["board"].as_str().expect("board"), None).expect("rows parse back");
    assert_eq!(b.size(), Size::new(3, 4).expect("size"));
    assert!(b.solvability(&Board::blank_last(b.size())).is_ok());
    let walk = ok(s.random(&RandomQuery { moves: Some(0), ..q.clone() }));
    assert_eq!(walk["board"], "1 2 3 / 4 5 6 / 7 8 9 / 10 11 0");
    for bad in [
        RandomQuery { size: Some("1x9".into()), ..q.clone() },
        RandomQuery { goal: Some("x".into()), ..q.clone() },
        RandomQuery { moves: Some(u32::MAX), ..q.clone() },
    ] {
        let v = refused(s.random(&bad));
        assert!(v["error"].as_str().is_some_and(|e| e.starts_with("bad ")), "{v}");
    }
}
