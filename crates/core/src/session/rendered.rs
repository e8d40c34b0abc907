//! The rendered step of a call: what the page was drawn with (its fonts, its assets), asked once
//! for a capture that will be stored, and recorded with the first shot's comparison when that
//! comparison stands. A first comparison failing with restyled elements asks their rules in the
//! same round.

use super::{CaptureSession, Phase, Settled, Step, TraceAnswer};
use crate::environment::{Asset, Environment, EnvironmentComparison, RenderedFont};
use crate::error::{Error, Result};

impl CaptureSession {
    /// What the page was drawn with, for a [`Step::Rendered`]: the fonts that drew its text (most
    /// glyphs first per family) and the assets it loaded, with digests of their bytes; and the
    /// page's answer to the step's `trace`, when it had one (see [`CaptureSession::traced`]).
    pub fn rendered(&mut self, fonts: Vec<RenderedFont>, assets: Vec<Asset>, traced: TraceAnswer) -> Result<Step> {
        match std::mem::replace(&mut self.phase, Phase::Done) {
            Phase::Rendered(settled, trace) => {
                if let Some(environment) = self.environment.take() {
                    let page_url = self.dom.as_ref().map(|dom| dom.url.clone()).unwrap_or_default();
                    let with_fonts = Environment { fonts, assets, page_url, ..environment }.checked();
                    self.environment =
                        Some(with_fonts.map_err(|e| Error::InvalidInput(format!("toMatchVisual: {e}")))?);
                }
                // The first shot's comparison knew neither fonts nor assets. Where they can change
                // the verdict — another environment than the baseline's, a font drawn by another
                // face, a file replaced under its URL — the settled shot is compared with them,
                // even when it is the same shot.
                let first_env = self.first.as_ref().and_then(|outcome| outcome.evidence.environment.as_ref());
                let matters = first_env.is_some_and(|compared| {
                    let now = EnvironmentComparison::of(compared.baseline.as_ref(), self.environment.as_ref());
                    now.is_some_and(|now| {
                        now.differs() || !now.font_substitutions.is_empty() || !now.replaced_assets.is_empty()
                    })
                });
                if matters {
                    self.first = None;
                } else {
                    self.amend_first(&settled);
                }
                self.finish_round(settled, trace.map(|request| (request, traced)))
            }
            other => Err(self.out_of_order(other, "what the page was drawn with")),
        }
    }

    /// The first shot's comparison stands for the settled shot and what the page was drawn with
    /// changes nothing in it: the capture and its evidence, written when the call is decided,
    /// record it, so a capture approved later keeps its fonts and assets, without comparing again.
    fn amend_first(&mut self, settled: &Settled) {
        let (Some(outcome), Some(environment)) = (self.first.as_mut(), self.environment.as_ref()) else {
            return;
        };
        let Some(capture) = outcome.unwritten.as_mut().filter(|_| settled.is_first && !outcome.would_write_baseline)
        else {
            return;
        };
        capture.data.environment = Some(environment.clone());
        let baseline = outcome.evidence.environment.as_ref().and_then(|e| e.baseline.as_ref());
        outcome.evidence.environment = EnvironmentComparison::of(baseline, Some(environment));
    }

    /// Whether the settled shot needs what the page was drawn with first: it will be stored (a
    /// baseline, a capture that differs) and the matcher can tell its environment. An unchanged
    /// page, which its first shot decided, costs no lookup.
    pub(super) fn wants_rendered(&self, settled: &Settled) -> bool {
        let decided_unchanged = self
            .first
            .as_ref()
            .is_some_and(|outcome| settled.is_first && !outcome.fails_test() && !outcome.would_write_baseline);
        self.environment.is_some() && !self.rendered_asked && settled.unsettled.is_none() && !decided_unchanged
    }
}
