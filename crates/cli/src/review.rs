//! Reviewing a run from the terminal: `approve`, `list`, `explain`, `report`. They read what the
//! run left (`.sightline/temp`, `<reportDir>/results.json`) and never recompute a verdict.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use sightline_core::approve::{Accept, Proof, approve_as};
use sightline_core::layout::{check_snapshot_name, project_file_stem};
use sightline_core::results::{NOTHING_TO_APPROVE, Results};
use sightline_core::snapshot::{SnapshotEvidence, snapshot_label};
use sightline_core::store::{ProjectStore, list_baselines};

use crate::exit;

/// `--root`, shared by every review command.
#[derive(Args)]
pub struct RootArg {
    /// The project root (where `.sightline/` is). Default: the current folder.
    #[arg(long, global = true, default_value = ".")]
    pub root: PathBuf,
}

#[derive(Args)]
pub struct ApproveArgs {
    /// Snapshot names to approve.
    names: Vec<String>,
    /// Approve every changed and new snapshot of the last run, each in the project where it
    /// changed or is new.
    #[arg(long, conflicts_with = "names")]
    all: bool,
    /// Only this Playwright project's capture.
    #[arg(long)]
    project: Option<String>,
    /// Approve unhealthy captures (failed assets) and pages that never settled too; without it
    /// they are listed as held and keep their old baseline.
    #[arg(long)]
    include_unhealthy: bool,
    /// Keep the baseline and accept the capture as another state of the snapshot beside it (at
    /// most 4): a later capture passes when it matches the baseline or any accepted variant.
    #[arg(long)]
    as_variant: bool,
}

#[derive(Args)]
pub struct VariantsArgs {
    /// Only this snapshot's variants (required with --remove).
    name: Option<String>,
    /// Only this Playwright project's.
    #[arg(long)]
    project: Option<String>,
    /// Remove accepted variant NUMBER of the named snapshot.
    #[arg(long, value_name = "NUMBER", requires = "name")]
    remove: Option<u8>,
}

#[derive(Args)]
pub struct PruneArgs {
    /// Delete them; without it, only list them (a dry run).
    #[arg(long)]
    yes: bool,
}

#[derive(Args)]
pub struct ExplainArgs {
    /// The snapshot name.
    name: String,
    /// Print the evidence as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct ReportArgs {
    /// Open the HTML report in the default browser.
    #[arg(long)]
    open: bool,
}

/// `name (project) [status]: verdict` — how every review command names a snapshot.
fn snapshot_line(snapshot: &SnapshotEvidence) -> String {
    format!("{} [{}]: {}", snapshot_label(&snapshot.name, &snapshot.project), snapshot.status, snapshot.verdict)
}

/// One line per group of snapshots sharing a signal, then one per snapshot that needs a person:
/// changed, new, and baselines with no capture; then how to approve the healthy ones.
fn write_attention_lines(out: &mut impl Write, results: &Results) -> std::io::Result<()> {
    // Snapshots that share one signal (one upgrade's engine differences, one page shift) are
    // decided together.
    for group in &results.groups {
        let mut names: Vec<&str> = group.members.iter().map(|m| m.name.as_str()).collect();
        names.dedup();
        writeln!(out, "  group: {} — together: npx sightline approve {}", group.line(), names.join(" "))?;
    }
    for snap in results.snapshots.iter().filter(|s| s.failed()) {
        writeln!(out, "  {}", snapshot_line(snap))?;
    }
    for m in &results.missing_baselines {
        writeln!(out, "  {} [missing]: {}", snapshot_label(&m.name, &m.project), m.verdict())?;
    }
    for hint in results.approve_hints() {
        writeln!(out, "{hint}")?;
    }
    Ok(())
}

/// `reportDir` from `.sightline/config.json` (default `visual-report`).
/// The run's results.json, with a clear error when there is none or it is damaged.
fn read_results(root: &Path) -> Result<(PathBuf, Results)> {
    let report_dir = sightline_core::config::Settings::read(root)?.report_dir;
    let (path, file) = sightline_core::results::read_last_run(root, Path::new(&report_dir))?;
    Ok((path, file.results))
}

