//! How a call ends once a comparison decided it: pass or fail, the message the test prints, and
//! what it attaches — as toHaveScreenshot ends, with Sightline's verdict and explanation.

use crate::capture::{ActualPng, CaptureOutcome, UpdateMode};
use crate::error::Result;
use crate::snapshot::SnapshotEvidence;
use crate::verdict::Status;

use super::{Attachment, AttachmentBody, CallOutcome, CaptureSession, Step};

impl CaptureSession {
    /// The call's end from the deciding comparison: pass or fail, the message, the attachments.
    /// `previous` is the shot before `shot` of a page that never settled: attached as
    /// `<name>-previous.png`, as toHaveScreenshot does, to show what kept changing.
    pub(super) fn outcome(
        &mut self,
        mut outcome: CaptureOutcome,
        shot: Vec<u8>,
        previous: Option<Vec<u8>>,
    ) -> Result<Step> {
        // The run's files, written once: the comparison left them for the steps after it (a `.not`
        // call keeps none).
        let written = outcome.write_run_files(&self.store, &self.name, &self.project, &shot)?;
        let failed = outcome.fails_test();
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
        // A baseline `writeMissingBaselines` wrote with no update flag fails the test at its end.
        let written_unreviewed = baseline_written && self.update == UpdateMode::Default;
        // As toHaveScreenshot: a passing call attaches nothing (each attachment is a step in the
        // report); a failing one its evidence and its images.
        let mut attachments = Vec::new();
        if failed || written_unreviewed {
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
