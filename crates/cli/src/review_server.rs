//! `sightline review`: a local page on which one person reviews the last run — the HTML report
//! with approve and reject on every changed or new snapshot, served from this machine only.
//!
//! The page is the core's ([`render_review_page`]) and every decision goes through the core's
//! review rules ([`approve_in_review`], [`reject_in_review`]), which approve through the same
//! `approve::approve` as `sightline approve`. This module only speaks HTTP and guards the door:
//!
//! - it listens on 127.0.0.1 only, never on another interface;
//! - the URL it prints carries a random 128-bit token as its first path segment, and a request
//!   without it is refused (relative links on the page keep it without any script);
//! - the Host header must name this server (`127.0.0.1:<port>` or `localhost:<port>`), so a page
//!   on another site whose DNS name is rebound to 127.0.0.1 is refused;
//! - an Origin header, when sent, must be this server's, and a POST must send one, so no other
//!   site can post to it from a person's browser;
//! - only POST changes anything (`_/approve`, `_/reject`, `_/remove`, `_/undo`); GET reads;
//! - files served are only the PNGs results.json names, inside the project once symlinks are
//!   resolved.
//!
//! The MCP server neither starts nor calls it: approving stays with the person at the page.

use std::convert::Infallible;
use std::net::Ipv4Addr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde::{Deserialize, Serialize};
use sightline_core::approve::Accept;
use sightline_core::config::Settings;
use sightline_core::report::{ReviewPage, render_review_page};
use sightline_core::review::{
    CaptureFingerprints, ReviewDecision, ReviewRun, SnapshotRef, Undo, approve_in_review, baselines_to_commit,
    decisions_in_force, reject_in_review, remove_in_review, undo_decision,
};
use sightline_core::store::ProjectStore;

#[derive(Args)]
pub struct ReviewArgs {
    /// The port on 127.0.0.1 to listen on; 0 (the default) takes a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Open the page in the default browser.
    #[arg(long)]
    open: bool,
}

/// Largest request body: a group approval names a few hundred snapshots at most.
const MAX_BODY_BYTES: usize = 256 * 1024;
/// How long a `_/wait` request waits for results.json to change before answering "unchanged".
const WAIT_LIMIT: Duration = Duration::from_secs(25);
/// How often a waiting request looks at results.json.
const WAIT_STEP: Duration = Duration::from_millis(250);

/// What every request handler shares.
struct ReviewServer {
    store: ProjectStore,
    config: Settings,
    /// The token, the first path segment of every URL.
    token: String,
    /// The Host values this server answers to.
    hosts: [String; 2],
    /// The Origin values of its own page.
    origins: [String; 2],
    /// One decision at a time: each reads and rewrites `.sightline/review.json`. It holds how
    /// to take back the last decision made here (`_/undo`), while the server runs.
    deciding: Mutex<Option<Undo>>,
    /// The decided captures' fingerprints, so a page load does not decode them again.
    fingerprints: CaptureFingerprints,
}

/// A request refused or failed: the status and the sentence the page shows.
struct Refusal {
    status: StatusCode,
    message: String,
}

impl Refusal {
    fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self { status, message: message.into() }
    }

    /// A core error: bad input is the client's (naming what and the fix), the rest is ours.
    fn from_core(error: sightline_core::Error) -> Self {
        use sightline_core::Error;
        let status = match &error {
            Error::StaleResults { .. } => StatusCode::CONFLICT,
            Error::UnknownSnapshot { .. } => StatusCode::NOT_FOUND,
            Error::InvalidInput(_) | Error::BadResults { .. } => StatusCode::BAD_REQUEST,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Self::new(status, error.to_string())
    }
}

pub fn run_review(root: &Path, args: &ReviewArgs) -> Result<u8> {
    let root = root.canonicalize().with_context(|| format!("{}: not a folder to review", root.display()))?;
    let store = ProjectStore::open(&root)?;
    let config = Settings::read(&root)?;
    // Refuse to start without a run to review, saying how to make one.
    ReviewRun::read(&store, Path::new(&config.report_dir))?;
    let token = new_token()?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the runtime")?;
    runtime.block_on(serve(&root, store, config, token, args))
}

