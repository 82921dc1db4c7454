//! `fifteen-serve`: the local web page and JSON API behind `fifteen serve`.
//!
//! The crate knows HTTP, not puzzles. The caller hands in a [`Backend`], which answers one solve
//! request within a [`Budget`] and makes random positions; the `fifteen` binary implements it
//! with the same code as `fifteen solve --json`, so the API answers with the same object. This
//! keeps the solver free of the web stack and the web stack free of the solver (the binary
//! depends on this crate, not the other way round).
//!
//! Routes: `GET /` (the page; its script and style sheet are embedded in the binary),
//! `POST /api/solve`, `GET /api/random` and `GET /api/health` (searches running and waiting).
//!
//! What keeps the server alive under its users:
//! - a request body over [`Config::max_body`] is refused with `413` before it is read whole;
//!   JSON that does not parse, or has an unknown field, with `400`; a request the backend's
//!   quick [`Backend::check`] refuses, with its reply, before it takes a place in the queue;
//! - at most [`Config::workers`] searches run at once, each on its own search thread; up to
//!   [`Config::queue`] more wait for a worker; a request beyond that, or one that waited longer
//!   than [`Config::timeout`], gets `503` with `Retry-After`;
//! - every search gets a deadline ([`Config::timeout`]), a node limit ([`Config::max_nodes`])
//!   and a cancel flag, set when its client goes away (the handler's future is dropped) or the
//!   server shuts down: no search outlives its request by more than the search's check
//!   interval. A worker's permit is held by the blocking task itself, so a search that has not
//!   stopped yet still counts against the limit;
//! - requests whose `Host` is not a loopback name are refused with `403` while the server is
//!   bound to loopback (a page on another site cannot reach it by DNS rebinding).
//!
//! Invariant: [`running`](Health::running) and [`waiting`](Health::waiting) return to zero
//! when the clients are gone, whatever they did (the tests check it under load).

mod assets;
mod server;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub use server::{Health, ServeError, Server};

/// The body of `POST /api/solve`: `{"board": "...", "goal": "...", "size": "WxH"}`. `goal` and
/// `size` are optional and take the values of `fifteen solve --goal` and `--size`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SolveRequest {
    /// The position, in any form `fifteen solve` reads.
    pub board: String,
    /// `blank-last` (the default), `blank-first`, or an arrangement.
    #[serde(default)]
    pub goal: Option<String>,
    /// `WxH`; by default the shape of the board given.
    #[serde(default)]
    pub size: Option<String>,
}

/// The query of `GET /api/random?size=WxH&seed=N`: a uniformly random solvable position, or a
/// random walk of `moves` moves from the goal.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct RandomQuery {
    /// `WxH` (default `4x4`).
    #[serde(default)]
    pub size: Option<String>,
    /// The generator's seed: the same seed gives the same position as `fifteen random --seed`.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The goal, as in [`SolveRequest::goal`].
    #[serde(default)]
    pub goal: Option<String>,
    /// A random walk of this many moves instead of a uniform position.
    #[serde(default)]
    pub moves: Option<u32>,
}

/// What one search may use.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Give up at this instant.
    pub deadline: Instant,
    /// Give up after generating this many nodes.
    pub max_nodes: Option<u64>,
    /// Becomes true when the client has gone or the server stops: give up.
    pub cancel: Arc<AtomicBool>,
}

/// A backend's answer: a JSON object and whether the request could be answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// `200`: the answer.
    Ok(serde_json::Value),
    /// `422`: the request was well-formed but cannot be answered (a board that does not
    /// parse, an unsolvable position, a size out of range). The object says why in `error`.
    Unprocessable(serde_json::Value),
    /// `500`: the server could not answer (for example, a damaged database). The object says
    /// why in `error`.
    Failed(serde_json::Value),
}

/// Solves and scrambles for the server. Methods run on blocking threads and may take as long
/// as the budget allows.
pub trait Backend: Send + Sync + 'static {
    /// A quick check of `request` before it takes a place in the queue (microseconds, run on
    /// the server's own threads): the reply for a request that cannot be answered, so that bad
    /// requests are refused even when the server is busy.
    fn check(&self, _request: &SolveRequest) -> Result<(), Reply> {
        Ok(())
    }
    /// Answers `request` within `budget`.
    fn solve(&self, request: &SolveRequest, budget: &Budget) -> Reply;
    /// A random position.
    fn random(&self, query: &RandomQuery) -> Reply;
}

/// The error object for a refused request: `{"status": "error", "error": message}`.
pub fn error_body(message: &str) -> serde_json::Value {
    serde_json::json!({ "status": "error", "error": message })
}

/// The server's limits.
#[derive(Clone, Debug)]
pub struct Config {
    /// Searches running at once.
    pub workers: usize,
    /// Requests waiting for a worker beyond those; more get `503`.
    pub queue: usize,
    /// Time limit of each search, and the longest a request waits for a worker.
    pub timeout: Duration,
    /// Node limit of each search.
    pub max_nodes: Option<u64>,
    /// Largest request body, in bytes.
    pub max_body: usize,
}

impl Default for Config {
    /// One worker per core, a queue of four per worker, 10 s and 500 million nodes per search,
    /// 16 KiB bodies.
    fn default() -> Config {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        Config {
            workers,
            queue: 4 * workers,
            timeout: Duration::from_secs(10),
            max_nodes: Some(500_000_000),
            max_body: 16 << 10,
        }
    }
}

#[cfg(test)]
mod tests;
