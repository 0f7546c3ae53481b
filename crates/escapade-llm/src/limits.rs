//! Back-pressure toward providers, so a run of hundreds of episodes neither floods an API
//! nor idles after one 429.
//!
//! - [`AdaptiveLimit`]: an AIMD concurrency limit (halve on a 429, grow by one per success
//!   up to the configured ceiling), handing out [`Permit`]s.
//! - [`RequestWindow`] and [`TokenWindow`]: sliding 60-second windows for optional RPM and
//!   TPM caps.
//! - [`backoff`]: the retry delay (exponential, full jitter, at least `Retry-After`).
//!
//! All waiting uses tokio time, so tests can run with a paused clock.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rand::Rng;
use tokio::sync::Notify;
use tokio::time::Instant;

/// The length of the RPM and TPM windows.
pub const WINDOW: Duration = Duration::from_secs(60);

/// Longest `Retry-After` that is honoured as given; longer requests are cut to this.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(600);

#[derive(Debug)]
struct LimitState {
    limit: usize,
    in_flight: usize,
}

#[derive(Debug)]
struct LimitShared {
    max: usize,
    state: Mutex<LimitState>,
    notify: Notify,
}

/// An additive-increase, multiplicative-decrease concurrency limit.
///
/// Starts at `max`; [`AdaptiveLimit::on_rate_limited`] halves it (never below 1) and
/// [`AdaptiveLimit::on_success`] adds one (never above `max`). Requests wait in
/// [`AdaptiveLimit::acquire`] while `in_flight >= limit`; permits already out are not
/// revoked when the limit drops, they simply are not replaced.
#[derive(Debug, Clone)]
pub struct AdaptiveLimit {
    shared: Arc<LimitShared>,
}

/// One slot of an [`AdaptiveLimit`]; the slot is released on drop.
#[derive(Debug)]
pub struct Permit {
    shared: Arc<LimitShared>,
}

