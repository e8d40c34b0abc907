//! The trace step of a call: a snapshot that fails with restyled elements asks the live page
//! which rules restyled them, once, before the call ends (see [`crate::dom::trace_styles`]).

use super::{CaptureSession, Phase, Step};
use crate::capture::CaptureOutcome;
use crate::dom::{PageRules, StyleTrace, TraceRequest, trace_styles};
use crate::error::Result;
use crate::verdict::Status;

/// A decided round whose restyled elements are traced on the page before the call ends.
#[derive(Debug)]
pub(super) struct Tracing {
    pub(super) request: TraceRequest,
    pub(super) outcome: CaptureOutcome,
    pub(super) shot: Vec<u8>,
    pub(super) previous: Option<Vec<u8>>,
}

/// The page's answer to a [`TraceRequest`]: the rules as the matcher's JSON (see [`PageRules`]),
/// or none where the browser cannot say, and why asking failed if it did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceAnswer {
    pub rules: Option<String>,
    pub error: Option<String>,
}

impl CaptureSession {
    /// What to ask the page about a snapshot that fails with restyled elements: a passing one,
    /// or one changed otherwise, asks nothing.
    pub(super) fn trace_request(&self, outcome: &CaptureOutcome) -> Option<TraceRequest> {
        let traceable = !self.is_not && outcome.fails_test() && outcome.evidence.status == Status::Changed;
        let dom = outcome.evidence.layers.dom.as_ref().filter(|_| traceable)?;
        TraceRequest::for_changes(dom)
    }

    /// The rules the page matched for a [`Step::Trace`] (the matcher's JSON, see
    /// [`PageRules`]), or `None` where the browser cannot say, and why asking failed if it did:
    /// the evidence names where each restyled value comes from, and the verdict leads with it.
    /// A trace that fails is told in the evidence and never fails the call.
    pub fn traced(&mut self, rules: Option<String>, error: Option<String>) -> Result<Step> {
        match std::mem::replace(&mut self.phase, Phase::Done) {
            Phase::Trace(tracing) => self.apply_trace(*tracing, TraceAnswer { rules, error }),
            other => Err(self.out_of_order(other, "the rules of restyled elements")),
        }
    }

    /// The decided outcome with what the page answered about its restyled elements: the call ends.
    pub(super) fn apply_trace(&mut self, tracing: Tracing, answer: TraceAnswer) -> Result<Step> {
        let Tracing { request, mut outcome, shot, previous } = tracing;
        let page_url = self.dom.as_deref().map_or("", |d| d.url.as_str());
        let evidence = &mut outcome.evidence;
        if let Some(dom) = evidence.layers.dom.as_mut()
            && (answer.rules.is_some() || answer.error.is_some())
        {
            let trace = match answer {
                TraceAnswer { rules: Some(rules), .. } => serde_json::from_str::<PageRules>(&rules)
                    .map_err(|e| format!("the page's answer is not valid: {e}"))
                    .and_then(|rules| trace_styles(dom, &request, &rules, page_url).map_err(|e| e.to_string())),
                TraceAnswer { rules: None, error } => Err(error.unwrap_or_default()),
            };
            let traced = trace.is_ok();
            dom.style_trace = Some(trace.unwrap_or_else(|reason| StyleTrace::failed(dom, reason)));
            if traced {
                evidence.decide_line_again(&self.settings.snapshot_options().tolerance);
            }
        }
        self.outcome(outcome, shot, previous)
    }
}
