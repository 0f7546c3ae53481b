//! A process-wide store of drawn pictures, bounded in bytes, that forgets the least
//! recently used.
//!
//! A world's picture is a pure function of what it is drawn from (a COMMA module's
//! drawing, a VisEscape room and state), so the same key is the same bytes whenever and
//! wherever it is drawn: within an episode, in another epoch, in another scenario that
//! shows the same thing. A [`Memo`] keeps each picture once with its SHA-256, so that a
//! second look-up costs a map search instead of a drawing, an encoding and a hash. What
//! it holds never changes an output, only how often the same bytes are made.
//!
//! Memory is bounded: past its bound in bytes, the least recently used pictures are
//! forgotten until a quarter of the room is free again.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::Canvas;

/// The room counted for an entry besides its PNG: its key, address and bookkeeping.
pub const ENTRY_OVERHEAD: usize = 512;

/// A drawn picture and its address.
#[derive(Debug, PartialEq, Eq)]
pub struct Picture {
    /// The PNG bytes.
    pub png: Vec<u8>,
    /// Lowercase hex SHA-256 of `png`, computed once with the picture.
    pub sha256: String,
    /// An exact text description of what it shows, when the world gives one.
    pub alt: Option<String>,
}

/// Pictures by key, at most `max` bytes of them (see the module docs).
#[derive(Debug)]
pub struct Memo<K> {
    max: usize,
    inner: Mutex<Entries<K>>,
}

#[derive(Debug)]
struct Entries<K> {
    pictures: BTreeMap<K, (Arc<Picture>, u64)>,
    bytes: usize,
    clock: u64,
}

fn size(picture: &Picture) -> usize {
    picture.png.len() + picture.alt.as_ref().map_or(0, String::len) + ENTRY_OVERHEAD
}

