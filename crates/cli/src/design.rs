//! `sightline compare-designs` and `sightline compare-motion`: a design against its
//! implementation, and two animations by their motion. Parses arguments into the core's
//! options and prints the core's result, for people or as JSON; all scoring is in
//! `sightline_core::design` and `sightline_core::motion`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use serde::Serialize;
use sightline_core::design::{
    ComparisonContext, DesignBox, DesignComparison, DesignMode, DesignOptions, DiagnosticStatus, Dimension,
    DimensionResult, DimensionStatus, Preset, Severity, WeightOverrides, compare_designs,
};
use sightline_core::motion::{
    FrameSequence, MotionComparison, MotionOptions, MotionStatus, compare_motion, write_signature_chart,
};

use crate::exit;

#[derive(Clone, Copy, ValueEnum)]
enum ModeArg {
    /// A tight crop of one component: no alignment.
    Widget,
    /// A whole view: aligned by a global translation first.
    Screen,
}

#[derive(Clone, Copy, ValueEnum)]
enum PresetArg {
    /// layout .35, color .20, content .15, typography .15, spacing .15
    Default,
    /// layout .60, typography .30, color .10
    DarkUi,
}

/// Arguments of `compare-designs`.
#[derive(Args)]
pub struct CompareDesignsArgs {
    /// The reference image (mock-up, old app), PNG or JPEG.
    reference: PathBuf,
    /// The candidate image (the new build), PNG or JPEG.
    candidate: PathBuf,
    /// `widget` (one component, no alignment) or `screen` (a whole view, aligned).
    #[arg(long, value_enum, default_value = "screen")]
    mode: ModeArg,
    /// Weights preset: the weight of every dimension --weights does not name.
    #[arg(long, value_enum, default_value = "default")]
    preset: PresetArg,
    /// Weights for some dimensions, e.g. `color=0.5,spacing=0` (the others keep the preset's;
    /// 0 leaves a dimension out of overall).
    #[arg(long, value_parser = parse_weights)]
    weights: Option<WeightOverrides>,
    /// A region to ignore, `x,y,width,height` in reference pixels; repeatable.
    #[arg(long = "ignore", value_parser = parse_box)]
    ignore: Vec<DesignBox>,
    /// Write overlay.png, heat-map.png, content-regions.png and side-by-side.png here.
    #[arg(long)]
    visuals_dir: Option<PathBuf>,
    /// Declared scope (e.g. a screen id, 1–128 characters), part of comparisonKey; needs
    /// --protocol-key.
    #[arg(long, requires = "protocol_key", value_parser = |s: &str| ComparisonContext::check_scope_id(s).map(|()| s.to_string()))]
    scope_id: Option<String>,
    /// Declared review protocol: the lowercase hex SHA-256 of its text (`sha256sum protocol.md`),
    /// part of comparisonKey; needs --scope-id.
    #[arg(long, requires = "scope_id", value_parser = |s: &str| ComparisonContext::check_protocol_key(s).map(|()| s.to_string()))]
    protocol_key: Option<String>,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Arguments of `compare-motion`.
#[derive(Args)]
pub struct CompareMotionArgs {
    /// The reference frames: a folder of PNGs (sorted by name) or a comma-separated list of files.
    reference: String,
    /// The candidate frames: a folder of PNGs (sorted by name) or a comma-separated list of files.
    candidate: String,
    /// Read at most this many frames per sequence (the first ones), 2..1000.
    #[arg(long, default_value_t = sightline_core::motion::DEFAULT_MAX_FRAMES)]
    max_frames: usize,
    /// Write the signature chart (PNG) here.
    #[arg(long)]
    chart: Option<PathBuf>,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

fn parse_weights(s: &str) -> Result<WeightOverrides, String> {
    let mut w = WeightOverrides::default();
    for part in s.split(',').filter(|p| !p.trim().is_empty()) {
        let (name, value) =
            part.split_once('=').ok_or_else(|| format!("`{part}` is not name=value; e.g. layout=0.5,color=0.5"))?;
        let value: f64 = value.trim().parse().map_err(|_| format!("`{value}` is not a number"))?;
        let slot = match name.trim() {
            "layout" => &mut w.layout,
            "color" => &mut w.color,
            "content" => &mut w.content,
            "typography" => &mut w.typography,
            "spacing" => &mut w.spacing,
            other => {
                let names = Dimension::ALL.map(Dimension::name);
                let hint = sightline_core::config::closest(other, &names)
                    .map_or(String::new(), |name| format!(" (did you mean `{name}`?)"));
                return Err(format!(
                    "unknown dimension `{other}`{hint}; use layout, color, content, typography, spacing"
                ));
            }
        };
        *slot = Some(value);
    }
    // Every default weight is above 0, so this fails only for what fails under any preset.
    w.over(Preset::Default.weights()).map_err(|e| e.to_string())?;
    Ok(w)
}

fn parse_box(s: &str) -> Result<DesignBox, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let numbers: Vec<u32> = parts.iter().filter_map(|p| p.parse().ok()).collect();
    match numbers[..] {
        [x, y, width, height] if parts.len() == 4 && width > 0 && height > 0 => Ok(DesignBox { x, y, width, height }),
        _ => Err(format!("`{s}` is not x,y,width,height with whole numbers (width and height above 0)")),
    }
}

/// The JSON printed by `compare-designs --json`: the core result plus the files written.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DesignOutput<'a> {
    #[serde(flatten)]
    comparison: &'a DesignComparison,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    visual_files: Vec<PathBuf>,
}

