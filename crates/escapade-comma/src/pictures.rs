//! The solver's pictures, drawn once per distinct [`Drawing`] and shared by every
//! environment of the process.
//!
//! A picture is a pure function of its drawing, so the same drawing is the same bytes
//! whenever and wherever it is drawn: in one episode (a turn of talk, a strike that
//! changes nothing, a module that returns to an earlier state), in another epoch of the
//! same scenario, or in another scenario that shows the same module. A random pair over
//! `comma@2` asks for about 5,200 pictures of which about 2,000 differ; a picture costs
//! a millisecond to draw, a look-up microseconds. What this cache holds therefore never
//! changes an output, only how often the same bytes are made.
//!
//! Memory is bounded: past [`MAX_BYTES`] of pictures, the least recently used are
//! forgotten until a quarter of the room is free again.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::CommaError;
use crate::render::Drawing;

/// PNG bytes (with a small allowance per entry for its key) the cache holds at most.
pub(crate) const MAX_BYTES: usize = 64 << 20;

/// The room counted for an entry besides its PNG: its drawing, address and bookkeeping.
const ENTRY_OVERHEAD: usize = 512;

/// A drawn picture and its address.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Picture {
    /// The PNG bytes.
    pub(crate) png: Vec<u8>,
    /// Lowercase hex SHA-256 of `png` (computed once, with the picture).
    pub(crate) sha256: String,
}

#[derive(Default)]
struct Cache {
    pictures: BTreeMap<Drawing, (Arc<Picture>, u64)>,
    bytes: usize,
    clock: u64,
}

impl Cache {
    fn get(&mut self, drawing: &Drawing) -> Option<Arc<Picture>> {
        self.clock += 1;
        let now = self.clock;
        let (picture, used) = self.pictures.get_mut(drawing)?;
        *used = now;
        Some(picture.clone())
    }

    fn insert(&mut self, drawing: Drawing, picture: Arc<Picture>, max: usize) {
        self.clock += 1;
        let size = picture.png.len() + ENTRY_OVERHEAD;
        if let Some((old, _)) = self.pictures.insert(drawing, (picture, self.clock)) {
            // drawn twice at once by two environments: the same bytes
            self.bytes -= old.png.len() + ENTRY_OVERHEAD;
        }
        self.bytes += size;
        if self.bytes > max {
            let mut by_use: Vec<(u64, Drawing)> = self
                .pictures
                .iter()
                .map(|(d, (_, used))| (*used, d.clone()))
                .collect();
            by_use.sort_unstable_by_key(|(used, _)| *used);
            for (_, d) in by_use {
                if self.bytes <= max - max / 4 {
                    break;
                }
                if let Some((p, _)) = self.pictures.remove(&d) {
                    self.bytes -= p.png.len() + ENTRY_OVERHEAD;
                }
            }
        }
    }
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

/// The picture of `drawing`: from the cache, or drawn (outside the lock) and kept.
pub(crate) fn picture(drawing: &Drawing) -> Result<Arc<Picture>, CommaError> {
    let lock = || cache().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(found) = lock().get(drawing) {
        return Ok(found);
    }
    let png = drawing.png()?;
    let picture = Arc::new(Picture {
        sha256: escapade_core::hash::sha256_hex(&png),
        png,
    });
    lock().insert(drawing.clone(), picture.clone(), MAX_BYTES);
    Ok(picture)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{PuzzleKind, generate};

    fn drawings(n: u64) -> Vec<Drawing> {
        (1..=n)
            .filter_map(|seed| generate(PuzzleKind::Password, seed).ok()?.drawing())
            .collect()
    }

    #[test]
    fn a_cached_picture_is_the_drawn_one() {
        for d in drawings(3) {
            let a = picture(&d).unwrap();
            let b = picture(&d).unwrap();
            assert!(Arc::ptr_eq(&a, &b), "the second look-up draws nothing");
            assert_eq!(a.png, d.png().unwrap());
            assert_eq!(a.sha256, escapade_core::hash::sha256_hex(&a.png));
        }
    }

    #[test]
    fn the_cache_forgets_the_least_recently_used_past_its_bound() {
        let ds = drawings(6);
        let pics: Vec<Arc<Picture>> = ds
            .iter()
            .map(|d| {
                let png = d.png().unwrap();
                Arc::new(Picture {
                    sha256: String::new(),
                    png,
                })
            })
            .collect();
        let size = |i: usize| pics[i].png.len() + ENTRY_OVERHEAD;
        // room for four pictures and a fifth of another
        let max = (0..4).map(size).sum::<usize>() + size(0) / 5;
        let mut c = Cache::default();
        for i in 0..4 {
            c.insert(ds[i].clone(), pics[i].clone(), max);
        }
        assert_eq!(c.pictures.len(), 4);
        // touch the first: the second is now the least recently used
        assert!(c.get(&ds[0]).is_some());
        c.insert(ds[4].clone(), pics[4].clone(), max);
        assert!(c.bytes <= max - max / 4, "{} of {max}", c.bytes);
        assert!(c.get(&ds[0]).is_some(), "recently used, kept");
        assert!(c.get(&ds[1]).is_none(), "least recently used, forgotten");
        assert!(c.get(&ds[4]).is_some(), "just drawn, kept");
        let held: usize = c.pictures.values().map(|(p, _)| p.png.len()).sum();
        assert_eq!(c.bytes, held + c.pictures.len() * ENTRY_OVERHEAD);
    }
}
