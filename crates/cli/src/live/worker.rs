//! The supervisor of the browser worker (`playwright-fixtures/worker.js`, spec 05-live-pages):
//! one long-lived `node` process spoken to in newline-delimited JSON over its stdin/stdout, in
//! the core's typed protocol (`sightline_core::worker_protocol`). Requests carry an id and
//! answers are matched by it, so calls may overlap. Every call is
//! bounded by a timeout; a worker that dies (or hangs past the timeout and is killed) fails the
//! calls in flight with a clear error, and the next call starts a new one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use serde_json::value::RawValue;
use sightline_core::worker_protocol::{Reply, Request, WorkerMethod, read_answer};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{Mutex, oneshot};

/// Environment variable naming the worker script (the npm shim sets it).
pub const WORKER_ENV: &str = "SIGHTLINE_WORKER";
/// Environment variable naming the Node executable (the npm shim sets it to the Node running
/// it); `node` from PATH otherwise.
pub const NODE_ENV: &str = "SIGHTLINE_NODE";
/// Extra time the supervisor gives a call beyond the worker's own timeout before declaring the
/// worker hung (the worker answers a timeout itself when it can): a quarter of the timeout, at
/// least this.
const MIN_GRACE: Duration = Duration::from_secs(2);

type Answer = Result<Box<RawValue>, String>;
type Pending = Arc<StdMutex<HashMap<u64, oneshot::Sender<Answer>>>>;

/// One running worker process.
struct Running {
    child: Child,
    stdin: ChildStdin,
    pid: u32,
    pending: Pending,
    /// Set by the reader when the process's stdout closed: it exited.
    dead: Arc<AtomicBool>,
}

/// Starts the worker on first use and restarts it after it died.
pub struct Worker {
    script: Result<PathBuf, String>,
    cwd: PathBuf,
    running: Mutex<Option<Running>>,
    next_id: AtomicU64,
    /// The page the last call opened: the tools that take no url work on it.
    last_url: std::sync::Mutex<Option<String>>,
}

impl Worker {
    /// A supervisor for the worker found by [`find_worker_script`], run in `cwd` (the project
    /// root, so the user's own `playwright-core` is found first).
    pub fn new(cwd: &Path) -> Self {
        Worker {
            script: find_worker_script(),
            cwd: cwd.to_path_buf(),
            running: Mutex::new(None),
            next_id: AtomicU64::new(1),
            last_url: std::sync::Mutex::new(None),
        }
    }

    /// The worker script's path, or why it was not found.
    pub fn script(&self) -> Result<&Path, &str> {
        self.script.as_deref().map_err(String::as_str)
    }

    /// The url of the page the last call opened, if any.
    pub fn last_url(&self) -> Option<String> {
        self.last_url.lock().expect("last url").clone()
    }

    /// Calls method `M` with `params` and reads its answer; `timeout` bounds the call in the
    /// worker too.
    pub async fn call<M: WorkerMethod>(&self, params: &M, timeout: Duration) -> Result<M::Answer, String> {
        if let Some(url) = params.url() {
            *self.last_url.lock().expect("last url") = Some(url.to_string());
        }
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let line = Request::new(id, params, timeout.as_millis() as u64).line();
        let result = self.send(id, line, timeout).await?;
        read_answer::<M>(result.get())
    }

