//! The text the MCP tools answer with, built from what the run left on disk (`results.json`,
//! `.sightline/temp`). Pure functions of the project folder, so they are tested without a client.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use sightline_core::config::Settings;
use sightline_core::grouping::{WIDE_RESTYLES_LABEL, wide_restyles};
use sightline_core::guidance::{guidance, missing_guidance};
use sightline_core::results::MissingFiles;
use sightline_core::snapshot::{SnapshotEvidence, SnapshotFiles, snapshot_label};
use sightline_core::store::ProjectStore;
use sightline_core::verdict::Status;

/// The approval rule every summary ends with.
pub const APPROVAL_RULE: &str = "Approve only after a human confirms: call approve_snapshot (name, optional project) or \
approve_all only when the user has said to accept these changes; never approve on your own judgement.";

/// Where a project's run output lives.
pub struct Project {
    /// Absolute project root (where `.sightline/` is).
    pub root: PathBuf,
}

/// What reading `results.json` gave.
pub enum Results {
    /// The checked file and its raw text.
    Found { results: Box<sightline_core::results::Results>, raw: String },
    /// No file: the explanation of why (the spec's "When there is no results.json").
    Absent(String),
    /// A file that cannot be used: what is wrong and what to do.
    Broken(String),
}

impl Project {
    /// `.sightline/config.json`, read on every call, so a fixed file applies without restarting
    /// the server; the error names the file, the key and the fix.
    pub fn config(&self) -> Result<Settings, String> {
        Settings::read(&self.root).map_err(|e| {
            format!("{e}. The MCP server keeps running: the tools that read the project answer once the file is fixed.")
        })
    }

    /// `reportDir` from the config, as written (relative to the root unless absolute); the
    /// default when the config cannot be read (every reader of results checks it first).
    fn report_dir(&self) -> String {
        self.config().map(|c| c.report_dir).unwrap_or_else(|_| Settings::default().report_dir)
    }

    pub fn report_path(&self) -> PathBuf {
        self.root.join(self.report_dir())
    }

    pub fn results_path(&self) -> PathBuf {
        sightline_core::results::results_path(&self.root, Path::new(&self.report_dir()))
    }

    /// `results.json` relative to the root, as people write it.
    fn results_rel(&self) -> String {
        Path::new(&self.report_dir()).join("results.json").display().to_string()
    }

    pub fn read_results(&self) -> Results {
        if let Err(why) = self.config() {
            return Results::Broken(why);
        }
        let path = self.results_path();
        match sightline_core::results::read_results(&path) {
            Ok(file) => Results::Found { results: Box::new(file.results), raw: file.raw },
            Err(sightline_core::Error::Io { error, .. }) if error.kind() == std::io::ErrorKind::NotFound => {
                Results::Absent(self.why_no_results())
            }
            Err(e) => Results::Broken(e.to_string()),
        }
    }

    /// Why there is no results.json: a capture-only shard, a comparing shard, captures not yet
    /// compared, or nothing at all.
    pub fn why_no_results(&self) -> String {
        sightline_core::results::why_no_results(&ProjectStore::new(&self.root), &self.results_rel())
    }

    fn abs(&self, rel: &str) -> String {
        self.root.join(rel).display().to_string()
    }
}

