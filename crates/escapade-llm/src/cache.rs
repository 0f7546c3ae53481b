//! The response cache: a request identical in every byte that matters is answered from a
//! local store instead of the provider, so re-running a crashed run, a report-changing
//! fix or a judge costs nothing the second time.
//!
//! The store is one SQLite database (`responses.sqlite3` in the cache directory, or
//! `$ESCAPADE_RESPONSE_CACHE`), in WAL mode: readers never wait for a writer, several
//! episodes and several processes share it, and a process killed in the middle of a write
//! (even `kill -9`) leaves the last committed state, never a torn one. Each entry is keyed
//! by [`ResponseCache::key`]: the SHA-256 of the backend's identity
//! ([`crate::Backend::cache_identity`]: its spec, server and the settings it adds to every
//! request) and the request — every message, the bytes of every picture, the function
//! schemas, the reply format and the decoding parameters, the seed among them. Agents
//! derive the seed of each request from the episode's seed, which the runner derives from
//! the epoch, so the seed is the sample index: the epochs of a run at a temperature above
//! zero are separate samples and never answer each other, while a run played again with
//! the same seed finds every reply. The store is bounded ([`DEFAULT_MAX_BYTES`],
//! `$ESCAPADE_CACHE_MAX_MB`): past the bound the entries used longest ago go first.
//!
//! [`CacheMode`] says whether a client reads, writes, both (`on`, the default of
//! `escapade run`) or neither. A reply read from the cache costs nothing and counts as a
//! cache hit in the usage of its step.

use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use crate::{ChatRequest, ChatResponse, LlmError, LocalOptions};

/// The database's file name in the cache directory.
pub const CACHE_FILE: &str = "responses.sqlite3";
/// An environment variable naming the database file instead (tests point it at a
/// temporary directory).
pub const CACHE_ENV: &str = "ESCAPADE_RESPONSE_CACHE";
/// An environment variable giving the size bound in megabytes.
pub const MAX_MB_ENV: &str = "ESCAPADE_CACHE_MAX_MB";
/// The default size bound: 512 MiB of replies (hundreds of thousands of steps).
pub const DEFAULT_MAX_BYTES: u64 = 512 << 20;
/// How long a write waits for another process's write to finish.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);
/// Part of every key: a change of how keys are made changes it, so old entries are never
/// read under a new meaning.
const KEY_VERSION: &str = "escapade-response-cache/1";

/// Whether a client reads replies from the cache, writes its replies into it, or both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CacheMode {
    /// Read and write (the default of `escapade run`).
    #[default]
    On,
    /// Read only: replies found are used, new ones are not kept.
    Read,
    /// Write only: every request goes to the provider, and its reply is kept.
    Write,
    /// Neither.
    Off,
}

impl CacheMode {
    /// Whether replies are looked up.
    pub fn reads(self) -> bool {
        matches!(self, CacheMode::On | CacheMode::Read)
    }

    /// Whether replies are kept.
    pub fn writes(self) -> bool {
        matches!(self, CacheMode::On | CacheMode::Write)
    }
}

impl fmt::Display for CacheMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CacheMode::On => "on",
            CacheMode::Read => "read",
            CacheMode::Write => "write",
            CacheMode::Off => "off",
        })
    }
}

impl FromStr for CacheMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "on" | "read-write" => Ok(CacheMode::On),
            "read" => Ok(CacheMode::Read),
            "write" => Ok(CacheMode::Write),
            "off" => Ok(CacheMode::Off),
            other => Err(format!(
                "bad cache mode `{other}`: expected on (read and write), read, write or off"
            )),
        }
    }
}

/// What [`ResponseCache::stats`] reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CacheStats {
    /// The database file.
    pub path: PathBuf,
    /// Replies kept.
    pub entries: u64,
    /// Their size in bytes (the replies as stored).
    pub bytes: u64,
    /// The size bound.
    pub max_bytes: u64,
    /// Times a kept reply was used instead of a request.
    pub hits: u64,
    /// Replies kept per backend spec.
    pub backends: Vec<(String, u64)>,
    /// When the oldest reply was kept (UTC, RFC 3339).
    pub oldest: Option<String>,
    /// When the newest reply was kept.
    pub newest: Option<String>,
}

/// An open response cache; shareable between threads (one connection behind a lock, and
/// SQLite's own locking between processes).
#[derive(Debug)]
pub struct ResponseCache {
    path: PathBuf,
    conn: Mutex<Connection>,
    max_bytes: u64,
}

/// Streams bytes into a SHA-256.
struct HashWriter(Sha256);

impl std::io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

