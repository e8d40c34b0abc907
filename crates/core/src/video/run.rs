//! Running ffprobe and ffmpeg within one call's limits: the deadline (`SIGHTLINE_VIDEO_TIMEOUT_MS`),
//! the [`CancelFlag`], the process-wide slots (at most `MAX_CONCURRENT_EXTRACTIONS` calls at
//! once), finding the tools, and running one with its stdout back and its stderr in the error.

use super::MAX_CONCURRENT_EXTRACTIONS;
use crate::error::{DEFAULT_TIMEOUT_MS, TIMEOUT_VAR};
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// The longest pause between two looks at a running tool (or a full set of slots): how late a
/// cancel or a passed deadline can be noticed.
pub(super) const POLL: Duration = Duration::from_millis(20);

/// Tells a running extraction to stop: its tool is killed and its partial output removed. The
/// MCP server sets it when the client cancels the call; clones share one flag.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// Asks the extraction to stop; it notices within 20 ms.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// One call's deadline, from [`TIMEOUT_VAR`] or [`DEFAULT_TIMEOUT_MS`]; a value that is not a
/// whole number of milliseconds above 0 is an error naming the variable.
pub fn video_timeout() -> Result<Duration> {
    parse_timeout(std::env::var_os(TIMEOUT_VAR).as_deref())
}

pub(super) fn parse_timeout(value: Option<&OsStr>) -> Result<Duration> {
    let Some(value) = value else { return Ok(Duration::from_millis(DEFAULT_TIMEOUT_MS)) };
    match value.to_str().and_then(|v| v.trim().parse::<u64>().ok()) {
        Some(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err(Error::InvalidInput(format!(
            "{TIMEOUT_VAR}={}: not a whole number of milliseconds above 0; set it to e.g. {DEFAULT_TIMEOUT_MS} or unset it",
            value.to_string_lossy()
        ))),
    }
}

/// What every wait and every tool run of one call consults: its deadline and its cancel flag.
pub(super) struct CallLimits<'a> {
    /// The recording as the caller gave it, for messages.
    pub(super) video: &'a Path,
    pub(super) started: Instant,
    pub(super) limit: Duration,
    pub(super) cancel: &'a CancelFlag,
}

impl CallLimits<'_> {
    /// An error once the call is cancelled or past its deadline; `during` says what it was
    /// doing ("while ffmpeg extracted frame 3 of 10").
    pub(super) fn check(&self, during: &str) -> Result<()> {
        if self.cancel.is_cancelled() {
            return Err(Error::Cancelled { path: self.video.to_path_buf() });
        }
        if self.started.elapsed() >= self.limit {
            return Err(Error::DeadlinePassed {
                path: self.video.to_path_buf(),
                limit_ms: u64::try_from(self.limit.as_millis()).unwrap_or(u64::MAX),
                during: during.to_string(),
            });
        }
        Ok(())
    }

    /// How long to pause before the next look: at most [`POLL`], never past the deadline.
    pub(super) fn pause(&self, wanted: Duration) -> Duration {
        wanted.min(POLL).min(self.limit.saturating_sub(self.started.elapsed())).max(Duration::from_millis(1))
    }
}

/// A counting semaphore: the extractions running in this process. Waiting is in slices of at
/// most [`POLL`] so a waiting call still notices its deadline and a cancel.
pub(super) struct Slots {
    pub(super) running: Mutex<usize>,
    pub(super) freed: Condvar,
    pub(super) capacity: usize,
}

/// A held slot; dropping it lets a waiting call in.
pub(super) struct Slot<'a>(&'a Slots);

impl Slots {
    pub(super) const fn new(capacity: usize) -> Self {
        Self { running: Mutex::new(0), freed: Condvar::new(), capacity }
    }

    pub(super) fn acquire(&self, limits: &CallLimits) -> Result<Slot<'_>> {
        // The count stays right even if a holder panicked: its guard still ran.
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if *running < self.capacity {
                *running += 1;
                return Ok(Slot(self));
            }
            limits.check(&format!(
                "while waiting for another extraction to finish (at most {} run at once)",
                self.capacity
            ))?;
            let pause = limits.pause(POLL);
            running = self.freed.wait_timeout(running, pause).unwrap_or_else(PoisonError::into_inner).0;
        }
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        *self.0.running.lock().unwrap_or_else(PoisonError::into_inner) -= 1;
        self.0.freed.notify_one();
    }
}

/// The process-wide slots every extraction takes one of.
pub(super) static SLOTS: Slots = Slots::new(MAX_CONCURRENT_EXTRACTIONS);

/// `name` from its env variable, else from PATH; missing is an error with the install command.
pub(super) fn tool(name: &str, var: &str) -> Result<PathBuf> {
    if let Some(path) = std::env::var_os(var) {
        return Ok(PathBuf::from(path));
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| {
            Error::InvalidInput(format!(
                "{name} not found on PATH: install ffmpeg (Debian/Ubuntu: apt-get install --no-install-recommends ffmpeg; macOS: brew install ffmpeg) or set {var} to its path"
            ))
        })
}