/// `get_visual_results`: the counts, groups, one verdict line per snapshot that needs a look
/// (changed and new first; passed ones as a count unless `include_passed`), one line for missing
/// baselines, the files to open, and the approval rule.
pub fn summary(project: &Project, results: &sightline_core::results::Results, include_passed: bool) -> String {
    let mut out = Vec::new();
    // The snapshots of this run add up to the total; missing baselines are not among them.
    out.push(format!("Sightline results ({}): {}", results.created_at, results.summary.attention_line()));
    let snapshots = &results.snapshots;
    out.extend(results.scope_note());
    let wide = wide_restyles(snapshots, &results.groups);
    if !results.groups.is_empty() || !wide.is_empty() {
        out.push(String::new());
        out.push("Groups (snapshots sharing one signal; each still has its own line below):".into());
        out.extend(results.groups.iter().map(|g| format!("- {}", g.line())));
        if !wide.is_empty() {
            let members: Vec<String> = wide
                .iter()
                .map(|w| format!("{}: {} elements", snapshot_label(&w.member.name, &w.member.project), w.count))
                .collect();
            out.push(format!("- {WIDE_RESTYLES_LABEL}: {}", members.join("; ")));
        }
    }
    out.push(String::new());
    out.push("Snapshots:".into());
    // A passed snapshot is listed only when asked for, or when its capture is unhealthy (its line
    // names the asset that failed on both sides).
    let listed = |s: &&sightline_core::snapshot::SnapshotEvidence| {
        include_passed || s.status != Status::Passed || s.capture_health.unhealthy
    };
    let pending = |s: &&sightline_core::snapshot::SnapshotEvidence| s.failed();
    let ordered = snapshots.iter().filter(pending).chain(snapshots.iter().filter(|s| !pending(s) && listed(s)));
    for snap in ordered {
        let unhealthy =
            if snap.capture_health.unhealthy { " [unhealthy capture: fix the page, do not approve]" } else { "" };
        // The verdict of a capture rendered elsewhere reads with that in mind (explain_snapshot
        // says how); a verdict that names the environments already needs no mark.
        let elsewhere =
            snap.unsaid_environment().map(|brief| format!(" [rendered elsewhere: {brief}]")).unwrap_or_default();
        out.push(format!(
            "- {} [{}]: {}{unhealthy}{elsewhere}",
            snapshot_label(&snap.name, &snap.project),
            snap.status,
            snap.verdict
        ));
    }
    let unlisted = snapshots.iter().filter(|s| !listed(s)).count();
    if unlisted > 0 {
        out.push(format!(
            "- {unlisted} passed {} not listed (includePassed: true lists them)",
            if unlisted == 1 { "snapshot" } else { "snapshots" }
        ));
    }
    if snapshots.is_empty() {
        out.push("- (none in this run)".into());
    }
    let missing: Vec<String> = results.missing_baselines.iter().map(|m| snapshot_label(&m.name, &m.project)).collect();
    if !missing.is_empty() {
        let store = sightline_core::store::ProjectStore::new(&project.root);
        let prune = sightline_core::prune::prune_hint(&store, results).unwrap_or_default();
        out.push(format!(
            "- missing baselines, committed but not captured in this run: {}. Nothing to approve. {prune} No tool here \
             deletes a baseline: a person decides.",
            missing.join(", ")
        ));
    }
    out.push(String::new());
    out.push("Open:".into());
    let html = project.report_path().join("index.html");
    out.push(format!("- HTML report: {}", html.display()));
    for snap in snapshots {
        let (file, what) = match snap.status {
            Status::Changed => (&snap.files.diff, "diff"),
            Status::New => (&snap.files.current, "current (new)"),
            _ => continue,
        };
        if let Some(file) = file {
            out.push(format!("- {} {what}: {}", snapshot_label(&snap.name, &snap.project), project.abs(file)));
        }
    }
    out.push(String::new());
    out.push(APPROVAL_RULE.into());
    out.join("\n")
}

/// `explain_snapshot`: the evidence of `name` (every project, or only `project`) as JSON with
/// absolute paths and `guidance`; `Err` with a message when the run has no such snapshot.
pub fn explain(
    project: &Project,
    results: &sightline_core::results::Results,
    name: &str,
    project_name: Option<&str>,
) -> Result<Value, String> {
    let wanted = |n: &str, p: &str| n == name && project_name.is_none_or(|want| p == want);
    let to_value = |explained: Explained<'_>| serde_json::to_value(explained).map_err(|e| e.to_string());
    let mut out: Vec<Value> = Vec::new();
    for snap in results.snapshots.iter().filter(|s| wanted(&s.name, &s.project)) {
        let about = About::Snapshot(snap);
        out.push(to_value(Explained { about, paths: absolute_files(project, &snap.files), guidance: guidance(snap) })?);
    }
    for m in results.missing_baselines.iter().filter(|m| wanted(&m.name, &m.project)) {
        let files = SnapshotFiles { baseline: Some(m.files.baseline.clone()), ..SnapshotFiles::default() };
        let about = About::Missing { name: &m.name, project: &m.project, status: Status::Missing, files: &m.files };
        out.push(to_value(Explained { about, paths: absolute_files(project, &files), guidance: missing_guidance(m) })?);
    }
    match out.len() {
        0 => Err(not_in_run(results, name, project_name)),
        1 => Ok(out.remove(0)),
        _ => Ok(Value::Array(out)),
    }
}

