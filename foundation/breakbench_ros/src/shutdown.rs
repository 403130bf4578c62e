//! Clean shutdown on SIGINT and SIGTERM, as rclcpp nodes do.
//!
//! `ros2 launch` stops a node with SIGINT (then SIGTERM after its
//! `sigterm_timeout`, 5 s, then SIGKILL); `breakbench up` and most process
//! supervisors send SIGTERM. A node killed by the default action exits with
//! -2 / -15, which `ros2 launch` reports as `[ERROR] ... process has died`.
//! [`Shutdown::on_signals`] replaces the default action: the first SIGINT or
//! SIGTERM only *requests* shutdown, the node's loops see it
//! ([`Shutdown::is_requested`], [`Shutdown::wait`], [`Shutdown::until`]),
//! return, drop the node (which stops its spinner and leaves the graph) and
//! the process exits 0. A second signal during shutdown exits at once with
//! 128 + the signal number (the node did not stop in time).

use std::future::Future;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};

use futures::channel::oneshot;
use futures::future::{FutureExt, Shared};
use futures::stream::{Stream, StreamExt, TakeUntil};

use crate::RosError;

/// The signals that request a shutdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopSignal {
    /// SIGINT (2): `ros2 launch`, Ctrl-C.
    Int,
    /// SIGTERM (15): `breakbench up`, `kill`, supervisors.
    Term,
}

impl StopSignal {
    /// The POSIX signal number.
    pub fn number(self) -> i32 {
        match self {
            StopSignal::Int => 2,
            StopSignal::Term => 15,
        }
    }
    /// `SIGINT` / `SIGTERM`.
    pub fn name(self) -> &'static str {
        match self {
            StopSignal::Int => "SIGINT",
            StopSignal::Term => "SIGTERM",
        }
    }
    fn from_number(n: i32) -> Option<Self> {
        match n {
            2 => Some(StopSignal::Int),
            15 => Some(StopSignal::Term),
            _ => None,
        }
    }
}

/// Why the node stops: `None` in [`Shutdown::reason`] while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShutdownReason {
    /// A SIGINT or SIGTERM arrived.
    Signal(StopSignal),
    /// [`Shutdown::request`] was called (by the node itself or a test).
    Requested,
}

/// Value of `State::reason` while no shutdown was requested.
const RUNNING: i32 = 0;
/// Value of `State::reason` after [`Shutdown::request`].
const REQUESTED: i32 = -1;

struct State {
    /// [`RUNNING`], [`REQUESTED`] or the signal number.
    reason: AtomicI32,
    /// Completes `Shutdown::done` for every waiter; taken on the first request.
    wake: Mutex<Option<oneshot::Sender<()>>>,
}

/// A shutdown request shared by every loop of a node (cheap to clone).
///
/// Blocking loops poll [`Self::is_requested`]; async loops race their next
/// event against [`Self::wait`] or wrap their event stream in
/// [`Self::until`], which ends the stream once shutdown is requested.
#[derive(Clone)]
pub struct Shutdown {
    state: Arc<State>,
    done: Shared<oneshot::Receiver<()>>,
}

impl std::fmt::Debug for Shutdown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shutdown")
            .field("reason", &self.reason())
            .finish()
    }
}

impl Default for Shutdown {
    fn default() -> Self {
        Self::new()
    }
}

impl Shutdown {
    /// A shutdown flag that only [`Self::request`] sets (no signal handler).
    pub fn new() -> Self {
        let (tx, rx) = oneshot::channel();
        Self {
            state: Arc::new(State {
                reason: AtomicI32::new(RUNNING),
                wake: Mutex::new(Some(tx)),
            }),
            done: rx.shared(),
        }
    }

