//! The command line, declared with clap's derive API. Nothing here does any work: each
//! subcommand's module takes its `...Args` struct.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use fifteen_core::{Algorithm, HeuristicKind, MAX_WIDTH, Notation};

/// Printed under every `--help`: the exit codes.
const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  batch finished but some positions failed; verify: the moves do not reach the goal or
     a move is illegal
  2  usage error (bad option, or an option that cannot apply to this board)
  3  bad input (a board, goal, size or move list that does not parse; an unreadable file)
  4  unsolvable (the position cannot reach the goal)
  5  a limit was reached (--max-nodes, --timeout or --max-stored)
  6  pattern-database error (none found for --heuristic pdb, a damaged or wrong file)
  130 interrupted (Ctrl-C); a batch prints what it solved so far";

/// Printed under `fifteen solve --help`: notation, output formats and JSON fields.
const SOLVE_HELP: &str = "\
Boards: one argument (quote it) in any pasted form: numbers separated by spaces or commas,
optionally in < > or [ ]; rows on separate lines or separated by '/'; 0 or _ for the blank.
Examples: \"1 2 3 4 5 6 0 7 8\", \"<1, 0, 2, 4, 6, 3, 7, 5, 8>\", \"1 _ 2/4 6 3/7 5 8\".

Moves: letters U, D, L, R. In the default tile notation (as speed-solvers write them) each
letter is the direction the moved tile slides: U means the tile below the blank slides up.
With --notation blank each letter is the direction the blank moves (the opposite letter).
The 'tiles' line lists the tile number moved at each step.

Output: 'length: N (proven optimal)' or '(not proven optimal: ...)', then the moves and tiles.
--boards prints the length on the first line, then every board from the start to the goal,
one grid per step, grids separated by a blank line.

--json prints one JSON object per line and position with the fields: board, size, goal,
status (solved, unsolvable, limit, error, mismatch), length, optimal, moves, notation,
tiles, nodes (nodes generated), expanded, lookups (database reads), time_ms, heuristic,
algorithm, and when they apply: line, id, expected, thresholds (with --stats), lower_bound
(after a limit), error.

Batch (--input FILE, '-' for stdin): one position per line; blank lines and # comments are
skipped. A line of cells+1 numbers starts with an id; a line of cells+2 numbers is
'ID OPTLEN cells...' (Korf's format) and OPTLEN is checked against the answer. Results are
printed in input order, one line each, as 'line N (id I): ...'; a summary goes to stderr.";

/// `fifteen`: optimal solutions of sliding-tile puzzles (2x2 to 8x8).
#[derive(Debug, Parser)]
#[command(name = "fifteen", version, about, after_help = EXIT_CODES)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Solve a position (or a file of positions with --input), optimally by default
    #[command(after_help = format!("{SOLVE_HELP}\n\n{EXIT_CODES}"))]
    Solve(SolveArgs),
    /// Print random solvable positions, one per line
    #[command(after_help = EXIT_CODES)]
    Random(RandomArgs),
    /// Say whether a position is solvable and why, and each heuristic's estimate
    #[command(after_help = EXIT_CODES)]
    Check(CheckArgs),
    /// Replay a move list and say whether it reaches the goal
    #[command(after_help = EXIT_CODES)]
    Verify(VerifyArgs),
    /// Run every feasible heuristic and algorithm pair on a position and compare them
    #[command(after_help = EXIT_CODES)]
    Compare(CompareArgs),
    /// Pattern databases: list what is found where, show or verify a file, build a set
    #[command(after_help = PDB_HELP)]
    Pdb(PdbArgs),
    /// Play in the terminal with the arrow keys or the mouse, with hints and the distance to the
    /// goal
    #[command(after_help = PLAY_HELP)]
    Play(PlayArgs),
    /// Serve a local web page (and JSON API) to set up, solve, watch and play positions
    #[command(after_help = SERVE_HELP)]
    Serve(ServeArgs),
    /// Print the shell completion script for SHELL (used by `cargo xtask dist`)
    #[command(hide = true)]
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page in roff (used by `cargo xtask dist`)
    #[command(hide = true)]
    Man,
}

