//! The `fifteen` command line: a thin `main` over [`run`]; clap lives in `args`, and each
//! subcommand in its own module.
#![forbid(unsafe_code)]

mod args;
mod batch;
mod check;
mod compare;
mod docs;
mod exit;
mod heuristics;
mod input;
mod install;
mod mtm;
mod near;
mod output;
mod pdb;
mod play;
mod random;
mod serve;
mod service;
mod show;
mod solve;
mod verify;
mod watch;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(err) if exit::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(exit::code_for(&err))
        }
    }
}

/// Parses the command line and runs the subcommand.
fn run() -> anyhow::Result<ExitCode> {
    let cli = args::Cli::parse();
    let code = match cli.command {
        args::Command::Solve(a) if a.input.is_some() => batch::run(&a)?,
        args::Command::Solve(a) => solve::run(&a)?,
        args::Command::Random(a) => random::run(&a)?,
        args::Command::Check(a) => check::run(&a)?,
        args::Command::Verify(a) => verify::run(&a)?,
        args::Command::Compare(a) => compare::run(&a)?,
        args::Command::Pdb(a) => pdb::run(&a)?,
        args::Command::Play(a) => play::run(&a)?,
        args::Command::Serve(a) => serve::run(&a)?,
        args::Command::Completions { shell } => docs::completions(shell)?,
        args::Command::Man => docs::man()?,
    };
    Ok(ExitCode::from(code))
}