/// Listens, prints the URL and serves until the process is stopped.
async fn serve(root: &Path, store: ProjectStore, config: Settings, token: String, args: &ReviewArgs) -> Result<u8> {
    {
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, args.port))
            .await
            .with_context(|| format!("listening on 127.0.0.1:{}; choose another --port", args.port))?;
        let port = listener.local_addr()?.port();
        let server = Arc::new(ReviewServer {
            store,
            config,
            hosts: [format!("127.0.0.1:{port}"), format!("localhost:{port}")],
            origins: [format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}")],
            token,
            deciding: Mutex::new(None),
            fingerprints: CaptureFingerprints::default(),
        });
        let url = format!("http://127.0.0.1:{port}/{}/", server.token);
        {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            writeln!(stdout, "sightline review: {url}")?;
            stdout.flush()?;
        }
        eprintln!("sightline: reviewing {} on 127.0.0.1 only; Ctrl-C stops the server", root.display());
        if args.open {
            open_in_browser(&url);
        }
        loop {
            let (stream, _) = listener.accept().await.context("accepting a connection")?;
            let server = server.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| respond(server.clone(), request));
                // A connection that breaks off only ends itself.
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    }
}

/// Hands the URL to the desktop's opener (`open` on macOS, `xdg-open` elsewhere). A machine
/// without one still has the server: the person is told to open the printed URL themselves.
fn open_in_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    let started = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn();
    match started {
        // Waited for on its own thread so the finished opener does not linger as a zombie.
        Ok(mut child) => drop(std::thread::spawn(move || child.wait())),
        Err(e) => eprintln!("sightline: --open could not start {opener} ({e}); open the URL above in a browser"),
    }
}

