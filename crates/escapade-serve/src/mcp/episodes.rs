//! The episodes a server holds in play, by id.
//!
//! An episode id is 128 random bits from the operating system (not a counter): over
//! streamable HTTP every request stands alone (MCP 2026-07-28 has no sessions), so the
//! id is the only thing that binds a call to an episode, and one client must not be able
//! to guess another's. The table has a maximum size and closes episodes idle for longer
//! than its timeout whenever it needs room, so clients that vanish without ending their
//! episodes cannot fill it for good.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use std::time::{Duration, Instant};
use tokio::sync::Mutex as AsyncMutex;

use rand::Rng;

use super::error::ToolError;
use super::play::Held;

/// How many episodes a server holds at once unless told otherwise.
pub const DEFAULT_MAX_EPISODES: usize = 256;

/// How long an episode may sit without a call before the table may close it.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(30 * 60);

/// One episode in the table: the episode, and when a call last reached it.
struct Slot {
    episode: Arc<AsyncMutex<Held>>,
    touched: Instant,
}

/// The episodes in play.
pub struct Episodes {
    slots: Mutex<BTreeMap<String, Slot>>,
    max: usize,
    idle: Duration,
}

impl Episodes {
    /// An empty table of at most `max` episodes, closing those idle for `idle` when it
    /// needs room.
    pub fn new(max: usize, idle: Duration) -> Episodes {
        Episodes {
            slots: Mutex::new(BTreeMap::new()),
            max: max.max(1),
            idle,
        }
    }

    /// A fresh id for an episode about to start, when there is room (closing idle
    /// episodes first when the table is full). The episode is started outside the
    /// table's lock, then [`Episodes::put`] under this id.
    pub fn reserve(&self) -> Result<String, ToolError> {
        let mut slots = self.lock();
        self.make_room(&mut slots)?;
        let bytes: [u8; 16] = rand::rng().random();
        Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Adds an episode started under an id from [`Episodes::reserve`].
    pub fn put(&self, id: &str, episode: Held) -> Result<Arc<AsyncMutex<Held>>, ToolError> {
        let mut slots = self.lock();
        self.make_room(&mut slots)?;
        let episode = Arc::new(AsyncMutex::new(episode));
        slots.insert(
            id.to_string(),
            Slot {
                episode: episode.clone(),
                touched: Instant::now(),
            },
        );
        Ok(episode)
    }

    /// Closes idle episodes when the table is full; still full is an error.
    fn make_room(&self, slots: &mut BTreeMap<String, Slot>) -> Result<(), ToolError> {
        if slots.len() >= self.max {
            let now = Instant::now();
            let idle: Vec<String> = slots
                .iter()
                .filter(|(_, s)| now.duration_since(s.touched) >= self.idle)
                .map(|(id, _)| id.clone())
                .collect();
            for id in idle {
                if let Some(slot) = slots.remove(&id) {
                    close(slot);
                }
            }
        }
        if slots.len() >= self.max {
            return Err(ToolError::TooManyEpisodes(self.max));
        }
        Ok(())
    }

    /// The episode `id`, marked as used now.
    pub fn get(&self, id: &str) -> Result<Arc<AsyncMutex<Held>>, ToolError> {
        let mut slots = self.lock();
        let slot = slots
            .get_mut(id)
            .ok_or_else(|| ToolError::UnknownEpisode(id.to_string()))?;
        slot.touched = Instant::now();
        Ok(slot.episode.clone())
    }

    /// Takes episode `id` out of the table.
    pub fn remove(&self, id: &str) -> Result<Arc<AsyncMutex<Held>>, ToolError> {
        self.lock()
            .remove(id)
            .map(|s| s.episode)
            .ok_or_else(|| ToolError::UnknownEpisode(id.to_string()))
    }

    /// How many episodes are in play.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// No episode is in play.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ends every episode (the server is stopping) and waits until each unfinished one
    /// is recorded as it stands, its error saying the server stopped (a step in flight
    /// finishes first).
    pub async fn close_all(&self) {
        let slots = std::mem::take(&mut *self.lock());
        let ending = slots.into_values().map(|slot| async move {
            let stopped = escapade_run::remote::STOPPED;
            slot.episode.lock().await.end_because(stopped).await;
        });
        futures::future::join_all(ending).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Slot>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Ends an episode taken out of the table: dropping the episode core gives up (a
/// recording still gets its episode row) once its last holder lets go of it — here, or
/// after the step in flight when a call is still playing it.
fn close(slot: Slot) {
    drop(slot);
}