/// Printed under `fifteen pdb --help`: where databases are looked for.
const PDB_HELP: &str = "\
Where databases are looked for: --pdb-dir if given (there only); else FIFTEEN_PDB_DIR if set
(there only); else the source checkout's data/ folder and the user's data directory, the
strongest set found winning (4x4: 7-8, else 6-6-3). When none serves a 4x4 or 3x3 goal, the
quick set (4x4-6-6-3, 3x3-8) is built on first use into the first of those folders. The 5x5
default (5x5-14x6-bits, about 11 minutes on 2 cores and 317 MB) is built by
`fifteen pdb build --size 5x5`.
`cargo xtask gen-pdb` builds the default 4x4 sets (7-8 and 6-6-3) into data/;
`fifteen pdb install --from DIR` installs the prebuilt ones of a release (see its SHA256SUMS).

Exit codes: 0 success, 2 usage error, 6 a database is missing, damaged or wrong.";

/// `fifteen pdb`.
#[derive(Debug, Args)]
pub(crate) struct PdbArgs {
    #[command(subcommand)]
    pub(crate) command: PdbCommand,
}

/// The `fifteen pdb` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum PdbCommand {
    /// Show the folders searched and the database sets found in each
    List(PdbOpts),
    /// Print a database file's header and histogram
    Info {
        /// The .pdb file
        file: PathBuf,
    },
    /// Recompute each file's checksum and histogram and compare them with its header
    Verify {
        /// The .pdb files
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Build a preset set (4x4-6-6-3, 4x4-7-8, 3x3-8, 5x5-14x6-bits, ...), or the default set of a board
    /// size (--size), into the database folder
    Build {
        /// The preset (default: 4x4-6-6-3, unless --size is given); 4x4-mtm-split is the finer
        /// 4x4 multi-tile set (5 x 1.5 GB, ten times the states of 4x4-mtm, for hard positions)
        #[arg(conflicts_with = "size")]
        preset: Option<String>,
        /// Build the default set for boards of this size (WxH), the one `fifteen solve` prefers
        #[arg(long, value_name = "WxH")]
        size: Option<String>,
        /// With mtm: build the 4x4 multi-tile tables (4x4-mtm, 5 x 151 MB) instead
        #[arg(long, value_enum, default_value_t = MetricArg::Stm, conflicts_with_all = ["preset", "size"])]
        metric: MetricArg,
        #[command(flatten)]
        opts: PdbOpts,
    },
    /// Install released database files (fifteen-pdb-v*.pdb.zst) after checking their SHA-256
    /// against the SHA256SUMS next to them (or --sha256) and verifying every entry
    #[command(after_help = INSTALL_HELP)]
    Install(InstallArgs),
}

/// Printed under `fifteen pdb install --help`.
const INSTALL_HELP: &str = "\
Each artifact is checked against the SHA256SUMS file in its folder (or --sha256), decompressed
into the database folder through a temporary file and a rename, and its header, checksum and
histogram verified before it takes its place. Installing the same file twice is harmless.

Exit codes: 0 success, 2 usage error, 6 an artifact is missing from the manifest, does not
match it, or does not verify (the message names the file and the mismatch).";

/// `fifteen pdb install`.
#[derive(Debug, Args)]
pub(crate) struct InstallArgs {
    /// Artifacts to install (fifteen-pdb-v1-4x4-6-6-3.p1.pdb.zst, ...)
    #[arg(value_name = "ARTIFACT", required_unless_present = "from")]
    pub(crate) artifacts: Vec<PathBuf>,
    /// Install every database artifact listed in DIR/SHA256SUMS
    #[arg(long, value_name = "DIR")]
    pub(crate) from: Option<PathBuf>,
    /// The expected SHA-256 (hex) of the one artifact given, instead of a manifest
    #[arg(long, value_name = "HEX", conflicts_with = "from")]
    pub(crate) sha256: Option<String>,
    /// Install into DIR instead of the folder databases are built in
    #[arg(long, value_name = "DIR")]
    pub(crate) pdb_dir: Option<PathBuf>,
}

