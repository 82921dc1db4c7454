//! The `pdb-gen` command: builds pattern-database files.
#![forbid(unsafe_code)]

fn main() {}