/// Runs `compare-designs`: exit 0 with the result printed, an error for bad input.
pub fn run_compare_designs(args: &CompareDesignsArgs) -> Result<u8> {
    let options = DesignOptions {
        mode: match args.mode {
            ModeArg::Widget => DesignMode::Widget,
            ModeArg::Screen => DesignMode::Screen,
        },
        preset: match args.preset {
            PresetArg::Default => Preset::Default,
            PresetArg::DarkUi => Preset::DarkUi,
        },
        weights: args.weights.unwrap_or_default(),
        ignore_regions: args.ignore.clone(),
        comparison_context: match (&args.scope_id, &args.protocol_key) {
            (Some(scope_id), Some(protocol_key)) => {
                Some(ComparisonContext { scope_id: scope_id.clone(), protocol_key: protocol_key.clone() })
            }
            _ => None,
        },
        return_visuals: args.visuals_dir.is_some(),
    };
    let outcome = compare_designs(&args.reference, &args.candidate, &options)?;
    let visual_files = match (&args.visuals_dir, &outcome.visuals) {
        (Some(dir), Some(visuals)) => {
            visuals.write_to(dir).with_context(|| format!("writing the visuals to {}", dir.display()))?
        }
        _ => Vec::new(),
    };
    let mut stdout = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut stdout, &DesignOutput { comparison: &outcome.comparison, visual_files })?;
        writeln!(stdout)?;
    } else {
        let given = args.weights.map(|w| w.named()).unwrap_or_default();
        write!(stdout, "{}", describe_design(&outcome.comparison, &given, &visual_files))?;
    }
    Ok(exit::OK)
}

fn dimension_line(name: &str, d: &DimensionResult) -> String {
    let score = match (d.status, d.score) {
        (DimensionStatus::NotApplicable, _) | (_, None) => "   n/a".to_string(),
        (DimensionStatus::Failed, _) => "failed".to_string(),
        (DimensionStatus::Scored, Some(s)) => format!("{s:6.2}"),
    };
    let detail = d.error.as_deref().unwrap_or(&d.summary);
    format!("  {name:<11}{score}  weight {:.2}  {detail}\n", d.weight)
}

fn describe_design(c: &DesignComparison, given: &[&str], visual_files: &[PathBuf]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let overall = c.overall.map_or("n/a".to_string(), |o| format!("{o:.2}"));
    let preset = match c.preset {
        Preset::Default => "default",
        Preset::DarkUi => "dark-ui",
    };
    let weights = if given.is_empty() {
        format!("preset {preset}")
    } else {
        format!("weights {} given, the rest from preset {preset}", given.join(", "))
    };
    let mode = match c.mode {
        DesignMode::Widget => "widget",
        DesignMode::Screen => "screen",
    };
    let _ = writeln!(s, "overall {overall} / 100 ({mode} mode, {weights})");
    let status = match c.diagnostics.status {
        DiagnosticStatus::Ok => "ok",
        DiagnosticStatus::Review => "review",
        DiagnosticStatus::Inconclusive => "inconclusive",
    };
    match c.diagnostics.reasons.as_slice() {
        [] => {
            let _ = writeln!(s, "diagnostics: {status}");
        }
        reasons => {
            let _ = writeln!(s, "diagnostics: {status}");
            for reason in reasons {
                let _ = writeln!(s, "  {reason}");
            }
        }
    }
    let d = &c.dimensions;
    for (name, result) in [
        ("layout", &d.layout),
        ("color", &d.color),
        ("content", &d.content),
        ("typography", &d.typography),
        ("spacing", &d.spacing),
    ] {
        s.push_str(&dimension_line(name, result));
    }
    let _ = writeln!(s, "alignment: {}", c.alignment.note);
    if c.findings.is_empty() {
        let _ = writeln!(s, "no findings");
    } else {
        let _ = writeln!(s, "findings:");
        for f in &c.findings {
            let dimension = f.dimension.map_or("inputs", |d| d.name());
            let at = f.region.map_or(String::new(), |b| format!(" [at {},{} {}×{}]", b.x, b.y, b.width, b.height));
            let severity = match f.severity {
                Severity::High => "high",
                Severity::Medium => "medium",
                Severity::Low => "low",
            };
            let _ = writeln!(s, "  {severity:<7}{dimension:<11}{}{at}", f.message);
            let _ = writeln!(s, "  {:<18}fix: {}", "", f.suggested_fix);
        }
    }
    for path in visual_files {
        let _ = writeln!(s, "wrote {}", path.display());
    }
    s
}

