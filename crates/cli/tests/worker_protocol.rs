//! The browser worker's protocol against the core's types: `playwright-fixtures/worker.js` run as
//! the binary runs it, every method of `worker/methods.js` called with the core's params on a
//! served page that gives each answer something to say (console messages, a stylesheet and a
//! font that fail, a broken image without alt text, a late banner that shifts the page, a line
//! that flashes), and each answer read strictly into `sightline_core::worker_protocol`'s types:
//! a field methods.js adds or renames is one the types do not read, and one of another type is
//! named by its path. The answers the MCP tools pass on as they are (`ping`, `measure`) also
//! write back to exactly what the worker sent.

use std::io::{BufRead, BufReader, Lines, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde::de::DeserializeOwned;
use serde_json::Value;
use sightline_core::page_check::{CHECK_STYLE_PROPERTIES, PageDetails};
use sightline_core::worker_protocol::{
    ActionTarget, AxeParams, CaptureParams, CheckParams, ClipBox, ConsoleParams, FlashParams, FrameAction,
    FramesParams, LayoutShiftParams, MeasureParams, PingParams, Reply, Request, VerifyFactsParams, ViewportSize,
    ViewportsParams, Watch, WorkerMethod,
};

use crate::support::{have_browser, serve};

/// A page with something for every method to report.
const PAGE: &str = r#"<!doctype html><html><head><title>Protocol page</title>
<link rel="stylesheet" href="/missing.css">
<style>
@font-face { font-family: Gone; src: url(/gone.woff2) format('woff2'); }
body { margin: 0; font: 16px sans-serif }
h1 { font-family: Gone, sans-serif }
#blink { display: none }
</style></head><body>
<header><h1>Protocol page</h1><nav><a href="/a">First link</a> <a href="/b">Second link</a></nav></header>
<main>
<p id="intro">A paragraph with enough words to read in a screenshot.</p>
<p id="blink">A line that flashes</p>
<ul><li>One item</li><li>Two items</li></ul>
<button id="buy">Buy now</button>
<img src="/missing.png" width="40" height="40">
</main>
<script>
console.log('loaded');
console.error('something failed');
setTimeout(() => {
  document.querySelector('main').insertAdjacentHTML('afterbegin', '<div style="height: 120px">Late banner</div>');
}, 100);
setTimeout(() => { document.getElementById('blink').style.display = 'block'; }, 150);
setTimeout(() => { document.getElementById('blink').style.display = 'none'; }, 300);
</script>
</body></html>"#;

/// `PAGE` at `/`; everything else it asks for is a 404.
const PAGES: &[(&str, &str)] = &[("/", PAGE)];

/// The worker as the binary runs it: `node playwright-fixtures/worker.js` in the checkout (so
/// its playwright-core is found), one request at a time.
struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: Lines<BufReader<ChildStdout>>,
    next_id: u64,
}

