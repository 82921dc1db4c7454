//! `cargo xtask`: project chores (database generation, benchmarks, release packaging).
#![forbid(unsafe_code)]

fn main() {}
