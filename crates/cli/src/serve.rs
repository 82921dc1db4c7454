//! `fifteen serve`: the local web page and JSON API (crate `fifteen-serve`) on the solver of
//! `fifteen solve --json` (module `service`).

use std::io::Write;
use std::sync::Arc;

use fifteen_core::{Board, Size};
use fifteen_serve::{Config, Server};

use crate::args::ServeArgs;
use crate::exit;
use crate::service::Service;

/// Runs `fifteen serve` until Ctrl-C.
pub(crate) fn run(args: &ServeArgs) -> anyhow::Result<u8> {
    // One thread per search: the workers run searches side by side.
    let service = Arc::new(Service::new(1, &args.pdb)?);
    // The usual goals' databases are loaded (or built on first use) now, not in a request.
    for size in [Size::S3X3, Size::S4X4] {
        for goal in [Board::blank_last(size), Board::blank_first(size)] {
            service.heuristic(&goal)?;
        }
    }
    let defaults = Config::default();
    let workers = args.workers.map_or(defaults.workers, usize::from);
    let config = Config {
        workers,
        queue: args.queue.map_or(4 * workers, usize::from),
        timeout: args.timeout,
        max_nodes: Some(args.max_nodes),
        max_body: defaults.max_body,
    };
    let server = Server::bind(args.addr, service, config)
        .map_err(|e| anyhow::anyhow!(exit::Usage(e.to_string())))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "serving http://{}/ (Ctrl-C stops)", server.local_addr())?;
    out.flush()?;
    drop(out);
    server.run_until_ctrl_c()?;
    Ok(exit::OK)
}