/// How database files are held in memory.
#[derive(Debug, Clone, Copy, ValueEnum, Default, PartialEq, Eq)]
pub(crate) enum PdbLoadArg {
    /// Memory-map the files (instant start, pages shared between processes)
    #[default]
    Mmap,
    /// Read the files into memory
    Resident,
}

impl PdbLoadArg {
    pub(crate) fn mode(self) -> fifteen_core::pdb::LoadMode {
        match self {
            PdbLoadArg::Mmap => fifteen_core::pdb::LoadMode::Mmap,
            PdbLoadArg::Resident => fifteen_core::pdb::LoadMode::Resident,
        }
    }
}

/// Where pattern databases come from and how they are used.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct PdbOpts {
    /// Look for pattern databases (and build missing ones) in DIR only
    #[arg(long, value_name = "DIR")]
    pub(crate) pdb_dir: Option<PathBuf>,
    /// How database files are loaded
    #[arg(long, value_enum, default_value_t = PdbLoadArg::Mmap, value_name = "MODE")]
    pub(crate) pdb_load: PdbLoadArg,
    /// Do not add the reflected database lookup
    #[arg(long)]
    pub(crate) no_reflect: bool,
    /// Do not add the dual database lookups at nodes with the blank on a corner (more nodes,
    /// fewer table reads per node: about as fast with 7-8)
    #[arg(long)]
    pub(crate) no_dual: bool,
    /// Do not build a missing database set on first use
    #[arg(long)]
    pub(crate) no_pdb_build: bool,
}

/// Options every command that reads a board takes.
#[derive(Debug, Args)]
pub(crate) struct BoardOpts {
    /// Board size as WxH (for example 4x4 or 3x5); by default the shape of the rows given,
    /// or the square with as many cells as numbers given
    #[arg(long, value_name = "WxH")]
    pub(crate) size: Option<String>,
    /// The goal: blank-last (1 2 ... 0), blank-first (0 1 2 ..., Korf's), or an arrangement
    #[arg(long, default_value = "blank-last", value_name = "GOAL")]
    pub(crate) goal: String,
}

/// How moves are written (see `Notation`).
#[derive(Debug, Clone, Copy, ValueEnum, Default)]
pub(crate) enum NotationArg {
    /// Each letter is the direction the moved tile slides (speed-solvers' notation)
    #[default]
    Tile,
    /// Each letter is the direction the blank moves
    Blank,
}

impl NotationArg {
    pub(crate) fn notation(self) -> Notation {
        match self {
            NotationArg::Tile => Notation::Tile,
            NotationArg::Blank => Notation::Blank,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            NotationArg::Tile => "tile",
            NotationArg::Blank => "blank",
        }
    }
}

/// How moves are counted (`--metric`).
#[derive(Debug, Clone, Copy, ValueEnum, Default, PartialEq, Eq)]
pub(crate) enum MetricArg {
    /// Single-tile moves: each tile slid one cell is a move
    #[default]
    Stm,
    /// Multi-tile moves: a line of 1 to side-1 tiles slid toward the blank is one move, written
    /// as a letter and a count (R3D2LU)
    Mtm,
}

impl MetricArg {
    pub(crate) fn metric(self) -> fifteen_core::mtm::Metric {
        match self {
            MetricArg::Stm => fifteen_core::mtm::Metric::Stm,
            MetricArg::Mtm => fifteen_core::mtm::Metric::Mtm,
        }
    }
}

/// The heuristics by command-line name.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum HeuristicArg {
    /// Number of misplaced tiles (weak)
    Misplaced,
    /// Sum of the tiles' taxicab distances
    Manhattan,
    /// Manhattan plus two moves per linear conflict (the default on other boards)
    LinearConflict,
    /// The true distance from a table (boards of at most 9 cells)
    Exact,
    /// Additive pattern databases (the default on 4x4 and 5x5; built on first use on 4x4)
    Pdb,
}

