//! The text the MCP tools answer with, built from what the run left on disk (`results.json`,
//! `.sightline/temp`). Pure functions of the project folder, so they are tested without a client.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sightline_core::batch::ShardManifest;
use sightline_core::health::HealthReason;

/// The approval rule every summary ends with.
pub const APPROVAL_RULE: &str = "Approve only after a human confirms: call approve_snapshot (name, optional project) or \
approve_all only when the user has said to accept these changes; never approve on your own judgement.";

/// Where a project's run output lives.
pub struct Project {
    /// Absolute project root (where `.sightline/` is).
    pub root: PathBuf,
    /// `reportDir` from the config, as written (relative to the root unless absolute).
    pub report_dir: String,
}

/// What reading `results.json` gave.
pub enum Results {
    /// The parsed file and its raw text.
    Found { value: Value, raw: String },
    /// No file: the explanation of why (the spec's "When there is no results.json").
    Absent(String),
    /// A file that cannot be used: what is wrong and what to do.
    Broken(String),
}

impl Project {
    pub fn report_path(&self) -> PathBuf {
        self.root.join(&self.report_dir)
    }

    pub fn results_path(&self) -> PathBuf {
        self.report_path().join("results.json")
    }

    /// `results.json` relative to the root, as people write it.
    fn results_rel(&self) -> String {
        Path::new(&self.report_dir).join("results.json").display().to_string()
    }

    pub fn read_results(&self) -> Results {
        let path = self.results_path();
        match sightline_core::results_file::read_results(&path) {
            Ok(results) => Results::Found { value: results.value, raw: results.raw },
            Err(sightline_core::Error::Io { error, .. }) if error.kind() == std::io::ErrorKind::NotFound => {
                Results::Absent(self.why_no_results())
            }
            Err(e) => Results::Broken(e.to_string()),
        }
    }

    /// Why there is no results.json: a capture-only shard, a comparing shard, captures not yet
    /// compared, or nothing at all.
    pub fn why_no_results(&self) -> String {
        let temp = self.root.join(".sightline").join("temp");
        let captures = count_captures(&temp);
        let rel = self.results_rel();
        let manifest: Option<ShardManifest> =
            std::fs::read(temp.join("shard.json")).ok().and_then(|b| serde_json::from_slice(&b).ok());
        let captures_text = match captures {
            1 => "1 capture is".to_string(),
            n => format!("{n} captures are"),
        };
        match manifest {
            Some(m) if m.mode == "capture-only" => format!(
                "No results at {rel} because this is capture-only shard {}/{}. {captures_text} in .sightline/temp/, \
                 but no comparison ran here — a shard sees only its slice of the suite. The job that merges every \
                 shard produces the report (npx sightline compare --captures <each shard's .sightline/temp>).",
                m.current, m.total
            ),
            Some(m) => format!(
                "No results at {rel}: this is comparing shard {}/{}, and it wrote no partial results ({captures_text} \
                 in .sightline/temp/). A shard sees only its slice of the suite; the job that merges every shard \
                 (npx sightline merge <each shard's .sightline/temp>) produces the full report.",
                m.current, m.total
            ),
            None if captures > 0 => format!(
                "No results at {rel} yet: {captures_text} in .sightline/temp/, but no comparison ran. Compare them \
                 with `npx sightline compare` (it writes {rel} and the HTML report), then ask again."
            ),
            None => format!(
                "No results at {rel}: the tests have not run here yet (no captures in .sightline/temp/). Run the \
                 Playwright tests with the sightline reporter (npx playwright test), then ask again."
            ),
        }
    }

    fn abs(&self, rel: &str) -> String {
        self.root.join(rel).display().to_string()
    }
}

/// `.slcap` files anywhere under `dir`.
fn count_captures(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| e.path())
        .map(|p| if p.is_dir() { count_captures(&p) } else { usize::from(p.extension().is_some_and(|x| x == "slcap")) })
        .sum()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or("")
}

fn is_pending(s: &Value) -> bool {
    matches!(s["status"].as_str(), Some("changed" | "new"))
}

