//! Exit codes, and how an error maps to one.
//!
//! Errors carry no code of their own: [`code_for`] looks through the error's chain for the
//! library's typed errors (`ParseError`, `Unsolvable`, `SearchError`) and the markers below.

use std::fmt;

use fifteen_core::pdb::{PdbError, PdbSetError};
use fifteen_core::{ParseError, SearchError, Unsolvable};

use crate::pdb::DbError;

/// Success.
pub(crate) const OK: u8 = 0;
/// A batch finished but some positions failed; `verify`: the moves do not reach the goal.
pub(crate) const FAILED: u8 = 1;
/// Usage error (clap uses 2 for its own errors too).
pub(crate) const USAGE: u8 = 2;
/// Bad input: a board, goal, size or move list that does not parse, or an unreadable file.
pub(crate) const BAD_INPUT: u8 = 3;
/// The position cannot reach the goal.
pub(crate) const UNSOLVABLE: u8 = 4;
/// A node, time or memory limit was reached.
pub(crate) const LIMIT: u8 = 5;
/// A pattern database is missing, damaged or for another board or goal.
pub(crate) const DATABASE: u8 = 6;
/// The system refused memory, address space or threads (a `ulimit -v`, a container's limit).
pub(crate) const RESOURCES: u8 = 7;
/// Interrupted by Ctrl-C (128 + SIGINT, as shells report it).
pub(crate) const INTERRUPTED: u8 = 130;

/// An option that cannot apply (for example `--heuristic pdb` before databases exist).
#[derive(Debug)]
pub(crate) struct Usage(pub(crate) String);

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// Input that is wrong in a way the library does not check (for example a move letter).
#[derive(Debug)]
pub(crate) struct BadInput(pub(crate) String);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// The exit code for `err`: resources refused anywhere in its chain, else the first cause in
/// its chain that has a meaning.
pub(crate) fn code_for(err: &anyhow::Error) -> u8 {
    if err.chain().any(is_resource_shortage) {
        return RESOURCES;
    }
    for cause in err.chain() {
        if cause.is::<ParseError>() || cause.is::<BadInput>() || cause.is::<std::io::Error>() {
            return BAD_INPUT;
        }
        if cause.is::<DbError>() || cause.is::<PdbError>() || cause.is::<PdbSetError>() {
            return DATABASE;
        }
        if cause.is::<Usage>() {
            return USAGE;
        }
        if cause.is::<Unsolvable>() {
            return UNSOLVABLE;
        }
        match cause.downcast_ref::<SearchError>() {
            Some(SearchError::LimitReached { .. }) => return LIMIT,
            Some(_) => return USAGE,
            None => {}
        }
    }
    FAILED
}

/// Whether `cause` says that the system refused memory, address space or a thread.
fn is_resource_shortage(cause: &(dyn std::error::Error + 'static)) -> bool {
    if let Some(PdbError::OutOfMemory { .. }) = cause.downcast_ref::<PdbError>() {
        return true;
    }
    // ENOMEM, and EAGAIN, which is what starting a thread gets when memory or the thread limit
    // is short (this program does no non-blocking I/O).
    cause.downcast_ref::<std::io::Error>().is_some_and(|e| {
        matches!(e.kind(), std::io::ErrorKind::OutOfMemory | std::io::ErrorKind::WouldBlock)
    })
}

/// Whether `err` is a closed pipe (`fifteen random | head`): not worth a message.
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