pub fn run_approve(root: &Path, args: &ApproveArgs) -> Result<u8> {
    let store = ProjectStore::open(root)?;
    // Each entry: a snapshot name and the project to approve it in (`None`: every project).
    let targets: Vec<(String, Option<String>)> = if args.all {
        // Every changed or new snapshot of the last run, in the project where it is one.
        let (_, results) = read_results(root)?;
        let wanted =
            |p: &str| args.project.as_deref().is_none_or(|asked| project_file_stem(asked) == project_file_stem(p));
        let targets: Vec<(String, Option<String>)> = results
            .to_approve()
            .into_iter()
            .filter(|(_, project)| wanted(project))
            .map(|(name, project)| (name.to_string(), Some(project.to_string())))
            .collect();
        if targets.is_empty() {
            eprintln!("sightline: {NOTHING_TO_APPROVE}");
            return Ok(exit::OK);
        }
        targets
    } else if args.names.is_empty() {
        bail!("name the snapshots to approve (sightline approve home checkout), or pass --all");
    } else {
        args.names.iter().map(|name| (name.clone(), args.project.clone())).collect()
    };
    // Check every name before writing anything.
    for (name, _) in &targets {
        check_snapshot_name(name)?;
    }
    // Snapshots are independent (each baseline is one file replaced by one rename), so they are
    // encoded in parallel; the lines still come out in the order asked for. A failure does not
    // stop the others: every approval that happened is reported, then the first error.
    use rayon::prelude::*;
    let outcomes: Vec<_> = targets
        .par_iter()
        .map(|(name, project)| {
            let accept = if args.as_variant { Accept::Variant } else { Accept::Baseline };
            approve_as(&store, name, Proof::Named { project: project.as_deref() }, args.include_unhealthy, accept)
        })
        .collect();
    let mut stdout = std::io::stdout().lock();
    let mut first_error = None;
    let mut held = 0;
    for outcome in outcomes {
        match outcome {
            Ok(done) => {
                for a in done.approved {
                    writeln!(stdout, "{}", a.line())?;
                }
                for h in done.held {
                    held += 1;
                    writeln!(stdout, "{}", h.line("--include-unhealthy approves it anyway"))?;
                }
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) => Err(e.into()),
        None if held > 0 => Ok(exit::CHANGED),
        None => Ok(exit::OK),
    }
}

pub fn run_list(root: &Path) -> Result<u8> {
    let store = ProjectStore::open(root)?;
    let mut stdout = std::io::stdout().lock();
    let baselines = list_baselines(&store)?;
    if baselines.is_empty() {
        eprintln!("sightline: no baselines in {}", root.join(".sightline").join("baselines").display());
    }
    for (name, project) in baselines {
        writeln!(stdout, "{name}\t{project}")?;
    }
    Ok(exit::OK)
}

/// `sightline variants`: each accepted variant as `name<TAB>project<TAB>number<TAB>file`, or
/// `--remove` one.
pub fn run_variants(root: &Path, args: &VariantsArgs) -> Result<u8> {
    let store = ProjectStore::open(root)?;
    let mut stdout = std::io::stdout().lock();
    if let (Some(name), Some(number)) = (&args.name, args.remove) {
        check_snapshot_name(name)?;
        for file in sightline_core::variants::remove_variant(&store, name, args.project.as_deref(), number)? {
            writeln!(stdout, "removed {file}")?;
        }
        return Ok(exit::OK);
    }
    if let Some(name) = &args.name {
        check_snapshot_name(name)?;
    }
    let wanted = |project: &str| args.project.as_deref().is_none_or(|p| project_file_stem(p) == project);
    let variants: Vec<_> = sightline_core::variants::list_variants(&store, args.name.as_deref())?
        .into_iter()
        .filter(|v| wanted(&v.project))
        .collect();
    if variants.is_empty() {
        eprintln!(
            "sightline: no accepted variants{}; accept one with npx sightline approve <name> --as-variant",
            args.name.as_deref().map(|n| format!(" of {n}")).unwrap_or_default()
        );
    }
    for v in variants {
        writeln!(stdout, "{}\t{}\t{}\t{}", v.name, v.project, v.number, v.file)?;
    }
    Ok(exit::OK)
}

/// `sightline prune`: the last run's unused baselines, each with the test that made it and why it
/// is unused; deleted only with `--yes`.
pub fn run_prune(root: &Path, args: &PruneArgs) -> Result<u8> {
    let store = ProjectStore::open(root)?;
    let report_dir = PathBuf::from(sightline_core::config::Settings::read(root)?.report_dir);
    let (_, file) = sightline_core::results::read_last_run(root, &report_dir)?;
    let path = report_dir.join("results.json");
    let mut results = file.results;
    let unused = sightline_core::prune::prunable(&store, &results)?;
    let mut stdout = std::io::stdout().lock();
    if unused.is_empty() {
        writeln!(
            stdout,
            "No unused baselines: the run of {} captured every baseline whose test ran.",
            results.created_at
        )?;
        return Ok(exit::OK);
    }
    let count = sightline_core::words::plural(unused.len(), "baseline");
    if !args.yes {
        writeln!(stdout, "{count} no test captures any more (the run of {}, {}):", results.created_at, path.display())?;
        for missing in &unused {
            let made_by = missing.test.as_ref().map(|t| format!(", made by {}", t.display())).unwrap_or_default();
            writeln!(
                stdout,
                "  {}  {}{made_by} — {}",
                snapshot_label(&missing.name, &missing.project),
                missing.files.baseline,
                missing.reason
            )?;
        }
        writeln!(stdout, "Dry run: nothing was deleted. To delete them: npx sightline prune --yes")?;
        return Ok(exit::OK);
    }
    let pruned = sightline_core::prune::prune(&store, &report_dir, &mut results, None)?;
    sightline_core::report::write_report(root, &report_dir, &results)?;
    for removed in &pruned.removed {
        writeln!(stdout, "deleted {removed}")?;
    }
    for gone in &pruned.already_gone {
        writeln!(stdout, "already gone: {gone}")?;
    }
    writeln!(
        stdout,
        "{} deleted; {} no longer lists them. Commit the deletion with your change.",
        sightline_core::words::plural(pruned.removed.len(), "baseline"),
        path.display()
    )?;
    Ok(exit::OK)
}

pub fn run_explain(root: &Path, args: &ExplainArgs) -> Result<u8> {
    check_snapshot_name(&args.name)?;
    let (path, results) = read_results(root)?;
    let matches: Vec<&SnapshotEvidence> = results.snapshots.iter().filter(|s| s.name == args.name).collect();
    if matches.is_empty() {
        bail!("{}: no snapshot named {:?}; `sightline list` shows the baselines", path.display(), args.name);
    }
    let mut stdout = std::io::stdout().lock();
    if args.json {
        // As JSON values, so keys come out sorted as in results.json.
        serde_json::to_writer_pretty(&mut stdout, &serde_json::to_value(&matches)?)?;
        writeln!(stdout)?;
    } else {
        for s in &matches {
            writeln!(stdout, "{}", snapshot_line(s))?;
            for line in s.explanation(5, 10) {
                writeln!(stdout, "  {line}")?;
            }
            let files = [("baseline", &s.files.baseline), ("current", &s.files.current), ("diff", &s.files.diff)];
            for (key, file) in files {
                if let Some(file) = file {
                    writeln!(stdout, "  {key}: {file}")?;
                }
            }
            if let Some(environment) = &s.environment {
                writeln!(stdout, "  {}", environment.sides())?;
            }
        }
    }
    let changed = matches.iter().any(|s| s.failed());
    Ok(if changed { exit::CHANGED } else { exit::OK })
}

pub fn run_report(root: &Path, args: &ReportArgs) -> Result<u8> {
    let (path, results) = read_results(root)?;
    let s = &results.summary;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}, {} auto-passed", s.line(), s.auto_passed)?;
    write_attention_lines(&mut stdout, &results)?;
    let html = path.with_file_name("index.html");
    writeln!(stdout, "results: {}", path.display())?;
    if html.is_file() {
        writeln!(stdout, "report: {}", html.display())?;
        if args.open {
            let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
            std::process::Command::new(opener)
                .arg(&html)
                .spawn()
                .with_context(|| format!("starting {opener} to open {}", html.display()))?;
        }
    } else if args.open {
        bail!("{}: no HTML report next to results.json", html.display());
    }
    Ok(exit::for_run(s))
}

