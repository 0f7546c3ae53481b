//! A picture's PNG as raw RGB bytes, which the Python side wraps as an `H×W×3` `uint8`
//! numpy array without copying again, and back: pixels an `Env(..., pixels=True)` handed
//! over made into the PNG file the world would have encoded (same encoder, same bytes).
//! Both run here (GIL released) so the package needs no image library of its own.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::error::to_py;

/// Adds `decode_png` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(decode_png, m)?)?;
    m.add_function(wrap_pyfunction!(encode_png, m)?)
}

/// Encodes `height × width` RGB pixels (`rgb`, row by row) as the PNG file a world
/// encodes them to (escapade's renderer encoder, fixed settings).
#[pyfunction]
fn encode_png<'py>(
    py: Python<'py>,
    height: u32,
    width: u32,
    rgb: Vec<u8>,
) -> PyResult<Bound<'py, PyBytes>> {
    let frame = escapade_render::Frame { width, height, rgb };
    let png = py.detach(|| frame.png()).map_err(to_py)?;
    Ok(PyBytes::new(py, &png))
}

/// Decodes a PNG into `(height, width, rgb)`, `rgb` holding `height * width * 3` bytes,
/// row by row. Grey and alpha are converted to RGB (alpha dropped).
#[pyfunction]
fn decode_png<'py>(py: Python<'py>, png: &[u8]) -> PyResult<(u32, u32, Bound<'py, PyBytes>)> {
    let (height, width, rgb) = py.detach(|| rgb(png)).map_err(to_py)?;
    Ok((height, width, PyBytes::new(py, &rgb)))
}

/// Why a PNG could not be decoded.
#[derive(Debug)]
pub struct BadPng(String);

impl std::fmt::Display for BadPng {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not a picture escapade can read: {}", self.0)
    }
}

/// `(height, width, rgb bytes)` of a PNG.
pub fn rgb(png: &[u8]) -> Result<(u32, u32, Vec<u8>), BadPng> {
    let mut decoder = png::Decoder::new(png);
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| BadPng(e.to_string()))?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| BadPng(e.to_string()))?;
    buf.truncate(info.buffer_size());
    let (w, h) = (info.width, info.height);
    let channels = match info.color_type {
        png::ColorType::Rgb => return Ok((h, w, buf)),
        png::ColorType::Rgba => 4,
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Indexed => return Err(BadPng("indexed colour after expansion".into())),
    };
    let mut out = Vec::with_capacity(w as usize * h as usize * 3);
    for px in buf.chunks_exact(channels) {
        if channels >= 3 {
            out.extend_from_slice(&px[..3]);
        } else {
            out.extend_from_slice(&[px[0], px[0], px[0]]);
        }
    }
    Ok((h, w, out))
}
