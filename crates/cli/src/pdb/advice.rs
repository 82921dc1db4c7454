//! What to tell a user who has no database for a board size that has a default set: the one
//! command that builds it, and what that costs.
//!
//! The 4x4 and 3x3 quick sets build in seconds, so `fifteen` builds them on first use. The 5x5
//! default (`5x5-14x6-bits`, fourteen zero-aware tables of bits) takes about 11 minutes on two
//! cores (measured: `docs/performance.md`, "The 5x5 default set"), too long to start unasked in
//! the middle of a `solve`: `solve` says so, names the command, and answers with linear conflict
//! meanwhile. The figures here are those measurements, rounded; a test checks that every
//! default set without a first-use build has one.

use std::collections::BTreeSet;

use fifteen_core::Size;
use pdb_gen::Preset;

use crate::args::PdbOpts;

/// The measured cost of building a default set that is not built on first use: time on two
/// cores, and bytes on disk (also what the mapped tables take in memory).
pub(super) fn build_cost(preset: &Preset) -> Option<&'static str> {
    match preset.name {
        "5x5-14x6-bits" => Some("about 11 minutes on 2 cores, 317 MB on disk and in memory, once"),
        "5x5-6-6-6-6" => Some("about 2 minutes on 2 cores, 510 MB on disk and in memory, once"),
        "4x4-7-8" => Some("about 2 minutes on 2 cores, 577 MB on disk and in memory, once"),
        "6x6-7x5" => Some("about 2 minutes on 2 cores, 317 MB on disk and in memory, once"),
        "7x7-12x4" => Some("about 20 seconds on 2 cores, 61 MB on disk and in memory, once"),
        "8x8-15x4-3" => Some("about 2 minutes on 2 cores, 229 MB on disk and in memory, once"),
        _ => None,
    }
}

/// The command that builds the default set of `size` where `opts` would look for it: `fifteen
/// pdb build --size 5x5`, with the `--pdb-dir` given, if any.
pub(super) fn build_command(size: Size, opts: &PdbOpts) -> String {
    let dir = opts
        .pdb_dir
        .as_ref()
        .map(|d| format!(" --pdb-dir {}", quote(&d.display().to_string())))
        .unwrap_or_default();
    format!("fifteen pdb build --size {size}{dir}")
}

/// `text` as one shell word: as it is when it needs no quotes, else in single quotes.
fn quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+,:=@".contains(c));
    if plain { text.to_string() } else { format!("'{}'", text.replace('\'', r"'\''")) }
}

/// The end of the message for a board whose default set is missing: which command builds it
/// and what that takes, for example `; `fifteen pdb build --size 5x5` builds the default
/// 5x5-14x6-bits set (about ... on 2 cores, ...)`.
pub(super) fn missing_default(preset: &Preset, opts: &PdbOpts) -> String {
    let cost = build_cost(preset).map(|c| format!(" ({c})")).unwrap_or_default();
    format!(
        "; `{}` builds the default {} set{cost}",
        build_command(preset.size(), opts),
        preset.name
    )
}

/// For `fifteen pdb list`: one line per board size with a default set, saying whether a set of
/// that name was found (`found`) and, if not, how it gets there.
pub(super) fn defaults(found: &BTreeSet<String>, opts: &PdbOpts) -> Vec<String> {
    let mut lines = vec!["default sets:".to_string()];
    for &(_, _, name) in pdb_gen::DEFAULTS {
        let Some(p) = pdb_gen::preset(name) else { continue };
        let size = p.size();
        let state = if found.contains(name) {
            "present".to_string()
        } else if super::first_use_preset(size).is_some() {
            format!(
                "missing: `{}` builds it ({}); solve builds the quick set on first use",
                build_command(size, opts),
                build_cost(p).unwrap_or("a few seconds")
            )
        } else {
            format!(
                "missing: `{}` builds it ({})",
                build_command(size, opts),
                build_cost(p).unwrap_or("once")
            )
        };
        lines.push(format!("  {size}  {name:<14} {state}"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn every_default_without_a_first_use_build_has_a_cost() {
        for &(w, h, name) in pdb_gen::DEFAULTS {
            let size = Size::new(usize::from(w), usize::from(h)).expect("a size");
            let preset = pdb_gen::preset(name).expect("a preset");
            if super::super::first_use_preset(size).is_none() {
                assert!(build_cost(preset).is_some(), "{name} has no build cost to tell");
            }
        }
    }

    #[test]
    fn the_command_names_the_folder_given() {
        let mut opts = PdbOpts::default();
        assert_eq!(build_command(Size::S5X5, &opts), "fifteen pdb build --size 5x5");
        opts.pdb_dir = Some(PathBuf::from("/data/my pdb"));
        assert_eq!(
            build_command(Size::S5X5, &opts),
            "fifteen pdb build --size 5x5 --pdb-dir '/data/my pdb'"
        );
        opts.pdb_dir = Some(PathBuf::from("/work/pdb"));
        assert!(build_command(Size::S5X5, &opts).ends_with("--pdb-dir /work/pdb"));
    }
}
