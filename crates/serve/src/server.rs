//! The HTTP side: routes, admission (workers, queue, `503`), budgets and cancellation.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;
use tokio::sync::{Semaphore, watch};

use crate::{Backend, Budget, Config, RandomQuery, Reply, SolveRequest, assets, error_body};

/// How long past its deadline a search may take to notice it before its request is answered
/// with `504` anyway (the search keeps its worker until it stops).
const GRACE: Duration = Duration::from_secs(5);

/// How long in-flight requests get to finish after a shutdown signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The runtime or the listener failed.
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
}

/// Searches running and waiting, as `GET /api/health` reports them.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Health {
    /// Searches running on a worker (including any that were cancelled and have not stopped).
    pub running: usize,
    /// Requests admitted and waiting for a worker.
    pub waiting: usize,
    /// The number of workers.
    pub workers: usize,
    /// The queue's length.
    pub queue: usize,
}

/// A search for one of the search threads.
type Job = Box<dyn FnOnce() + Send>;

/// Starts `count` threads that run jobs until the channel closes. Searches run on these and
/// nowhere else: a fixed set of threads keeps the allocator's per-thread arenas, and so the
/// memory a search leaves cached, to one per worker (on tokio's pool, whose threads come and go,
/// the server's memory grew from load to load).
fn search_threads(count: usize) -> std::io::Result<crossbeam_channel::Sender<Job>> {
    let (send, jobs) = crossbeam_channel::unbounded::<Job>();
    for i in 0..count {
        let jobs = jobs.clone();
        std::thread::Builder::new().name(format!("fifteen-search-{i}")).spawn(move || {
            for job in jobs {
                // A panicking search (possible only where panics unwind: tests) ends its job,
                // not the thread; its reply channel closes and the request answers 500.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            }
        })?;
    }
    Ok(send)
}

/// Shared by every request.
struct Shared {
    backend: Arc<dyn Backend>,
    config: Config,
    /// Workers plus queue places: a request that gets none is refused at once.
    admission: Arc<Semaphore>,
    /// One permit per running search.
    workers: Arc<Semaphore>,
    /// Searches for the search threads (one per worker).
    jobs: crossbeam_channel::Sender<Job>,
    running: Arc<AtomicUsize>,
    waiting: AtomicUsize,
    /// Whether `Host` must be a loopback name.
    check_host: bool,
    /// Becomes true when the server shuts down.
    stopping: watch::Receiver<bool>,
}

impl Shared {
    fn health(&self) -> Health {
        Health {
            running: self.running.load(Ordering::SeqCst),
            waiting: self.waiting.load(Ordering::SeqCst),
            workers: self.config.workers,
            queue: self.config.queue,
        }
    }
}

/// A bound server, not yet serving.
pub struct Server {
    listener: std::net::TcpListener,
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("addr", &self.addr).finish_non_exhaustive()
    }
}

impl Server {
    /// Binds `addr` (port 0 picks a free port).
    pub fn bind(
        addr: SocketAddr,
        backend: Arc<dyn Backend>,
        config: Config,
    ) -> Result<Server, ServeError> {
        let listener = std::net::TcpListener::bind(addr)
            .map_err(|source| ServeError::Bind { addr, source })?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let workers = config.workers.max(1);
        let config = Config { workers, ..config };
        let (stop, stopping) = watch::channel(false);
        let shared = Arc::new(Shared {
            backend,
            admission: Arc::new(Semaphore::new(workers + config.queue)),
            workers: Arc::new(Semaphore::new(workers)),
            jobs: search_threads(workers)?,
            running: Arc::new(AtomicUsize::new(0)),
            waiting: AtomicUsize::new(0),
            check_host: addr.ip().is_loopback(),
            stopping,
            config,
        });
        Ok(Server { listener, addr, shared, stop })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// A handle to read the server's [`Health`] from another thread.
    pub fn health_probe(&self) -> impl Fn() -> Health + Send + Sync + 'static {
        let shared = Arc::clone(&self.shared);
        move || shared.health()
    }

