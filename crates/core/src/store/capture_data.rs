//! What a capture carries besides pixels ([`CaptureData`]: the DOM record, asset failures, the
//! call's resolved settings, the test that made it), as JSON in an artifact and in a baseline PNG's private
//! `slDm` chunk; and a capture read back ([`StoredCapture`]).

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::ledger::TestRef;
use crate::config::Settings;
use crate::decode::{decode_image, find_png_chunk};
use crate::dom::{DomSnapshot, parse_dom};
use crate::environment::Environment;
use crate::error::{Error, Result};
use crate::health::HealthReason;
use crate::image::RgbaImage;

/// The PNG chunk that carries a baseline's capture data: ancillary, private, safe to copy.
pub const BASELINE_CHUNK: [u8; 4] = *b"slDm";

/// Largest capture data a baseline may carry once decompressed.
const MAX_BASELINE_DATA: usize = 256 << 20;

/// What a capture carries besides pixels, stored as JSON in the artifact and next to a baseline.
#[derive(Debug, Clone, Default)]
pub struct CaptureData {
    /// The collector's DOM record, as collected (JSON text); `None` when not collected.
    pub dom: Option<String>,
    /// Assets that failed while capturing (network and console events).
    pub failures: Vec<HealthReason>,
    pub device_scale_factor: f32,
    /// The Playwright project name as written (file names only keep a safe stem of it).
    pub project: Option<String>,
    /// The settings the `toMatchVisual` call resolved, so `sightline compare` compares the
    /// capture as the matcher did. A capture's own: a baseline does not keep them.
    pub settings: Option<Settings>,
    /// The page never settled: `sightline compare` keeps the capture `unstable`. A capture's own.
    pub unsettled: Option<UnsettledPage>,
    /// The test that made the capture; an approved baseline keeps it, so a later run can tell a
    /// removed `toMatchVisual` call from a test it did not select.
    pub test: Option<TestRef>,
    /// Where the capture was rendered (browser, platform, fonts); a baseline keeps it.
    pub environment: Option<Environment>,
    /// The shot key of a healthy, settled capture (`unchanged::ShotKey`): its pixels are the
    /// browser's PNG with that key, decoded (and masked). A baseline keeps it, so a later shot
    /// with the same key is the same page without decoding either. `None` for anything else.
    pub shot: Option<String>,
}

#[derive(Serialize)]
struct MetadataOut<'a> {
    version: u32,
    #[serde(rename = "deviceScaleFactor")]
    device_scale_factor: f32,
    failures: &'a [HealthReason],
    #[serde(skip_serializing_if = "Option::is_none")]
    project: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    settings: Option<&'a Settings>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unsettled: Option<&'a UnsettledPage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    test: Option<&'a TestRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    environment: Option<&'a Environment>,
    #[serde(skip_serializing_if = "Option::is_none")]
    shot: Option<&'a str>,
    dom: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct MetadataIn<'a> {
    version: u32,
    #[serde(rename = "deviceScaleFactor", default = "one")]
    device_scale_factor: f32,
    #[serde(default)]
    failures: Vec<HealthReason>,
    #[serde(default)]
    project: Option<String>,
    #[serde(default)]
    settings: Option<Settings>,
    #[serde(default)]
    unsettled: Option<UnsettledPage>,
    #[serde(default)]
    test: Option<TestRef>,
    #[serde(default)]
    environment: Option<Environment>,
    #[serde(default)]
    shot: Option<String>,
    #[serde(borrow)]
    dom: Option<&'a RawValue>,
}

fn one() -> f32 {
    1.0
}

impl CaptureData {
    /// The JSON stored with a capture; the DOM record is embedded as-is, not re-serialised.
    pub fn to_json(&self) -> Result<Vec<u8>> {
        let dom = match &self.dom {
            Some(text) => Some(
                RawValue::from_string(text.clone()).map_err(|e| Error::BadDom { detail: format!("not JSON ({e})") })?,
            ),
            None => None,
        };
        let out = MetadataOut {
            version: 1,
            device_scale_factor: self.device_scale_factor,
            failures: &self.failures,
            project: self.project.as_deref(),
            settings: self.settings.as_ref(),
            unsettled: self.unsettled.as_ref(),
            test: self.test.as_ref(),
            environment: self.environment.as_ref(),
            shot: self.shot.as_deref(),
            dom: dom.as_deref(),
        };
        serde_json::to_vec(&out).map_err(|e| Error::InvalidInput(format!("capture metadata: {e}")))
    }

    /// Reads what [`CaptureData::to_json`] wrote; `path` names the file in errors.
    pub fn from_json(bytes: &[u8], path: &Path) -> Result<Self> {
        let bad = |detail: String| Error::BadArtifact { path: path.to_path_buf(), detail };
        let meta: MetadataIn<'_> =
            serde_json::from_slice(bytes).map_err(|e| bad(format!("capture metadata is not valid JSON ({e})")))?;
        if meta.version != 1 {
            return Err(bad(format!("capture metadata version {} (this sightline reads 1)", meta.version)));
        }
        Ok(Self {
            dom: meta.dom.map(|d| d.get().to_string()),
            failures: meta.failures,
            device_scale_factor: meta.device_scale_factor,
            project: meta.project,
            settings: meta.settings,
            unsettled: meta.unsettled,
            test: meta.test,
            environment: meta.environment,
            shot: meta.shot,
        })
    }

    /// What a baseline keeps of this capture: its DOM, asset failures, project and test, not the
    /// call's settings or whether its page settled (an approved baseline did).
    pub fn for_baseline(&self) -> CaptureData {
        CaptureData { settings: None, unsettled: None, ..self.clone() }
    }

    /// The page's device pixel ratio (as its DOM record says), in the data and its environment.
    pub fn set_device_scale_factor(&mut self, ratio: f64) {
        self.device_scale_factor = ratio as f32;
        if let Some(environment) = &mut self.environment {
            environment.device_scale_factor = ratio;
        }
    }

    /// The parsed DOM record, if one was collected.
    pub fn parsed_dom(&self) -> Result<Option<DomSnapshot>> {
        self.dom.as_deref().map(parse_dom).transpose()
    }
}

/// The capture data a baseline PNG (`bytes`, read from `png`) carries in its data chunk.
pub(crate) fn baseline_data(bytes: &[u8], png: &Path) -> Result<CaptureData> {
    Ok(match find_png_chunk(bytes, BASELINE_CHUNK) {
        Some(chunk) => {
            let json = zstd::bulk::decompress(chunk, MAX_BASELINE_DATA).map_err(|e| Error::BadArtifact {
                path: png.to_path_buf(),
                detail: format!("the baseline's DOM data chunk is corrupt ({e})"),
            })?;
            CaptureData::from_json(&json, png)?
        }
        // A PNG alone (e.g. copied in by hand) is still a baseline, without DOM data.
        None => CaptureData { device_scale_factor: 1.0, ..Default::default() },
    })
}

/// A page that never settled: how long the matcher shot and what kept changing between the last
/// two shots (e.g. `62×20 at 10,10 (#clock)`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnsettledPage {
    pub waited_ms: u64,
    pub area: String,
}

/// A capture read back from disk: pixels and data.
#[derive(Debug, Clone)]
pub struct StoredCapture {
    pub image: RgbaImage,
    pub data: CaptureData,
}

impl StoredCapture {
    /// A baseline PNG's pixels and the data in its data chunk; `png` names the file in errors.
    pub fn from_baseline_png(bytes: &[u8], png: &Path) -> Result<Self> {
        Ok(Self { image: decode_image(bytes, png)?, data: baseline_data(bytes, png)? })
    }
}
