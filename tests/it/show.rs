//! `solve --play`, `--svg`, `--gif`, `check --svg` and `fifteen play` when standard output is
//! not a terminal (the screens themselves are tested in `crates/tui`).

use crate::support::{fifteen, scratch_dir};

#[test]
fn play_without_a_terminal_prints_every_move() {
    let run = fifteen(&["solve", "1 0 2 4 6 3 7 5 8", "--play"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("length: 5 (proven optimal)\n"), "{}", run.stdout);
    assert!(run.stdout.contains("\nmove 1/5: tile 2 slides left\n1 2 0\n4 6 3\n7 5 8\n"));
    assert!(
        run.stdout.ends_with("move 5/5: tile 8 slides left\n1 2 3\n4 5 6\n7 8 0\n\ngoal reached\n")
    );
    let run = fifteen(&["solve", "1 0 2 4 6 3 7 5 8", "--play", "--json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn pictures_are_written_whole() {
    let dir = scratch_dir("pictures");
    let (svg, gif) = (dir.join("s.svg"), dir.join("s.gif"));
    let run = fifteen(&[
        "solve",
        "1 0 2 4 6 3 7 5 8",
        "--svg",
        svg.to_str().expect("utf-8"),
        "--gif",
        gif.to_str().expect("utf-8"),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(&svg).expect("the SVG");
    assert!(text.starts_with("<svg") && text.contains("5/5: 8 left · goal"), "{text}");
    assert!(std::fs::read(&gif).expect("the GIF").starts_with(b"GIF89a"));
    // A folder that does not exist: bad input, and nothing left behind.
    let missing = dir.join("no/such/s.svg");
    let run = fifteen(&["solve", "1 0 2 4 6 3 7 5 8", "--svg", missing.to_str().expect("utf-8")]);
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("cannot write"), "{}", run.stderr);
    let run = fifteen(&["check", "2 1 3 4 5 6 7 8 0", "--svg", svg.to_str().expect("utf-8")]);
    assert_eq!(run.code, 4, "{run:?}");
    let text = std::fs::read_to_string(&svg).expect("the SVG");
    assert!(text.contains("3x3 · no solution (parity)"), "{text}");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("the folder")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn play_without_a_terminal_gives_the_distance_and_a_hint() {
    let run = fifteen(&["play", "1 0 2 4 6 3 7 5 8"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "1 0 2\n4 6 3\n7 5 8\ndistance: 5 moves (optimal)\nhint: slide tile 2 left\n"
    );
    let run = fifteen(&["play", "2 1 3 4 5 6 7 8 0"]);
    assert_eq!(run.code, 4, "{run:?}");
    assert!(run.stdout.starts_with("no solution: "), "{}", run.stdout);
    // A random one: a 3x3 ten moves from the goal is at most ten from it.
    let run = fifteen(&["play", "--size", "3x3", "--moves", "10", "--seed", "4"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let distance: usize = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("distance: "))
        .and_then(|d| d.split(' ').next()?.parse().ok())
        .expect("a distance");
    assert!(distance <= 10, "{}", run.stdout);
}
