//! One implementation behind each export and its twin: the synchronous export calls a function,
//! the asynchronous one runs the same function as a [`Work`] on libuv's pool, and both go
//! through [`guarded`], which turns an engine error or a panic into a JS error.

use napi::bindgen_prelude::*;

/// Runs `f`, turning an engine error or a panic into a JS error: bad input is `InvalidArg`, a
/// bug `GenericFailure`; a panic never takes the Playwright worker down.
pub fn guarded<T>(f: impl FnOnce() -> sightline_core::Result<T>) -> Result<T> {
    sightline_core::catch_panic(f).map_err(js_error)
}

/// An engine error as JavaScript sees it.
pub fn js_error(e: sightline_core::Error) -> Error {
    match e {
        sightline_core::Error::Internal(_) => Error::new(Status::GenericFailure, e.to_string()),
        e => Error::new(Status::InvalidArg, e.to_string()),
    }
}

/// A serialisation failure of a value the addon built (a bug, never bad input).
pub fn to_json<T: serde::Serialize>(value: &T) -> Result<serde_json::Value> {
    serde_json::to_value(value).map_err(|e| Error::from_reason(e.to_string()))
}

/// Work computed off the event loop, then handed to JavaScript as `T`.
pub struct Work<T> {
    job: Option<Box<dyn FnOnce() -> Result<T> + Send>>,
}

impl<T: ToNapiValue + TypeName + Send + 'static> Work<T> {
    /// The async twin of a sync export: `job` is the export's body.
    pub fn run(job: impl FnOnce() -> Result<T> + Send + 'static) -> AsyncTask<Work<T>> {
        AsyncTask::new(Work { job: Some(Box::new(job)) })
    }
}

impl<T: ToNapiValue + TypeName + Send + 'static> Task for Work<T> {
    type Output = T;
    type JsValue = T;

    fn compute(&mut self) -> Result<T> {
        let job = self.job.take().ok_or_else(|| Error::from_reason("the work was already done"))?;
        job()
    }

    fn resolve(&mut self, _env: Env, output: T) -> Result<T> {
        Ok(output)
    }
}