/// Why `name` (in `project_name`, when given) is not in the run, and what is: the projects the
/// name was captured in when only the project is wrong, else every name the tools take (each
/// once, however many projects) and the missing baselines, which they take too.
pub fn not_in_run(results: &sightline_core::results::Results, name: &str, project_name: Option<&str>) -> String {
    let projects = each_once(
        results
            .snapshots
            .iter()
            .filter(|s| s.name == name)
            .map(|s| s.project.as_str())
            .chain(results.missing_baselines.iter().filter(|m| m.name == name).map(|m| m.project.as_str())),
    );
    if let Some(wanted) = project_name
        && !projects.is_empty()
    {
        let which = match projects.as_slice() {
            [one] => format!("project {one}; give that project"),
            more => format!("projects {}; give one of them", more.join(", ")),
        };
        return format!(
            "no snapshot named {name:?} for project {wanted:?} in the last run; {name:?} is in {which}, or leave project out"
        );
    }
    let names = each_once(results.snapshots.iter().map(|s| s.name.as_str()));
    let missing = each_once(results.missing_baselines.iter().map(|m| m.name.as_str()));
    let mut text = format!(
        "no snapshot named {name:?}{} in the last run; its snapshots are: {}",
        project_name.map(|p| format!(" for project {p:?}")).unwrap_or_default(),
        if names.is_empty() { "(none)".to_string() } else { names.join(", ") }
    );
    if !missing.is_empty() {
        text.push_str(&format!("; its missing baselines: {}", missing.join(", ")));
    }
    text
}

/// `names` in their order, each once.
fn each_once<'a>(names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = Vec::new();
    for name in names {
        if !seen.contains(&name) {
            seen.push(name);
        }
    }
    seen
}

/// `explain_snapshot`'s answer for one snapshot: its evidence (or what a missing baseline has),
/// the files as absolute paths, and what to do.
#[derive(Serialize)]
struct Explained<'a> {
    #[serde(flatten)]
    about: About<'a>,
    paths: AbsoluteFiles,
    guidance: Vec<String>,
}

