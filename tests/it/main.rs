//! End-to-end tests of the `fifteen` binary: each module runs the real binary for one command.

mod batch;
mod check;
mod compare;
mod faults;
mod limits;
mod memory;
mod pdb;
mod progress;
mod random;
mod release;
mod solve;
mod support;
mod verify;
