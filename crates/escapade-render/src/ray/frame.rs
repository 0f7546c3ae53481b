//! The finished picture: RGB bytes, the red centre dot, PNG encoding.
//!
//! Why separate from tracing: the frame is plain bytes that tests compare and worlds hand
//! to agents; encoding goes through the `png` crate (pure Rust, fixed settings), so the
//! same pixels always give the same file.

use crate::{RenderError, Rgb};

/// A rendered image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Row-major RGB bytes, `width * height * 3` of them, top row first.
    pub rgb: Vec<u8>,
}

/// The centre dot's colour.
pub const CENTRE_DOT: Rgb = Rgb(255, 0, 0);

impl Frame {
    /// The pixel at `(x, y)`, or `None` outside the frame.
    pub fn pixel(&self, x: u32, y: u32) -> Option<Rgb> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 3;
        let p = self.rgb.get(i..i + 3)?;
        Some(Rgb(p[0], p[1], p[2]))
    }

    /// The picture as PNG file bytes (8-bit RGB, fixed encoder settings).
    pub fn png(&self) -> Result<Vec<u8>, RenderError> {
        crate::encode::png(
            self.width,
            self.height,
            crate::encode::Layout::Rgb,
            &self.rgb,
        )
    }

    /// Paints the red dot that marks what the camera looks at: a disc of radius
    /// `max(2, width / 256)` pixels on the image centre (pixels whose centre is inside).
    pub(crate) fn centre_dot(&mut self) {
        let r = (self.width / 256).max(2) as f32;
        let (cx, cy) = (self.width as f32 * 0.5, self.height as f32 * 0.5);
        let x0 = (cx - r).max(0.0) as u32;
        let y0 = (cy - r).max(0.0) as u32;
        let x1 = ((cx + r) as u32 + 1).min(self.width);
        let y1 = ((cy + r) as u32 + 1).min(self.height);
        for y in y0..y1 {
            for x in x0..x1 {
                let (dx, dy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
                if dx * dx + dy * dy <= r * r {
                    let i = (y as usize * self.width as usize + x as usize) * 3;
                    self.rgb[i..i + 3].copy_from_slice(&[CENTRE_DOT.0, CENTRE_DOT.1, CENTRE_DOT.2]);
                }
            }
        }
    }
}
