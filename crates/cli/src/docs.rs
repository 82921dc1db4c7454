//! The hidden `fifteen completions SHELL` and `fifteen man`: shell completions and the man page,
//! generated from the clap command itself so they never drift from it (`cargo xtask dist` ships
//! them).

use std::io::Write;

use clap::CommandFactory;

use crate::args::Cli;
use crate::exit;

/// Prints the completion script for `shell`.
pub(crate) fn completions(shell: clap_complete::Shell) -> anyhow::Result<u8> {
    let mut out = std::io::stdout().lock();
    clap_complete::generate(shell, &mut Cli::command(), "fifteen", &mut out);
    out.flush()?;
    Ok(exit::OK)
}

/// Prints the man page (roff).
pub(crate) fn man() -> anyhow::Result<u8> {
    let mut out = std::io::stdout().lock();
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    out.flush()?;
    Ok(exit::OK)
}