/// A positional frames argument: one folder, or comma-separated files.
fn frame_sequence(arg: &str) -> Result<FrameSequence> {
    let paths: Vec<PathBuf> = arg.split(',').filter(|p| !p.is_empty()).map(PathBuf::from).collect();
    if paths.is_empty() {
        bail!("`{arg}` names no frames; give a folder of PNGs or a comma-separated list of frame files");
    }
    Ok(FrameSequence::from_paths(&paths))
}

/// The JSON printed by `compare-motion --json`: the core result plus the chart written.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MotionOutput<'a> {
    #[serde(flatten)]
    comparison: &'a MotionComparison,
    #[serde(skip_serializing_if = "Option::is_none")]
    chart_file: Option<PathBuf>,
}

/// Runs `compare-motion`: exit 0 with the result printed, an error for bad input.
pub fn run_compare_motion(args: &CompareMotionArgs) -> Result<u8> {
    let (reference, candidate) = (frame_sequence(&args.reference)?, frame_sequence(&args.candidate)?);
    let result = compare_motion(&reference, &candidate, &MotionOptions { max_frames: args.max_frames })?;
    let chart_file = match &args.chart {
        Some(path) => Some(
            write_signature_chart(&result, path)
                .with_context(|| format!("writing the signature chart to {}", path.display()))?,
        ),
        None => None,
    };
    let mut stdout = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut stdout, &MotionOutput { comparison: &result, chart_file })?;
        writeln!(stdout)?;
    } else {
        let status = match result.motion_status {
            MotionStatus::Compared => "compared",
            MotionStatus::Static => "static",
            MotionStatus::CaptureUnreliable => "capture unreliable",
        };
        let score = result.score.map_or("n/a".to_string(), |s| format!("{s:.2}"));
        writeln!(stdout, "motion {status}, score {score}: {}", result.summary)?;
        for (name, side) in [("reference", &result.reference), ("candidate", &result.candidate)] {
            let cut = if side.frames_available > side.frames {
                format!(" (first {} of {})", side.frames, side.frames_available)
            } else {
                String::new()
            };
            writeln!(
                stdout,
                "  {name:<10} {} frames{cut} {}×{}, energy {:.6}, {}",
                side.frames,
                side.width,
                side.height,
                side.energy,
                if side.moves { "moves" } else { "still" }
            )?;
        }
        let correlation = result.frame_index_correlation.map_or(String::new(), |r| format!("{r:.4}: "));
        writeln!(stdout, "  frame-index correlation {correlation}{}", result.correlation_note)?;
        if let Some(path) = chart_file {
            writeln!(stdout, "wrote {}", path.display())?;
        }
    }
    Ok(exit::OK)
}

/// Arguments of `extract-frames`.
#[derive(Args)]
pub struct ExtractFramesArgs {
    /// A local recording: .mp4, .mov or .webm (e.g. a Playwright test's video), checked by its
    /// bytes; scripts, playlists and URLs are refused. The whole call must end within
    /// SIGHTLINE_VIDEO_TIMEOUT_MS (default 120000 ms).
    video: PathBuf,
    /// Start of the window, ms from the recording's first frame.
    #[arg(long, default_value_t = 0)]
    start_ms: u64,
    /// Length of the window, 1–20000 ms.
    #[arg(long)]
    duration_ms: u64,
    /// Samples per second, 1–30 (at most 120 samples); each takes the first frame at or after
    /// its time.
    #[arg(long, default_value_t = sightline_core::video::DEFAULT_FPS)]
    fps: u32,
    /// Folder under which a new frames folder is made. Default `<root>/.sightline/frames`.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print the manifest as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `extract-frames`: samples the window into a new read-only folder and prints the manifest.
pub fn run_extract_frames(root: &std::path::Path, args: &ExtractFramesArgs) -> Result<u8> {
    use sightline_core::video::{CancelFlag, ExtractOptions, FrameStatus, Sampling, extract_video_frames};
    let out = args.out.clone().unwrap_or_else(|| root.join(".sightline").join("frames"));
    let options = ExtractOptions { start_ms: args.start_ms, duration_ms: args.duration_ms, fps: args.fps };
    // Nothing cancels a CLI run but its deadline (SIGHTLINE_VIDEO_TIMEOUT_MS) or Ctrl-C.
    let manifest = extract_video_frames(&args.video, &out, &options, &CancelFlag::default())?;
    let mut stdout = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut stdout, &manifest)?;
        writeln!(stdout)?;
        return Ok(exit::OK);
    }
    let count = |status| manifest.frames.iter().filter(|f| f.status == status).count();
    let sampling = match manifest.sampling {
        Sampling::Complete => "complete",
        Sampling::Sparse => "sparse",
        Sampling::Incomplete => "incomplete",
    };
    writeln!(
        stdout,
        "{} frames from {} ({} {}×{}, {:.0} ms): {} selected, {} shared, {} unavailable; sampling {sampling}",
        manifest.files.len(),
        manifest.source.path,
        manifest.source.codec,
        manifest.source.width,
        manifest.source.height,
        manifest.source.duration_ms,
        count(FrameStatus::Selected),
        count(FrameStatus::Shared),
        count(FrameStatus::Unavailable)
    )?;
    writeln!(stdout, "{}", manifest.manifest_path)?;
    Ok(exit::OK)
}