    /// Installs handlers for SIGINT and SIGTERM (replacing the default
    /// action, which kills the process) that request this shutdown; a second
    /// signal exits the process at once with 128 + its number. Call once, at
    /// the start of the node's `main`, before creating DDS entities.
    ///
    /// Errors: [`RosError::Signal`] when the handlers cannot be installed.
    pub fn on_signals() -> Result<Self, RosError> {
        use async_signal::{Signal, Signals};
        let mut signals = Signals::new([Signal::Int, Signal::Term])
            .map_err(|e| RosError::Signal(format!("installing SIGINT/SIGTERM handlers: {e}")))?;
        let shutdown = Self::new();
        let s = shutdown.clone();
        std::thread::Builder::new()
            .name("shutdown-signals".into())
            .spawn(move || {
                futures::executor::block_on(async {
                    while let Some(Ok(sig)) = signals.next().await {
                        let n = sig as i32;
                        let name = StopSignal::from_number(n).map_or("signal", |s| s.name());
                        if s.is_requested() {
                            tracing::warn!(
                                "{name} during shutdown: exiting at once (code {})",
                                128 + n
                            );
                            // `_exit`, not `process::exit`: the latter runs the C++
                            // static destructors (Fast DDS' participant factory on
                            // the rclrs backend) while the main thread may still be
                            // finalising rcl entities: a SIGSEGV, seen when launch
                            // and a process-group kill both sent SIGINT.
                            // SAFETY: ends the process; nothing runs after it.
                            unsafe { libc::_exit(128 + n) };
                        }
                        tracing::info!("{name}: shutting down");
                        s.request_with(n);
                    }
                })
            })
            .map_err(|e| RosError::Signal(format!("signal thread: {e}")))?;
        Ok(shutdown)
    }

    /// Requests shutdown (idempotent: the first reason is kept).
    pub fn request(&self) {
        self.request_with(REQUESTED);
    }

    fn request_with(&self, reason: i32) {
        crate::teardown::begin();
        let _ = self.state.reason.compare_exchange(
            RUNNING,
            reason,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        let tx = self
            .state
            .wake
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(tx) = tx {
            let _ = tx.send(());
        }
    }

    /// True once shutdown was requested.
    pub fn is_requested(&self) -> bool {
        self.state.reason.load(Ordering::Acquire) != RUNNING
    }

    /// Why shutdown was requested; `None` while the node runs.
    pub fn reason(&self) -> Option<ShutdownReason> {
        match self.state.reason.load(Ordering::Acquire) {
            RUNNING => None,
            REQUESTED => Some(ShutdownReason::Requested),
            n => Some(
                StopSignal::from_number(n)
                    .map_or(ShutdownReason::Requested, ShutdownReason::Signal),
            ),
        }
    }

    /// A future that completes once shutdown is requested (at once if it
    /// already was). Any number of them may wait at the same time.
    pub fn wait(&self) -> impl Future<Output = ()> + Unpin + Send + 'static {
        self.done.clone().map(|_| ())
    }

    /// `stream` until shutdown is requested: then it ends (yields `None`),
    /// so an event loop `while let Some(ev) = events.next().await` returns.
    /// Check [`Self::is_requested`] afterwards to tell a shutdown from the
    /// inputs ending.
    pub fn until<S: Stream>(
        &self,
        stream: S,
    ) -> TakeUntil<S, impl Future<Output = ()> + Unpin + Send + 'static> {
        stream.take_until(self.wait())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn request_completes_every_waiter_and_ends_guarded_streams() {
        let s = Shutdown::new();
        assert!(!s.is_requested());
        assert_eq!(s.reason(), None);
        let early = s.wait();
        let mut ticks = s.until(futures::stream::repeat(1u8));
        futures::executor::block_on(async {
            assert_eq!(ticks.next().await, Some(1), "runs until requested");
        });
        let s2 = s.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            s2.request();
        });
        futures::executor::block_on(early);
        t.join().unwrap();
        assert!(s.is_requested());
        assert_eq!(s.reason(), Some(ShutdownReason::Requested));
        // A waiter created after the request completes at once; the guarded
        // stream ends.
        futures::executor::block_on(s.wait());
        futures::executor::block_on(async {
            assert_eq!(ticks.next().await, None);
        });
        // A second request keeps the first reason.
        s.request_with(15);
        assert_eq!(s.reason(), Some(ShutdownReason::Requested));
    }

    #[test]
    fn the_first_signal_is_the_reason() {
        let s = Shutdown::new();
        s.request_with(StopSignal::Term.number());
        s.request_with(StopSignal::Int.number());
        assert_eq!(s.reason(), Some(ShutdownReason::Signal(StopSignal::Term)));
        assert_eq!(StopSignal::Int.name(), "SIGINT");
    }
}