/// 128 random bits as hex, from the operating system.
fn new_token() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("reading random bytes for the token: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Compares without stopping at the first differing byte, so timing tells nothing of the token.
fn same_secret(given: &str, token: &str) -> bool {
    given.len() == token.len() && given.bytes().zip(token.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

async fn respond(server: Arc<ReviewServer>, request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let response = match route(&server, request).await {
        Ok(response) => response,
        Err(refusal) => {
            let body = serde_json::json!({ "error": refusal.message }).to_string();
            reply(refusal.status, "application/json", body.into_bytes())
        }
    };
    Ok(response)
}

/// A response with the headers every answer carries: never cached, never framed, never
/// sniffed, and no Referer (which would carry the token) sent from the page.
fn reply(status: StatusCode, content_type: &'static str, body: Vec<u8>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("frame-ancestors 'none'"));
    response
}

fn json_reply(value: &serde_json::Value) -> Response<Full<Bytes>> {
    reply(StatusCode::OK, "application/json", value.to_string().into_bytes())
}

/// The door checks, then the route.
async fn route(server: &Arc<ReviewServer>, request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Refusal> {
    let forbidden = |message: String| Refusal::new(StatusCode::FORBIDDEN, message);
    let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if !server.hosts.iter().any(|h| h == host) {
        return Err(forbidden(format!(
            "Host {host:?} is not this review server ({}): open the URL sightline review printed",
            server.hosts[0]
        )));
    }
    let path = request.uri().path().to_string();
    // The right token without the final `/` (a URL copied short) is the page: sent there.
    if request.method() == Method::GET && path.strip_prefix('/').is_some_and(|token| same_secret(token, &server.token))
    {
        let mut moved = reply(
            StatusCode::PERMANENT_REDIRECT,
            "text/plain; charset=utf-8",
            b"the review page is at /<token>/".to_vec(),
        );
        moved.headers_mut().insert(
            header::LOCATION,
            header::HeaderValue::from_str(&format!("{path}/")).map_err(|_| forbidden("bad path".into()))?,
        );
        return Ok(moved);
    }
    let rest = path
        .strip_prefix('/')
        .and_then(|p| p.split_once('/'))
        .filter(|(token, _)| same_secret(token, &server.token))
        .map(|(_, rest)| rest.to_string())
        .ok_or_else(|| forbidden("missing or wrong token: open the exact URL sightline review printed".into()))?;
    let origin = request.headers().get(header::ORIGIN).map(|o| o.to_str().unwrap_or("?").to_string());
    if let Some(origin) = &origin
        && !server.origins.iter().any(|o| o == origin)
    {
        return Err(forbidden(format!(
            "Origin {origin:?} is not this review page: only the page sightline review serves may call it"
        )));
    }
    let method = request.method().clone();
    match (method, rest.as_str()) {
        (Method::POST, "_/approve" | "_/reject" | "_/remove" | "_/undo") => {
            // Browsers send Origin with every POST; one without it did not come from the page.
            if origin.is_none() {
                return Err(forbidden("a POST must carry the review page's Origin header".into()));
            }
            let action = match rest.as_str() {
                "_/approve" => Action::Approve,
                "_/reject" => Action::Reject,
                "_/undo" => Action::Undo,
                _ => Action::Remove,
            };
            decide(server, request, action).await
        }
        (Method::POST, _) => Err(Refusal::new(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("POST /{rest}: only _/approve, _/reject, _/remove and _/undo accept a POST"),
        )),
        (Method::GET, "_/approve" | "_/reject" | "_/remove" | "_/undo") => {
            Err(Refusal::new(StatusCode::METHOD_NOT_ALLOWED, "only a POST changes anything: approve from the page"))
        }
        (Method::GET, "") => blocking(server, page).await,
        (Method::GET, "_/wait") => wait_for_new_run(server, request.uri().query().unwrap_or("")).await,
        (Method::GET, aligned) if aligned.starts_with("_/aligned/") => {
            let spec = aligned["_/aligned/".len()..].to_string();
            blocking(server, move |s| aligned_image(s, &spec)).await
        }
        (Method::GET, file) => {
            let relative = percent_encoding::percent_decode_str(file)
                .decode_utf8()
                .map_err(|_| Refusal::new(StatusCode::NOT_FOUND, "the path is not UTF-8"))?
                .into_owned();
            blocking(server, move |s| image(s, &relative)).await
        }
        (method, _) => Err(Refusal::new(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("{method} is not served: the page reads with GET and decides with POST"),
        )),
    }
}

/// Runs file and image work off the connection's task.
async fn blocking<F>(server: &Arc<ReviewServer>, work: F) -> Result<Response<Full<Bytes>>, Refusal>
where
    F: FnOnce(&ReviewServer) -> Result<Response<Full<Bytes>>, Refusal> + Send + 'static,
{
    let server = server.clone();
    tokio::task::spawn_blocking(move || work(&server)).await.unwrap_or_else(|e| {
        Err(Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, format!("sightline internal error: {e}")))
    })
}

impl ReviewServer {
    fn run(&self) -> Result<ReviewRun, Refusal> {
        ReviewRun::read(&self.store, Path::new(&self.config.report_dir)).map_err(Refusal::from_core)
    }
}

/// The review page of the run as results.json is now.
fn page(server: &ReviewServer) -> Result<Response<Full<Bytes>>, Refusal> {
    let run = server.run()?;
    let decisions = decisions_in_force(&server.store, &server.fingerprints, &run).map_err(Refusal::from_core)?;
    let html = render_review_page(&run.results, &ReviewPage { version: &run.version, decisions: &decisions });
    Ok(reply(StatusCode::OK, "text/html; charset=utf-8", html.into_bytes()))
}

/// One of the run's images.
fn image(server: &ReviewServer, relative: &str) -> Result<Response<Full<Bytes>>, Refusal> {
    let run = server.run()?;
    let bytes = run
        .read_image(&server.store, relative)
        .map_err(|e| Refusal::new(StatusCode::NOT_FOUND, format!("/{relative}: {e}")))?;
    Ok(reply(StatusCode::OK, "image/png", bytes))
}

/// `_/aligned/<results version>/<snapshot index>.png`.
fn aligned_image(server: &ReviewServer, spec: &str) -> Result<Response<Full<Bytes>>, Refusal> {
    let not_found =
        || Refusal::new(StatusCode::NOT_FOUND, format!("_/aligned/{spec}: not an aligned diff of this run"));
    let (version, file) = spec.split_once('/').ok_or_else(not_found)?;
    let index: usize = file.strip_suffix(".png").and_then(|i| i.parse().ok()).ok_or_else(not_found)?;
    let run = server.run()?;
    run.check_fresh(version).map_err(Refusal::from_core)?;
    let png = run.aligned_diff_png(&server.store, &server.config, index).map_err(Refusal::from_core)?;
    Ok(reply(StatusCode::OK, "image/png", png))
}

/// The body of `_/approve` and `_/reject`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DecisionRequest {
    /// The results version the page was rendered from.
    results: String,
    snapshots: Vec<SnapshotRef>,
    /// Approve unhealthy or unsettled captures too: the page sends it only after the person
    /// confirmed the capture the server held.
    #[serde(default)]
    include_unhealthy: bool,
    /// Approve each capture as an accepted variant beside its baseline, not as the baseline.
    #[serde(default)]
    as_variant: bool,
}

/// The answer to an approval, a rejection or an undo: what it did, then the decisions in force,
/// what to commit and whether the last decision can be taken back, for the page to show.
#[derive(Serialize)]
struct Decided {
    #[serde(flatten)]
    outcome: serde_json::Value,
    commit: Vec<String>,
    decisions: Vec<ReviewDecision>,
    undo: bool,
}

/// What a POST asks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    Approve,
    Reject,
    /// Remove a missing snapshot's unused baseline (as `sightline prune` does).
    Remove,
    /// Take back the last approval or rejection made on this server.
    Undo,
}

async fn decide(
    server: &Arc<ReviewServer>,
    request: Request<Incoming>,
    action: Action,
) -> Result<Response<Full<Bytes>>, Refusal> {
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|c| c.to_str().ok())
        .is_some_and(|c| c.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json")));
    if !json {
        return Err(Refusal::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "send the decision as application/json"));
    }
    let body = Limited::new(request.into_body(), MAX_BODY_BYTES).collect().await.map_err(|e| {
        Refusal::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body could not be read ({e}); at most {MAX_BODY_BYTES} bytes"),
        )
    })?;
    let asked: DecisionRequest = serde_json::from_slice(&body.to_bytes()).map_err(|e| {
        Refusal::new(
            StatusCode::BAD_REQUEST,
            format!("not a review decision ({e}); send {{\"results\": <version>, \"snapshots\": [{{\"name\", \"project\"}}]}}"),
        )
    })?;
    blocking(server, move |server| {
        let mut last = server.deciding.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut run = server.run()?;
        let store = &server.store;
        if action == Action::Remove {
            // A removal is not taken back here (git has the file): the last decision before it
            // is no longer the last.
            *last = None;
            let report_dir = Path::new(&server.config.report_dir);
            let removed = remove_in_review(store, report_dir, &mut run, &asked.results, &asked.snapshots)
                .map_err(Refusal::from_core)?;
            // The report as results.json now is; the page's wait for a new version reloads it.
            sightline_core::report::write_report(store.root(), report_dir, &run.results).map_err(Refusal::from_core)?;
            return Ok(json_reply(&serde_json::json!({ "removed": removed })));
        }
        if asked.as_variant && action != Action::Approve {
            return Err(Refusal::new(StatusCode::BAD_REQUEST, "asVariant goes only with _/approve"));
        }
        let outcome = if action == Action::Undo {
            run.check_fresh(&asked.results).map_err(Refusal::from_core)?;
            let undo = last.take().ok_or_else(|| {
                Refusal::new(StatusCode::CONFLICT, "nothing to undo: no approval or rejection was made on this page since the review server started (or the last one was undone)")
            })?;
            let undone = undo_decision(store, &undo).map_err(Refusal::from_core)?;
            serde_json::json!({ "undone": undone })
        } else if action == Action::Approve {
            let (done, undo) = approve_in_review(
                store,
                &server.fingerprints,
                &run,
                &asked.results,
                &asked.snapshots,
                asked.include_unhealthy,
                if asked.as_variant { Accept::Variant } else { Accept::Baseline },
            )
            .map_err(Refusal::from_core)?;
            if !undo.is_empty() {
                *last = Some(undo);
            }
            serde_json::json!({ "approved": done.approved, "held": done.held })
        } else {
            let (rejected, undo) =
                reject_in_review(store, &server.fingerprints, &run, &asked.results, &asked.snapshots)
                    .map_err(Refusal::from_core)?;
            *last = Some(undo);
            serde_json::json!({ "rejected": rejected })
        };
        let decisions = decisions_in_force(store, &server.fingerprints, &run).map_err(Refusal::from_core)?;
        let answer = Decided { outcome, commit: baselines_to_commit(&decisions), decisions, undo: last.is_some() };
        Ok(json_reply(&serde_json::json!(answer)))
    })
    .await
}