    /// Sends request `id` (one line) and waits for the result's JSON text or the call's error.
    async fn send(&self, id: u64, line: String, timeout: Duration) -> Result<Box<RawValue>, String> {
        let (sender, receiver) = oneshot::channel();
        let pid = {
            let mut guard = self.running.lock().await;
            let mut sender = Some(sender);
            // The reader marks a worker dead before it fails what the worker owed, under the same
            // lock as this insert: a request is either failed by it or goes to a live worker.
            while let Some(s) = sender.take() {
                if guard.as_ref().is_none_or(|r| r.dead.load(Ordering::SeqCst)) {
                    *guard = Some(self.spawn()?);
                }
                let running = guard.as_ref().expect("a worker was just started");
                let mut pending = running.pending.lock().expect("pending map");
                if running.dead.load(Ordering::SeqCst) {
                    sender = Some(s);
                    continue;
                }
                pending.insert(id, s);
            }
            let running = guard.as_mut().expect("a worker is running");
            if let Err(e) = running.stdin.write_all(line.as_bytes()).await {
                running.pending.lock().expect("pending map").remove(&id);
                running.dead.store(true, Ordering::SeqCst);
                return Err(format!(
                    "the browser worker (pid {}) stopped taking requests ({e}); retry the call",
                    running.pid
                ));
            }
            let _ = running.stdin.flush().await;
            running.pid
        };
        let limit = timeout + (timeout / 4).max(MIN_GRACE);
        match tokio::time::timeout(limit, receiver).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => {
                Err(format!("the browser worker (pid {pid}) stopped while answering; the next call starts a new one"))
            }
            Err(_) => {
                // Hung beyond its own timeout: kill it so the next call gets a fresh one.
                self.kill(pid).await;
                Err(format!(
                    "the browser worker (pid {pid}) did not answer within {:.1} s and was stopped; the next call starts a new one",
                    limit.as_secs_f64()
                ))
            }
        }
    }

    async fn kill(&self, pid: u32) {
        let mut guard = self.running.lock().await;
        if let Some(running) = guard.as_mut().filter(|r| r.pid == pid) {
            let _ = running.child.start_kill();
            running.dead.store(true, Ordering::SeqCst);
            for (_, sender) in running.pending.lock().expect("pending map").drain() {
                let _ = sender.send(Err(format!("the browser worker (pid {pid}) was restarted after a hung call")));
            }
        }
    }

    fn spawn(&self) -> Result<Running, String> {
        let script = self.script.as_ref().map_err(Clone::clone)?;
        let node = std::env::var_os(NODE_ENV).unwrap_or_else(|| "node".into());
        let mut child = Command::new(&node)
            .arg(script)
            .current_dir(&self.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // The worker logs to stderr; ours is the MCP server's log channel too.
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                format!(
                    "cannot start the browser worker with `{} {}`: {e}; is Node.js 18+ on PATH (or {NODE_ENV} set)?",
                    node.to_string_lossy(),
                    script.display()
                )
            })?;
        let pid = child.id().unwrap_or_default();
        let stdin = child.stdin.take().ok_or("the browser worker has no stdin")?;
        let stdout = child.stdout.take().ok_or("the browser worker has no stdout")?;
        let pending: Pending = Arc::default();
        let dead = Arc::new(AtomicBool::new(false));
        let (reader_pending, reader_dead) = (pending.clone(), dead.clone());
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(reply) = serde_json::from_str::<Reply>(&line) else {
                    eprintln!("sightline: ignoring a worker line that is not an answer: {line}");
                    continue;
                };
                let Some(id) = reply.id else { continue };
                if let Some(sender) = reader_pending.lock().expect("pending map").remove(&id) {
                    let _ = sender.send(reply.outcome());
                }
            }
            // stdout closed: the process is gone. Fail what it still owed.
            reader_dead.store(true, Ordering::SeqCst);
            for (_, sender) in reader_pending.lock().expect("pending map").drain() {
                let _ = sender.send(Err(format!(
                    "the browser worker (pid {pid}) exited while handling this call; the next call starts a new one"
                )));
            }
        });
        eprintln!("sightline: started the browser worker (pid {pid}): {} {}", node.to_string_lossy(), script.display());
        Ok(Running { child, stdin, pid, pending, dead })
    }
}

/// `SIGHTLINE_WORKER`, else `playwright-fixtures/worker.js` in the nearest folder above the
/// executable that has one (a checkout's `target/release/sightline`, or the npm package).
pub fn find_worker_script() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(WORKER_ENV) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("{WORKER_ENV}={} is not a file; point it at playwright-fixtures/worker.js", path.display()))
        };
    }
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("cannot locate this executable ({e})"))?;
    exe.ancestors()
        .skip(1)
        .map(|dir| dir.join("playwright-fixtures").join("worker.js"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "the browser worker (playwright-fixtures/worker.js) is not in any folder above {}; set {WORKER_ENV} to its path",
                exe.display()
            )
        })
}