/// `get_visual_results`: groups, one verdict line per snapshot (changed and new first), one line
/// for missing baselines, the files to open, and the approval rule.
pub fn summary(project: &Project, results: &Value) -> String {
    let mut out = Vec::new();
    let s = &results["summary"];
    out.push(format!(
        "Sightline results ({}): {} snapshots — {} changed, {} new, {} missing, {} passed ({} auto-passed).",
        str_of(results, "createdAt"),
        s["total"],
        s["changed"],
        s["new"],
        s["missing"],
        s["passed"],
        s["autoPassed"]
    ));
    let snapshots: Vec<&Value> = results["snapshots"].as_array().into_iter().flatten().collect();
    if let Some(shard) = results["run"]["shard"].as_object() {
        out.push(format!(
            "Partial results: shard {}/{} compared only its slice ({} snapshots). The job that merges every shard \
             (npx sightline merge) produces the full report; only it can tell missing baselines.",
            shard.get("current").unwrap_or(&Value::Null),
            shard.get("total").unwrap_or(&Value::Null),
            snapshots.len()
        ));
    } else if results["run"]["filtered"].as_bool() == Some(true) {
        out.push("Filtered run: only part of the suite ran, so absent snapshots are not reported missing.".into());
    }
    let groups: Vec<&Value> = results["groups"].as_array().into_iter().flatten().collect();
    if !groups.is_empty() {
        out.push(String::new());
        out.push("Groups (snapshots sharing one signal; each still has its own line below):".into());
        for g in groups {
            let members: Vec<String> = g["members"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| format!("{} ({})", str_of(m, "name"), str_of(m, "project")))
                .collect();
            let label = g["label"].as_str().or(g["signal"].as_str()).unwrap_or("group");
            out.push(format!("- {label}: {}", members.join(", ")));
        }
    }
    out.push(String::new());
    out.push("Snapshots:".into());
    let ordered = snapshots.iter().filter(|s| is_pending(s)).chain(snapshots.iter().filter(|s| !is_pending(s)));
    for snap in ordered {
        let unhealthy = if snap["captureHealth"]["unhealthy"].as_bool() == Some(true) {
            " [unhealthy capture: fix the assets, do not approve]"
        } else {
            ""
        };
        out.push(format!(
            "- {} ({}) [{}]: {}{unhealthy}",
            str_of(snap, "name"),
            str_of(snap, "project"),
            str_of(snap, "status"),
            str_of(snap, "verdict")
        ));
    }
    if snapshots.is_empty() {
        out.push("- (none in this run)".into());
    }
    let missing: Vec<String> = results["missingBaselines"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| format!("{} ({})", str_of(m, "name"), str_of(m, "project")))
        .collect();
    if !missing.is_empty() {
        out.push(format!(
            "- missing baselines, committed but not captured in this run: {}. Nothing to approve; removing one on \
             purpose means deleting .sightline/baselines/<name>/.",
            missing.join(", ")
        ));
    }
    out.push(String::new());
    out.push("Open:".into());
    let html = project.report_path().join("index.html");
    out.push(format!("- HTML report: {}", html.display()));
    for snap in &snapshots {
        let (key, what) = match snap["status"].as_str() {
            Some("changed") => ("diff", "diff"),
            Some("new") => ("current", "current (new)"),
            _ => continue,
        };
        if let Some(file) = snap["files"][key].as_str() {
            out.push(format!("- {} ({}) {what}: {}", str_of(snap, "name"), str_of(snap, "project"), project.abs(file)));
        }
    }
    out.push(String::new());
    out.push(APPROVAL_RULE.into());
    out.join("\n")
}

