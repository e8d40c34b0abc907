//! Accepted variants: a snapshot with more than one legitimate state (an A/B test, a banner
//! shown on some days, a font that loads on one machine and falls back on another) keeps each
//! extra state a person approved beside its baseline, in the baseline's own format:
//!
//! ```text
//! .sightline/baselines/<name>/<project>.png             the baseline
//! .sightline/baselines/<name>/<project>.variant-<n>.png accepted variant n (1 ≤ n ≤ 4)
//! ```
//!
//! A capture is compared with the baseline first, so a page that did not change costs nothing
//! more; only when that comparison finds a change is it compared with each variant, and it
//! passes when one matches. When none does, the evidence is that of the closest accepted state
//! (the fewest differing pixels) and names it. Every compare path (the matcher, `sightline
//! compare`, a merge) comes here, so they all decide alike.

use serde::Serialize;

use crate::compare::DiffImage;
use crate::damaged::{DamagedFile, DamagedSide};
use crate::error::{Error, Result};
use crate::image::RgbaImage;
use crate::snapshot::{
    AcceptedState, CaptureSide, SnapshotEvidence, SnapshotOptions, compare_snapshot, snapshot_label,
};
use crate::store::{ProjectStore, StoredCapture, read_inside};
use crate::verdict::Status;

/// Most accepted variants a snapshot keeps beside its baseline: each one is another full
/// comparison for a capture that does not match the baseline.
pub const MAX_VARIANTS: u8 = 4;

/// The numbers of the accepted variants of `name` for `project` (a file stem), ascending.
pub fn accepted_variants(store: &ProjectStore, name: &str, project: &str) -> Result<Vec<u8>> {
    let mut numbers = Vec::new();
    for number in 1..=MAX_VARIANTS {
        if store.variant_png(name, project, number)?.symlink_metadata().is_ok() {
            numbers.push(number);
        }
    }
    Ok(numbers)
}

/// One accepted variant on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Variant {
    pub name: String,
    /// The project's file stem.
    pub project: String,
    pub number: u8,
    /// The file, relative to the project root.
    pub file: String,
}

/// Every accepted variant of the project's baselines (of `name` only, when given), sorted by
/// name, project and number. A variant whose baseline is gone is not listed: no comparison uses
/// it, and the snapshot's next approval starts its states anew.
pub fn list_variants(store: &ProjectStore, name: Option<&str>) -> Result<Vec<Variant>> {
    let mut variants = Vec::new();
    for baseline in store.baselines()?.into_iter().filter(|b| name.is_none_or(|n| n == b.name)) {
        for number in accepted_variants(store, &baseline.name, &baseline.stem)? {
            let file = store.relative(&store.variant_png(&baseline.name, &baseline.stem, number)?);
            variants.push(Variant { name: baseline.name.clone(), project: baseline.stem.clone(), number, file });
        }
    }
    Ok(variants)
}

/// The number `capture` takes as a new accepted variant of `name` for `project`: the lowest free
/// one. Refused as [`free_variant`] refuses, and when the capture is one of the snapshot's
/// variants already (an approval asked twice).
pub fn place_for_variant(store: &ProjectStore, name: &str, project: &str, capture: &RgbaImage) -> Result<u8> {
    let number = free_variant(store, name, project)?;
    for taken in accepted_variants(store, name, project)? {
        let same = store.read_accepted(name, project, Some(taken)).ok().flatten().is_some_and(|variant| {
            variant.image.width() == capture.width()
                && variant.image.height() == capture.height()
                && variant.image.as_bytes() == capture.as_bytes()
        });
        if same {
            return Err(Error::InvalidInput(format!(
                "{} is accepted variant {taken} already: this capture's pixels are that variant's; nothing was written",
                snapshot_label(name, project)
            )));
        }
    }
    Ok(number)
}

