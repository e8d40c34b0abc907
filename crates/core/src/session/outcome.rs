//! How a call ends once a comparison decided it: pass or fail, the message the test prints, and
//! what it attaches — as toHaveScreenshot ends, with Sightline's verdict and explanation.

use std::path::PathBuf;

use crate::capture::{ActualPng, CaptureOutcome, UpdateMode};
use crate::error::Result;
use crate::snapshot::SnapshotEvidence;
use crate::verdict::Status;

use super::{CaptureSession, Step};

/// How the matcher ends the call.
#[derive(Debug, Clone)]
pub struct CallOutcome {
    /// The matcher's `pass`, as Playwright reads it (it inverts it under `.not`).
    pub pass: bool,
    /// The matcher's message.
    pub message: String,
    /// The snapshot's status, when the call compared it.
    pub status: Option<Status>,
    /// The test runs on and fails at its end with this message: a new snapshot has nothing the
    /// rest of the test depends on (as toHaveScreenshot fails on a missing snapshot).
    pub fail_at_end: Option<String>,
    /// What the test attaches, in order.
    pub attachments: Vec<Attachment>,
}

/// One file the test attaches.
#[derive(Debug, Clone)]
pub struct Attachment {
    /// The attachment's name, e.g. `home-diff.png`.
    pub name: String,
    pub content_type: &'static str,
    pub body: AttachmentBody,
}

/// Where an attachment's bytes are.
#[derive(Debug, Clone)]
pub enum AttachmentBody {
    /// Attached as they are.
    Inline(Vec<u8>),
    /// Written as a file of the attachment's name in the test's output folder and attached by
    /// path, so Playwright's reporters print its path as they do toHaveScreenshot's images.
    OutputFile(Vec<u8>),
    /// A file of the project, attached by path.
    ProjectFile(PathBuf),
}

impl CallOutcome {
    pub(super) fn empty() -> Self {
        Self { pass: false, message: String::new(), status: None, fail_at_end: None, attachments: Vec::new() }
    }
}

impl CaptureSession {
    /// The call's end from the deciding comparison: pass or fail, the message, the attachments.
    /// `previous` is the shot before `shot` of a page that never settled: attached as
    /// `<name>-previous.png`, as toHaveScreenshot does, to show what kept changing.
    pub(super) fn outcome(
        &mut self,
        mut outcome: CaptureOutcome,
        mut shot: Vec<u8>,
        previous: Option<Vec<u8>>,
    ) -> Result<Step> {
        let failed = outcome.fails_test();
        // A baseline `writeMissingBaselines` wrote with no update flag fails the test at its end.
        let written_unreviewed = outcome.baseline_written && self.update == UpdateMode::Default;
        let attaches = !self.is_not && (failed || written_unreviewed);
        // The run's files, written once: the comparison left them for the steps after it (a `.not`
        // call keeps none). They are written on a thread while the matcher attaches and puts the
        // page back (`close` waits for them); the shot is copied only when it is attached too.
        let files = outcome.take_run_files(&self.name, &self.project)?;
        let written = files.as_ref().map(|files| files.evidence_json.clone());
        if let Some(files) = files {
            let attached_as_shot = attaches && !matches!(outcome.current_png, ActualPng::Painted(_));
            let shot = if attached_as_shot { shot.clone() } else { std::mem::take(&mut shot) };
            let store = self.store.clone();
            // At the process's priority: no shot is taken any more, and `close` waits for it.
            self.writing = Some(std::thread::spawn(move || files.write(&store, &shot)));
        }
        // Taken apart, not borrowed: the images move into the attachments without a copy.
        let CaptureOutcome { evidence, baseline_written, diff_png, current_png, .. } = outcome;
        let evidence = &evidence;
        let name = &self.name;
        if self.is_not {
            // As toHaveScreenshot's `.not`: nothing attached or left in the test's output, pass or
            // fail (pass is inverted: a snapshot that differs passes).
            let message = if failed {
                format!("toMatchVisual({name:?}): differs, as expected: {}", evidence.verdict)
            } else {
                format!("toMatchVisual({name:?}): expected a visual change, but {}", evidence.verdict)
            };
            let status = Some(evidence.status);
            return self.done(CallOutcome {
                pass: !failed,
                message,
                status,
                fail_at_end: None,
                attachments: Vec::new(),
            });
        }
        // As toHaveScreenshot: a passing call attaches nothing (each attachment is a step in the
        // report); a failing one its evidence and its images.
        let mut attachments = Vec::new();
        if attaches {
            let png =
                |what: &str, body| Attachment { name: format!("{name}-{what}.png"), content_type: "image/png", body };
            attachments.push(Attachment {
                name: format!("{name}-evidence.json"),
                content_type: "application/json",
                body: AttachmentBody::Inline(match written {
                    Some(json) => json,
                    None => crate::capture::evidence_json(evidence)?,
                }),
            });
            attachments.extend(
                evidence
                    .files
                    .baseline
                    .as_ref()
                    .map(|b| png("expected", AttachmentBody::ProjectFile(self.root.join(b)))),
            );
            // The capture as compared (the browser's PNG, or its masks painted), the diff, and the
            // shot before it of a page that never settled.
            let actual = match current_png {
                ActualPng::Painted(painted) => painted,
                ActualPng::AsShot | ActualPng::None => shot,
            };
            attachments.push(png("actual", AttachmentBody::OutputFile(actual)));
            attachments.extend(diff_png.map(|diff| png("diff", AttachmentBody::OutputFile(diff))));
            attachments.extend(previous.map(|shot| png("previous", AttachmentBody::OutputFile(shot))));
        }
        let status = Some(evidence.status);
        // Nothing compared yet, so nothing the rest of the test depends on: the test runs on and
        // its end fails with the message. A new snapshot; or one `writeMissingBaselines` wrote
        // with no update flag, which fails as toHaveScreenshot's missing snapshot does, so an
        // unreviewed baseline never turns a run green.
        let at_end = if evidence.status == Status::New {
            Some(failure_message(name, evidence))
        } else if written_unreviewed {
            Some(format!(
                "toMatchVisual({name:?}): no baseline yet; this capture was written as {} (writeMissingBaselines): review it and commit it",
                evidence.files.baseline.as_deref().unwrap_or_default()
            ))
        } else {
            None
        };
        if let Some(message) = at_end {
            return self.done(CallOutcome {
                pass: true,
                fail_at_end: Some(message.clone()),
                message,
                status,
                attachments,
            });
        }
        let message = if baseline_written {
            format!(
                "toMatchVisual({name:?}): baseline written ({})",
                evidence.files.baseline.as_deref().unwrap_or_default()
            )
        } else if failed {
            failure_message(name, evidence)
        } else {
            format!("toMatchVisual({name:?}): expected a visual change, but {}", evidence.verdict)
        };
        self.done(CallOutcome { pass: !failed, message, status, fail_at_end: None, attachments })
    }
}

/// A failing call's message: the verdict, then the explanation (top regions with their
/// elements, the restyled properties), indented.
pub(super) fn failure_message(name: &str, evidence: &SnapshotEvidence) -> String {
    let mut lines = vec![format!("toMatchVisual({name:?}): {}", evidence.verdict)];
    lines.extend(evidence.explanation(3, 5).into_iter().map(|line| format!("  {line}")));
    lines.join("\n")
}