fn stamp(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

/// The database file: `$ESCAPADE_RESPONSE_CACHE`, else [`CACHE_FILE`] in the cache
/// directory of the local model (`$ESCAPADE_CACHE`, `$XDG_CACHE_HOME/escapade`,
/// `~/.cache/escapade`).
pub fn default_path() -> PathBuf {
    match std::env::var_os(CACHE_ENV).filter(|p| !p.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => crate::local::cache_dir(&LocalOptions::default()).join(CACHE_FILE),
    }
}

/// The size bound: `$ESCAPADE_CACHE_MAX_MB` megabytes, else [`DEFAULT_MAX_BYTES`].
pub fn default_max_bytes() -> Result<u64, LlmError> {
    match std::env::var(MAX_MB_ENV) {
        Err(_) => Ok(DEFAULT_MAX_BYTES),
        Ok(v) => v
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|mb| *mb > 0)
            .map(|mb| mb.saturating_mul(1 << 20))
            .ok_or_else(|| {
                LlmError::Config(format!(
                    "{MAX_MB_ENV}=`{v}`: expected a positive number of megabytes"
                ))
            }),
    }
}

impl ResponseCache {
    /// Opens (creating if needed) the cache at `path`, bounded by [`default_max_bytes`].
    pub fn open(path: &Path) -> Result<ResponseCache, LlmError> {
        let bad = |problem: String| LlmError::Cache {
            path: path.to_path_buf(),
            problem,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| bad(format!("cannot create its folder: {e}")))?;
        }
        let conn = Connection::open(path).map_err(|e| bad(e.to_string()))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| bad(e.to_string()))?;
        // WAL: readers and one writer at once, and a crash keeps the last commit;
        // NORMAL sync is durable against a killed process (not a power cut, which
        // loses at most the last replies, never the database)
        let mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(|e| bad(e.to_string()))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(bad(format!(
                "cannot use write-ahead logging (journal mode {mode})"
            )));
        }
        conn.execute_batch(
            "PRAGMA synchronous=NORMAL;
             CREATE TABLE IF NOT EXISTS responses (
                 key TEXT PRIMARY KEY,
                 backend TEXT NOT NULL,
                 response TEXT NOT NULL,
                 size INTEGER NOT NULL,
                 created INTEGER NOT NULL,
                 used INTEGER NOT NULL,
                 hits INTEGER NOT NULL DEFAULT 0
             );
             CREATE INDEX IF NOT EXISTS responses_used ON responses(used);
             -- the total size, kept by triggers in the writer's own transaction, so a
             -- write never sums the table to find whether it is over its bound
             CREATE TABLE IF NOT EXISTS totals (
                 id INTEGER PRIMARY KEY CHECK (id = 1),
                 bytes INTEGER NOT NULL
             );
             INSERT OR IGNORE INTO totals
                 VALUES (1, (SELECT COALESCE(SUM(size), 0) FROM responses));
             CREATE TRIGGER IF NOT EXISTS responses_added AFTER INSERT ON responses
                 BEGIN UPDATE totals SET bytes = bytes + NEW.size WHERE id = 1; END;
             CREATE TRIGGER IF NOT EXISTS responses_removed AFTER DELETE ON responses
                 BEGIN UPDATE totals SET bytes = bytes - OLD.size WHERE id = 1; END;
             CREATE TRIGGER IF NOT EXISTS responses_resized AFTER UPDATE OF size ON responses
                 BEGIN UPDATE totals SET bytes = bytes - OLD.size + NEW.size WHERE id = 1; END;",
        )
        .map_err(|e| bad(format!("not a response cache, or damaged: {e}")))?;
        Ok(ResponseCache {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
            max_bytes: default_max_bytes()?,
        })
    }

    /// Opens the cache at [`default_path`].
    pub fn open_default() -> Result<ResponseCache, LlmError> {
        Self::open(&default_path())
    }

    /// The same cache bounded by `max_bytes` instead.
    pub fn with_max_bytes(mut self, max_bytes: u64) -> ResponseCache {
        self.max_bytes = max_bytes.max(1);
        self
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, e: impl fmt::Display) -> LlmError {
        LlmError::Cache {
            path: self.path.clone(),
            problem: e.to_string(),
        }
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The key of `request` on a backend whose identity is `identity`: lowercase hex
    /// SHA-256 of the identity, the request as JSON (pictures appear there by name only)
    /// and the SHA-256 of every picture's bytes, in order.
    pub fn key(identity: &str, request: &ChatRequest) -> String {
        let mut h = HashWriter(Sha256::new());
        let _ = writeln!(h, "{KEY_VERSION}\n{identity}");
        // a request always serializes, and writing into a hasher cannot fail
        let _ = serde_json::to_writer(&mut h, request);
        for part in request.messages.iter().flat_map(|m| &m.parts) {
            if let Some(bytes) = part.picture_bytes() {
                let _ = write!(h, "\npicture {}", hex::encode(Sha256::digest(bytes)));
            }
        }
        hex::encode(h.0.finalize())
    }

    /// The reply kept under `key`, if any (and marks it used).
    pub fn get(&self, key: &str) -> Result<Option<ChatResponse>, LlmError> {
        let conn = self.conn();
        let text: Option<String> = conn
            .query_row(
                "SELECT response FROM responses WHERE key = ?1",
                params![key],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        let Some(text) = text else {
            return Ok(None);
        };
        conn.execute(
            "UPDATE responses SET used = ?2, hits = hits + 1 WHERE key = ?1",
            params![key, now_ms()],
        )
        .map_err(|e| self.err(e))?;
        // an entry this build cannot read is a miss (and is replaced by the next put)
        Ok(serde_json::from_str(&text).ok())
    }

    /// Keeps `response` of `backend` under `key`, then removes the entries used longest
    /// ago while the cache is over its bound.
    pub fn put(&self, key: &str, backend: &str, response: &ChatResponse) -> Result<(), LlmError> {
        let text = serde_json::to_string(response).map_err(|e| self.err(e))?;
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let now = now_ms();
        tx.execute(
            "INSERT INTO responses (key, backend, response, size, created, used, hits)
             VALUES (?1, ?2, ?3, ?4, ?5, ?5, 0)
             ON CONFLICT(key) DO UPDATE SET response = ?3, size = ?4, used = ?5",
            params![key, backend, text, text.len() as i64, now],
        )
        .map_err(|e| self.err(e))?;
        let total: i64 = tx
            .query_row("SELECT bytes FROM totals WHERE id = 1", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        let mut over = total - i64::try_from(self.max_bytes).unwrap_or(i64::MAX);
        if over > 0 {
            let mut oldest = tx
                .prepare("SELECT key, size FROM responses WHERE key != ?1 ORDER BY used, key")
                .map_err(|e| self.err(e))?;
            let victims: Vec<(String, i64)> = oldest
                .query_map(params![key], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(|e| self.err(e))?
                .filter_map(Result::ok)
                .take_while(|(_, size)| {
                    let more = over > 0;
                    over -= size;
                    more
                })
                .collect();
            drop(oldest);
            for (victim, _) in victims {
                tx.execute("DELETE FROM responses WHERE key = ?1", params![victim])
                    .map_err(|e| self.err(e))?;
            }
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// What the cache holds.
    pub fn stats(&self) -> Result<CacheStats, LlmError> {
        let conn = self.conn();
        let (entries, bytes, hits, oldest, newest): (i64, i64, i64, Option<i64>, Option<i64>) =
            conn.query_row(
                "SELECT COUNT(*), COALESCE(SUM(size), 0), COALESCE(SUM(hits), 0),
                        MIN(created), MAX(created) FROM responses",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .map_err(|e| self.err(e))?;
        let mut by_backend = conn
            .prepare("SELECT backend, COUNT(*) FROM responses GROUP BY backend ORDER BY backend")
            .map_err(|e| self.err(e))?;
        let backends = by_backend
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .map_err(|e| self.err(e))?
            .filter_map(Result::ok)
            .map(|(b, n)| (b, n.max(0) as u64))
            .collect();
        Ok(CacheStats {
            path: self.path.clone(),
            entries: entries.max(0) as u64,
            bytes: bytes.max(0) as u64,
            max_bytes: self.max_bytes,
            hits: hits.max(0) as u64,
            backends,
            oldest: oldest.map(stamp),
            newest: newest.map(stamp),
        })
    }

    /// Removes every reply (of `backend` only, when given) and returns how many; the file
    /// shrinks when the cache is emptied.
    pub fn clear(&self, backend: Option<&str>) -> Result<u64, LlmError> {
        let conn = self.conn();
        let n = match backend {
            Some(b) => conn.execute("DELETE FROM responses WHERE backend = ?1", params![b]),
            None => conn.execute("DELETE FROM responses", []),
        }
        .map_err(|e| self.err(e))?;
        let left: i64 = conn
            .query_row("SELECT COUNT(*) FROM responses", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if left == 0 {
            conn.execute_batch("VACUUM; PRAGMA wal_checkpoint(TRUNCATE);")
                .map_err(|e| self.err(e))?;
        }
        Ok(n as u64)
    }

    /// SQLite's own check of the file (`ok` when sound).
    pub fn integrity_check(&self) -> Result<String, LlmError> {
        self.conn()
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{Message, Part, Role};

    fn ask(text: &str) -> ChatRequest {
        ChatRequest {
            messages: vec![Message::text(Role::User, text)],
            temperature: Some(0.7),
            seed: Some(1),
            ..ChatRequest::default()
        }
    }

    fn reply(text: &str) -> ChatResponse {
        ChatResponse {
            text: text.into(),
            ..ChatResponse::default()
        }
    }

    #[test]
    fn modes_parse_and_say_what_they_do() {
        for (s, reads, writes) in [
            ("on", true, true),
            ("read", true, false),
            ("write", false, true),
            ("off", false, false),
        ] {
            let m: CacheMode = s.parse().unwrap();
            assert_eq!(
                (m.reads(), m.writes(), m.to_string()),
                (reads, writes, s.into())
            );
        }
        assert_eq!("read-write".parse::<CacheMode>(), Ok(CacheMode::On));
        assert!(
            "maybe"
                .parse::<CacheMode>()
                .unwrap_err()
                .contains("expected on")
        );
    }

    #[test]
    fn keys_change_with_everything_that_matters_and_nothing_else() {
        let base = ResponseCache::key("openai/gpt-4o", &ask("hi"));
        assert_eq!(base, ResponseCache::key("openai/gpt-4o", &ask("hi")));
        assert_ne!(base, ResponseCache::key("openai/gpt-4o-mini", &ask("hi")));
        assert_ne!(base, ResponseCache::key("openai/gpt-4o", &ask("hi!")));
        let mut other_seed = ask("hi");
        other_seed.seed = Some(2);
        assert_ne!(base, ResponseCache::key("openai/gpt-4o", &other_seed));
        let mut hotter = ask("hi");
        hotter.temperature = Some(1.0);
        assert_ne!(base, ResponseCache::key("openai/gpt-4o", &hotter));
        // a picture counts by its bytes, whatever name the caller gave it
        let with = |bytes: Vec<u8>, name: &str| {
            let mut r = ask("look");
            r.messages[0].parts.push(Part::png(name, Arc::new(bytes)));
            ResponseCache::key("openai/gpt-4o", &r)
        };
        assert_ne!(with(vec![1, 2], "a"), with(vec![1, 3], "a"));
        assert_ne!(
            with(vec![1, 2], "a"),
            ResponseCache::key("openai/gpt-4o", &ask("look"))
        );
    }

    #[test]
    fn replies_are_kept_found_counted_and_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ResponseCache::open(&dir.path().join("sub").join(CACHE_FILE)).unwrap();
        let key = ResponseCache::key("x/m", &ask("hi"));
        assert_eq!(cache.get(&key).unwrap(), None);
        cache.put(&key, "x/m", &reply("hello")).unwrap();
        assert_eq!(cache.get(&key).unwrap(), Some(reply("hello")));
        cache.put(&key, "x/m", &reply("again")).unwrap();
        assert_eq!(cache.get(&key).unwrap(), Some(reply("again")));
        let stats = cache.stats().unwrap();
        assert_eq!((stats.entries, stats.hits), (1, 2));
        assert_eq!(stats.backends, vec![("x/m".to_string(), 1)]);
        assert!(stats.oldest.is_some());
        // another handle on the same file sees it
        let again = ResponseCache::open(cache.path()).unwrap();
        assert_eq!(again.get(&key).unwrap(), Some(reply("again")));
        cache.put("other", "y/m", &reply("y")).unwrap();
        assert_eq!(cache.clear(Some("y/m")).unwrap(), 1);
        assert_eq!(cache.clear(None).unwrap(), 1);
        assert_eq!(cache.stats().unwrap().entries, 0);
        assert_eq!(cache.integrity_check().unwrap(), "ok");
    }

    #[test]
    fn past_the_bound_the_entries_used_longest_ago_go() {
        let dir = tempfile::tempdir().unwrap();
        let big = "x".repeat(80);
        let one = serde_json::to_string(&reply(&big)).unwrap().len() as u64;
        // room for three and a half
        let bound = 3 * one + one / 2;
        let cache = ResponseCache::open(&dir.path().join(CACHE_FILE))
            .unwrap()
            .with_max_bytes(bound);
        for k in ["a", "b", "c"] {
            cache.put(k, "m/m", &reply(&big)).unwrap();
            std::thread::sleep(Duration::from_millis(2));
        }
        // `a` used again: `b` is now the one used longest ago
        assert!(cache.get("a").unwrap().is_some());
        std::thread::sleep(Duration::from_millis(2));
        cache.put("d", "m/m", &reply(&big)).unwrap();
        let stats = cache.stats().unwrap();
        assert_eq!((stats.entries, stats.bytes), (3, 3 * one), "{stats:?}");
        assert!(cache.get("b").unwrap().is_none());
        assert!(cache.get("a").unwrap().is_some() && cache.get("d").unwrap().is_some());
    }

    #[test]
    fn a_file_that_is_no_database_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CACHE_FILE);
        std::fs::write(&path, "not a database, just some text that is long enough").unwrap();
        let e = ResponseCache::open(&path).unwrap_err();
        assert!(matches!(e, LlmError::Cache { .. }), "{e}");
    }
}