/// Runs a tool within the call's limits: stdout on success, its stderr in the error otherwise.
/// Past the deadline or on a cancel the tool is killed; `during` names the step in that error.
pub(super) fn run(program: &Path, args: &[&str], what: &Path, limits: &CallLimits, during: &str) -> Result<Vec<u8>> {
    limits.check(during)?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::io(program, e))?;
    // Both pipes are drained on their own threads so a chatty tool never blocks on a full pipe.
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
    let out = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out.read_to_end(&mut buf);
        buf
    });
    let err = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err.read_to_end(&mut buf);
        buf
    });
    // Short tools (`-version`, a probe) answer within a few ms: the pause starts at 1 ms and
    // doubles up to POLL, so they are not slowed and a long decode costs little polling.
    let mut pause = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| Error::io(program, e))? {
            break status;
        }
        if let Err(stop) = limits.check(during) {
            let _ = child.kill();
            let _ = child.wait();
            // The readers are left to finish on their own: a process the tool started could
            // keep the pipes open, and the call must not wait for it.
            return Err(stop);
        }
        std::thread::sleep(limits.pause(pause));
        pause *= 2;
    };
    let (out, err) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    if !status.success() {
        let detail = String::from_utf8_lossy(&err);
        let detail = detail.trim().lines().last().unwrap_or("no message");
        return Err(Error::InvalidInput(format!(
            "{}: {} failed ({detail}); is it a readable video?",
            what.display(),
            program.file_name().unwrap_or_default().to_string_lossy()
        )));
    }
    Ok(out)
}

pub(super) fn version(program: &Path, limits: &CallLimits, during: &str) -> Result<String> {
    let out = run(program, &["-version"], program, limits, during)?;
    Ok(String::from_utf8_lossy(&out).lines().next().unwrap_or("").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn video_timeout_comes_from_its_variable_or_the_default() {
        assert_eq!(parse_timeout(None).unwrap(), Duration::from_millis(120_000));
        assert_eq!(parse_timeout(Some(OsStr::new("1"))).unwrap(), Duration::from_millis(1));
        assert_eq!(parse_timeout(Some(OsStr::new(" 2500 "))).unwrap(), Duration::from_millis(2500));
        for bad in ["0", "-5", "1.5", "2s", ""] {
            assert_eq!(
                parse_timeout(Some(OsStr::new(bad))).unwrap_err().to_string(),
                format!(
                    "SIGHTLINE_VIDEO_TIMEOUT_MS={bad}: not a whole number of milliseconds above 0; set it to e.g. 120000 or unset it"
                )
            );
        }
    }

    fn limits<'a>(cancel: &'a CancelFlag, limit_ms: u64) -> CallLimits<'a> {
        CallLimits {
            video: Path::new("clip.mp4"),
            started: Instant::now(),
            limit: Duration::from_millis(limit_ms),
            cancel,
        }
    }

    #[test]
    fn video_slots_let_two_in_and_the_third_waits_its_turn() {
        let slots = Slots::new(2);
        let cancel = CancelFlag::default();
        let (first, _second) =
            (slots.acquire(&limits(&cancel, 60_000)).unwrap(), slots.acquire(&limits(&cancel, 60_000)).unwrap());
        std::thread::scope(|scope| {
            let third = scope.spawn(|| slots.acquire(&limits(&cancel, 60_000)).map(|_| Instant::now()));
            std::thread::sleep(Duration::from_millis(150));
            assert!(!third.is_finished(), "the third call waits while two run");
            let freed = Instant::now();
            drop(first);
            let entered = third.join().unwrap().unwrap();
            assert!(entered >= freed, "the third call got in only once the first was done");
        });
        assert_eq!(*slots.running.lock().unwrap(), 1, "the third call's slot was given back; the second still runs");
    }

    #[test]
    fn video_a_wait_for_a_slot_counts_against_the_deadline_and_stops_on_cancel() {
        let slots = Slots::new(1);
        let cancel = CancelFlag::default();
        let _held = slots.acquire(&limits(&cancel, 60_000)).unwrap();
        let started = Instant::now();
        let err = slots.acquire(&limits(&cancel, 100)).map(|_| ()).unwrap_err();
        assert!(started.elapsed() >= Duration::from_millis(100));
        assert_eq!(
            err.to_string(),
            "clip.mp4: frame extraction passed its deadline of 100 ms while waiting for another extraction to finish (at most 1 run at once) and was stopped; use a shorter window or lower fps, or raise SIGHTLINE_VIDEO_TIMEOUT_MS (milliseconds, default 120000)"
        );
        let stop = CancelFlag::default();
        std::thread::scope(|scope| {
            let waiting = scope.spawn(|| slots.acquire(&limits(&stop, 60_000)).map(|_| ()));
            std::thread::sleep(Duration::from_millis(50));
            stop.cancel();
            let err = waiting.join().unwrap().unwrap_err();
            assert_eq!(err.to_string(), "clip.mp4: frame extraction was cancelled; nothing was written");
        });
        assert_eq!(*slots.running.lock().unwrap(), 1, "refused waits took no slot");
    }
}