impl HeuristicArg {
    pub(crate) fn kind(self) -> HeuristicKind {
        match self {
            HeuristicArg::Misplaced => HeuristicKind::Misplaced,
            HeuristicArg::Manhattan => HeuristicKind::Manhattan,
            HeuristicArg::LinearConflict => HeuristicKind::LinearConflict,
            HeuristicArg::Exact => HeuristicKind::Exact,
            HeuristicArg::Pdb => HeuristicKind::Pdb,
        }
    }
}

/// The searches by command-line name.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum AlgorithmArg {
    /// IDA*: optimal, little memory (the default)
    Ida,
    /// A*: optimal, stores the nodes it sees
    Astar,
    /// Breadth-first search: optimal, ignores the heuristic; small boards
    Bfs,
    /// Greedy best-first on the heuristic alone: fast, not optimal
    Greedy,
    /// Weighted A* (f = g + W h): at most W times the optimal length
    Weighted,
    /// Beam search: the --width best boards of each depth; fast on any board, not optimal
    Beam,
}

impl AlgorithmArg {
    pub(crate) fn algorithm(self, weight: f64, width: usize) -> Algorithm {
        match self {
            AlgorithmArg::Ida => Algorithm::Ida,
            AlgorithmArg::Astar => Algorithm::AStar,
            AlgorithmArg::Bfs => Algorithm::Bfs,
            AlgorithmArg::Greedy => Algorithm::Greedy,
            AlgorithmArg::Weighted => Algorithm::Weighted(weight),
            AlgorithmArg::Beam => Algorithm::Beam(width),
        }
    }
}

/// `fifteen solve`.
#[derive(Debug, Args)]
pub(crate) struct SolveArgs {
    /// The position (quote it); several arguments are joined with spaces
    #[arg(
        value_name = "BOARD",
        required_unless_present = "input",
        conflicts_with = "input",
        num_args = 1..,
        allow_hyphen_values = false
    )]
    pub(crate) board: Vec<String>,
    #[command(flatten)]
    pub(crate) board_opts: BoardOpts,
    /// Solve every position in FILE, one per line ('-' for stdin)
    #[arg(long, short = 'i', value_name = "FILE")]
    pub(crate) input: Option<PathBuf>,
    /// With --input: write the results to FILE instead of stdout
    #[arg(long, short = 'o', value_name = "FILE", requires = "input")]
    pub(crate) output: Option<PathBuf>,
    /// Threads (default: all cores). One position: IDA* splits its search over them (the
    /// answer is the same for any count). With --input: this many positions at once
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) threads: Option<u16>,
    /// Searches each thread interleaves, a node of each in turn, so that their table reads
    /// overlap (IDA* only; faster with pattern databases): positions with --input, subtrees of
    /// one position split over --threads. Answers are the same for any count; with --input so
    /// are node counts, and time_ms is each position's share of its thread's time [default: 3;
    /// 1 with a catalogue, such as the 5x5 default, where interleaving costs more than it saves]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub(crate) lanes: Option<u16>,
    /// Progress of a long search on stderr once it has run SECS seconds: bound (a proven lower
    /// bound), nodes, rate, time, and the iteration's ETA once it can be estimated; off a
    /// terminal a new line every SECS [default: 3 on a terminal, 30 otherwise]
    #[arg(long, value_name = "SECS", value_parser = parse_secs)]
    pub(crate) progress: Option<Duration>,
    #[command(flatten)]
    pub(crate) search: SearchOpts,
    /// How moves are written: tile (the direction the tile slides) or blank
    #[arg(long, value_enum, default_value_t = NotationArg::Tile)]
    pub(crate) notation: NotationArg,
    /// How moves are counted: stm (single tiles) or mtm (lines of tiles, optimal on boards up
    /// to 4x4; elsewhere beams over line moves for --time-limit, 1 s on 5x5 and 10 s beyond, with
    /// a proven MTM lower bound; a named --algorithm answers with its runs merged, then beams)
    #[arg(long, value_enum, default_value_t = MetricArg::Stm)]
    pub(crate) metric: MetricArg,
    /// Report nodes expanded and generated, IDA* thresholds and time
    #[arg(long, short = 'v')]
    pub(crate) stats: bool,
    /// Print the length, then every board from the start to the goal
    #[arg(long, conflicts_with_all = ["json", "input"])]
    pub(crate) boards: bool,
    /// One JSON object per line and position (fields in --help)
    #[arg(long)]
    pub(crate) json: bool,
    /// Animate the solution in the terminal (space pause, arrows step, +/- speed, q quit);
    /// as text when stdout is not a terminal
    #[arg(long, conflicts_with_all = ["json", "boards", "input"])]
    pub(crate) play: bool,
    /// Also write the solution as a strip of boards to FILE (SVG)
    #[arg(long, value_name = "FILE", conflicts_with = "input")]
    pub(crate) svg: Option<PathBuf>,
    /// Also write the solution as an animated GIF to FILE
    #[arg(long, value_name = "FILE", conflicts_with = "input")]
    pub(crate) gif: Option<PathBuf>,
}

