//! How a picture travels to a model: the PNG as the world rendered it, or re-encoded as
//! JPEG, with OpenAI's `detail` hint.
//!
//! Why it is a setting: what a model is charged and shown depends on it. VisEscape's
//! original re-encodes every view as JPEG (Pillow's default quality, 75) and asks OpenAI
//! models for `detail: "low"` (`experiment/agent/inference.py`); MM-Escape's re-encodes
//! its frames as JPEG with `detail: "high"` (`src/Agent.py`). A suite declares its
//! paper's format as agent options (`-A pictures=jpeg -A detail=low`), the run records
//! it, and the report names a run that sent something else.
//!
//! Encoding is deterministic: the `image` crate's baseline JPEG encoder uses libjpeg's
//! quantization tables scaled by the quality (so quality 75 gives Pillow's tables) and
//! integer and IEEE basic arithmetic only, so the same PNG gives the same JPEG bytes on
//! any machine. It samples colour at full resolution (4:4:4) where Pillow halves it
//! (4:2:0): the files are somewhat larger, the picture a model sees is no worse.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::{LlmError, Part};

/// Pillow's default JPEG quality, which both originals use (`img.save(buf, "JPEG")`).
pub const JPEG_QUALITY: u8 = 75;

/// The file format a picture is sent in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// The PNG as rendered (lossless).
    #[default]
    Png,
    /// Re-encoded as baseline JPEG at this quality (1–100).
    Jpeg {
        /// libjpeg quality, 1–100.
        quality: u8,
    },
}

impl FromStr for Encoding {
    type Err = String;

    /// `png`, `jpeg` (quality [`JPEG_QUALITY`]) or `jpeg:Q` with Q from 1 to 100.
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!("bad picture encoding `{s}`: expected png, jpeg or jpeg:Q (Q from 1 to 100)")
        };
        match s.trim().split_once(':') {
            None if s.trim() == "png" => Ok(Encoding::Png),
            None if s.trim() == "jpeg" => Ok(Encoding::Jpeg {
                quality: JPEG_QUALITY,
            }),
            Some(("jpeg", q)) => match q.trim().parse::<u8>() {
                Ok(quality @ 1..=100) => Ok(Encoding::Jpeg { quality }),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Encoding::Png => write!(f, "png"),
            Encoding::Jpeg { quality } if *quality == JPEG_QUALITY => write!(f, "jpeg"),
            Encoding::Jpeg { quality } => write!(f, "jpeg:{quality}"),
        }
    }
}

/// OpenAI's `detail` of an image part: how finely the model looks (and what it costs).
/// Anthropic's API has no such field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Detail {
    /// A 512 × 512 overview at a fixed cost.
    Low,
    /// Tiles at full resolution.
    High,
    /// The provider chooses.
    Auto,
}

impl FromStr for Detail {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "low" => Ok(Detail::Low),
            "high" => Ok(Detail::High),
            "auto" => Ok(Detail::Auto),
            _ => Err(format!(
                "bad detail `{s}`: expected low, high, auto or none"
            )),
        }
    }
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Detail::Low => "low",
            Detail::High => "high",
            Detail::Auto => "auto",
        })
    }
}

/// The media type of a picture's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum MediaType {
    /// `image/png`.
    #[default]
    #[serde(rename = "image/png")]
    Png,
    /// `image/jpeg`.
    #[serde(rename = "image/jpeg")]
    Jpeg,
}

impl MediaType {
    /// The MIME name (`image/png`).
    pub fn mime(self) -> &'static str {
        match self {
            MediaType::Png => "image/png",
            MediaType::Jpeg => "image/jpeg",
        }
    }

    /// Whether this is PNG (the default, left out of a serialized part).
    pub fn is_png(&self) -> bool {
        *self == MediaType::Png
    }
}

/// How every picture of a request is sent: its encoding and, on OpenAI's wire, its
/// `detail`. The default sends the PNG and no `detail`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pictures {
    /// The file format.
    pub encoding: Encoding,
    /// OpenAI's `detail`; `None` sends none (the provider's default, `auto`).
    pub detail: Option<Detail>,
}