impl<K: Ord + Clone> Memo<K> {
    /// An empty store of at most `max` bytes (for a `static`).
    pub const fn new(max: usize) -> Memo<K> {
        Memo {
            max,
            inner: Mutex::new(Entries {
                pictures: BTreeMap::new(),
                bytes: 0,
                clock: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries<K>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The picture kept for `key`, if any (it becomes the most recently used).
    pub fn get(&self, key: &K) -> Option<Arc<Picture>> {
        let mut entries = self.lock();
        entries.clock += 1;
        let now = entries.clock;
        let (picture, used) = entries.pictures.get_mut(key)?;
        *used = now;
        Some(picture.clone())
    }

    /// Keeps `picture` for `key`, forgetting the least recently used past the bound.
    pub fn insert(&self, key: K, picture: Arc<Picture>) {
        let mut entries = self.lock();
        entries.clock += 1;
        let now = entries.clock;
        entries.bytes += size(&picture);
        if let Some((old, _)) = entries.pictures.insert(key, (picture, now)) {
            // drawn twice at once by two environments: the same bytes
            entries.bytes -= size(&old);
        }
        if entries.bytes > self.max {
            let mut by_use: Vec<(u64, K)> = entries
                .pictures
                .iter()
                .map(|(k, (_, used))| (*used, k.clone()))
                .collect();
            by_use.sort_unstable_by_key(|(used, _)| *used);
            for (_, k) in by_use {
                if entries.bytes <= self.max - self.max / 4 {
                    break;
                }
                if let Some((p, _)) = entries.pictures.remove(&k) {
                    entries.bytes -= size(&p);
                }
            }
        }
    }

    /// The picture for `key`: kept, or made by `draw` (outside the lock, so environments
    /// draw in parallel) and kept.
    pub fn get_or_draw<E>(
        &self,
        key: &K,
        draw: impl FnOnce() -> Result<Picture, E>,
    ) -> Result<Arc<Picture>, E> {
        if let Some(found) = self.get(key) {
            return Ok(found);
        }
        let picture = Arc::new(draw()?);
        self.insert(key.clone(), picture.clone());
        Ok(picture)
    }

    /// Pictures held.
    pub fn len(&self) -> usize {
        self.lock().pictures.len()
    }

    /// Whether it holds no picture.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes counted for the pictures held.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }
}

/// Canvases by key: the parts of a world's pictures that do not change with its state (a
/// casing, a room's backdrop, a puzzle's buttons), drawn once and copied for each picture
/// that starts from them. A copy of the pixels is the same start as drawing them again,
/// so what it holds never changes an output. Unbounded: a world keeps a few dozen keys.
pub struct Bases<K> {
    inner: Mutex<BTreeMap<K, Arc<Canvas>>>,
}

impl<K: Ord> Bases<K> {
    /// An empty store (for a `static`).
    pub const fn new() -> Bases<K> {
        Bases {
            inner: Mutex::new(BTreeMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<K, Arc<Canvas>>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A copy of the canvas kept for `key`, or of the one `draw` makes (outside the lock),
    /// which is kept, rasterized. A copy shares the kept pixels until it is drawn on and
    /// read (see [`Canvas`]), so a picture found by its drawing calls elsewhere never
    /// copies its background at all.
    pub fn get_or_draw<E>(
        &self,
        key: K,
        draw: impl FnOnce() -> Result<Canvas, E>,
    ) -> Result<Canvas, E> {
        let found = self.lock().get(&key).cloned();
        if let Some(found) = found {
            return Ok((*found).clone());
        }
        let mut canvas = draw()?;
        // drawn once here, not by each copy
        canvas.flush();
        self.lock().insert(key, Arc::new(canvas.clone()));
        Ok(canvas)
    }

    /// Canvases held.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds no canvas.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<K: Ord> std::fmt::Debug for Bases<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bases").field("len", &self.len()).finish()
    }
}

impl<K: Ord> Default for Bases<K> {
    fn default() -> Self {
        Bases::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rgb;

    #[test]
    fn a_base_is_drawn_once_and_copied() {
        let bases: Bases<u8> = Bases::new();
        let mut draws = 0;
        for _ in 0..3 {
            let mut c = bases
                .get_or_draw(1, || {
                    draws += 1;
                    let mut c = Canvas::new(8, 8, Rgb::WHITE)?;
                    c.fill_rect(0.0, 0.0, 4.0, 4.0, Rgb::BLACK);
                    Ok::<_, crate::RenderError>(c)
                })
                .unwrap();
            assert_eq!(c.pixel(1, 1), Some(Rgb::BLACK));
            // drawing on the copy leaves the kept canvas as it was
            c.fill_rect(0.0, 0.0, 8.0, 8.0, Rgb(9, 9, 9));
        }
        assert_eq!((draws, bases.len()), (1, 1));
    }

    fn picture(n: usize) -> Arc<Picture> {
        Arc::new(Picture {
            png: vec![n as u8; 1000 + n],
            sha256: String::new(),
            alt: None,
        })
    }

    #[test]
    fn a_kept_picture_is_not_drawn_again() {
        let memo: Memo<u32> = Memo::new(1 << 20);
        let mut drawn = 0;
        let mut draw = || {
            drawn += 1;
            Ok::<_, ()>(Picture {
                png: vec![1, 2, 3],
                sha256: "abc".into(),
                alt: Some("three bytes".to_string()),
            })
        };
        let a = memo.get_or_draw(&7, &mut draw).unwrap();
        let b = memo.get_or_draw(&7, &mut draw).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(drawn, 1);
        assert_eq!(a.png, [1, 2, 3]);
        assert_eq!(a.alt.as_deref(), Some("three bytes"));
        // a failed drawing keeps nothing
        assert!(memo.get_or_draw(&8, || Err(())).is_err());
        assert_eq!(memo.len(), 1);
    }

    #[test]
    fn past_its_bound_it_forgets_the_least_recently_used() {
        let pics: Vec<Arc<Picture>> = (0..6).map(picture).collect();
        let sz = |i: usize| size(&pics[i]);
        // room for four pictures and a fifth of another
        let max = (0..4).map(sz).sum::<usize>() + sz(0) / 5;
        let memo: Memo<usize> = Memo::new(max);
        for (i, p) in pics.iter().enumerate().take(4) {
            memo.insert(i, p.clone());
        }
        assert_eq!(memo.len(), 4);
        // touch the first: the second is now the least recently used
        assert!(memo.get(&0).is_some());
        memo.insert(4, pics[4].clone());
        assert!(memo.bytes() <= max - max / 4, "{} of {max}", memo.bytes());
        assert!(memo.get(&0).is_some(), "recently used, kept");
        assert!(memo.get(&1).is_none(), "least recently used, forgotten");
        assert!(memo.get(&4).is_some(), "just drawn, kept");
        let held: usize = [0, 2, 3, 4]
            .iter()
            .filter(|&&i| memo.get(&i).is_some())
            .map(|&i| sz(i))
            .sum();
        assert_eq!(memo.bytes(), held);
        // the same key twice counts once
        memo.insert(4, pics[4].clone());
        assert_eq!(memo.bytes(), held);
    }
}
