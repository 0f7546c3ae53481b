//! Progress bars and warnings on standard error.
//!
//! Long work (building a suite, a run) shows an indicatif bar unless the caller asked for
//! quiet output; bars also hide themselves when standard error is not a terminal.
//! Warnings are printed whatever the mode, above any bar.

use indicatif::{ProgressBar, ProgressStyle};

/// How the runner reports progress to a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    quiet: bool,
}

impl Progress {
    /// Progress bars on standard error (hidden when it is not a terminal).
    pub fn visible() -> Self {
        Progress { quiet: false }
    }

    /// No progress bars (warnings still go to standard error).
    pub fn quiet() -> Self {
        Progress { quiet: true }
    }

    /// `quiet()` when `quiet` is true, else `visible()`.
    pub fn new(quiet: bool) -> Self {
        Progress { quiet }
    }

    /// Whether bars are suppressed.
    pub fn is_quiet(&self) -> bool {
        self.quiet
    }

    /// A bar of `len` units with a label; hidden when quiet.
    pub(crate) fn bar(&self, len: u64, label: &str) -> ProgressBar {
        if self.quiet {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new(len);
        let style = ProgressStyle::with_template(
            "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} {msg} (eta {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_prefix(label.to_string());
        bar
    }

    /// Prints `warning: <message>` on standard error, above `bar` if one is drawn.
    pub(crate) fn warn(&self, bar: Option<&ProgressBar>, message: &str) {
        match bar {
            Some(bar) => bar.suspend(|| eprintln!("warning: {message}")),
            None => eprintln!("warning: {message}"),
        }
    }
}
