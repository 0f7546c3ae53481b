//! PNG files of a canvas's or a frame's pixels, and their pixels back (for tests and
//! checks).
//!
//! The files are what the `png` crate writes with the Paeth filter on every row and its
//! fast deflate (fdeflate: runs of zeros and a fixed Huffman table), byte for byte — the
//! test below holds this writer to that — so pictures keep their bytes and hashes. The
//! writer is our own because of where the time goes (issue 14, VisEscape's views): about
//! seven rows in ten of a 640 × 480 view repeat the row above (flat walls, floor, sky),
//! and a repeated row filters to zeros whatever the filter. Checking for that with one
//! `memcmp` and writing the zeros skips the Paeth arithmetic on those rows, which takes
//! a third off the encoding of a run's pictures.
//!
//! Measured before settling (COMMA and VisEscape goldens, 512 × 384 and the view size):
//! the `Sub` and `Up` filters cost about as much once repeated rows are skipped but
//! make files 1.7–4 times larger (more to hash, store and send to a model); an indexed
//! (palette) PNG would encode fastest, but most of these pictures hold 300–1,400 colours
//! (anti-aliased edges and text over several backgrounds), and counting them costs a
//! scan of every pixel that the few pictures under 256 colours do not pay back. Dropping
//! a canvas's constant alpha channel would make the file a tenth smaller but cost more
//! in the conversion than it saves in deflate.

use crate::RenderError;

/// How the bytes of one pixel are laid out, as PNG colour types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Red, green, blue: 3 bytes (the ray caster's frames).
    Rgb,
    /// Red, green, blue, alpha: 4 bytes (an opaque canvas: its premultiplied pixels are
    /// the straight colours a PNG holds, so nothing is converted).
    Rgba,
}

impl Layout {
    fn bytes(self) -> usize {
        match self {
            Layout::Rgb => 3,
            Layout::Rgba => 4,
        }
    }

    /// The colour type byte of the PNG header (ISO 15948, 11.2.2).
    fn colour_type(self) -> u8 {
        match self {
            Layout::Rgb => 2,
            Layout::Rgba => 6,
        }
    }
}

/// The Paeth filter's type byte (ISO 15948, 9.2).
const PAETH: u8 = 4;

/// `pixels` (`width` × `height`, row-major, 8 bits a channel, laid out as `layout`) as
/// PNG file bytes: the Paeth filter on every row, fdeflate's compression (or stored
/// blocks when that would be larger), one IDAT chunk. See the module docs.
pub(crate) fn png(
    width: u32,
    height: u32,
    layout: Layout,
    pixels: &[u8],
) -> Result<Vec<u8>, RenderError> {
    let bpp = layout.bytes();
    let stride = width as usize * bpp;
    if width == 0 || height == 0 || pixels.len() != stride * height as usize {
        return Err(RenderError::Encode(format!(
            "{} bytes are not a {width} × {height} picture of {bpp}-byte pixels",
            pixels.len()
        )));
    }
    let io = |e: std::io::Error| RenderError::Encode(e.to_string());
    let mut deflate =
        fdeflate::Compressor::new(Vec::with_capacity(pixels.len() / 16)).map_err(io)?;
    // the row as written: filter type, then the row's Paeth residuals
    let mut row = vec![0; stride + 1];
    row[0] = PAETH;
    let mut zeroed = true;
    let none = vec![0; stride];
    let mut up: &[u8] = &none;
    for line in pixels.chunks_exact(stride) {
        if line == up {
            // every predictor of a repeated row is the byte above: all residuals are 0
            if !zeroed {
                row[1..].fill(0);
                zeroed = true;
            }
        } else {
            paeth_residuals(line, up, bpp, &mut row[1..]);
            zeroed = false;
        }
        deflate.write_data(&row).map_err(io)?;
        up = line;
    }
    let mut zlib = deflate.finish().map_err(io)?;
    let raw = (stride + 1) * height as usize;
    if zlib.len() > fdeflate::StoredOnlyCompressor::<()>::compressed_size(raw) {
        // noise does not compress: store the rows unfiltered, as the png crate does
        let mut stored =
            fdeflate::StoredOnlyCompressor::new(std::io::Cursor::new(Vec::with_capacity(raw + 64)))
                .map_err(io)?;
        for line in pixels.chunks_exact(stride) {
            stored.write_data(&[0]).map_err(io)?;
            stored.write_data(line).map_err(io)?;
        }
        zlib = stored.finish().map_err(io)?.into_inner();
    }
    let mut file = Vec::with_capacity(zlib.len() + 64);
    file.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let mut header = [0; 13];
    header[..4].copy_from_slice(&width.to_be_bytes());
    header[4..8].copy_from_slice(&height.to_be_bytes());
    // bit depth 8, the colour type, deflate, adaptive filtering, no interlace
    header[8..].copy_from_slice(&[8, layout.colour_type(), 0, 0, 0]);
    chunk(&mut file, b"IHDR", &header);
    // a chunk holds at most 2^31 - 1 bytes
    for part in zlib.chunks(i32::MAX as usize) {
        chunk(&mut file, b"IDAT", part);
    }
    chunk(&mut file, b"IEND", &[]);
    Ok(file)
}