impl Pictures {
    /// The message part that carries the PNG `png` (SHA-256 `sha256`) in this format.
    ///
    /// # Errors
    /// [`LlmError::Picture`] when a JPEG is asked for and the PNG does not decode.
    pub fn part(&self, sha256: &str, png: &[u8]) -> Result<Part, LlmError> {
        let (media_type, bytes) = match self.encoding {
            Encoding::Png => (MediaType::Png, Arc::new(png.to_vec())),
            Encoding::Jpeg { quality } => (MediaType::Jpeg, jpeg_of(png, quality)?),
        };
        Ok(Part::Image {
            sha256: sha256.to_string(),
            media_type,
            detail: self.detail,
            bytes,
        })
    }

    /// How the pictures are sent, in words for a run's record (`JPEG quality 75, detail
    /// low`); `backend` is the backend spec, since only OpenAI's wire carries `detail`.
    pub fn describe(&self, backend: &str) -> String {
        let encoding = match self.encoding {
            Encoding::Png => "PNG".to_string(),
            Encoding::Jpeg { quality } => format!("JPEG quality {quality}"),
        };
        let detail = match self.detail {
            None => "no detail".to_string(),
            Some(_) if backend.starts_with("anthropic/") => {
                "no detail (the Anthropic API has none)".to_string()
            }
            Some(d) => format!("detail {d}"),
        };
        format!("{encoding}, {detail}")
    }
}

/// JPEG bytes kept for pictures sent again: an agent back in a state it saw is shown the
/// same picture, and `escapade export` and `estimate` re-encode whole runs (a 640×480
/// view costs milliseconds to re-encode, the bulk of an export). Bounded by bytes.
struct Encoded {
    /// `(the PNG's SHA-256, quality)` to the JPEG, oldest first
    map: indexmap::IndexMap<([u8; 32], u8), Arc<Vec<u8>>, Hasher>,
    bytes: usize,
}

/// [`Encoded`]'s hasher (a const one, for the static).
type Hasher = std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>;

/// What [`Encoded`] may hold.
const ENCODED_BYTES: usize = 64 << 20;

static ENCODED: std::sync::Mutex<Encoded> = std::sync::Mutex::new(Encoded {
    map: indexmap::IndexMap::with_hasher(std::hash::BuildHasherDefault::new()),
    bytes: 0,
});

/// [`to_jpeg`] of the PNG `png`, once per picture while it is kept (the same bytes: the
/// encoder is deterministic). Keyed by the bytes' own hash (tens of microseconds against
/// milliseconds of encoding), not by the name a caller gives the picture.
fn jpeg_of(png: &[u8], quality: u8) -> Result<Arc<Vec<u8>>, LlmError> {
    use sha2::Digest;
    let key = (sha2::Sha256::digest(png).into(), quality);
    let lock = || ENCODED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(jpeg) = lock().map.get(&key) {
        return Ok(Arc::clone(jpeg));
    }
    let jpeg = Arc::new(to_jpeg(png, quality)?);
    let mut kept = lock();
    if jpeg.len() <= ENCODED_BYTES && kept.map.insert(key, Arc::clone(&jpeg)).is_none() {
        kept.bytes += jpeg.len();
        while kept.bytes > ENCODED_BYTES {
            let Some((_, old)) = kept.map.shift_remove_index(0) else {
                break;
            };
            kept.bytes -= old.len();
        }
    }
    Ok(jpeg)
}