/// What `explain_snapshot` explains: a snapshot of the run, or a committed baseline it missed.
#[derive(Serialize)]
#[serde(untagged)]
enum About<'a> {
    Snapshot(&'a SnapshotEvidence),
    Missing { name: &'a str, project: &'a str, status: Status, files: &'a MissingFiles },
}

/// A snapshot's files that exist, as absolute paths.
#[derive(Serialize)]
struct AbsoluteFiles {
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    current: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
}

fn absolute_files(project: &Project, files: &SnapshotFiles) -> AbsoluteFiles {
    let abs = |file: &Option<String>| file.as_deref().map(|f| project.abs(f));
    AbsoluteFiles { baseline: abs(&files.baseline), current: abs(&files.current), diff: abs(&files.diff) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn temp_root(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sightline-mcp-view-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn project(root: &Path) -> Project {
        Project { root: root.to_path_buf() }
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

    /// The bundled example's results (about passed; catalogue and home changed) with a new
    /// snapshot and a missing baseline added.
    fn results() -> sightline_core::results::Results {
        let mut value: Value =
            serde_json::from_str(include_str!("../../../../tests/golden/example-results.json")).unwrap();
        value["createdAt"] = json!("t");
        let mut fresh = value["snapshots"][0].clone();
        fresh["name"] = json!("fresh");
        fresh["status"] = json!("new");
        fresh["verdict"] = json!("New");
        fresh["files"] =
            json!({"baseline": null, "current": "visual-report/images/fresh/chromium-current.png", "diff": null});
        value["snapshots"].as_array_mut().unwrap().push(fresh);
        value["missingBaselines"] = json!([{"name": "gone", "project": "chromium", "files": {"baseline": ".sightline/baselines/gone/chromium.png"}}]);
        value["summary"] =
            json!({"total": 4, "passed": 1, "changed": 2, "new": 1, "missing": 1, "autoPassed": 0, "written": 0});
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn summary_puts_changes_first_and_ends_with_the_rule() {
        let p = Project { root: PathBuf::from("/r") };
        let r = results();
        let (catalogue, home) = (&r.snapshots[1].verdict, &r.snapshots[2].verdict);
        // The whole answer: counts, changed and new before passed, the missing baseline, absolute
        // paths to open, and the approval rule last.
        let expected = format!(
            "Sightline results (t): 4 snapshots — 2 changed, 1 new, 1 passed (0 auto-passed); 1 missing baseline.

Groups (snapshots sharing one signal; each still has its own line below):
- {WIDE_RESTYLES_LABEL}: home (chromium): 13 elements

Snapshots:
- catalogue (chromium) [changed]: {catalogue}
- home (chromium) [changed]: {home}
- fresh (chromium) [new]: New
- 1 passed snapshot not listed (includePassed: true lists them)
- missing baselines, committed but not captured in this run: gone (chromium). Nothing to approve. Whether they are unused cannot be told from this run: there is no record of which tests the last run ran (.sightline/temp/run.json; the sightline reporter writes it): run the whole suite (npx playwright test), then prune. No tool here deletes a baseline: a person decides.

Open:
- HTML report: /r/visual-report/index.html
- catalogue (chromium) diff: /r/visual-report/images/catalogue/chromium-diff.png
- home (chromium) diff: /r/visual-report/images/home/chromium-diff.png
- fresh (chromium) current (new): /r/visual-report/images/fresh/chromium-current.png

{APPROVAL_RULE}"
        );
        assert_eq!(summary(&p, &r, false), expected);
        // Asked for, the passed ones have their lines after the rest.
        let all = summary(&p, &r, true);
        assert!(
            all.contains(
                "- fresh (chromium) [new]: New\n- about (chromium) [passed]: Passed: no pixel differs\n- missing"
            ),
            "{all}"
        );
        // A run without named projects prints no empty brackets.
        let mut unnamed = results();
        for snap in &mut unnamed.snapshots {
            snap.project.clear();
        }
        let text = summary(&p, &unnamed, false);
        assert!(text.contains("\n- fresh [new]: New\n") && !text.contains("()"), "{text}");
        // A shard's own partial results say so on the second line.
        let mut partial = results();
        partial.run.shard = Some(sightline_core::results::ShardPosition { current: 1, total: 2 });
        let text = summary(&p, &partial, false);
        assert_eq!(
            text.lines().nth(1),
            Some(
                "Partial results: shard 1/2 compared only its slice (4 snapshots). The job that merges every shard \
                 (npx sightline merge) produces the full report; only it can tell missing baselines."
            )
        );
    }

    #[test]
    fn explain_adds_guidance_and_rejects_unknown_names() {
        let p = Project { root: PathBuf::from("/r") };
        let home = explain(&p, &results(), "home", None).unwrap();
        assert_eq!(home["guidance"], json!(guidance(&results().snapshots[2])));
        assert_eq!(home["paths"]["diff"], "/r/visual-report/images/home/chromium-diff.png");
        let gone = explain(&p, &results(), "gone", None).unwrap();
        assert_eq!(gone["status"], "missing");
        assert_eq!(gone["paths"], json!({"baseline": "/r/.sightline/baselines/gone/chromium.png"}));
        // The names it takes, missing baselines included (explain_snapshot explains them too).
        assert_eq!(
            explain(&p, &results(), "nope", None).unwrap_err(),
            "no snapshot named \"nope\" in the last run; its snapshots are: about, catalogue, home, fresh; its missing baselines: gone"
        );
        // A name the run has under another project: that project, not a list that holds the name.
        assert_eq!(
            explain(&p, &results(), "home", Some("firefox")).unwrap_err(),
            "no snapshot named \"home\" for project \"firefox\" in the last run; \"home\" is in project chromium; give that project, or leave project out"
        );
        assert_eq!(
            explain(&p, &results(), "gone", Some("webkit")).unwrap_err(),
            "no snapshot named \"gone\" for project \"webkit\" in the last run; \"gone\" is in project chromium; give that project, or leave project out"
        );
        assert!(explain(&p, &results(), "nope", Some("firefox")).unwrap_err().starts_with(
            "no snapshot named \"nope\" for project \"firefox\" in the last run; its snapshots are: about,"
        ));
        // Each name once, however many projects captured it.
        let mut two = results();
        let mut copy = two.snapshots[0].clone();
        copy.project = "firefox".into();
        two.snapshots.push(copy);
        assert_eq!(
            explain(&p, &two, "about", Some("webkit")).unwrap_err(),
            "no snapshot named \"about\" for project \"webkit\" in the last run; \"about\" is in projects chromium, firefox; give one of them, or leave project out"
        );
        assert_eq!(
            explain(&p, &two, "nope", None).unwrap_err(),
            "no snapshot named \"nope\" in the last run; its snapshots are: about, catalogue, home, fresh; its missing baselines: gone"
        );
    }
}
