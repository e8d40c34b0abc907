//! The browser worker's protocol (spec 05-live-pages), typed: what the `sightline` binary sends
//! `playwright-fixtures/worker.js` and what it reads back. Newline-delimited JSON over the
//! worker's stdin and stdout: a [`Request`] per line (`{id, method, params}`, the params with the
//! call's `timeoutMs`), a [`Reply`] per line (`{id, result}` or `{id, error: {message}}`), in any
//! order.
//!
//! Each method of `playwright-fixtures/worker/methods.js` is one params struct here that
//! implements [`WorkerMethod`], naming the method and the answer it gets (`methods`). The answers
//! are made of the facts the judging modules read — [`crate::page_check`],
//! [`crate::live`], [`crate::visual_verify`], the DOM record of [`crate::dom`] — so what the
//! worker gathers is read once, by serde, and a field the worker renames fails here, naming it,
//! rather than reading as missing. The CLI's end-to-end test `worker_protocol` runs every method
//! on a real page and reads each answer strictly: a field methods.js adds, renames or retypes
//! fails it.

mod methods;

use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

pub use methods::*;

use crate::dom::{DomSnapshot, parse_dom};

/// One method of the worker: its params are `Self`, serialised as the request's `params`.
pub trait WorkerMethod: Serialize {
    /// The method's name in `methods.js`'s table.
    const NAME: &'static str;
    /// What its answer is, as an error about it names it ("the worker's {ANSWER} are not what
    /// this version reads").
    const ANSWER: &'static str;
    /// The answer the worker gives.
    type Answer: DeserializeOwned;

    /// The page the call opens, if it opens one.
    fn url(&self) -> Option<&str> {
        None
    }
}

/// One request line: the call's id (answers come back in any order), the method and its params.
#[derive(Debug, Serialize)]
pub struct Request<'a, M: WorkerMethod> {
    /// Chosen by the caller, unique among the calls in flight; the reply carries it back.
    pub id: u64,
    /// [`WorkerMethod::NAME`].
    pub method: &'static str,
    /// The method's params with the call's timeout.
    pub params: Bounded<'a, M>,
}

/// A method's params plus `timeoutMs`, the time the worker gives the call before it answers a
/// timeout itself.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Bounded<'a, M> {
    /// The method's own params.
    #[serde(flatten)]
    pub params: &'a M,
    /// Milliseconds the worker lets the call run.
    pub timeout_ms: u64,
}

impl<'a, M: WorkerMethod> Request<'a, M> {
    /// The request for call `id` of `params`, bounded by `timeout_ms`.
    pub fn new(id: u64, params: &'a M, timeout_ms: u64) -> Self {
        Request { id, method: M::NAME, params: Bounded { params, timeout_ms } }
    }

    /// The request as one line of the protocol, newline included.
    pub fn line(&self) -> String {
        // Params are plain structs of strings, numbers and lists: serialising cannot fail.
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }
}

/// One answer line: the id of the call it answers and its result, or why the call failed.
#[derive(Debug, Deserialize)]
pub struct Reply {
    /// The request's id; absent on a line that answers nothing (the supervisor ignores it).
    #[serde(default)]
    pub id: Option<u64>,
    /// The method's answer, read by the caller as [`WorkerMethod::Answer`].
    #[serde(default)]
    pub result: Option<Box<RawValue>>,
    /// Present when the call failed.
    #[serde(default)]
    pub error: Option<ReplyError>,
}

/// A failed call: the worker's message, which names what went wrong and the fix (an unreachable
/// page, a selector nothing matches, a timeout).
#[derive(Debug, Deserialize)]
pub struct ReplyError {
    /// The error's first line; absent only when the thrown value had no message.
    #[serde(default)]
    pub message: Option<String>,
}

impl Reply {
    /// The result's JSON text, or the worker's error message.
    pub fn outcome(self) -> Result<Box<RawValue>, String> {
        match self.error {
            Some(error) => Err(error.message.unwrap_or_else(|| "the worker failed without a message".into())),
            None => Ok(self.result.unwrap_or_else(|| RawValue::from_string("null".into()).expect("null is JSON"))),
        }
    }
}