/// The PNG `png` re-encoded as a baseline JPEG of quality `quality` (1–100); alpha is
/// dropped, as Pillow's `convert("RGB")` drops it.
///
/// # Errors
/// [`LlmError::Picture`] when `png` is not a PNG that decodes.
pub fn to_jpeg(png: &[u8], quality: u8) -> Result<Vec<u8>, LlmError> {
    let decoded = image::load_from_memory_with_format(png, image::ImageFormat::Png)
        .map_err(|e| LlmError::Picture(format!("the PNG does not decode: {e}")))?;
    let rgb = decoded.to_rgb8();
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality.clamp(1, 100))
        .encode_image(&rgb)
        .map_err(|e| LlmError::Picture(format!("cannot encode a JPEG: {e}")))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small PNG with colour and transparency.
    fn png() -> Vec<u8> {
        let mut img = image::RgbaImage::new(40, 30);
        for (x, y, p) in img.enumerate_pixels_mut() {
            *p = image::Rgba([
                (x * 6) as u8,
                (y * 8) as u8,
                200,
                if x < 5 { 0 } else { 255 },
            ]);
        }
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn encodings_parse_and_print() {
        assert_eq!("png".parse::<Encoding>(), Ok(Encoding::Png));
        assert_eq!(
            "jpeg".parse::<Encoding>(),
            Ok(Encoding::Jpeg { quality: 75 })
        );
        assert_eq!(
            "jpeg:90".parse::<Encoding>(),
            Ok(Encoding::Jpeg { quality: 90 })
        );
        for s in ["png", "jpeg", "jpeg:90"] {
            assert_eq!(s.parse::<Encoding>().unwrap().to_string(), s);
        }
        for bad in ["", "gif", "jpeg:0", "jpeg:101", "jpeg:x", "png:3"] {
            assert!(bad.parse::<Encoding>().is_err(), "{bad}");
        }
        for d in ["low", "high", "auto"] {
            assert_eq!(d.parse::<Detail>().unwrap().to_string(), d);
        }
        assert!("none".parse::<Detail>().is_err());
    }

    #[test]
    fn a_picture_sent_again_is_encoded_once() {
        let png = png();
        let jpeg = Pictures {
            encoding: Encoding::Jpeg { quality: 61 },
            detail: None,
        };
        let bytes = |part: Part| match part {
            Part::Image { bytes, .. } => bytes,
            other => panic!("{other:?}"),
        };
        let first = bytes(jpeg.part("once", &png).unwrap());
        assert_eq!(*first, to_jpeg(&png, 61).unwrap(), "the encoder's bytes");
        let again = bytes(jpeg.part("once", &png).unwrap());
        assert!(Arc::ptr_eq(&first, &again), "kept, not encoded again");
        let other = Pictures {
            encoding: Encoding::Jpeg { quality: 62 },
            detail: None,
        };
        let other = bytes(other.part("once", &png).unwrap());
        assert_eq!(
            *other,
            to_jpeg(&png, 62).unwrap(),
            "another quality, another file"
        );
    }

    #[test]
    fn jpeg_is_deterministic_and_decodes_to_the_same_size() {
        let png = png();
        let a = to_jpeg(&png, 75).unwrap();
        assert_eq!(a, to_jpeg(&png, 75).unwrap(), "same PNG, same bytes");
        assert_eq!(&a[..3], &[0xff, 0xd8, 0xff], "a JPEG");
        let back = image::load_from_memory_with_format(&a, image::ImageFormat::Jpeg).unwrap();
        assert_eq!((back.width(), back.height()), (40, 30));
        assert_ne!(a, to_jpeg(&png, 30).unwrap(), "the quality is used");
        assert!(matches!(
            to_jpeg(b"not a png", 75),
            Err(LlmError::Picture(_))
        ));
    }

    #[test]
    fn parts_carry_the_format() {
        let png = png();
        let Part::Image {
            sha256,
            media_type,
            detail,
            bytes,
        } = Pictures::default().part("abc", &png).unwrap()
        else {
            panic!("an image part")
        };
        assert_eq!(
            (sha256.as_str(), media_type, detail),
            ("abc", MediaType::Png, None)
        );
        assert_eq!(*bytes, png, "PNG by default, as rendered");
        let jpeg = Pictures {
            encoding: Encoding::Jpeg { quality: 75 },
            detail: Some(Detail::Low),
        };
        let Part::Image {
            media_type,
            detail,
            bytes,
            ..
        } = jpeg.part("abc", &png).unwrap()
        else {
            panic!("an image part")
        };
        assert_eq!((media_type, detail), (MediaType::Jpeg, Some(Detail::Low)));
        assert_eq!(*bytes, to_jpeg(&png, 75).unwrap());
        assert_eq!(
            jpeg.describe("openai/gpt-4o"),
            "JPEG quality 75, detail low"
        );
        assert_eq!(
            jpeg.describe("anthropic/claude"),
            "JPEG quality 75, no detail (the Anthropic API has none)"
        );
        assert_eq!(Pictures::default().describe("openai/x"), "PNG, no detail");
    }
}