/// The heuristic, algorithm and limits of `solve`.
#[derive(Debug, Args)]
pub(crate) struct SearchOpts {
    /// The heuristic [default: pdb on 4x4 and 5x5, linear-conflict elsewhere]
    #[arg(long, value_enum)]
    pub(crate) heuristic: Option<HeuristicArg>,
    /// The search algorithm [default: ida; on boards of more than 25 cells, and of more than 16
    /// that no database serves, anytime search for --timeout or 10 s (see --time-limit)]
    #[arg(long, value_enum)]
    pub(crate) algorithm: Option<AlgorithmArg>,
    /// The weight W of --algorithm weighted (at least 1)
    #[arg(long, default_value_t = 2.0, value_parser = parse_weight, value_name = "W")]
    pub(crate) weight: f64,
    /// The width of --algorithm beam: boards kept per depth (wider: shorter answers, more time
    /// and memory)
    #[arg(long, default_value_t = DEFAULT_WIDTH, value_parser = parse_width, value_name = "N")]
    pub(crate) width: usize,
    /// Bounded-suboptimal: an answer at most F times the optimal length, guaranteed (F >= 1,
    /// for example 1.05), with a proven lower bound; per position in a batch
    #[arg(long, value_name = "F", value_parser = parse_weight, conflicts_with_all = ["algorithm", "time_limit"])]
    pub(crate) within: Option<f64>,
    /// Anytime: improve the answer until SECS have passed (or it is proven optimal), printing
    /// each improvement and its proven gap on stderr, and answer the best; per position
    #[arg(long, value_name = "SECS", value_parser = parse_secs, conflicts_with = "algorithm")]
    pub(crate) time_limit: Option<Duration>,
    #[command(flatten)]
    pub(crate) limits: LimitOpts,
    #[command(flatten)]
    pub(crate) pdb: PdbOpts,
}

/// Limits of one search.
#[derive(Debug, Args, Clone, Copy)]
pub(crate) struct LimitOpts {
    /// Give up after generating N nodes (per position)
    #[arg(long, value_name = "N")]
    pub(crate) max_nodes: Option<u64>,
    /// Give up after SECS seconds (per position, wall time from its start; with --lanes its
    /// thread works on the other lanes meanwhile)
    #[arg(long, value_name = "SECS", value_parser = parse_secs)]
    pub(crate) timeout: Option<Duration>,
    /// A* and BFS: give up when N nodes are stored; --within: the most nodes weighted A* stores
    /// (4,000,000 by default; beams and IDA* beside it go on); --time-limit and the large-board
    /// default: the most boards a beam keeps (80,000,000 by default, about 1 GB)
    #[arg(long, value_name = "N")]
    pub(crate) max_stored: Option<usize>,
}