/// `explain_snapshot`: the evidence of `name` (every project, or only `project`) as JSON with
/// absolute paths and `guidance`; `Err` with a message when the run has no such snapshot.
pub fn explain(project: &Project, results: &Value, name: &str, project_name: Option<&str>) -> Result<Value, String> {
    let wanted = |v: &&Value| str_of(v, "name") == name && project_name.is_none_or(|p| str_of(v, "project") == p);
    let mut out: Vec<Value> = Vec::new();
    for snap in results["snapshots"].as_array().into_iter().flatten().filter(wanted) {
        let mut v = snap.clone();
        if let Some(obj) = v.as_object_mut() {
            obj.insert("paths".into(), absolute_files(project, &snap["files"]));
            obj.insert("guidance".into(), json!(guidance(snap)));
        }
        out.push(v);
    }
    for m in results["missingBaselines"].as_array().into_iter().flatten().filter(wanted) {
        out.push(json!({
            "name": m["name"],
            "project": m["project"],
            "status": "missing",
            "files": m["files"],
            "paths": absolute_files(project, &m["files"]),
            "guidance": [
                "Missing baseline: a committed baseline had no capture in this run, so there is nothing to approve.",
                "Check whether the test was removed or renamed (then delete its baseline directory .sightline/baselines/<name>/ in the same change) or broke before it captured (check the test log).",
            ],
        }));
    }
    match out.len() {
        0 => {
            let names: Vec<&str> =
                results["snapshots"].as_array().into_iter().flatten().map(|s| str_of(s, "name")).collect();
            Err(format!(
                "no snapshot named {name:?}{} in the last run; its snapshots are: {}",
                project_name.map(|p| format!(" for project {p:?}")).unwrap_or_default(),
                if names.is_empty() { "(none)".to_string() } else { names.join(", ") }
            ))
        }
        1 => Ok(out.remove(0)),
        _ => Ok(Value::Array(out)),
    }
}

fn absolute_files(project: &Project, files: &Value) -> Value {
    let mut map = serde_json::Map::new();
    for (key, file) in files.as_object().into_iter().flatten() {
        if let Some(file) = file.as_str() {
            map.insert(key.clone(), Value::String(project.abs(file)));
        }
    }
    Value::Object(map)
}

