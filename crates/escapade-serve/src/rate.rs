//! A per-client rate limit: a token bucket per IP address (every loopback address one,
//! an IPv6 address by its /64: [`escapade_web::guard::client_key`]), `per_second` tokens
//! a second up to `burst`. HTTP requests over the rate are refused (429); WebSocket
//! messages over it wait for their token, which slows a client down without breaking its
//! session.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Buckets are forgotten once this many clients are known and theirs are full again.
const FORGET_AFTER: usize = 4096;

/// The rate limit of every client.
#[derive(Debug)]
pub struct Rate {
    per_second: f64,
    burst: f64,
    buckets: Mutex<BTreeMap<IpAddr, (f64, Instant)>>,
}

impl Rate {
    /// `per_second` requests a second per client, bursts up to `burst`; `per_second` 0
    /// means no limit.
    pub fn new(per_second: f64, burst: f64) -> Rate {
        Rate {
            per_second,
            burst: burst.max(1.0),
            buckets: Mutex::new(BTreeMap::new()),
        }
    }

    /// Takes one token for `client`: `Ok`, or how long until one is free.
    pub fn take(&self, client: IpAddr) -> Result<(), Duration> {
        if self.per_second <= 0.0 {
            return Ok(());
        }
        let client = escapade_web::guard::client_key(client);
        let now = Instant::now();
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() > FORGET_AFTER {
            let (rate, burst) = (self.per_second, self.burst);
            buckets.retain(|_, (t, at)| *t + at.elapsed().as_secs_f64() * rate < burst);
        }
        let (tokens, at) = buckets.entry(client).or_insert((self.burst, now));
        *tokens =
            (*tokens + now.duration_since(*at).as_secs_f64() * self.per_second).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - *tokens) / self.per_second))
        }
    }

    /// Waits until `client` has a token, then takes it.
    pub async fn wait(&self, client: IpAddr) {
        while let Err(wait) = self.take(client) {
            tokio::time::sleep(wait).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_refusals_per_client() {
        let rate = Rate::new(1.0, 3.0);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        for _ in 0..3 {
            assert!(rate.take(a).is_ok());
        }
        let wait = rate.take(a).unwrap_err();
        assert!(wait > Duration::ZERO && wait <= Duration::from_secs(1));
        assert!(rate.take(b).is_ok(), "another client has its own bucket");
    }

    #[test]
    fn one_machine_is_one_client_whatever_its_loopback_address() {
        let rate = Rate::new(1.0, 3.0);
        let local = ["127.0.0.2", "127.9.9.9", "::1"];
        for ip in local {
            assert!(rate.take(ip.parse().unwrap()).is_ok(), "{ip}");
        }
        assert!(rate.take("127.0.0.1".parse().unwrap()).is_err());
        for ip in ["2001:db8::1", "2001:db8::2", "2001:db8::3"] {
            assert!(rate.take(ip.parse().unwrap()).is_ok(), "{ip}");
        }
        assert!(rate.take("2001:db8::ffff".parse().unwrap()).is_err());
    }

    #[test]
    fn zero_is_no_limit() {
        let rate = Rate::new(0.0, 1.0);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        assert!((0..10_000).all(|_| rate.take(a).is_ok()));
    }
}
