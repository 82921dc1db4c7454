//! End-to-end tests of the `fifteen` binary: each module runs the real binary for one command.

mod batch;
mod browser;
mod check;
mod compare;
mod faults;
mod five;
mod limits;
mod memory;
mod mtm;
mod near;
mod pdb;
mod progress;
mod random;
mod release;
mod serve;
mod show;
mod solve;
mod support;
mod verify;
