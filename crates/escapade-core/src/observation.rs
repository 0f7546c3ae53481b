//! What an agent sees.
//!
//! An observation is text plus images (PNG bytes, stored once per run under their
//! SHA-256), optionally the list of currently available actions (worlds with a closed
//! action set, like VisEscape) and the function schemas a tool-calling model may use.
//!
//! A caller that wants pixels, not files (the Python Gymnasium env hands numpy arrays to a
//! trainer), asks the environment for [`PictureForm::Pixels`]: a world that can then hands
//! the renderer's pixels in [`Image::pixels`] and skips encoding the PNG, which at large
//! sizes costs more than drawing (a 2048×1024 craft frame: ~20 ms to encode, ~25 ms to
//! decode again).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A picture shown to the agent: PNG bytes addressed by their SHA-256, or, when the
/// caller asked for [`PictureForm::Pixels`] and the world could, its pixels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// Lowercase hex SHA-256 of `png`; for a picture given as pixels only (`png` empty),
    /// of the `"rgb {width}x{height}\n"` header followed by the pixel bytes.
    pub sha256: String,
    /// The PNG file bytes (not serialized; run directories store them under `media/`).
    /// Empty when the picture is given as [`Image::pixels`] only.
    #[serde(skip)]
    pub png: Vec<u8>,
    /// An exact text description of what the picture shows, for text-only models and
    /// the socratic mode (VisEscape §7). Never more than the picture shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alt: Option<String>,
    /// The picture's pixels, when the caller asked for [`PictureForm::Pixels`] and the
    /// world draws them itself (not serialized).
    #[serde(skip)]
    pub pixels: Option<Arc<Pixels>>,
}

/// A picture as 8-bit RGB pixels, row by row from the top: what a renderer draws before
/// it encodes a PNG.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pixels {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 3` bytes.
    pub rgb: Vec<u8>,
}

/// How a caller wants an environment's pictures ([`crate::Env::set_picture_form`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PictureForm {
    /// PNG bytes (the default, what models and run directories take).
    #[default]
    Png,
    /// The renderer's pixels in [`Image::pixels`], without a PNG, where the world can;
    /// elsewhere PNG as before.
    Pixels,
}

impl Image {
    /// Wraps PNG bytes, computing their address.
    pub fn from_png(png: Vec<u8>) -> Self {
        Image {
            sha256: crate::hash::sha256_hex(&png),
            png,
            alt: None,
            pixels: None,
        }
    }

    /// Wraps pixels (no PNG) with an exact text description of the picture; its address
    /// is the SHA-256 of a `"rgb {width}x{height}\n"` header and the pixels.
    pub fn from_pixels(pixels: Pixels, alt: impl Into<String>) -> Self {
        // hashed in parts: a 2048×1024 frame is 6 MB, not worth copying behind its header
        let header = format!("rgb {}x{}\n", pixels.width, pixels.height);
        Image {
            sha256: crate::hash::sha256_hex_parts(&[header.as_bytes(), &pixels.rgb]),
            png: Vec::new(),
            alt: Some(alt.into()),
            pixels: Some(Arc::new(pixels)),
        }
    }

    /// Wraps PNG bytes with an exact text description of the picture.
    pub fn with_alt(png: Vec<u8>, alt: impl Into<String>) -> Self {
        Image {
            alt: Some(alt.into()),
            ..Image::from_png(png)
        }
    }
}

/// A function an agent may call in the native tool-calling protocol (OpenAI style).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolSchema {
    /// Function name.
    pub name: String,
    /// What the function does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// Everything an agent is shown at one step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// The text the agent reads.
    pub text: String,
    /// Pictures, in the order the text refers to them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Image>,
    /// The available actions when the world has a closed action set; `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<String>>,
    /// In a world with several roles ([`crate::Env::roles`]), the role this observation
    /// is for: the one whose turn it is (PettingZoo's AEC `agent_selection`). `None` in
    /// one-role worlds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

impl Observation {
    /// A text-only observation.
    pub fn text(text: impl Into<String>) -> Self {
        Observation {
            text: text.into(),
            ..Default::default()
        }
    }
}