impl Worker {
    fn start() -> Self {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut child = Command::new("node")
            .arg(root.join("playwright-fixtures/worker.js"))
            .current_dir(&root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node starts the worker");
        let stdin = child.stdin.take();
        let answers = BufReader::new(child.stdout.take().expect("the worker's stdout")).lines();
        Worker { child, stdin, answers, next_id: 1 }
    }

    /// Calls `M` and returns its result's JSON text, or the worker's error message.
    fn call<M: WorkerMethod>(&mut self, params: &M) -> Result<String, String> {
        let id = self.next_id;
        self.next_id += 1;
        let stdin = self.stdin.as_mut().expect("the worker's stdin");
        stdin.write_all(Request::new(id, params, 30_000).line().as_bytes()).unwrap();
        stdin.flush().unwrap();
        for line in self.answers.by_ref() {
            let line = line.expect("a line from the worker");
            let reply: Reply = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if reply.id == Some(id) {
                return reply.outcome().map(|raw| raw.get().to_string());
            }
        }
        panic!("the worker exited without answering {}", M::NAME)
    }

    /// `M`'s answer, read strictly; an error answer fails the test.
    fn answer<M: WorkerMethod>(&mut self, params: &M) -> (M::Answer, String) {
        let raw = self.call(params).unwrap_or_else(|e| panic!("{}: {e}", M::NAME));
        (strict(M::NAME, &raw), raw)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // A closed stdin is the worker's signal to close its browser and exit.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// `raw` read as `T`, every field the worker sent accounted for: a field `T` does not read (one
/// methods.js added or renamed) fails, naming its path, as does a field of another type.
fn strict<T: DeserializeOwned>(what: &str, raw: &str) -> T {
    let mut unread = Vec::new();
    let mut note = |path: serde_ignored::Path| unread.push(path.to_string());
    let mut json = serde_json::Deserializer::from_str(raw);
    let tracked = serde_ignored::Deserializer::new(&mut json, &mut note);
    let read: T = serde_path_to_error::deserialize(tracked).unwrap_or_else(|e| panic!("{what}: {e}\n{raw}"));
    assert!(unread.is_empty(), "{what}: the worker sends fields the core's types do not read: {unread:?}\n{raw}");
    read
}

/// `typed` written back is the worker's JSON, value for value.
fn writes_back(what: &str, typed: &impl serde::Serialize, raw: &str) {
    let raw: Value = serde_json::from_str(raw).unwrap();
    assert_eq!(serde_json::to_value(typed).unwrap(), raw, "{what}");
}

/// A folder of the test's own, gone when the test ends, passed or failed.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn worker_protocol_every_method_answers_in_the_cores_types() {
    if !have_browser() {
        return;
    }
    let url = format!("{}/", serve(PAGES));
    let out = TempDir(std::env::temp_dir().join(format!("sightline-worker-protocol-{}", std::process::id())));
    let mut worker = Worker::start();

    let (ping, raw) = worker.answer(&PingParams {});
    assert!(ping.browser.found && ping.playwright_core.is_some(), "{raw}");
    writes_back("ping", &ping, &raw);

    let check = CheckParams {
        url: url.clone(),
        viewport: ViewportSize { width: 1280, height: 800 },
        out_dir: out.0.clone(),
        scopes: vec!["header".into(), "main".into()],
        scope_any_match: false,
        style_properties: &CHECK_STYLE_PROPERTIES,
    };
    let (checked, _) = worker.answer(&check);
    let details: PageDetails = strict("check details", checked.details.text());
    assert!(details.elements.iter().any(|e| e.image.is_some()), "an image's load state");
    assert_eq!(details.stylesheets.len(), 1);
    let dom = checked.dom.parse().unwrap();
    assert!(dom.elements.iter().any(|e| e.selector == "#buy"));
    assert!(checked.console.iter().any(|c| c.level == "error" && c.location.is_some()), "{:?}", checked.console);
    assert!(checked.failed_requests.iter().any(|f| f.status == Some(404)), "{:?}", checked.failed_requests);
    assert!(checked.screenshot.as_deref().is_some_and(|s| Path::new(s).is_file()));
    let scope = checked.scope.expect("header matches");
    assert!(scope.index == 0 && scope.selectors.len() > 1, "{scope:?}");

    let watch = || Watch { url: url.clone(), wait_ms: 700 };
    let (console, _) = worker.answer(&ConsoleParams(watch()));
    let texts: Vec<&str> = console.console.iter().map(|c| c.text.as_str()).collect();
    assert!(texts.contains(&"loaded") && texts.contains(&"something failed"), "{texts:?}");
    assert_eq!(console.console_dropped, 0);
    assert!(!console.failed_requests.is_empty());

    let (axe, _) = worker.answer(&AxeParams { url: url.clone(), selector: None, rules: None });
    let alt = axe.violations.iter().find(|v| v.id == "image-alt").expect("the image has no alt text");
    assert!(alt.nodes[0].failure_summary.is_some() && axe.axe_version.is_some());

    let (shifts, raw) = worker.answer(&LayoutShiftParams(watch()));
    assert!(!shifts.unsupported && shifts.entries.iter().any(|e| !e.sources.is_empty()), "{raw}");

    let (flashes, raw) = worker.answer(&FlashParams(watch()));
    assert!(flashes.elements.iter().any(|t| t.selector.as_deref() == Some("#blink")), "{raw}");

    let (measured, raw) = worker.answer(&MeasureParams { url: url.clone(), selector: "#buy".into() });
    assert_eq!((measured.found, measured.tag.as_str(), measured.matches), (true, "button", 1));
    writes_back("measure", &measured, &raw);
    // Nothing matching is the call's error, in the words the tool answers with.
    let missing = worker.call(&MeasureParams { url: url.clone(), selector: "#nothing".into() });
    assert_eq!(missing.unwrap_err(), format!("no element matches #nothing on {url}"));

    let sizes = vec![ViewportSize { width: 375, height: 667 }, ViewportSize { width: 1280, height: 800 }];
    let viewports = ViewportsParams {
        url: url.clone(),
        selector: Some("#buy".into()),
        breakpoints: sizes.clone(),
        out_dir: out.0.clone(),
        style_properties: &CHECK_STYLE_PROPERTIES,
    };
    let (at_sizes, _) = worker.answer(&viewports);
    let answered: Vec<ViewportSize> =
        at_sizes.breakpoints.iter().map(|b| ViewportSize { width: b.width, height: b.height }).collect();
    assert_eq!(answered, sizes, "in the order asked");
    for size in &at_sizes.breakpoints {
        assert!(size.dom.parse().is_ok() && size.screenshot.is_some());
        assert!(size.element.as_ref().is_some_and(|e| e.found && e.bounds.is_some()), "{:?}", size.element);
    }

    let capture = CaptureParams {
        url: url.clone(),
        selector: Some("main".into()),
        style_properties: &sightline_core::config::DEFAULT_STYLE_PROPERTIES,
        screenshot: true,
        scroll_to_load: false,
        out_dir: Some(out.0.clone()),
    };
    let (captured, _) = worker.answer(&capture);
    assert!(captured.dom.parse().is_ok() && captured.screenshot.is_some());

    let frames_dir = out.0.join("frames");
    std::fs::create_dir_all(&frames_dir).unwrap();
    let frames = FramesParams {
        url: url.clone(),
        frames: 2,
        interval_ms: 50,
        wait_ms: 0,
        actions: vec![
            FrameAction::Hover(ActionTarget::Element { selector: "#buy".into() }),
            FrameAction::Click(ActionTarget::Point { x: 5.0, y: 5.0 }),
            FrameAction::Wait { ms: 10 },
        ],
        clip: Some(ClipBox { x: 0.0, y: 0.0, width: 100.0, height: 100.0 }),
        viewport: Some(ViewportSize { width: 400, height: 300 }),
        out_dir: frames_dir,
        wait_for_flutter: false,
    };
    let (shots, _) = worker.answer(&frames);
    assert_eq!(shots.shots.len(), 2);
    assert!(shots.shots.iter().all(|s| Path::new(&s.file).is_file()));

    let verify = VerifyFactsParams { url: url.clone(), selector: None, out_dir: out.0.clone() };
    let (facts, _) = worker.answer(&verify);
    assert_eq!(facts.title, "Protocol page");
    assert!(facts.items.len() >= 5 && facts.counts.buttons == 1 && facts.screenshot.is_some(), "{facts:?}");
}
