//! PNG files of a canvas's pixels, and their pixels back (for tests and checks).
//!
//! Measured (issue 14, COMMA and VisEscape goldens, 512 × 384 and the view size): RGBA
//! rows under the Paeth filter with the `png` crate's fast deflate cost about 0.3–0.4 ms
//! a picture; the `Sub` and `Up` filters save a fifth to a third of that for files twice
//! as large (more to hash and write); an indexed (palette) PNG would encode in a tenth of
//! the time, but most of these pictures hold 300–1,400 colours (anti-aliased edges and
//! text over several backgrounds), and finding out costs a scan of every pixel (0.2–0.6
//! ms) that the few pictures under 256 colours do not pay back. So the file stays RGBA.

use crate::RenderError;

/// Opaque RGBA `pixels` (`width` × `height`, row-major) as PNG bytes: each row
/// Paeth-filtered, compressed with the `png` crate's fast deflate — the setting the ray
/// caster's frames use. The canvas is opaque, so its premultiplied pixels are the straight
/// colours a PNG holds: nothing is copied or converted. Dropping the constant alpha
/// channel would make the file a tenth smaller but cost more in the conversion than it
/// saves in deflate.
pub(crate) fn png_of_rgba(width: u32, height: u32, pixels: &[u8]) -> Result<Vec<u8>, RenderError> {
    let fail = |e: png::EncodingError| RenderError::Encode(e.to_string());
    let mut out = Vec::with_capacity(pixels.len() / 8);
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    encoder.set_filter(png::FilterType::Paeth);
    let mut writer = encoder.write_header().map_err(fail)?;
    writer.write_image_data(pixels).map_err(fail)?;
    writer.finish().map_err(fail)?;
    Ok(out)
}

/// The pixels of a PNG file as `(width, height, RGBA bytes)`, whatever colour type and
/// 8-bit layout it was written in (palette, grey, RGB: alpha 255 where it has none).
/// For tests and checks that compare what a picture shows rather than its bytes.
pub fn decode_rgba(png: &[u8]) -> Result<(u32, u32, Vec<u8>), RenderError> {
    let fail = |e: png::DecodingError| RenderError::Encode(e.to_string());
    let mut decoder = png::Decoder::new(png);
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(fail)?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).map_err(fail)?;
    buf.truncate(info.buffer_size());
    if info.bit_depth != png::BitDepth::Eight {
        return Err(RenderError::Encode(format!(
            "a {:?}-bit PNG is not decoded here",
            info.bit_depth
        )));
    }
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => {
            return Err(RenderError::Encode(
                "an indexed PNG was not expanded".into(),
            ));
        }
    };
    Ok((info.width, info.height, rgba))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the pixels, the file decodes to them, and the same pixels give the
        /// same bytes.
        #[test]
        fn a_png_decodes_to_its_pixels(
            (w, h, colours) in (1u32..40, 1u32..30).prop_flat_map(|(w, h)| (
                Just(w),
                Just(h),
                prop::collection::vec(any::<[u8; 3]>(), (w * h) as usize),
            ))
        ) {
            let pixels: Vec<u8> = colours.iter().flat_map(|&[r, g, b]| [r, g, b, 255]).collect();
            let png = png_of_rgba(w, h, &pixels).unwrap();
            prop_assert_eq!(decode_rgba(&png).unwrap(), (w, h, pixels.clone()));
            prop_assert_eq!(png_of_rgba(w, h, &pixels).unwrap(), png);
        }
    }

    #[test]
    fn a_file_that_is_no_png_is_an_error() {
        assert!(decode_rgba(b"not a png").is_err());
    }
}
