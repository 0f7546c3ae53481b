//! The solver's pictures, drawn once per distinct [`Drawing`] and shared by every
//! environment of the process.
//!
//! A picture is a pure function of its drawing, so the same drawing is the same bytes
//! whenever and wherever it is drawn: in one episode (a turn of talk, a strike that
//! changes nothing, a module that returns to an earlier state), in another epoch of the
//! same scenario, or in another scenario that shows the same module. A random pair over
//! `comma@4` asks for about 5,200 pictures of which about 2,000 differ; a picture costs
//! about 0.4 ms to draw and encode (its state-free parts come ready from `render::base`,
//! and most of what is left is the PNG encoding), a look-up microseconds. What this cache
//! holds therefore never changes an output, only how often the same bytes are made.
//!
//! Memory is bounded: past [`MAX_BYTES`] of pictures, the least recently used are
//! forgotten until a quarter of the room is free again.

use std::sync::Arc;

use escapade_render::memo::{Memo, Picture};

use crate::CommaError;
use crate::render::Drawing;

/// PNG bytes (with a small allowance per entry for its key) the cache holds at most.
pub(crate) const MAX_BYTES: usize = 64 << 20;

static PICTURES: Memo<Drawing> = Memo::new(MAX_BYTES);

/// The picture of `drawing`: from the cache, or drawn (outside the lock) and kept.
pub(crate) fn picture(drawing: &Drawing) -> Result<Arc<Picture>, CommaError> {
    PICTURES.get_or_draw(drawing, || {
        let png = drawing.png()?;
        Ok(Picture {
            sha256: escapade_core::hash::sha256_hex(&png),
            png,
            alt: None,
        })
    })
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
}
