//! Work done beside the browser yields the cores to it. While a `toMatchVisual` call waits for
//! Chromium's screenshot, the engine decodes, compares and draws on other threads; on a machine of
//! few cores both compete for them, and a screenshot slowed by that work slows the call by as much
//! (the call waits for the shot; the work done beside it only has to be done by then). So those
//! threads run at a lower priority: they take the cores the browser leaves idle, and all of them
//! when nothing else runs, so alone they are no slower.

/// The nice value of the engine's threads beside the browser (which runs at the test process's,
/// 0 by default): a thread at 10 gets about a tenth of a core's share against one at 0, enough to
/// keep working in the browser's gaps.
#[cfg(target_os = "linux")]
const NICE: libc::c_int = 10;

/// Lowers the calling thread's priority to [`NICE`] (Linux keeps a nice value per thread) for the
/// thread's life: an unprivileged process cannot raise it again. A thread already at or below it
/// (a test process started with `nice`) stays as it is. Elsewhere, nothing.
pub fn yield_to_the_browser() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid, getpriority and setpriority take no pointers; a failure leaves the thread
    // as it was, which is only slower.
    unsafe {
        let thread = libc::syscall(libc::SYS_gettid) as libc::id_t;
        if libc::getpriority(libc::PRIO_PROCESS, thread) < NICE {
            let _ = libc::setpriority(libc::PRIO_PROCESS, thread, NICE);
        }
    }
}

/// `work` as the body of a thread that works beside the browser: it yields first. For
/// `std::thread::spawn` and `Builder::spawn` alike.
pub fn beside_the_browser<T>(work: impl FnOnce() -> T + Send + 'static) -> impl FnOnce() -> T + Send + 'static {
    move || {
        yield_to_the_browser();
        work()
    }
}

/// Makes rayon's global pool, which decodes and compares beside the screenshots, yield too. It
/// takes effect when the pool is not built yet (the first capture session of a test worker); it
/// cannot be called while a shared library loads (the pool's threads would wait for the loader).
pub fn pool_yields_to_the_browser() {
    static BUILT: std::sync::Once = std::sync::Once::new();
    BUILT.call_once(|| {
        // An error means the pool already runs, at the process's priority: slower, not wrong.
        let _ = rayon::ThreadPoolBuilder::new().start_handler(|_| yield_to_the_browser()).build_global();
    });
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The calling thread's nice value.
    fn nice_of_this_thread() -> libc::c_int {
        // SAFETY: as in `yield_to_the_browser`.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::syscall(libc::SYS_gettid) as libc::id_t) }
    }

    #[test]
    fn a_thread_that_yields_runs_at_nice_10_and_its_neighbours_do_not() {
        let before = nice_of_this_thread();
        let (yielded, again) = std::thread::spawn(beside_the_browser(|| {
            let yielded = nice_of_this_thread();
            // Twice is once: the value is set, not added to.
            yield_to_the_browser();
            (yielded, nice_of_this_thread())
        }))
        .join()
        .unwrap();
        assert_eq!((yielded, again), (before.max(NICE), before.max(NICE)));
        assert_eq!(nice_of_this_thread(), before, "only the thread that yields");
    }
}
