//! Times rendering classification on a stored baseline and capture, for `npm run bench` (group
//! `rendering`): the whole comparison and the classification alone (`dom::rendering_regions`
//! over the comparison's regions), medians in milliseconds, printed as one JSON line.
//!
//! `cargo run --release -p sightline-core --example rendering_cost -- <project root> <snapshot> [runs]`

use std::time::Instant;

use sightline_core::dom::{DomSnapshot, compare_dom, rendering_regions};
use sightline_core::regions::Classification;
use sightline_core::snapshot::{CaptureSide, SnapshotOptions, compare_snapshot};
use sightline_core::store::{ProjectStore, StoredCapture};

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn side<'a>(stored: &'a StoredCapture, dom: &'a DomSnapshot) -> CaptureSide<'a> {
    CaptureSide {
        image: stored.image.view(),
        dom: Some(dom),
        failures: &[],
        environment: stored.data.environment.as_ref(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: rendering_cost <project root> <snapshot> [runs]";
    let (root, name) = (args.next().ok_or(usage)?, args.next().ok_or(usage)?);
    let runs: usize = args.next().map(|r| r.parse()).transpose()?.unwrap_or(3);
    let store = ProjectStore::new(&root);
    let baseline = store.read_baseline(&name, "chromium")?.ok_or("no baseline")?;
    let capture = store.read_capture(&name, "chromium")?;
    let (b, c) =
        (baseline.data.parsed_dom()?.ok_or("no DOM record")?, capture.data.parsed_dom()?.ok_or("no DOM record")?);
    let (mut compare_ms, mut classify_ms) = (Vec::new(), Vec::new());
    let mut counts = (0, 0);
    for _ in 0..=runs {
        let started = Instant::now();
        let (evidence, _) = compare_snapshot(
            &name,
            "chromium",
            Some(side(&baseline, &b)),
            side(&capture, &c),
            &SnapshotOptions::default(),
            true,
        )?;
        compare_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        // The regions as found, before classification labelled them.
        let mut regions = evidence.layers.pixel.map(|p| p.regions).unwrap_or_default();
        for region in regions.iter_mut().filter(|r| r.classification == Classification::Rendering) {
            region.classification = Classification::Change;
        }
        let dom = compare_dom(&b, &c);
        let started = Instant::now();
        let proven = evidence.environment.as_ref().map(|e| e.proven_images([&b, &c])).unwrap_or_default();
        let rendering = rendering_regions(&regions, &b, &c, &dom, &proven);
        classify_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        counts = (regions.len(), rendering.iter().filter(|r| **r).count());
    }
    // The first round warms the page cache and the allocator.
    compare_ms.remove(0);
    classify_ms.remove(0);
    println!(
        "{}",
        serde_json::json!({
            "width": capture.image.width(), "height": capture.image.height(), "elements": c.elements.len(),
            "regions": counts.0, "rendering": counts.1,
            "compareMs": median(compare_ms), "classifyMs": median(classify_ms),
        })
    );
    Ok(())
}