/// Sentences that say how to read one snapshot's evidence.
pub fn guidance(snap: &Value) -> Vec<String> {
    let mut g = Vec::new();
    let status = str_of(snap, "status");
    let pixel = &snap["layers"]["pixel"];
    let dom = &snap["layers"]["dom"];
    let health = &snap["captureHealth"];
    if health["unhealthy"].as_bool() == Some(true) {
        // Each reason's sentence from the core; a results.json from an older release wrote strings.
        let reasons: Vec<String> = health["reasons"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| match serde_json::from_value::<HealthReason>(r.clone()) {
                Ok(reason) => reason.to_string(),
                Err(_) => r.as_str().map_or_else(|| r.to_string(), str::to_owned),
            })
            .collect();
        let named =
            if reasons.is_empty() { " (see captureHealth)".to_string() } else { format!(": {}", reasons.join("; ")) };
        g.push(format!(
            "The capture is unhealthy{named}. Fix the assets or the test and run again; never approve an unhealthy capture."
        ));
    }
    match status {
        "passed" => g.push("Passed: nothing to review or approve.".into()),
        "new" => g.push(
            "New snapshot: there is no baseline yet. Look at the current image; approve only when a human confirms it shows the page as it should look.".into(),
        ),
        _ => {}
    }
    if status == "changed" {
        if !dom.is_object() {
            g.push("No DOM data: the DOM cannot tell noise from a real change here, so decide from the images (baseline, current, diff).".into());
        } else {
            let style_count = dom["styleChanges"]["count"].as_u64().unwrap_or(0);
            let dom_changed = dom["changed"].as_bool() == Some(true);
            let style_check = str_of(dom, "styleCheck");
            if dom_changed {
                g.push("The DOM changed (elements added, removed or modified): a real structural change; check it was intended.".into());
            } else if style_count > 0 {
                g.push("Style-only change: the DOM is identical and only computed styles changed (dom.styleChanges lists each from → to). It is real, not noise: confirm with a human that the restyle was intended before approving.".into());
            }
            if style_check == "unavailable" {
                g.push("Styles were not compared: an identical DOM does not rule out a stylesheet change, so look at the images.".into());
            } else if !dom_changed && style_count == 0 && pixel["shift"].is_null() {
                g.push("DOM identical and styles match: if the diff is small and scattered this is likely render noise; a concentrated or large diff deserves a look at the images.".into());
            }
        }
        if let Some(shift) = pixel["shift"].as_object() {
            g.push(format!(
                "Page shift: content below y={} moved by {} px, so most differing pixels are content that moved, not changed ({} pixels still differ after undoing the shift). Look at what grew or was inserted above (dom.geometryChanges.resized).",
                shift.get("belowY").unwrap_or(&Value::Null),
                shift.get("dy").unwrap_or(&Value::Null),
                pixel["diffPixelsAfterShift"]
            ));
        }
    }
    if matches!(status, "changed" | "new") {
        g.push("Approve only after a human confirms (approve_snapshot).".into());
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_root(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sightline-mcp-view-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn project(root: &Path) -> Project {
        Project { root: root.to_path_buf(), report_dir: "visual-report".into() }
    }

    #[test]
    fn explains_why_there_are_no_results() {
        // One answer per situation, whole: each names what is there and the command that helps.
        let root = temp_root("absent");
        assert_eq!(
            project(&root).why_no_results(),
            "No results at visual-report/results.json: the tests have not run here yet (no captures in \
             .sightline/temp/). Run the Playwright tests with the sightline reporter (npx playwright test), then ask \
             again."
        );
        let temp = root.join(".sightline/temp/x");
        std::fs::create_dir_all(&temp).unwrap();
        std::fs::write(temp.join("chromium.slcap"), b"x").unwrap();
        assert_eq!(
            project(&root).why_no_results(),
            "No results at visual-report/results.json yet: 1 capture is in .sightline/temp/, but no comparison ran. \
             Compare them with `npx sightline compare` (it writes visual-report/results.json and the HTML report), \
             then ask again."
        );
        std::fs::write(root.join(".sightline/temp/x/firefox.slcap"), b"x").unwrap();
        std::fs::write(
            root.join(".sightline/temp/shard.json"),
            br#"{"current":3,"total":8,"mode":"capture-only","captures":2}"#,
        )
        .unwrap();
        assert_eq!(
            project(&root).why_no_results(),
            "No results at visual-report/results.json because this is capture-only shard 3/8. 2 captures are in \
             .sightline/temp/, but no comparison ran here — a shard sees only its slice of the suite. The job that \
             merges every shard produces the report (npx sightline compare --captures <each shard's .sightline/temp>)."
        );
        // A comparing shard that wrote no results (its report folder lost, say): merge is the answer.
        std::fs::write(
            root.join(".sightline/temp/shard.json"),
            br#"{"current":2,"total":4,"mode":"compare","captures":2}"#,
        )
        .unwrap();
        assert_eq!(
            project(&root).why_no_results(),
            "No results at visual-report/results.json: this is comparing shard 2/4, and it wrote no partial results \
             (2 captures are in .sightline/temp/). A shard sees only its slice of the suite; the job that merges every \
             shard (npx sightline merge <each shard's .sightline/temp>) produces the full report."
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    fn results() -> Value {
        json!({
            "version": 1, "createdAt": "t", "run": {"shard": null, "filtered": false},
            "summary": {"total": 3, "passed": 1, "changed": 1, "new": 1, "missing": 1, "autoPassed": 0},
            "groups": [],
            "snapshots": [
                {"name": "about", "project": "chromium", "status": "passed", "verdict": "Passed", "files": {},
                 "layers": {"pixel": {"shift": null}, "dom": null}, "captureHealth": {"unhealthy": false}},
                {"name": "home", "project": "chromium", "status": "changed", "verdict": "Style-only change",
                 "files": {"diff": "visual-report/images/home/chromium-diff.png"},
                 "layers": {"pixel": {"shift": null}, "dom": {"changed": false, "styleCheck": "mismatch",
                   "styleChanges": {"count": 2}}}, "captureHealth": {"unhealthy": false}},
                {"name": "fresh", "project": "chromium", "status": "new", "verdict": "New",
                 "files": {"current": "visual-report/images/fresh/chromium-current.png"},
                 "layers": {"pixel": {"shift": null}, "dom": null}, "captureHealth": {"unhealthy": false}}
            ],
            "missingBaselines": [{"name": "gone", "project": "chromium", "files": {}}]
        })
    }

    #[test]
    fn summary_puts_changes_first_and_ends_with_the_rule() {
        let p = Project { root: PathBuf::from("/r"), report_dir: "visual-report".into() };
        // The whole answer: counts, changed and new before passed, the missing baseline, absolute
        // paths to open, and the approval rule last.
        let expected = format!(
            "Sightline results (t): 3 snapshots — 1 changed, 1 new, 1 missing, 1 passed (0 auto-passed).

Snapshots:
- home (chromium) [changed]: Style-only change
- fresh (chromium) [new]: New
- about (chromium) [passed]: Passed
- missing baselines, committed but not captured in this run: gone (chromium). Nothing to approve; removing one on purpose means deleting .sightline/baselines/<name>/.

Open:
- HTML report: /r/visual-report/index.html
- home (chromium) diff: /r/visual-report/images/home/chromium-diff.png
- fresh (chromium) current (new): /r/visual-report/images/fresh/chromium-current.png

{APPROVAL_RULE}"
        );
        assert_eq!(summary(&p, &results()), expected);
        // A shard's own partial results say so on the second line.
        let mut partial = results();
        partial["run"]["shard"] = json!({"current": 1, "total": 2});
        let text = summary(&p, &partial);
        assert_eq!(
            text.lines().nth(1),
            Some(
                "Partial results: shard 1/2 compared only its slice (3 snapshots). The job that merges every shard \
                 (npx sightline merge) produces the full report; only it can tell missing baselines."
            )
        );
    }

    #[test]
    fn guidance_names_each_failed_asset_in_a_sentence() {
        use sightline_core::health::{AssetKind, capture_health};
        let failed = vec![
            HealthReason {
                kind: AssetKind::Font,
                url: "Brand".into(),
                detail: "font failed to load (FontFace status error)".into(),
            },
            HealthReason { kind: AssetKind::Image, url: "http://x/logo.png".into(), detail: "HTTP 404".into() },
        ];
        // captureHealth exactly as the core writes it into results.json.
        let health = serde_json::to_value(capture_health(failed, &[])).unwrap();
        let snap = json!({"name": "home", "status": "changed", "layers": {"pixel": {"shift": null}, "dom": null},
                          "captureHealth": health});
        assert_eq!(
            guidance(&snap)[0],
            "The capture is unhealthy: font \"Brand\" failed to load (FontFace status error); image http://x/logo.png: \
             HTTP 404. Fix the assets or the test and run again; never approve an unhealthy capture."
        );
        // An older release wrote each reason as a string: shown as written.
        let snap =
            json!({"status": "changed", "captureHealth": {"unhealthy": true, "reasons": ["font Brand: HTTP 404"]}});
        assert_eq!(
            guidance(&snap)[0],
            "The capture is unhealthy: font Brand: HTTP 404. Fix the assets or the test and run again; never approve \
             an unhealthy capture."
        );
    }

    #[test]
    fn explain_adds_guidance_and_rejects_unknown_names() {
        let p = Project { root: PathBuf::from("/r"), report_dir: "visual-report".into() };
        let home = explain(&p, &results(), "home", None).unwrap();
        let guidance = home["guidance"].to_string();
        assert!(guidance.contains("Style-only"), "{guidance}");
        let gone = explain(&p, &results(), "gone", None).unwrap();
        assert_eq!(gone["status"], "missing");
        assert_eq!(
            explain(&p, &results(), "nope", None).unwrap_err(),
            "no snapshot named \"nope\" in the last run; its snapshots are: about, home, fresh"
        );
        assert_eq!(
            explain(&p, &results(), "home", Some("firefox")).unwrap_err(),
            "no snapshot named \"home\" for project \"firefox\" in the last run; its snapshots are: about, home, fresh"
        );
    }
}
