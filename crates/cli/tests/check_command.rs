//! `sightline check` against a real page in real Chromium: the binary starts the browser worker
//! from this checkout (playwright-fixtures/worker.js), a small HTTP server in the test serves
//! the page. `--focus` narrows the issues to one element, `--prompt` to the area it names; an
//! unreachable page is exit 2.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{have_browser, serve, text};

/// Two paragraphs of the same faint text (1.21:1), one inside `#card` and one outside it.
const PAGE: &str = r#"<!doctype html><html><head><style>
body { margin: 0; font: 16px sans-serif; background: #fff }
.faint { color: #aaa; background: #bbb; padding: 8px; margin: 20px }
</style></head><body>
<section id="card"><p class="faint" id="inside">Inside the card</p></section>
<p class="faint" id="outside">Outside the card</p>
</body></html>"#;

/// Serves `PAGE` at `/` (404 elsewhere) on a free port for as long as the test runs.
fn serve_page() -> String {
    format!("{}/", serve(&[("/", PAGE)]))
}

fn check(args: &[&str]) -> Output {
    let root = std::env::temp_dir();
    Command::new(env!("CARGO_BIN_EXE_sightline")).arg("--root").arg(&root).arg("check").args(args).output().unwrap()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(out)))
}

fn selectors(v: &Value) -> Vec<&str> {
    v["issues"].as_array().unwrap().iter().map(|i| i["selector"].as_str().unwrap()).collect()
}

/// The last line of stderr: the error, after the worker's start-up log lines.
fn last_error_line(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or_default().to_string()
}

#[test]
fn check_focus_keeps_only_the_issues_on_and_inside_the_element() {
    if !have_browser() {
        return;
    }
    let url = serve_page();
    let all = check(&[&url, "--json"]);
    assert_eq!(all.status.code(), Some(1), "{}", text(&all));
    let all = json(&all);
    assert_eq!(selectors(&all), ["#inside", "#outside"]);
    assert_eq!(all["summary"], "2 issues (2 errors, 0 warnings): 2 low-contrast.");
    assert_eq!(all["url"], url.as_str());
    assert_eq!(all["viewport"], "desktop");

    let focused = check(&[&url, "--json", "--focus", "#card"]);
    assert_eq!(focused.status.code(), Some(1), "{}", text(&focused));
    let focused = json(&focused);
    assert_eq!(focused["summary"], "1 issue (1 error, 0 warnings): 1 low-contrast.");
    // The one issue kept is the unfocused run's issue on #inside, field for field.
    assert_eq!(focused["issues"], Value::Array(vec![all["issues"][0].clone()]));
    let inside = &focused["issues"][0];
    assert_eq!(inside["kind"], "low-contrast");
    assert_eq!(inside["measured"]["ratio"], 1.21);
    assert_eq!(
        inside["message"],
        "Text of #inside has contrast 1.21:1 (rgb(170, 170, 170) on rgb(187, 187, 187)), below the 4.5:1 WCAG AA needs for normal text."
    );

    // The same in words: the summary line, one line per issue, the screenshot.
    let words = check(&[&url, "--focus", "#outside"]);
    assert_eq!(words.status.code(), Some(1));
    let printed = String::from_utf8_lossy(&words.stdout);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 3, "{printed}");
    assert_eq!(lines[0], format!("{url} (desktop): 1 issue (1 error, 0 warnings): 1 low-contrast."));
    assert_eq!(
        lines[1],
        "  error Text of #outside has contrast 1.21:1 (rgb(170, 170, 170) on rgb(187, 187, 187)), below the 4.5:1 WCAG AA needs for normal text."
    );
    let shot = lines[2].strip_prefix("screenshot: ").unwrap();
    assert!(Path::new(shot).is_file(), "{shot}");

    // --prompt names the area in words; a line under the summary says what was checked.
    let prompted = check(&[&url, "--prompt", "the #card section"]);
    assert_eq!(prompted.status.code(), Some(1), "{}", text(&prompted));
    let printed = String::from_utf8_lossy(&prompted.stdout);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines[0], format!("{url} (desktop): 1 issue (1 error, 0 warnings): 1 low-contrast."));
    assert_eq!(
        lines[1],
        "  Checked only #card (the CSS selector \"#card\", its first shown match) and what is inside it; page-wide \
         issues (console errors, failed fonts and stylesheets) stay."
    );
    assert!(lines[2].contains("#inside"), "{printed}");

    // A focus nothing matches is an error, not a clean page.
    let nothing = check(&[&url, "--focus", "#nothing"]);
    assert_eq!(nothing.status.code(), Some(2));
    assert!(nothing.stdout.is_empty());
    assert_eq!(last_error_line(&nothing), format!("sightline: no element matches focus #nothing on {url}"));
}

#[test]
fn check_an_unreachable_page_exits_2_naming_the_network_error() {
    if !have_browser() {
        return;
    }
    // A port that was just free: nothing listens there, so the connection is refused.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/");
    let out = check(&[&url]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(out.stdout.is_empty(), "{}", text(&out));
    assert_eq!(
        last_error_line(&out),
        format!(
            "sightline: cannot reach {url}: page.goto: net::ERR_CONNECTION_REFUSED at {url}; is the dev server running?"
        )
    );
}

#[test]
fn check_refuses_a_bad_url_or_viewport_before_starting_a_browser() {
    let out = check(&["javascript:alert(1)"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "sightline: url: only http:// and https:// pages can be checked, got \"javascript:alert(1)\" (e.g. http://localhost:3000/)\n"
    );
    let out = check(&["http://127.0.0.1:9/", "--viewport", "watch"]);
    assert_eq!(out.status.code(), Some(2));
    // The whole of stderr: no worker was started for a check that cannot run.
    assert_eq!(String::from_utf8_lossy(&out.stderr), "sightline: --viewport watch: use desktop, tablet or mobile\n");
}
