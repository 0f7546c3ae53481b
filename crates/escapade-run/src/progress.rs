//! Progress bars, progress lines and warnings on standard error.
//!
//! Long work (building a suite, a run) shows an indicatif bar unless the caller asked for
//! quiet output. A run counts steps, not only episodes: a slow model takes minutes a step,
//! and a bar that moved per episode sat at 0/2 for 37 minutes with an ETA of
//! 584942417355 years (indicatif's, from episodes finished). [`Live`] keeps the run's
//! totals — episodes, steps, tokens, cost — and the steps each episode in flight has
//! taken and may still take, and estimates the time left from the steps still allowed
//! and the pace of the steps taken ([`estimate_left`]). The bar's clock ticks every
//! second. Without a terminal (CI, `nohup`, a log file) the bar hides itself and a line
//! is printed every [`LINE_EVERY`] instead (`ESCAPADE_PROGRESS_SECS` changes it).
//! Warnings are printed whatever the mode, above any bar.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use escapade_core::Usage;
use indicatif::{ProgressBar, ProgressStyle};

/// How often a run prints its progress line when standard error is not a terminal.
pub const LINE_EVERY: Duration = Duration::from_secs(30);

/// The environment variable that sets [`LINE_EVERY`] in seconds.
pub const LINE_EVERY_VAR: &str = "ESCAPADE_PROGRESS_SECS";

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

    /// The bar of a run: episodes as its units, [`Live::message`] after them, a clock
    /// that ticks every second; hidden when quiet or when standard error is not a
    /// terminal.
    pub(crate) fn run_bar(&self, len: u64) -> ProgressBar {
        if self.quiet || !std::io::stderr().is_terminal() {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new(len);
        let style = ProgressStyle::with_template(
            "episodes [{elapsed_precise}] {wide_bar} {pos}/{len} {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_secs(1));
        bar
    }

    /// Keeps `bar`'s message current every second and, when standard error is not a
    /// terminal (and not quiet), prints `live`'s line every [`LINE_EVERY`], until the
    /// returned value is dropped.
    pub(crate) fn follow(&self, live: Arc<Live>, bar: ProgressBar) -> Follow {
        let lines = (!self.quiet && !std::io::stderr().is_terminal()).then(line_every);
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("escapade-progress".into())
            .spawn(move || {
                let tick = Duration::from_secs(1).min(lines.unwrap_or(Duration::MAX));
                let mut printed = Instant::now();
                loop {
                    match rx.recv_timeout(tick) {
                        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                        _ => return,
                    }
                    bar.set_message(live.message());
                    if let Some(every) = lines
                        && printed.elapsed() >= every
                    {
                        printed = Instant::now();
                        eprintln!("{}", live.line());
                    }
                }
            })
            .ok();
        Follow {
            stop: Some(tx),
            thread,
        }
    }

    /// Prints `message` on standard error unless quiet.
    pub(crate) fn say(&self, message: &str) {
        if !self.quiet {
            eprintln!("{message}");
        }
    }

    /// Prints `warning: <message>` on standard error, above `bar` if one is drawn.
    pub(crate) fn warn(&self, bar: Option<&ProgressBar>, message: &str) {
        match bar {
            Some(bar) => bar.suspend(|| eprintln!("warning: {message}")),
            None => eprintln!("warning: {message}"),
        }
    }
}

/// The interval of progress lines: `ESCAPADE_PROGRESS_SECS`, else [`LINE_EVERY`].
fn line_every() -> Duration {
    std::env::var(LINE_EVERY_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(LINE_EVERY, Duration::from_secs_f64)
}

/// The thread [`Progress::follow`] started; dropping it stops the thread.
pub(crate) struct Follow {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Follow {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A run's live totals, shared by its drivers and the progress thread.
pub(crate) struct Live {
    start: Instant,
    /// Episodes of this run (this shard's share).
    total: usize,
    /// The run's step cap per episode.
    max_steps: u32,
    /// Episodes with a row (earlier invocations' included).
    pub finished: AtomicUsize,
    pub successes: AtomicUsize,
    pub errors: AtomicUsize,
    /// Episodes the step cap ended.
    pub capped: AtomicUsize,
    /// Steps played by this invocation (replayed ones not counted).
    steps: AtomicU64,
    pub usage: Mutex<Usage>,
    state: Mutex<LiveState>,
}

#[derive(Default)]
struct LiveState {
    /// Steps taken and budget of each episode in flight, by a slot number.
    in_flight: BTreeMap<usize, (u32, Option<u32>)>,
    next_slot: usize,
    /// Steps of the episodes finished by this invocation, and how many.
    finished_steps: u64,
    finished_count: u64,
    /// Budgets of the episodes opened so far, and how many.
    budgets: u64,
    budget_count: u64,
}

impl Live {
    /// Totals of a run of `total` episodes with a step cap of `max_steps`.
    pub fn new(total: usize, max_steps: u32) -> Live {
        Live {
            start: Instant::now(),
            total,
            max_steps,
            finished: AtomicUsize::new(0),
            successes: AtomicUsize::new(0),
            errors: AtomicUsize::new(0),
            capped: AtomicUsize::new(0),
            steps: AtomicU64::new(0),
            usage: Mutex::new(Usage::default()),
            state: Mutex::new(LiveState::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LiveState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// An episode starts; returns its slot for the calls below.
    pub fn started(&self, steps: u32) -> usize {
        let mut state = self.lock();
        let slot = state.next_slot;
        state.next_slot += 1;
        state.in_flight.insert(slot, (steps, None));
        slot
    }

    /// The world told the episode's step budget.
    pub fn budget(&self, slot: usize, budget: Option<u32>) {
        let mut state = self.lock();
        if let Some(b) = budget {
            state.budgets += u64::from(b.min(self.max_steps));
            state.budget_count += 1;
        }
        if let Some(e) = state.in_flight.get_mut(&slot) {
            e.1 = budget;
        }
    }

    /// The episode in `slot` took a live step costing `usage`.
    pub fn step(&self, slot: usize, usage: &Usage) {
        self.usage
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .add(usage);
        self.steps.fetch_add(1, Ordering::Relaxed);
        if let Some(e) = self.lock().in_flight.get_mut(&slot) {
            e.0 += 1;
        }
    }

    /// The episode in `slot` ended after `steps` steps (`None`: checkpointed, not
    /// finished).
    pub fn ended(&self, slot: usize, steps: Option<u32>) {
        let mut state = self.lock();
        state.in_flight.remove(&slot);
        if let Some(steps) = steps {
            state.finished_steps += u64::from(steps);
            state.finished_count += 1;
        }
    }

    /// What the bar shows after its episode count: the step of each episode in flight
    /// (up to three), steps so far, tokens, cost, success, step caps, errors, and the
    /// time left.
    pub fn message(&self) -> String {
        let mut parts = Vec::new();
        let (eta, flight) = {
            let state = self.lock();
            let flight: Vec<String> = state
                .in_flight
                .values()
                .map(|(done, budget)| match budget {
                    Some(b) => format!("{}/{}", done + 1, b.min(&self.max_steps)),
                    None => format!("{}", done + 1),
                })
                .collect();
            (self.left(&state), flight)
        };
        match flight.len() {
            0 => {}
            1..=3 => parts.push(format!("step {}", flight.join(", "))),
            n => parts.push(format!("{n} in flight")),
        }
        let steps = self.steps.load(Ordering::Relaxed);
        parts.push(format!("{steps} step{}", if steps == 1 { "" } else { "s" }));
        let u = *self.usage.lock().unwrap_or_else(|p| p.into_inner());
        if u.input + u.output > 0 {
            parts.push(format!("{} tok", human_count(u.input + u.output)));
        }
        if u.cost_usd > 0.0 {
            parts.push(format!("${:.4}", u.cost_usd));
        }
        let f = self.finished.load(Ordering::Relaxed);
        if f > 0 {
            let rate = self.successes.load(Ordering::Relaxed) as f64 / f as f64;
            parts.push(format!("success {:.1}%", rate * 100.0));
        }
        let capped = self.capped.load(Ordering::Relaxed);
        if capped > 0 {
            parts.push(format!("{capped} at the step cap"));
        }
        let e = self.errors.load(Ordering::Relaxed);
        if e > 0 {
            parts.push(format!("{e} errors"));
        }
        parts.push(match eta {
            Some(left) => format!("eta {}", human_duration(left)),
            None => "eta —".to_string(),
        });
        parts.join(" · ")
    }

    /// The line printed without a terminal: the clock, the episodes, [`Live::message`].
    pub fn line(&self) -> String {
        format!(
            "[{}] episodes {}/{} · {}",
            clock(self.start.elapsed()),
            self.finished.load(Ordering::Relaxed),
            self.total,
            self.message()
        )
    }

    /// The time left, from the steps still allowed and this invocation's pace.
    fn left(&self, state: &LiveState) -> Option<Duration> {
        let flight: Vec<(u32, Option<u32>)> = state.in_flight.values().copied().collect();
        let finished = self.finished.load(Ordering::Relaxed);
        let unstarted = self.total.saturating_sub(finished + flight.len());
        let per_episode = if state.finished_count > 0 {
            state.finished_steps as f64 / state.finished_count as f64
        } else if state.budget_count > 0 {
            state.budgets as f64 / state.budget_count as f64
        } else {
            f64::from(self.max_steps)
        };
        estimate_left(
            self.start.elapsed(),
            self.steps.load(Ordering::Relaxed),
            &flight,
            unstarted,
            per_episode,
            self.max_steps,
        )
    }
}

/// The time left of a run: the steps still to play — each episode in flight up to the
/// expected length `per_episode` (at least one more step, at most its budget and the
/// `cap`), each episode not started `per_episode` — at the pace of the `steps` played in
/// `elapsed`. `None` before the first step: there is no pace yet.
pub fn estimate_left(
    elapsed: Duration,
    steps: u64,
    in_flight: &[(u32, Option<u32>)],
    unstarted: usize,
    per_episode: f64,
    cap: u32,
) -> Option<Duration> {
    if steps == 0 || elapsed.is_zero() {
        return None;
    }
    let per_episode = per_episode.clamp(1.0, f64::from(cap.max(1)));
    let flying: f64 = in_flight
        .iter()
        .map(|(done, budget)| {
            let most = f64::from(budget.unwrap_or(cap).min(cap));
            (per_episode.min(most) - f64::from(*done)).max(1.0)
        })
        .sum();
    let left = flying + unstarted as f64 * per_episode;
    let secs = elapsed.as_secs_f64() * left / steps as f64;
    secs.is_finite()
        .then(|| Duration::from_secs_f64(secs.min(1e9)))
}

/// `45s`, `12m05s`, `3h07m`, `2d04h`.
pub fn human_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        3600..86_400 => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
        _ => format!("{}d{:02}h", s / 86_400, (s % 86_400) / 3600),
    }
}

/// `01:02:03` (hours may pass 99).
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{:02}:{:02}:{:02}", s / 3600, (s % 3600) / 60, s % 60)
}

/// A token count as the progress bar shows it (`950`, `12.3k`, `1.25M`).
pub fn human_count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.2}M", n as f64 / 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_left_comes_from_the_steps_still_allowed_before_any_episode_ends() {
        // two episodes of a slow model, none finished: one step took 100 s, the episode
        // in flight may take 29 more of its budget of 30, the other 30
        let left = estimate_left(
            Duration::from_secs(100),
            1,
            &[(1, Some(30))],
            1,
            30.0,
            10_000,
        )
        .unwrap();
        assert_eq!(left, Duration::from_secs(100 * (29 + 30)));
        assert_eq!(human_duration(left), "1h38m");
        // no step yet: no pace, no estimate (not 584942417355y)
        assert_eq!(
            estimate_left(Duration::from_secs(5), 0, &[], 2, 30.0, 50),
            None
        );
        // the cap bounds an episode; an episode past the expected length has one more
        let left =
            estimate_left(Duration::from_secs(10), 10, &[(40, Some(300))], 0, 20.0, 50).unwrap();
        assert_eq!(left, Duration::from_secs(1));
        let left = estimate_left(Duration::from_secs(10), 10, &[], 3, 400.0, 50).unwrap();
        assert_eq!(left, Duration::from_secs(150));
    }

    #[test]
    fn the_message_names_the_step_in_flight_and_a_finite_eta() {
        let live = Live::new(2, 10_000);
        let slot = live.started(0);
        assert!(live.message().contains("step 1 ·"), "{}", live.message());
        live.budget(slot, Some(300));
        assert!(live.message().contains("step 1/300"), "{}", live.message());
        assert!(live.message().ends_with("eta —"), "{}", live.message());
        std::thread::sleep(Duration::from_millis(20));
        live.step(
            slot,
            &Usage {
                input: 1500,
                output: 20,
                cost_usd: 0.01,
                ..Usage::default()
            },
        );
        let m = live.message();
        assert!(m.contains("step 2/300") && m.contains("1 step ·"), "{m}");
        assert!(m.contains("1.5k tok") && m.contains("$0.0100"), "{m}");
        let eta = m.rsplit("eta ").next().unwrap();
        assert!(eta.ends_with('s') || eta.ends_with('m'), "{m}");
        assert!(live.line().contains("episodes 0/2"), "{}", live.line());
        live.ended(slot, Some(2));
        assert!(!live.message().contains("step 2/300"), "{}", live.message());
    }

    #[test]
    fn durations_read_as_a_person_would() {
        assert_eq!(human_duration(Duration::from_secs(45)), "45s");
        assert_eq!(human_duration(Duration::from_secs(725)), "12m05s");
        assert_eq!(human_duration(Duration::from_secs(3 * 3600 + 420)), "3h07m");
        assert_eq!(clock(Duration::from_secs(3723)), "01:02:03");
        assert_eq!(human_count(12_345), "12.3k");
    }
}