/// `fifteen random`.
#[derive(Debug, Args)]
pub(crate) struct RandomArgs {
    /// Board size as WxH
    #[arg(long, default_value = "4x4", value_name = "WxH")]
    pub(crate) size: String,
    /// The goal the scramble starts from: blank-last, blank-first, or an arrangement
    #[arg(long, default_value = "blank-last", value_name = "GOAL")]
    pub(crate) goal: String,
    /// Length of the random walk from the goal (no move undoes the previous one)
    #[arg(long, default_value_t = 50, value_name = "N", conflicts_with = "uniform")]
    pub(crate) moves: u32,
    /// A uniformly random solvable position instead of a random walk
    #[arg(long)]
    pub(crate) uniform: bool,
    /// How many positions to print
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub(crate) count: u64,
    /// Seed of the generator: the same seed gives the same output
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
}

/// `fifteen check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The position (quote it); several arguments are joined with spaces
    #[arg(value_name = "BOARD", required = true, num_args = 1..)]
    pub(crate) board: Vec<String>,
    #[command(flatten)]
    pub(crate) board_opts: BoardOpts,
    #[command(flatten)]
    pub(crate) pdb: PdbOpts,
    /// Also write a picture of the position to FILE (SVG)
    #[arg(long, value_name = "FILE")]
    pub(crate) svg: Option<PathBuf>,
}

/// Printed under `fifteen play --help`.
const PLAY_HELP: &str = "\
Keys: the arrows slide a tile that way (up slides the tile below the blank up); a click on a
tile in the blank's row or column slides it and those between; h hint (the next move of an
optimal solution, or of the best one found within --hint-time on large boards); u undo;
r restart; q quit. The distance to the goal is shown after every move. NO_COLOR turns colors
off. When stdout is not a terminal, prints the position, its distance and the hint instead.

Exit codes: 0 success, 2 usage error, 3 bad input, 4 unsolvable, 6 database error.";

/// `fifteen play`.
#[derive(Debug, Args)]
pub(crate) struct PlayArgs {
    /// The position (quote it); without one, a random position of --size (default 4x4)
    #[arg(value_name = "BOARD", num_args = 0..)]
    pub(crate) board: Vec<String>,
    #[command(flatten)]
    pub(crate) board_opts: BoardOpts,
    /// Without BOARD: a random walk of N moves from the goal instead of a uniformly random
    /// position
    #[arg(long, value_name = "N")]
    pub(crate) moves: Option<u32>,
    /// Without BOARD: the seed of the random position
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// Time for each search behind the distance and the hints
    #[arg(long, value_name = "SECS", value_parser = parse_secs, default_value = "10")]
    pub(crate) hint_time: Duration,
    #[command(flatten)]
    pub(crate) pdb: PdbOpts,
}

/// Printed under `fifteen serve --help`.
const SERVE_HELP: &str = "\
The page: set up a position (type or paste it, scramble it, click tiles), pick the size and
the goal, solve it, watch and step through the solution, and play with hints. Its script and
style are embedded in the binary; it loads nothing else.

API: POST /api/solve {\"board\": \"...\", \"goal\": \"...\", \"size\": \"WxH\"} (goal and size
optional, as --goal and --size) answers with the object of `fifteen solve --json`; when the
optimal search runs out of its share of the time, the best near-optimal answer found in the
rest, with \"optimal\": false and a proven \"lower_bound\". GET /api/random?size=WxH&seed=N
[&goal=G][&moves=N] gives a random position. GET /api/health: searches running and waiting.
Status: 200 answered (status solved or limit), 400 bad JSON or query, 403 a foreign Host
header, 404, 413 body too large, 422 bad board, goal or size, or unsolvable (with the
command line's message), 500 server error, 503 busy (Retry-After), 504 a search did not stop.

Exit codes: 0 stopped by Ctrl-C, 2 cannot listen on the address or bad option, 6 database
error.";

/// `fifteen serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The address to listen on (loopback by default; port 0 picks a free one)
    #[arg(long, value_name = "IP:PORT", default_value = "127.0.0.1:8015")]
    pub(crate) addr: std::net::SocketAddr,
    /// Searches running at once [default: one per core]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) workers: Option<u16>,
    /// Requests waiting for a worker beyond those; more are answered 503 [default: 4 per
    /// worker]
    #[arg(long, value_name = "N")]
    pub(crate) queue: Option<u16>,
    /// Time limit of each search (and the longest a request waits for a worker)
    #[arg(long, value_name = "SECS", value_parser = parse_secs, default_value = "10")]
    pub(crate) timeout: Duration,
    /// Node limit of each search
    #[arg(long, value_name = "N", default_value_t = 500_000_000)]
    pub(crate) max_nodes: u64,
    #[command(flatten)]
    pub(crate) pdb: PdbOpts,
}

