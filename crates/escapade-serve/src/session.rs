//! The session table: one environment per session, at most `max` sessions, each reaped
//! once idle for longer than the timeout.
//!
//! A session is a slot that holds at most one [`Live`] episode (a reset replaces it). The
//! table never trusts a client to say goodbye: a WebSocket whose client vanished without
//! closing (a half-open connection) holds its slot only until the idle timeout, after
//! which [`Sessions::reap`] removes it and tells its connection to close
//! ([`Session::closed`]). A removed session's episode gives up and is still recorded
//! ([`crate::app::App::reap`], [`escapade_run::remote`]).
//!
//! Session ids are 128 random bits from the operating system's generator: knowing one's
//! own id says nothing about another's, so no client reaches another's session.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use escapade_run::remote::Episode;
use rand::Rng;

use crate::error::ServeError;

/// A session's slot.
#[derive(Debug)]
pub struct Session {
    /// The session's id (32 hex digits).
    pub id: String,
    /// The episode being played; `None` before the first reset. A step holds this lock
    /// for its whole length, so a second step finds it taken ([`ServeError::Busy`]).
    pub live: tokio::sync::Mutex<Option<Live>>,
    last_used: Mutex<Instant>,
    closed: tokio::sync::watch::Sender<bool>,
}

impl Session {
    /// Marks the session used now (the idle timeout counts from here).
    pub fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    fn idle(&self) -> Duration {
        self.last_used
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .elapsed()
    }

    /// A receiver that turns `true` when the table removed the session (closed, reaped,
    /// shut down): its connection should close.
    pub fn closed(&self) -> tokio::sync::watch::Receiver<bool> {
        self.closed.subscribe()
    }
}

/// An episode in a session, with what the server tells the client about it.
#[derive(Debug)]
pub struct Live {
    /// The episode.
    pub episode: Episode,
    /// Where it came from (suite and index, or an inline scenario) and how it started.
    pub about: About,
    /// Where the episode stood when the client was last told (rewards are measured
    /// from it).
    pub standing: escapade_core::reward::Standing,
    /// The reward the client asked for (`options.reward` of the reset).
    pub reward: escapade_core::reward::Reward,
    /// Steps the client took (re-asks not counted; a partner's steps not counted).
    pub steps: u32,
}

/// What started an episode, as the state shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct About {
    /// The client's episode id (OpenEnv `episode_id`), or one the server made.
    pub episode_id: String,
    /// The world.
    pub world: String,
    /// The suite, or `inline` for a scenario sent with the reset.
    pub suite: String,
    /// The index in the suite (`None` for an inline scenario).
    pub index: Option<usize>,
    /// The scenario's id.
    pub scenario: String,
    /// The seed given to `reset`.
    pub seed: u64,
    /// The role the client plays (`None`: every role).
    pub role: Option<String>,
    /// The partner agent in the other roles.
    pub partner: Option<String>,
    /// The reward the client sees: `progress`, `sparse` or `distance`.
    pub reward: &'static str,
}

/// The table's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Sessions held at once.
    pub max_sessions: usize,
    /// A session unused for this long is removed.
    pub idle_timeout: Duration,
}

/// The session table.
#[derive(Debug)]
pub struct Sessions {
    table: Mutex<BTreeMap<String, Arc<Session>>>,
    limits: Limits,
}

impl Sessions {
    /// An empty table.
    pub fn new(limits: Limits) -> Sessions {
        Sessions {
            table: Mutex::new(BTreeMap::new()),
            limits,
        }
    }

    /// The limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Arc<Session>>> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Opens a session; [`ServeError::Full`] when every slot is taken.
    pub fn open(&self) -> Result<Arc<Session>, ServeError> {
        let mut table = self.lock();
        if table.len() >= self.limits.max_sessions {
            return Err(ServeError::Full(self.limits.max_sessions));
        }
        let bytes: [u8; 16] = rand::rng().random();
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let session = Arc::new(Session {
            id: id.clone(),
            live: tokio::sync::Mutex::new(None),
            last_used: Mutex::new(Instant::now()),
            closed: tokio::sync::watch::channel(false).0,
        });
        table.insert(id, session.clone());
        Ok(session)
    }

    /// The session `id`, marked used; [`ServeError::UnknownSession`] when there is none.
    pub fn get(&self, id: &str) -> Result<Arc<Session>, ServeError> {
        let session = self
            .lock()
            .get(id)
            .cloned()
            .ok_or_else(|| ServeError::UnknownSession(short(id)))?;
        session.touch();
        Ok(session)
    }

    /// Removes session `id` (its connection is told to close); the removed session.
    pub fn close(&self, id: &str) -> Option<Arc<Session>> {
        let session = self.lock().remove(id);
        if let Some(s) = &session {
            s.closed.send_replace(true);
        }
        session
    }

    /// Removes every session idle for longer than the timeout and not in the middle of a
    /// step; returns them (dropping them gives their episodes up).
    pub fn reap(&self) -> Vec<Arc<Session>> {
        let timeout = self.limits.idle_timeout;
        let mut table = self.lock();
        let idle: Vec<String> = table
            .iter()
            .filter(|(_, s)| s.idle() > timeout && s.live.try_lock().is_ok())
            .map(|(id, _)| id.clone())
            .collect();
        let removed: Vec<Arc<Session>> = idle.iter().filter_map(|id| table.remove(id)).collect();
        drop(table);
        for s in &removed {
            s.closed.send_replace(true);
        }
        removed
    }

    /// Removes every session (shutting down); returns them.
    pub fn drain(&self) -> Vec<Arc<Session>> {
        let removed: Vec<Arc<Session>> = std::mem::take(&mut *self.lock()).into_values().collect();
        for s in &removed {
            s.closed.send_replace(true);
        }
        removed
    }

    /// Sessions held now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// No session is held.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }
}

/// An id as an error message shows it: at most 40 characters of it.
fn short(id: &str) -> String {
    id.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(max: usize, idle_ms: u64) -> Sessions {
        Sessions::new(Limits {
            max_sessions: max,
            idle_timeout: Duration::from_millis(idle_ms),
        })
    }

    #[test]
    fn the_table_is_full_at_its_maximum_and_frees_a_closed_slot() {
        let t = table(2, 60_000);
        let a = t.open().unwrap();
        let _b = t.open().unwrap();
        assert!(matches!(t.open(), Err(ServeError::Full(2))));
        assert!(t.close(&a.id).is_some());
        assert!(*a.closed().borrow());
        assert!(t.open().is_ok());
        assert!(matches!(t.get(&a.id), Err(ServeError::UnknownSession(_))));
    }

    #[test]
    fn ids_are_long_and_distinct() {
        let t = table(100, 60_000);
        let ids: std::collections::BTreeSet<String> =
            (0..100).map(|_| t.open().unwrap().id.clone()).collect();
        assert_eq!(ids.len(), 100);
        assert!(ids.iter().all(|i| i.len() == 32));
    }

    #[test]
    fn idle_sessions_are_reaped_busy_and_used_ones_kept() {
        let t = table(10, 30);
        let idle = t.open().unwrap();
        let busy = t.open().unwrap();
        let used = t.open().unwrap();
        let guard = busy.live.try_lock().unwrap();
        std::thread::sleep(Duration::from_millis(60));
        t.get(&used.id).unwrap();
        let reaped: Vec<String> = t.reap().iter().map(|s| s.id.clone()).collect();
        assert_eq!(reaped, vec![idle.id.clone()]);
        assert_eq!(t.len(), 2);
        drop(guard);
        assert_eq!(t.drain().len(), 2);
        assert!(t.is_empty());
    }
}