/// The number a new accepted variant of `name` for `project` takes: the lowest free one. Refused
/// when the snapshot has no baseline, when it has [`MAX_VARIANTS`] already, and when this run's
/// capture passed (it is an accepted state already).
pub fn free_variant(store: &ProjectStore, name: &str, project: &str) -> Result<u8> {
    let label = snapshot_label(name, project);
    if store.baseline_png(name, project)?.symlink_metadata().is_err() {
        return Err(Error::InvalidInput(format!(
            "{label} has no baseline yet, so it cannot have an accepted variant: approve the capture as its baseline first (npx sightline approve {name}); nothing was written"
        )));
    }
    if let Some(evidence) = store.read_evidence(name, project)?
        && evidence.status == Status::Passed
    {
        return Err(Error::InvalidInput(format!(
            "{label} passed in the last run ({}): it is an accepted state already; nothing was written",
            evidence.verdict
        )));
    }
    let taken = accepted_variants(store, name, project)?;
    (1..=MAX_VARIANTS).find(|n| !taken.contains(n)).ok_or_else(|| {
        Error::InvalidInput(format!(
            "{label} has {MAX_VARIANTS} accepted variants already, the limit: remove one first (npx sightline variants {name} --remove <number>); nothing was written"
        ))
    })
}

/// Removes accepted variant `number` of `name`, of `project` (a Playwright project or its file
/// stem) or of every project that has it. Returns the files removed, relative to the root; a
/// variant that is not there is an error naming the ones that are, and nothing is removed.
pub fn remove_variant(store: &ProjectStore, name: &str, project: Option<&str>, number: u8) -> Result<Vec<String>> {
    let stem = project.map(crate::layout::project_file_stem);
    let of_name = list_variants(store, Some(name))?;
    let of_project: Vec<&Variant> = of_name.iter().filter(|v| stem.as_deref().is_none_or(|s| s == v.project)).collect();
    let chosen: Vec<&Variant> = of_project.iter().copied().filter(|v| v.number == number).collect();
    if chosen.is_empty() {
        let label = snapshot_label(name, project.unwrap_or(""));
        let there = if of_project.is_empty() {
            "it has none".to_string()
        } else {
            let listed: Vec<String> = of_project.iter().map(|v| format!("{} ({})", v.number, v.project)).collect();
            format!("its accepted variants are {}", listed.join(", "))
        };
        return Err(Error::InvalidInput(format!(
            "{label} has no accepted variant {number}: {there} (npx sightline variants {name}); nothing was removed"
        )));
    }
    let mut removed = Vec::new();
    for variant in chosen {
        store.remove(&store.variant_png(name, &variant.project, number)?)?;
        removed.push(variant.file.clone());
    }
    Ok(removed)
}

/// Removes every accepted variant of `name` for `project`, its baseline being removed (a
/// pruned snapshot). Returns the files removed, relative to the root.
pub(crate) fn remove_all_variants(store: &ProjectStore, name: &str, project: &str) -> Result<Vec<String>> {
    let mut removed = Vec::new();
    for number in accepted_variants(store, name, project)? {
        let path = store.variant_png(name, project, number)?;
        store.remove(&path)?;
        removed.push(store.relative(&path));
    }
    Ok(removed)
}

/// The comparison of a capture with the accepted states of its snapshot, given its comparison
/// with the baseline (`against_baseline`, evidence and diff image): unchanged unless that found a
/// change and the snapshot has accepted variants. Then the capture is compared with each variant:
/// the first that matches gives the (passing) evidence; when none does, the closest state's
/// evidence and diff image stand. Either way [`SnapshotEvidence::accepted`] names the state.
pub fn compare_accepted_states<'a>(
    store: &ProjectStore,
    name: &str,
    project: &str,
    against_baseline: (SnapshotEvidence, Option<DiffImage<'a>>),
    current: CaptureSide<'a>,
    options: &SnapshotOptions,
) -> Result<(SnapshotEvidence, Option<DiffImage<'a>>)> {
    let (evidence, diff) = against_baseline;
    if evidence.status != Status::Changed || evidence.damaged.is_some() {
        return Ok((evidence, diff));
    }
    let numbers = accepted_variants(store, name, project)?;
    if numbers.is_empty() {
        return Ok((evidence, diff));
    }
    let states = 1 + numbers.len() as u8;
    let mut unreadable = Vec::new();
    let mut closest = (evidence, diff, None);
    for number in numbers {
        let (dom, variant) = match read_variant(store, name, project, number) {
            Ok(read) => read,
            Err(damaged) => {
                unreadable.push(damaged);
                continue;
            }
        };
        let side = CaptureSide {
            image: variant.image.view(),
            dom: dom.as_ref(),
            failures: &variant.data.failures,
            environment: variant.data.environment.as_ref(),
        };
        let (evidence, diff) = compare_snapshot(name, project, Some(side), current, options, true)?;
        if evidence.status == Status::Passed {
            closest = (evidence, None, Some(number));
            break;
        }
        if differing_pixels(&evidence) < differing_pixels(&closest.0) {
            // The variant's pixels are gone after this turn: its diff image is kept encoded.
            let diff = diff.map(|diff| diff.into_owned(&options.compare.pixel)).transpose()?;
            closest = (evidence, diff, Some(number));
        }
    }
    let (mut evidence, diff, variant) = closest;
    let matched = evidence.status == Status::Passed;
    evidence.accepted = Some(AcceptedState { variant, matched, states, unreadable });
    evidence.add_accepted_clause();
    Ok((evidence, diff))
}