/// Reads method `M`'s answer from the result's JSON text; an answer of another shape (a worker of
/// another version) names the field at fault.
pub fn read_answer<M: WorkerMethod>(result: &str) -> Result<M::Answer, String> {
    let mut json = serde_json::Deserializer::from_str(result);
    serde_path_to_error::deserialize(&mut json)
        .map_err(|e| format!("the worker's {} are not what this version reads ({e})", M::ANSWER))
}

/// JSON the worker passes on as text, as the page gave it (`JSON.stringify` in the page), read
/// as `T` when asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JsonText<T> {
    text: String,
    #[serde(skip)]
    of: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned> JsonText<T> {
    /// The text as it came.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text read as `T`, the error naming `what` and the field at fault.
    pub fn read(&self, what: &str) -> Result<T, String> {
        let mut json = serde_json::Deserializer::from_str(&self.text);
        serde_path_to_error::deserialize(&mut json)
            .map_err(|e| format!("the worker's {what} are not what this version reads ({e})"))
    }
}

/// The collector's DOM record of the page, as text (what `collectDom` returns and a capture
/// stores); [`DomRecord::parse`] validates it as any capture's record is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DomRecord(pub String);

impl DomRecord {
    /// The record parsed and checked against the DOM record's limits ([`parse_dom`]).
    pub fn parse(&self) -> crate::Result<DomSnapshot> {
        parse_dom(&self.0)
    }
}

/// Writes a CSS pixel value as JavaScript's `JSON.stringify` does: whole numbers without a
/// fraction (`16`, not `16.0`), so an answer the server passes on reads as the page measured it.
fn js_number<S: serde::Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    // Whole numbers within ±2^53 are exact as integers; anything else keeps its fraction.
    if value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 {
        serializer.serialize_i64(*value as i64)
    } else {
        serializer.serialize_f64(*value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_protocol_request_lines_carry_the_timeout_beside_the_params() {
        let params = PingParams {};
        assert_eq!(
            Request::new(7, &params, 10_000).line(),
            "{\"id\":7,\"method\":\"ping\",\"params\":{\"timeoutMs\":10000}}\n"
        );
        let measure = MeasureParams { url: "http://localhost/".into(), selector: "#buy".into() };
        assert_eq!(
            Request::new(8, &measure, 30_000).line(),
            "{\"id\":8,\"method\":\"measure\",\"params\":{\"url\":\"http://localhost/\",\"selector\":\"#buy\",\"timeoutMs\":30000}}\n"
        );
        assert_eq!(measure.url(), Some("http://localhost/"));
        assert_eq!(params.url(), None);
    }

    #[test]
    fn worker_protocol_replies_are_a_result_or_the_workers_message() {
        let reply = |line: &str| serde_json::from_str::<Reply>(line).unwrap();
        let ok = reply(r#"{"id":3,"result":{"shots":[]}}"#);
        assert_eq!(ok.id, Some(3));
        assert_eq!(ok.outcome().unwrap().get(), r#"{"shots":[]}"#);
        assert_eq!(reply(r#"{"id":4,"error":{"message":"cannot reach x"}}"#).outcome().unwrap_err(), "cannot reach x");
        assert_eq!(reply(r#"{"id":5,"error":{}}"#).outcome().unwrap_err(), "the worker failed without a message");
    }

    #[test]
    fn worker_protocol_an_answer_of_another_shape_names_the_field() {
        let e = read_answer::<FramesParams>(r#"{"shots":[{"file":"a.png","atMs":"soon"}]}"#).unwrap_err();
        assert!(
            e.starts_with("the worker's frame shots are not what this version reads (shots[0].atMs: invalid type"),
            "{e}"
        );
        assert_eq!(
            read_answer::<FramesParams>(r#"{"shots":[{"file":"a.png","atMs":40}]}"#).unwrap().shots[0].at_ms,
            40
        );
    }

    #[test]
    fn worker_protocol_pixel_values_are_written_as_javascript_writes_them() {
        #[derive(Serialize)]
        struct Px(#[serde(serialize_with = "js_number")] f64);
        let written = |v: f64| serde_json::to_string(&Px(v)).unwrap();
        assert_eq!(
            [written(16.0), written(-0.0), written(12.5), written(0.1 + 0.2)],
            ["16", "0", "12.5", "0.30000000000000004"]
        );
    }
}
