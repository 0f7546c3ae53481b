//! The cost cap of a run (`escapade run --max-cost USD`): no request is sent once what
//! the run has spent, plus what the requests in flight may still cost, plus what this
//! one may cost, would pass the cap.
//!
//! Every client of a run shares one [`CostCap`]. Before a request goes out the client
//! reserves its worst cost — the prompt's tokens as [`crate::tokens`] counts them and the
//! reply's whole `max_tokens` (and thinking budget) at the model's price — and when the
//! reply comes back the reservation becomes the reply's actual cost. A request the cap
//! refuses fails with [`LlmError::CostCap`] before anything is sent; the runner then
//! starts no more episodes, and `escapade resume --max-cost` continues with a new cap.
//! Replies from the response cache cost nothing and are never refused, and a model
//! without a price is never refused either (its cost is unknown, not zero: the CLI warns).

use std::sync::{Arc, Mutex};

use crate::LlmError;

/// A cap on what one run spends, shared by its clients.
#[derive(Debug)]
pub struct CostCap {
    limit_usd: f64,
    state: Mutex<Spent>,
}

#[derive(Debug, Default)]
struct Spent {
    spent: f64,
    reserved: f64,
    refused: u64,
}

/// What one request in flight may still cost; released when dropped, or turned into the
/// actual cost by [`Reservation::settle`].
#[derive(Debug)]
pub struct Reservation {
    cap: Arc<CostCap>,
    amount: f64,
}

impl CostCap {
    /// A cap of `limit_usd` on a run that has already spent `spent_usd` (a resumed run's
    /// earlier sessions).
    pub fn new(limit_usd: f64, spent_usd: f64) -> Arc<CostCap> {
        Arc::new(CostCap {
            limit_usd,
            state: Mutex::new(Spent {
                spent: spent_usd.max(0.0),
                ..Spent::default()
            }),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Spent> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The cap in US dollars.
    pub fn limit(&self) -> f64 {
        self.limit_usd
    }

    /// What the run has spent so far (replies received, earlier sessions included).
    pub fn spent(&self) -> f64 {
        self.state().spent
    }

    /// How many requests the cap refused.
    pub fn refused(&self) -> u64 {
        self.state().refused
    }

    /// Whether a request was refused: the cap was reached.
    pub fn reached(&self) -> bool {
        self.refused() > 0
    }

    /// Reserves `worst_usd` for one request, or refuses it when the run's spending, what
    /// is in flight and it would pass the cap. A request that costs nothing is never
    /// refused.
    pub fn reserve(self: &Arc<Self>, worst_usd: f64) -> Result<Reservation, LlmError> {
        let worst = if worst_usd.is_finite() {
            worst_usd.max(0.0)
        } else {
            0.0
        };
        let mut state = self.state();
        if worst > 0.0 && state.spent + state.reserved + worst > self.limit_usd {
            state.refused += 1;
            return Err(LlmError::CostCap {
                limit_usd: self.limit_usd,
                spent_usd: state.spent,
                pending_usd: state.reserved + worst,
            });
        }
        state.reserved += worst;
        Ok(Reservation {
            cap: Arc::clone(self),
            amount: worst,
        })
    }
}

impl Reservation {
    /// The request came back costing `actual_usd`: the run has spent it, and the
    /// reservation is released.
    pub fn settle(mut self, actual_usd: f64) {
        let mut state = self.cap.state();
        state.reserved = (state.reserved - self.amount).max(0.0);
        state.spent += actual_usd.max(0.0);
        self.amount = 0.0;
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if self.amount > 0.0 {
            let mut state = self.cap.state();
            state.reserved = (state.reserved - self.amount).max(0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_in_flight_count_against_the_cap() {
        let cap = CostCap::new(1.0, 0.25);
        let a = cap.reserve(0.5).unwrap();
        // 0.25 spent + 0.5 in flight + 0.5 would pass 1.0
        match cap.reserve(0.5) {
            Err(LlmError::CostCap {
                limit_usd,
                spent_usd,
                pending_usd,
            }) => assert_eq!((limit_usd, spent_usd, pending_usd), (1.0, 0.25, 1.0)),
            other => panic!("{other:?}"),
        }
        assert!(cap.reached());
        // the first came back cheaper than feared: room again
        a.settle(0.1);
        assert!((cap.spent() - 0.35).abs() < 1e-12);
        let b = cap.reserve(0.5).unwrap();
        drop(b); // failed: nothing spent, the room comes back
        assert!((cap.spent() - 0.35).abs() < 1e-12);
        assert!(cap.reserve(0.6).is_ok());
        // a free request is never refused, even past the cap
        let over = CostCap::new(0.1, 5.0);
        assert!(over.reserve(0.0).is_ok());
        assert!(over.reserve(f64::NAN).is_ok());
        assert_eq!(over.refused(), 0);
    }
}