/// `fifteen verify`.
#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// The start position (quote it)
    #[arg(value_name = "BOARD")]
    pub(crate) board: String,
    /// The moves: letters U, D, L, R (spaces and commas allowed); quote them
    #[arg(value_name = "MOVES", allow_hyphen_values = true)]
    pub(crate) moves: String,
    #[command(flatten)]
    pub(crate) board_opts: BoardOpts,
    /// How the moves are written: tile (the direction the tile slides) or blank
    #[arg(long, value_enum, default_value_t = NotationArg::Tile)]
    pub(crate) notation: NotationArg,
    /// How moves are counted: with mtm, MOVES are lines (R3D2LU, R3 D2 L U, or written out)
    #[arg(long, value_enum, default_value_t = MetricArg::Stm)]
    pub(crate) metric: MetricArg,
}

/// `fifteen compare`.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// The position (quote it); several arguments are joined with spaces
    #[arg(value_name = "BOARD", required = true, num_args = 1..)]
    pub(crate) board: Vec<String>,
    #[command(flatten)]
    pub(crate) board_opts: BoardOpts,
    /// Node limit of each run
    #[arg(long, default_value_t = 20_000_000, value_name = "N")]
    pub(crate) limit_nodes: u64,
    /// Time limit of each run, in seconds
    #[arg(long, value_name = "SECS", value_parser = parse_secs)]
    pub(crate) limit_time: Option<Duration>,
    /// A* and BFS: most nodes stored per run
    #[arg(long, default_value_t = 5_000_000, value_name = "N")]
    pub(crate) limit_stored: usize,
    /// The weight W of the weighted A* runs
    #[arg(long, default_value_t = 2.0, value_parser = parse_weight, value_name = "W")]
    pub(crate) weight: f64,
    /// The width of the beam search runs (boards kept per depth)
    #[arg(long, default_value_t = DEFAULT_WIDTH, value_parser = parse_width, value_name = "N")]
    pub(crate) width: usize,
    /// How moves are counted: with mtm, the multi-tile searches (and the single-tile ones'
    /// answers with their runs merged)
    #[arg(long, value_enum, default_value_t = MetricArg::Stm)]
    pub(crate) metric: MetricArg,
    #[command(flatten)]
    pub(crate) pdb: PdbOpts,
}

/// The default width of `--algorithm beam`.
const DEFAULT_WIDTH: usize = 4096;

fn parse_width(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(w) if (1..=MAX_WIDTH).contains(&w) => Ok(w),
        _ => Err(format!("the width must be a whole number from 1 to {MAX_WIDTH}, not {s}")),
    }
}

fn parse_weight(s: &str) -> Result<f64, String> {
    let w: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number"))?;
    if w.is_finite() && w >= 1.0 {
        Ok(w)
    } else {
        Err(format!("the weight must be a number of at least 1, not {s}"))
    }
}

fn parse_secs(s: &str) -> Result<Duration, String> {
    let secs: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if secs > 0.0 {
        Duration::try_from_secs_f64(secs).map_err(|e| format!("{s}: {e}"))
    } else {
        Err(format!("the time must be positive, not {s}"))
    }
}
