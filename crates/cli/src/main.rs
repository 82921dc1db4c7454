//! The `fifteen` command line.
#![forbid(unsafe_code)]

fn main() {}