#[derive(Args)]
pub struct CompareArgs {
    /// Shard folders (copies of each shard's `.sightline/temp`) to merge in and compare.
    #[arg(long, num_args = 1..)]
    captures: Vec<PathBuf>,
}

/// `sightline compare`: every capture against its baseline, then results.json + report.
pub fn run_compare(root: &Path, args: &CompareArgs) -> Result<u8> {
    use sightline_core::batch::{compare_captures, merge_captures};
    use sightline_core::report::write_report;
    use sightline_core::results::{RunInfo, write_results};
    use std::io::IsTerminal;

    let config = sightline_core::config::Settings::read(root)?;
    let store = ProjectStore::with_layout(root, config.baseline_path.clone());
    if !args.captures.is_empty() {
        let n = merge_captures(&store, &args.captures)?;
        eprintln!("sightline: merged {n} captures from {} folders", args.captures.len());
    }
    // A progress line only for a person watching a terminal; logs stay clean.
    let tty = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if tty {
            eprint!("\rsightline: compared {done}/{total}");
        }
    };
    let total = compare_captures(&store, &config, &progress)?;
    if tty && total > 0 {
        eprintln!();
    }
    if total == 0 {
        bail!(
            "{}: no captures to compare; run the Playwright tests first, or pass --captures <shard folders>",
            root.join(".sightline").join("temp").display()
        );
    }
    let run = RunInfo {
        mode: "compare".into(),
        shard: None,
        root: root.display().to_string(),
        config: config.clone(),
        filtered: false,
    };
    let results = write_results(&store, Path::new(&config.report_dir), &run)?;
    write_report(root, Path::new(&config.report_dir), &results)?;
    let summary = results.summary;
    report_written_run(root, &config, &summary, "")
}