impl AdaptiveLimit {
    /// A limit starting at, and never above, `max` (at least 1).
    pub fn new(max: usize) -> Self {
        let max = max.max(1);
        AdaptiveLimit {
            shared: Arc::new(LimitShared {
                max,
                state: Mutex::new(LimitState {
                    limit: max,
                    in_flight: 0,
                }),
                notify: Notify::new(),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, LimitState> {
        lock(&self.shared.state)
    }

    /// Waits for a free slot.
    pub async fn acquire(&self) -> Permit {
        loop {
            let notified = self.shared.notify.notified();
            tokio::pin!(notified);
            // Register before checking, so a release between the check and the await
            // still wakes this task.
            notified.as_mut().enable();
            if let Some(permit) = self.try_acquire() {
                return permit;
            }
            notified.await;
        }
    }

    /// Takes a free slot if there is one.
    pub fn try_acquire(&self) -> Option<Permit> {
        let mut state = self.state();
        if state.in_flight < state.limit {
            state.in_flight += 1;
            Some(Permit {
                shared: Arc::clone(&self.shared),
            })
        } else {
            None
        }
    }

    /// A request was rate-limited: halve the limit (at least 1).
    pub fn on_rate_limited(&self) {
        let mut state = self.state();
        state.limit = (state.limit / 2).max(1);
    }

    /// A request succeeded: grow the limit by one (at most the ceiling).
    pub fn on_success(&self) {
        let grew = {
            let mut state = self.state();
            let before = state.limit;
            state.limit = (state.limit + 1).min(self.shared.max);
            state.limit > before
        };
        if grew {
            self.shared.notify.notify_one();
        }
    }

    /// The current limit.
    pub fn limit(&self) -> usize {
        self.state().limit
    }

    /// The ceiling given at construction.
    pub fn max(&self) -> usize {
        self.shared.max
    }

    /// Permits currently held.
    pub fn in_flight(&self) -> usize {
        self.state().in_flight
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        {
            let mut state = lock(&self.shared.state);
            state.in_flight = state.in_flight.saturating_sub(1);
        }
        self.shared.notify.notify_one();
    }
}

/// Locks a mutex, recovering the data if another thread panicked while holding it (the
/// counters stay meaningful).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A sliding 60-second window of request starts, for an RPM cap.
#[derive(Debug, Clone)]
pub struct RequestWindow {
    rpm: u32,
    starts: VecDeque<Instant>,
}

impl RequestWindow {
    /// A window allowing `rpm` starts per minute (at least 1).
    pub fn new(rpm: u32) -> Self {
        RequestWindow {
            rpm: rpm.max(1),
            starts: VecDeque::new(),
        }
    }

    /// Records a start at `now` if the window has room, else says how long to wait.
    pub fn try_start(&mut self, now: Instant) -> Result<(), Duration> {
        while let Some(first) = self.starts.front() {
            if now.saturating_duration_since(*first) >= WINDOW {
                self.starts.pop_front();
            } else {
                break;
            }
        }
        if self.starts.len() < self.rpm as usize {
            self.starts.push_back(now);
            Ok(())
        } else {
            // Full: wait until the oldest start leaves the window.
            let first = self.starts.front().copied().unwrap_or(now);
            Err((first + WINDOW).saturating_duration_since(now))
        }
    }
}

/// A sliding 60-second window of reported tokens, for a TPM cap. A request may start while
/// the tokens of the last minute are below the cap (its own size is unknown until it
/// returns).
#[derive(Debug, Clone)]
pub struct TokenWindow {
    tpm: u64,
    used: VecDeque<(Instant, u64)>,
    total: u64,
}

impl TokenWindow {
    /// A window allowing `tpm` tokens per minute (at least 1).
    pub fn new(tpm: u64) -> Self {
        TokenWindow {
            tpm: tpm.max(1),
            used: VecDeque::new(),
            total: 0,
        }
    }

    fn prune(&mut self, now: Instant) {
        while let Some((at, tokens)) = self.used.front() {
            if now.saturating_duration_since(*at) >= WINDOW {
                self.total -= tokens;
                self.used.pop_front();
            } else {
                break;
            }
        }
    }

    /// `Ok` when a request may start at `now`, else how long to wait.
    pub fn check(&mut self, now: Instant) -> Result<(), Duration> {
        self.prune(now);
        if self.total < self.tpm {
            return Ok(());
        }
        // Wait until enough old entries expire to get under the cap.
        let mut remaining = self.total;
        for (at, tokens) in &self.used {
            remaining -= tokens;
            if remaining < self.tpm {
                return Err((*at + WINDOW).saturating_duration_since(now));
            }
        }
        Ok(())
    }

    /// Records `tokens` used at `now`.
    pub fn record(&mut self, now: Instant, tokens: u64) {
        self.prune(now);
        if tokens > 0 {
            self.used.push_back((now, tokens));
            self.total += tokens;
        }
    }

    /// Tokens reported within the window ending at `now`.
    pub fn used(&mut self, now: Instant) -> u64 {
        self.prune(now);
        self.total
    }
}

/// The delay before retry number `retry` (0 for the first retry): a uniformly random
/// duration in `[0, min(max, base * 2^retry)]` ("full jitter"), but at least
/// `retry_after` when the provider asked for one (capped at [`MAX_RETRY_AFTER`]).
pub fn backoff(
    retry: u32,
    base: Duration,
    max: Duration,
    retry_after: Option<Duration>,
    rng: &mut impl Rng,
) -> Duration {
    let cap = backoff_cap(retry, base, max);
    let nanos = u64::try_from(cap.as_nanos()).unwrap_or(u64::MAX);
    let jittered = Duration::from_nanos(if nanos == 0 {
        0
    } else {
        rng.random_range(0..=nanos)
    });
    match retry_after {
        Some(after) => jittered.max(after.min(MAX_RETRY_AFTER)),
        None => jittered,
    }
}

/// The upper bound of the jittered delay before retry number `retry`:
/// `min(max, base * 2^retry)`.
pub fn backoff_cap(retry: u32, base: Duration, max: Duration) -> Duration {
    let factor = 1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX);
    base.checked_mul(factor).unwrap_or(Duration::MAX).min(max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn backoff_stays_within_the_exponential_cap() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let base = Duration::from_millis(100);
        let max = Duration::from_secs(5);
        assert_eq!(backoff_cap(0, base, max), Duration::from_millis(100));
        assert_eq!(backoff_cap(3, base, max), Duration::from_millis(800));
        assert_eq!(backoff_cap(10, base, max), max);
        assert_eq!(backoff_cap(u32::MAX, base, max), max);
        for retry in 0..40 {
            let cap = backoff_cap(retry, base, max);
            let mut seen_large = false;
            for _ in 0..200 {
                let d = backoff(retry, base, max, None, &mut rng);
                assert!(d <= cap, "retry {retry}: {d:?} > {cap:?}");
                seen_large |= d > cap / 2;
            }
            assert!(seen_large, "jitter should spread over the whole range");
        }
        assert_eq!(
            backoff(3, Duration::ZERO, max, None, &mut rng),
            Duration::ZERO
        );
    }

    #[test]
    fn backoff_honours_retry_after() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let base = Duration::from_millis(10);
        let max = Duration::from_millis(50);
        for retry in 0..10 {
            let d = backoff(retry, base, max, Some(Duration::from_secs(2)), &mut rng);
            assert!(d >= Duration::from_secs(2));
        }
        let huge = backoff(0, base, max, Some(Duration::from_secs(86_400)), &mut rng);
        assert_eq!(huge, MAX_RETRY_AFTER);
    }

    #[test]
    fn aimd_halves_on_429_and_grows_by_one() {
        let limit = AdaptiveLimit::new(8);
        assert_eq!(limit.limit(), 8);
        limit.on_success();
        assert_eq!(limit.limit(), 8, "never above the ceiling");
        limit.on_rate_limited();
        assert_eq!(limit.limit(), 4);
        limit.on_rate_limited();
        limit.on_rate_limited();
        assert_eq!(limit.limit(), 1);
        limit.on_rate_limited();
        assert_eq!(limit.limit(), 1, "never below one");
        for expected in 2..=8 {
            limit.on_success();
            assert_eq!(limit.limit(), expected);
        }
        limit.on_success();
        assert_eq!(limit.limit(), 8);
        assert_eq!(AdaptiveLimit::new(0).max(), 1);
    }

    #[test]
    fn permits_respect_the_current_limit() {
        let limit = AdaptiveLimit::new(4);
        let held: Vec<Permit> = (0..4).filter_map(|_| limit.try_acquire()).collect();
        assert_eq!(held.len(), 4);
        assert!(limit.try_acquire().is_none());
        limit.on_rate_limited(); // limit 2, 4 in flight
        drop(held);
        assert_eq!(limit.in_flight(), 0);
        let a = limit.try_acquire();
        let b = limit.try_acquire();
        assert!(a.is_some() && b.is_some());
        assert!(limit.try_acquire().is_none(), "limit was halved to 2");
        limit.on_success();
        assert!(limit.try_acquire().is_some(), "grew to 3");
    }

    #[tokio::test(start_paused = true)]
    async fn waiters_wake_when_a_permit_is_released() {
        let limit = AdaptiveLimit::new(1);
        let first = limit.acquire().await;
        let l2 = limit.clone();
        let waiter = tokio::spawn(async move {
            let _p = l2.acquire().await;
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(!waiter.is_finished());
        drop(first);
        waiter.await.expect("waiter finishes");
        assert_eq!(limit.in_flight(), 0);
    }

    #[test]
    fn request_window_allows_rpm_per_minute() {
        let start = Instant::now();
        let mut window = RequestWindow::new(3);
        for i in 0..3 {
            assert!(window.try_start(start + Duration::from_secs(i)).is_ok());
        }
        let wait = window
            .try_start(start + Duration::from_secs(10))
            .expect_err("full");
        assert_eq!(wait, Duration::from_secs(50));
        assert!(window.try_start(start + Duration::from_secs(60)).is_ok());
    }

    #[test]
    fn token_window_blocks_over_the_cap_until_old_tokens_expire() {
        let start = Instant::now();
        let mut window = TokenWindow::new(1000);
        assert!(window.check(start).is_ok());
        window.record(start, 600);
        window.record(start + Duration::from_secs(20), 500);
        let wait = window
            .check(start + Duration::from_secs(30))
            .expect_err("over the cap");
        assert_eq!(wait, Duration::from_secs(30));
        assert!(window.check(start + Duration::from_secs(60)).is_ok());
        assert_eq!(window.used(start + Duration::from_secs(60)), 500);
        assert_eq!(window.used(start + Duration::from_secs(80)), 0);
    }
}
