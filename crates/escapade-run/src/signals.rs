//! The signals that stop a command: Ctrl-C (SIGINT), and SIGTERM and SIGHUP — what
//! containers, systemd and Kubernetes send to stop a process, and what a closed terminal
//! sends. Every command that records episodes (`run`, `resume`, `play`, `serve`, `mcp`)
//! and every server (`view` too) treats the three alike: the first one stops it the way
//! Ctrl-C always did, so an episode in play is still recorded whichever way the process
//! is told to stop; a second one quits at once (status [`QUIT_STATUS`]), for the operator
//! who will not wait for a graceful stop.
//!
//! [`Signals::listen`] installs the handlers at once (a signal that arrives before is
//! the default's: the process dies), so a command listens before it prints the address or
//! the prompt that tells the world it is ready.

use std::fmt;

/// The exit status of a process a second stop signal quits at once (128 + SIGINT's 2,
/// as a shell reports Ctrl-C).
pub const QUIT_STATUS: i32 = 130;

/// One of the signals that stop a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Signal {
    /// SIGINT: Ctrl-C at a terminal.
    Interrupt,
    /// SIGTERM: `kill`, systemd, Docker, Kubernetes.
    Terminate,
    /// SIGHUP: the terminal was closed.
    Hangup,
}

impl Signal {
    /// The signal's usual name (`SIGTERM`).
    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
            Signal::Hangup => "SIGHUP",
        }
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Handlers of SIGINT, SIGTERM and SIGHUP, installed by [`Signals::listen`]; each
/// [`Signals::recv`] waits for the next of them.
#[derive(Debug)]
pub struct Signals {
    #[cfg(unix)]
    streams: Vec<(Signal, tokio::signal::unix::Signal)>,
}

impl Signals {
    /// Installs the handlers now. Call it inside a Tokio runtime. A handler that cannot
    /// be installed is left out (that signal keeps its default).
    pub fn listen() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let kinds = [
                (Signal::Interrupt, SignalKind::interrupt()),
                (Signal::Terminate, SignalKind::terminate()),
                (Signal::Hangup, SignalKind::hangup()),
            ];
            let streams = kinds
                .into_iter()
                .filter_map(|(s, kind)| signal(kind).ok().map(|stream| (s, stream)))
                .collect();
            Signals { streams }
        }
        #[cfg(not(unix))]
        {
            Signals {}
        }
    }

    /// Waits for the next stop signal.
    pub async fn recv(&mut self) -> Signal {
        #[cfg(unix)]
        {
            if self.streams.is_empty() {
                return std::future::pending().await;
            }
            let waits = self.streams.iter_mut().map(|(s, stream)| {
                let s = *s;
                Box::pin(async move {
                    match stream.recv().await {
                        Some(()) => s,
                        None => std::future::pending().await,
                    }
                })
            });
            futures::future::select_all(waits).await.0
        }
        #[cfg(not(unix))]
        {
            match tokio::signal::ctrl_c().await {
                Ok(()) => Signal::Interrupt,
                Err(_) => std::future::pending().await,
            }
        }
    }

    /// A future that completes on the first stop signal (for a server's graceful stop),
    /// after telling `said` which one came. A second signal quits at once, as it does a
    /// run: the process exits with status 130 without waiting for the graceful stop (a
    /// request in progress may hold that for the server's whole grace), and episodes
    /// still open are not recorded. Call it inside a Tokio runtime.
    pub async fn first(mut self, said: impl FnOnce(Signal) + Send + 'static) {
        let signal = self.recv().await;
        said(signal);
        tokio::spawn(async move {
            let again = self.recv().await;
            eprintln!("quit ({again}): episodes still open were not recorded");
            std::process::exit(QUIT_STATUS);
        });
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_of_the_three_is_heard() {
        let mut signals = Signals::listen();
        for (n, want) in [
            (libc_sig::SIGHUP, Signal::Hangup),
            (libc_sig::SIGTERM, Signal::Terminate),
        ] {
            let pid = std::process::id().to_string();
            let status = std::process::Command::new("kill")
                .args([&format!("-{n}"), &pid])
                .status()
                .unwrap();
            assert!(status.success());
            let got = tokio::time::timeout(std::time::Duration::from_secs(10), signals.recv())
                .await
                .expect("the signal arrives");
            assert_eq!(got, want);
        }
    }

    /// The signal numbers the test sends (Linux and the BSDs agree on these two).
    mod libc_sig {
        pub const SIGHUP: i32 = 1;
        pub const SIGTERM: i32 = 15;
    }
}