/// After `compare` or `merge` wrote the run: the summary line (`from` says where the snapshots
/// came from), one line per snapshot that needs a look, and the exit code.
fn report_written_run(
    root: &Path,
    config: &sightline_core::config::Settings,
    summary: &sightline_core::results::Summary,
    from: &str,
) -> Result<u8> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{} → {}", summary.line_from(from), Path::new(&config.report_dir).join("index.html").display())?;
    let (_, results) = read_results(root)?;
    write_attention_lines(&mut stdout, &results)?;
    Ok(exit::for_run(summary))
}

#[derive(Args)]
pub struct MergeArgs {
    /// The folders the shards uploaded (each a copy of its `.sightline/temp`).
    #[arg(required = true)]
    folders: Vec<PathBuf>,
}

/// `sightline merge`: one results.json + report from compare-mode shards.
pub fn run_merge(root: &Path, args: &MergeArgs) -> Result<u8> {
    use sightline_core::batch::merge_shards;
    use sightline_core::report::write_report;
    use sightline_core::results::{RunInfo, write_results};

    let config = sightline_core::config::Settings::read(root)?;
    let store = ProjectStore::with_layout(root, config.baseline_path.clone());
    let merged = merge_shards(&store, &args.folders)?;
    if !merged.complete {
        let have: Vec<String> = merged.shards.iter().map(|s| format!("{}/{}", s.current, s.total)).collect();
        eprintln!("sightline: not every shard is here ({}): missing baselines are not reported", have.join(", "));
    }
    let run = RunInfo {
        mode: "compare".into(),
        shard: None,
        root: root.display().to_string(),
        config: config.clone(),
        filtered: !merged.complete,
    };
    let results = write_results(&store, Path::new(&config.report_dir), &run)?;
    write_report(root, Path::new(&config.report_dir), &results)?;
    let summary = results.summary;
    report_written_run(root, &config, &summary, &format!(" from {} shards", merged.shards.len()))
}