/// Pixels that differ from the accepted state the evidence is against: how close it is.
fn differing_pixels(evidence: &SnapshotEvidence) -> u64 {
    evidence.layers.pixel.as_ref().map_or(u64::MAX, |pixel| pixel.diff_pixels)
}

/// Accepted variant `number`, its DOM record parsed; a variant that cannot be read (or is gone
/// since it was listed) is named as damaged, with the fix for a variant.
fn read_variant(
    store: &ProjectStore,
    name: &str,
    project: &str,
    number: u8,
) -> std::result::Result<(Option<crate::dom::DomSnapshot>, StoredCapture), DamagedFile> {
    let path = store.variant_png(name, project, number).map_err(|e| damaged(String::new(), name, number, &e))?;
    let file = store.relative(&path);
    let read = read_inside(store.root(), &path)
        .and_then(|bytes| bytes.ok_or_else(|| Error::io(&path, std::io::ErrorKind::NotFound.into())))
        .and_then(|bytes| StoredCapture::from_baseline_png(&bytes, &path))
        .and_then(|variant| Ok((variant.data.parsed_dom()?, variant)));
    read.map_err(|e| damaged(file, name, number, &e))
}

fn damaged(file: String, name: &str, number: u8, error: &Error) -> DamagedFile {
    let fix = format!(
        "restore it with `git checkout -- {file}`, or remove it (npx sightline variants {name} --remove {number})"
    );
    DamagedFile { side: DamagedSide::Baseline, file, problem: crate::damaged::problem(error), fix }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::CaptureData;

    fn image(value: u8) -> RgbaImage {
        RgbaImage::filled(8, 8, [value, value, value, 255]).unwrap()
    }

    fn side(image: &RgbaImage) -> CaptureSide<'_> {
        CaptureSide { image: image.view(), dom: None, failures: &[], environment: None }
    }

    /// `current` compared with the baseline, then with the accepted states of `home`.
    fn compare(store: &ProjectStore, current: &RgbaImage) -> SnapshotEvidence {
        let options = SnapshotOptions::default();
        let baseline = store.read_baseline("home", "chromium").unwrap().unwrap();
        let against = compare_snapshot("home", "chromium", Some(side(&baseline.image)), side(current), &options, true);
        compare_accepted_states(store, "home", "chromium", against.unwrap(), side(current), &options).unwrap().0
    }

    #[test]
    fn a_capture_passes_on_any_accepted_state_and_fails_against_the_closest() {
        let root = std::env::temp_dir().join(format!("sightline-variants-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = ProjectStore::new(&root);
        let data = CaptureData { device_scale_factor: 1.0, ..Default::default() };
        store.write_baseline("home", "chromium", &image(0), &data).unwrap();
        // No variants: the baseline's evidence as it is.
        let plain = compare(&store, &image(200));
        assert_eq!((plain.status, plain.accepted.is_none()), (Status::Changed, true));
        store.write_accepted("home", "chromium", Some(2), &image(200), &data).unwrap();
        let mut half = image(200);
        half.as_bytes_mut()[..4 * 8 * 4].iter_mut().for_each(|b| *b = 100);
        half.as_bytes_mut().chunks_mut(4).for_each(|p| p[3] = 255);
        store.write_accepted("home", "chromium", Some(1), &half, &data).unwrap();
        assert_eq!(accepted_variants(&store, "home", "chromium").unwrap(), vec![1, 2]);
        // The baseline and variant 2 pass; the baseline costs no variant read.
        assert_eq!(compare(&store, &image(0)).accepted, None);
        let on_variant = compare(&store, &image(200));
        assert_eq!(on_variant.status, Status::Passed);
        let accepted = on_variant.accepted.clone().unwrap();
        assert_eq!((accepted.variant, accepted.matched, accepted.states), (Some(2), true, 3));
        assert!(on_variant.verdict.ends_with(" — matches accepted variant 2"), "{}", on_variant.verdict);
        // A third state: against the closest, variant 1 (half of its pixels differ, not all).
        let mut third = half.clone();
        third.as_bytes_mut()[..4].copy_from_slice(&[30, 30, 30, 255]);
        let against = compare(&store, &third);
        assert_eq!(against.status, Status::Changed);
        assert_eq!(against.layers.pixel.as_ref().unwrap().diff_pixels, 1);
        assert_eq!(against.accepted.as_ref().unwrap().variant, Some(1));
        assert!(against.verdict.ends_with(" — compared with accepted variant 1, the closest of 3 accepted states"));
        // A damaged variant is left out and named with its fix; the others still decide.
        std::fs::write(store.variant_png("home", "chromium", 1).unwrap(), b"not a png").unwrap();
        let damaged = compare(&store, &third);
        let accepted = damaged.accepted.unwrap();
        // Against variant 2 now: the 32 pixels of its other half differ, the baseline's 64.
        assert_eq!((accepted.variant, accepted.unreadable.len()), (Some(2), 1));
        assert_eq!(damaged.layers.pixel.as_ref().unwrap().diff_pixels, 32);
        assert_eq!(accepted.unreadable[0].file, ".sightline/baselines/home/chromium.variant-1.png");
        assert!(damaged.verdict.contains("; .sightline/baselines/home/chromium.variant-1.png could not be read ("));
        assert!(
            damaged.verdict.ends_with("or remove it (npx sightline variants home --remove 1)"),
            "{}",
            damaged.verdict
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn variants_are_bounded_listed_removed_and_never_taken_for_baselines() {
        let root = std::env::temp_dir().join(format!("sightline-variants-list-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = ProjectStore::new(&root);
        let data = CaptureData { device_scale_factor: 1.0, ..Default::default() };
        let none = free_variant(&store, "home", "chromium").unwrap_err().to_string();
        assert_eq!(
            none,
            "home (chromium) has no baseline yet, so it cannot have an accepted variant: approve the capture as its baseline first (npx sightline approve home); nothing was written"
        );
        store.write_baseline("home", "chromium", &image(0), &data).unwrap();
        for number in 1..=MAX_VARIANTS {
            assert_eq!(free_variant(&store, "home", "chromium").unwrap(), number);
            store.write_accepted("home", "chromium", Some(number), &image(number), &data).unwrap();
        }
        let full = free_variant(&store, "home", "chromium").unwrap_err().to_string();
        assert_eq!(
            full,
            "home (chromium) has 4 accepted variants already, the limit: remove one first (npx sightline variants home --remove <number>); nothing was written"
        );
        assert_eq!(crate::store::list_baselines(&store).unwrap(), vec![("home".into(), "chromium".into())]);
        assert_eq!(list_variants(&store, None).unwrap().len(), 4);
        assert_eq!(
            remove_variant(&store, "home", Some("chromium"), 3).unwrap(),
            vec![".sightline/baselines/home/chromium.variant-3.png".to_string()]
        );
        assert_eq!(free_variant(&store, "home", "chromium").unwrap(), 3, "the lowest free number is taken again");
        let gone = remove_variant(&store, "home", None, 3).unwrap_err().to_string();
        assert_eq!(
            gone,
            "home has no accepted variant 3: its accepted variants are 1 (chromium), 2 (chromium), 4 (chromium) (npx sightline variants home); nothing was removed"
        );
        assert_eq!(remove_all_variants(&store, "home", "chromium").unwrap().len(), 3);
        assert!(list_variants(&store, Some("home")).unwrap().is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