/// `_/wait?results=<version>`: answers `{"changed": true}` as soon as results.json is no longer
/// that version (a new run wrote it), or `{"changed": false}` after [`WAIT_LIMIT`], when the page
/// asks again.
async fn wait_for_new_run(server: &Arc<ReviewServer>, query: &str) -> Result<Response<Full<Bytes>>, Refusal> {
    let version = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("results="))
        .ok_or_else(|| Refusal::new(StatusCode::BAD_REQUEST, "_/wait needs ?results=<the version the page shows>"))?
        .to_string();
    let results = sightline_core::results::results_path(server.store.root(), Path::new(&server.config.report_dir));
    let started = tokio::time::Instant::now();
    while started.elapsed() < WAIT_LIMIT {
        if let Some(now) = current_version(&results)
            && now != version
        {
            return Ok(json_reply(&serde_json::json!({ "changed": true })));
        }
        tokio::time::sleep(WAIT_STEP).await;
    }
    Ok(json_reply(&serde_json::json!({ "changed": false })))
}

/// results.json's version now; `None` while it cannot be read (a run replacing it).
fn current_version(results: &Path) -> Option<String> {
    std::fs::read_to_string(results).ok().map(|raw| sightline_core::review::results_version(&raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn review_tokens_are_random_hex_and_compared_whole() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(same_secret(&a, &a.clone()));
        assert!(!same_secret(&a, &b));
        assert!(!same_secret(&a[..31], &a));
        assert!(!same_secret("", &a));
    }
}
