//! Deterministic pictures for escapade's worlds.
//!
//! This crate draws the images agents see: a 2D [`Canvas`] (tiny-skia for shapes, the
//! bundled DejaVu Sans rasterized with ab_glyph for text) that the VisEscape and COMMA
//! worlds paint their views on, and a CPU ray caster ([`Prepared`], [`render`]) that
//! draws the craft world's first-person frames of rooms built from boxes, cylinders and
//! quads, with the red centre dot and picking of what is under it. It is not a scene
//! editor and knows nothing of rooms or puzzles; worlds decide what to draw. Rendering is
//! pure: no files and no clocks, only IEEE basic operations and `libm` for geometry (never
//! `mul_add`), and the ray caster's threads each draw whole pixels on their own, so the
//! same calls give the same PNG bytes on any machine and any thread count. Start at
//! [`Canvas`] for 2D and at [`Prepared`] for 3D.
//!
//! ```
//! use escapade_render::{Canvas, Rgb};
//! let mut canvas = Canvas::new(64, 32, Rgb(250, 250, 250)).unwrap();
//! canvas.fill_rect(4.0, 4.0, 20.0, 20.0, Rgb(200, 30, 30));
//! canvas.text(28.0, 8.0, 12.0, Rgb(0, 0, 0), "hi");
//! let png = canvas.png().unwrap();
//! assert_eq!(&png[1..4], b"PNG");
//! ```
#![deny(missing_docs)]

pub mod canvas; // Canvas: shapes, text and PNG encoding
pub mod encode; // PNG bytes of a canvas, and the pixels of a PNG back
pub mod error; // RenderError
pub mod memo; // Memo: drawn pictures kept by key, bounded, least recently used forgotten;
// Bases: canvases of the parts that do not change, drawn once
pub mod ray; // the CPU ray caster: Prepared scenes, frames, picking
pub mod scene; // the 3D scene description: shapes, materials, light, camera
pub mod shapes; // polygon and star vertices, computed with libm

pub use canvas::{Canvas, Rgb};
pub use encode::decode_rgba;
pub use error::RenderError;
pub use ray::{
    Frame, FrameOptions, Hit, Prepared, horizontal_fov, pick, ray_through_pixel, render,
};

/// DejaVu Sans 2.37 (Bitstream Vera licence with the Arev terms, see
/// `assets/fonts/LICENSE-DejaVu.txt`): the one face escapade draws text with.
pub const FONT: &[u8] = include_bytes!("../assets/fonts/DejaVuSans.ttf");