/// Appends one PNG chunk: length, type, data, and the CRC-32 of type and data.
fn chunk(file: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    file.extend_from_slice(&(data.len() as u32).to_be_bytes());
    file.extend_from_slice(kind);
    file.extend_from_slice(data);
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    file.extend_from_slice(&crc.finalize().to_be_bytes());
}

/// The Paeth residuals of `line` under the row above, `up` (zeros for the first row),
/// with `bpp` bytes a pixel, into `out` (ISO 15948, 9.4). Each byte is predicted from its
/// left (`a`), upper (`b`) and upper-left (`c`) neighbours, 0 past the left edge; the
/// distances are taken in bytes, as in FPNGE, so that the loop has no branches a
/// compiler cannot turn into vector selects.
fn paeth_residuals(line: &[u8], up: &[u8], bpp: usize, out: &mut [u8]) {
    let n = line.len();
    for i in 0..bpp.min(n) {
        // a = c = 0: the prediction is the byte above
        out[i] = line[i].wrapping_sub(up[i]);
    }
    if n <= bpp {
        return;
    }
    let cells = out[bpp..]
        .iter_mut()
        .zip(&line[bpp..])
        .zip(&line[..n - bpp])
        .zip(&up[bpp..])
        .zip(&up[..n - bpp]);
    for ((((o, &x), &a), &b), &c) in cells {
        // |p - a| = |b - c|, |p - b| = |a - c| with p = a + b - c
        let pa = b.max(c) - b.min(c);
        let pb = a.max(c) - a.min(c);
        // |p - c| = |(a - c) + (b - c)|: when c lies between a and b it is |pa - pb|;
        // otherwise it exceeds both, so its value does not matter
        let pc = if (a < c) == (c < b) {
            pa.max(pb) - pa.min(pb)
        } else {
            u8::MAX
        };
        let predicted = if pa <= pb && pa <= pc {
            a
        } else if pb <= pc {
            b
        } else {
            c
        };
        *o = x.wrapping_sub(predicted);
    }
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
            let png = png(w, h, Layout::Rgba, &pixels).unwrap();
            prop_assert_eq!(decode_rgba(&png).unwrap(), (w, h, pixels.clone()));
            prop_assert_eq!(super::png(w, h, Layout::Rgba, &pixels).unwrap(), png);
        }

        /// The file is the `png` crate's (Paeth on every row, fast compression) byte for
        /// byte, in both layouts, on pictures with repeated rows, flat runs and noise:
        /// pictures keep their hashes.
        #[test]
        fn the_bytes_are_the_png_crates(
            (w, h, rgba, layout) in (1u32..48, 1u32..24, any::<bool>()).prop_flat_map(|(w, h, rgba)| (
                Just(w),
                Just(h),
                Just(rgba),
                prop::collection::vec(0u8..4, (w * h) as usize),
            )).prop_map(|(w, h, rgba, looks)| (w, h, looks, if rgba { Layout::Rgba } else { Layout::Rgb }))
        ) {
            let pixels = picture(w, h, &rgba, layout);
            prop_assert_eq!(png(w, h, layout, &pixels).unwrap(), reference(w, h, layout, &pixels));
        }
    }

    /// Pixels of a `w` × `h` picture from `looks` (one per pixel): 0 and 1 two flat
    /// colours, 2 a colour from the pixel's position, 3 one from a hash (noise); rows
    /// whose first look is 0 repeat the row above.
    fn picture(w: u32, h: u32, looks: &[u8], layout: Layout) -> Vec<u8> {
        let bpp = layout.bytes();
        let mut pixels: Vec<u8> = Vec::new();
        for y in 0..h as usize {
            let row = &looks[y * w as usize..(y + 1) * w as usize];
            if y > 0 && row[0] == 0 {
                let last = pixels[pixels.len() - w as usize * bpp..].to_vec();
                pixels.extend_from_slice(&last);
                continue;
            }
            for (x, &look) in row.iter().enumerate() {
                let colour = match look {
                    0 => [250, 250, 245],
                    1 => [30, 60, 200],
                    2 => [(x * 5) as u8, (y * 7) as u8, (x + y) as u8],
                    _ => {
                        // a few rounds of a multiply-xorshift hash of the position
                        let mut v = (x as u64) << 32 | y as u64;
                        for _ in 0..3 {
                            v = (v ^ (v >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                        }
                        [(v >> 56) as u8, (v >> 40) as u8, (v >> 24) as u8]
                    }
                };
                pixels.extend_from_slice(&colour);
                if layout == Layout::Rgba {
                    pixels.push(255);
                }
            }
        }
        pixels
    }

    /// What the `png` crate writes for `pixels` with the Paeth filter and fast deflate.
    fn reference(w: u32, h: u32, layout: Layout, pixels: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = ::png::Encoder::new(&mut out, w, h);
        encoder.set_color(match layout {
            Layout::Rgb => ::png::ColorType::Rgb,
            Layout::Rgba => ::png::ColorType::Rgba,
        });
        encoder.set_depth(::png::BitDepth::Eight);
        encoder.set_compression(::png::Compression::Fast);
        encoder.set_filter(::png::FilterType::Paeth);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(pixels).unwrap();
        writer.finish().unwrap();
        out
    }

    /// Noise does not compress: the rows are stored, as the png crate stores them.
    #[test]
    fn noise_is_stored() {
        let looks = vec![3; 40 * 30];
        let pixels = picture(40, 30, &looks, Layout::Rgb);
        let file = png(40, 30, Layout::Rgb, &pixels).unwrap();
        assert_eq!(file, reference(40, 30, Layout::Rgb, &pixels));
        // signature 8, IHDR 25, IDAT's length and type 8, zlib's header 2: then the
        // first block's header, whose type bits are 00 for stored
        assert_eq!(file[43] & 0b110, 0, "not stored");
        assert_eq!(decode_rgba(&file).unwrap().2.len(), 40 * 30 * 4);
    }

    #[test]
    fn a_buffer_of_the_wrong_size_is_an_error() {
        assert!(png(4, 4, Layout::Rgba, &[0; 63]).is_err());
        assert!(png(0, 4, Layout::Rgb, &[]).is_err());
        assert!(png(4, 4, Layout::Rgb, &[7; 48]).is_ok());
    }

    #[test]
    fn a_file_that_is_no_png_is_an_error() {
        assert!(decode_rgba(b"not a png").is_err());
    }
}