    /// Serves until `shutdown` completes, then cancels running searches and gives requests in
    /// flight a moment to finish. Builds its own runtime; blocks the calling thread.
    pub fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            // Searches run on their own threads; these only make random positions.
            .max_blocking_threads(4)
            .thread_name("fifteen-serve")
            .enable_all()
            .build()?;
        runtime.block_on(self.serve(shutdown))?;
        runtime.shutdown_timeout(SHUTDOWN_GRACE);
        Ok(())
    }

    /// Serves until Ctrl-C.
    pub fn run_until_ctrl_c(self) -> Result<(), ServeError> {
        self.run(async {
            // If the handler cannot be installed, serve until killed.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        })
    }

    async fn serve(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::from_std(self.listener)?;
        let app = router(Arc::clone(&self.shared));
        let stop = self.stop;
        let (signalled_tx, mut signalled_rx) = watch::channel(false);
        let graceful = async move {
            shutdown.await;
            // Searches in flight see their cancel flag; their requests answer at once.
            let _ = stop.send(true);
            let _ = signalled_tx.send(true);
        };
        let server = axum::serve(listener, app).with_graceful_shutdown(graceful);
        let deadline = async move {
            let _ = signalled_rx.wait_for(|s| *s).await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        };
        tokio::select! {
            r = server.into_future() => r,
            () = deadline => Ok(()),
        }
    }
}

fn router(shared: Arc<Shared>) -> Router {
    let max_body = shared.config.max_body;
    Router::new()
        .route("/", get(assets::index))
        .route("/app.js", get(assets::script))
        .route("/style.css", get(assets::style))
        .route("/api/solve", post(solve))
        .route("/api/random", get(random))
        .route("/api/health", get(health))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(middleware::from_fn_with_state(Arc::clone(&shared), guard_host))
        .with_state(shared)
}

/// A JSON response.
pub(crate) fn json(status: StatusCode, value: &serde_json::Value) -> Response {
    let body = value.to_string();
    (status, [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body)
        .into_response()
}

fn refuse(status: StatusCode, message: &str) -> Response {
    json(status, &error_body(message))
}

/// `503` with `Retry-After`.
fn busy(shared: &Shared, why: &str) -> Response {
    let h = shared.health();
    let message = format!(
        "the server is busy ({why}: {} searches running, {} waiting); retry in a second",
        h.running, h.waiting
    );
    let mut response = refuse(StatusCode::SERVICE_UNAVAILABLE, &message);
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// While bound to loopback, only requests addressed to a loopback name are served.
async fn guard_host(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    if shared.check_host {
        let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok());
        if !host.is_some_and(is_loopback_host) {
            return refuse(
                StatusCode::FORBIDDEN,
                "this server answers only requests addressed to localhost or a loopback address",
            );
        }
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    headers.insert(
        "content-security-policy",
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `localhost`, `127.x.y.z` or `[::1]`, with or without a port.
pub(crate) fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(name, _port)| name)
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

async fn not_found(request: Request) -> Response {
    refuse(StatusCode::NOT_FOUND, &format!("no such page: {} {}", request.method(), request.uri()))
}

async fn health(State(shared): State<Arc<Shared>>) -> Response {
    json(StatusCode::OK, &serde_json::to_value(shared.health()).unwrap_or_default())
}

async fn random(
    State(shared): State<Arc<Shared>>,
    query: Result<Query<RandomQuery>, QueryRejection>,
) -> Response {
    let Query(query) = match query {
        Ok(q) => q,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, &format!("bad query: {}", e.body_text())),
    };
    let backend = Arc::clone(&shared.backend);
    match tokio::task::spawn_blocking(move || backend.random(&query)).await {
        Ok(reply) => reply_response(reply),
        Err(_) => refuse(StatusCode::INTERNAL_SERVER_ERROR, "the position could not be made"),
    }
}

fn reply_response(reply: Reply) -> Response {
    match reply {
        Reply::Ok(v) => json(StatusCode::OK, &v),
        Reply::Unprocessable(v) => json(StatusCode::UNPROCESSABLE_ENTITY, &v),
        Reply::Failed(v) => json(StatusCode::INTERNAL_SERVER_ERROR, &v),
    }
}

/// Sets the flag when dropped, unless disarmed: the request's future is dropped when its client
/// goes away, and this tells the search.
struct CancelOnDrop(Option<Arc<AtomicBool>>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(flag) = self.0.take() {
            flag.store(true, Ordering::Relaxed);
        }
    }
}

/// Counts itself in `counter` while alive.
struct Counted(Arc<AtomicUsize>);

impl Counted {
    fn new(counter: &Arc<AtomicUsize>) -> Counted {
        counter.fetch_add(1, Ordering::SeqCst);
        Counted(Arc::clone(counter))
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Like [`Counted`] for a counter owned by [`Shared`].
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn solve(State(shared): State<Arc<Shared>>, body: Result<Bytes, BytesRejection>) -> Response {
    let body = match body {
        Ok(b) => b,
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("request too large: the limit is {} bytes", shared.config.max_body),
            );
        }
        Err(e) => return refuse(e.status(), &format!("bad request: {}", e.body_text())),
    };
    let request: SolveRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, &format!("bad request: {e}")),
    };
    if let Err(reply) = shared.backend.check(&request) {
        return reply_response(reply);
    }
    // A place in the queue, or 503 at once.
    let Ok(admitted) = Arc::clone(&shared.admission).try_acquire_owned() else {
        return busy(&shared, "queue full");
    };
    let worker = {
        shared.waiting.fetch_add(1, Ordering::SeqCst);
        let _waiting = Waiting(&shared.waiting);
        let acquire = Arc::clone(&shared.workers).acquire_owned();
        match tokio::time::timeout(shared.config.timeout, acquire).await {
            Ok(Ok(permit)) => permit,
            _ => return busy(&shared, "waited too long for a worker"),
        }
    };
    let cancel = Arc::new(AtomicBool::new(false));
    let mut on_drop = CancelOnDrop(Some(Arc::clone(&cancel)));
    let budget = Budget {
        deadline: Instant::now() + shared.config.timeout,
        max_nodes: shared.config.max_nodes,
        cancel: Arc::clone(&cancel),
    };
    let backend = Arc::clone(&shared.backend);
    let running = Counted::new(&shared.running);
    let (reply, mut task) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        // The permits and the count live as long as the search, not the request.
        let _permits = (admitted, worker, running);
        let _ = reply.send(backend.solve(&request, &budget));
    });
    if shared.jobs.send(job).is_err() {
        return refuse(StatusCode::SERVICE_UNAVAILABLE, "the server is stopping");
    }
    let mut stopping = shared.stopping.clone();
    let watchdog = tokio::time::sleep(shared.config.timeout + GRACE);
    tokio::pin!(watchdog);
    let outcome = tokio::select! {
        r = &mut task => Some(r),
        closed = async { stopping.wait_for(|s| *s).await.is_err() } => {
            cancel.store(true, Ordering::Relaxed);
            if closed {
                None
            } else {
                // Give the search a moment to stop and answer with what it proved.
                tokio::time::timeout(GRACE, &mut task).await.ok()
            }
        }
        () = &mut watchdog => {
            cancel.store(true, Ordering::Relaxed);
            None
        }
    };
    // Answered (or given up on): the flag is set only if the search may still be running.
    match outcome {
        Some(Ok(reply)) => {
            on_drop.0 = None;
            reply_response(reply)
        }
        Some(Err(_)) => {
            on_drop.0 = None;
            refuse(StatusCode::INTERNAL_SERVER_ERROR, "the search failed")
        }
        None => refuse(StatusCode::GATEWAY_TIMEOUT, "the search did not stop in time"),
    }
}
