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
//! a third off the encoding of a run's pictures. The compressor is written out here too
//! ([`Deflate`], fdeflate's scheme, same bytes) so that a repeated row, whose codes are
//! always the same, is written without scanning its zeros, and its checksum is updated
//! in one step (issue 30: the encoding of a `visescape@4` oracle run's pictures then
//! takes 37 % fewer instructions). The Paeth arithmetic of the other rows runs on
//! 32-byte vectors where the CPU has AVX2.
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
    let mut deflate = Deflate::new(Vec::with_capacity(pixels.len() / 16));
    // the row as written: filter type, then the row's Paeth residuals
    let mut row = vec![0; stride + 1];
    row[0] = PAETH;
    let none = vec![0; stride];
    let mut up: &[u8] = &none;
    for line in pixels.chunks_exact(stride) {
        if line == up {
            // every predictor of a repeated row is the byte above: all residuals are 0
            deflate.repeated_row(stride);
        } else {
            paeth_residuals(line, up, bpp, &mut row[1..]);
            deflate.write(&row);
        }
        up = line;
    }
    let mut zlib = deflate.finish();
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

/// fdeflate's fast compressor (version 0.3), written out here so that a repeated row
/// costs a few bit writes instead of a scan of its bytes: the same bytes as
/// `fdeflate::Compressor` for the same rows given one `write` at a time (the property
/// test against the `png` crate holds it to that).
///
/// fdeflate's scheme: one dynamic Huffman block whose code table is fixed (tuned for
/// filtered PNG rows) and sent as a constant header; every byte is a literal except runs
/// of zeros, which are matches at distance 1. Runs do not cross `write` calls, so each
/// row's codes depend on that row alone.
struct Deflate {
    out: Vec<u8>,
    /// Bits not yet written, the first in the lowest bit.
    buffer: u64,
    nbits: u8,
    adler: simd_adler32::Adler32,
}

/// The zlib header, then the dynamic block's header describing [`CODE_LENGTHS`] (its
/// last byte holds 5 bits): fdeflate's constant.
const HEADER: [u8; 54] = [
    120, 1, 237, 192, 3, 160, 36, 89, 150, 198, 241, 255, 119, 238, 141, 200, 204, 167, 114, 75,
    99, 174, 109, 219, 182, 109, 219, 182, 109, 219, 182, 109, 105, 140, 158, 150, 74, 175, 158,
    50, 51, 34, 238, 249, 118, 183, 106, 122, 166, 135, 59, 107, 213, 15,
];

/// The code length of each literal and length symbol (0–285) in fdeflate's table; the
/// distance table has one code, distance 1, of one bit (0).
const CODE_LENGTHS: [u8; 286] = [
    2, 3, 4, 5, 5, 6, 6, 7, 7, 7, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 10, 10, 10, 10, 10, 10, 10,
    10, 10, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 11, 11, 11, 11, 11, 11, 11,
    11, 11, 11, 10, 11, 10, 10, 10, 10, 10, 10, 10, 10, 10, 9, 9, 9, 9, 9, 8, 9, 8, 8, 8, 8, 8, 7,
    7, 7, 6, 6, 6, 5, 4, 3, 12, 12, 12, 9, 9, 11, 10, 11, 11, 10, 11, 11, 11, 11, 11, 11, 12, 11,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 9,
];

/// The canonical Huffman codes of [`CODE_LENGTHS`] (RFC 1951, 3.2.2), bit-reversed, as
/// deflate writes them (first bit lowest).
const CODES: [u16; 286] = {
    let mut codes = [0u16; 286];
    let mut code = 0u32;
    let mut len = 1;
    while len <= 15 {
        let mut i = 0;
        while i < 286 {
            if CODE_LENGTHS[i] == len {
                codes[i] = (code as u16).reverse_bits() >> (16 - len);
                code += 1;
            }
            i += 1;
        }
        code <<= 1;
        len += 1;
    }
    codes
};

/// The extra bits of each length symbol 257–285 (RFC 1951, 3.2.5).
const LENGTH_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];

/// The first match length of each length symbol 257–285: 3, then each symbol's first
/// plus its extra bits' range; the last, 258, stands alone (RFC 1951, 3.2.5).
const LENGTH_BASES: [u32; 29] = {
    let mut bases = [3u32; 29];
    let mut i = 1;
    while i < 28 {
        bases[i] = bases[i - 1] + (1 << LENGTH_EXTRA[i - 1]);
        i += 1;
    }
    bases[28] = 258;
    bases
};

impl Deflate {
    fn new(mut out: Vec<u8>) -> Deflate {
        out.extend_from_slice(&HEADER[..53]);
        let mut deflate = Deflate {
            out,
            buffer: 0,
            nbits: 0,
            adler: simd_adler32::Adler32::new(),
        };
        deflate.bits(u64::from(HEADER[53]), 5);
        deflate
    }

    #[inline(always)]
    fn bits(&mut self, bits: u64, nbits: u8) {
        self.buffer |= bits << self.nbits;
        self.nbits += nbits;
        if self.nbits >= 64 {
            self.out.extend_from_slice(&self.buffer.to_le_bytes());
            self.nbits -= 64;
            self.buffer = bits.checked_shr(u32::from(nbits - self.nbits)).unwrap_or(0);
        }
    }

    #[inline(always)]
    fn literal(&mut self, byte: u8) {
        self.bits(u64::from(CODES[byte as usize]), CODE_LENGTHS[byte as usize]);
    }

    /// A run of `run` zeros: one literal 0, then matches at distance 1.
    fn run(&mut self, mut run: u32) {
        self.literal(0);
        run -= 1;
        while run >= 258 {
            // the length symbol of 258 and the distance's one bit
            self.bits(u64::from(CODES[285]), CODE_LENGTHS[285] + 1);
            run -= 258;
        }
        if run > 4 {
            let k = LENGTH_BASES
                .iter()
                .rposition(|&base| base <= run)
                .unwrap_or(0);
            let symbol = 257 + k;
            self.bits(u64::from(CODES[symbol]), CODE_LENGTHS[symbol]);
            self.bits(u64::from(run - LENGTH_BASES[k]), LENGTH_EXTRA[k] + 1);
        } else {
            // literal zeros, whose code is all zero bits
            self.bits(0, run as u8 * CODE_LENGTHS[0]);
        }
    }

    /// Compresses `data` as one call of fdeflate's `write_data`: bytes as literals, runs of
    /// zeros found eight bytes at a time.
    fn write(&mut self, data: &[u8]) {
        self.adler.write(data);
        let mut run = 0;
        let mut chunks = data.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            if word == 0 {
                run += 8;
                continue;
            } else if run > 0 {
                let more = word.trailing_zeros() / 8;
                self.run(run + more);
                run = 0;
                if more > 0 {
                    run = word.leading_zeros() / 8;
                    for &b in &chunk[more as usize..8 - run as usize] {
                        self.literal(b);
                    }
                    continue;
                }
            }
            let tail = word.leading_zeros() / 8;
            if tail > 0 {
                for &b in &chunk[..8 - tail as usize] {
                    self.literal(b);
                }
                run = tail;
                continue;
            }
            let n = |i: usize| CODE_LENGTHS[chunk[i] as usize];
            let c = |i: usize| u64::from(CODES[chunk[i] as usize]);
            let (n0, n1, n2, n3) = (n(0), n(1), n(2), n(3));
            self.bits(
                c(0) | c(1) << n0 | c(2) << (n0 + n1) | c(3) << (n0 + n1 + n2),
                n0 + n1 + n2 + n3,
            );
            let (n4, n5, n6, n7) = (n(4), n(5), n(6), n(7));
            self.bits(
                c(4) | c(5) << n4 | c(6) << (n4 + n5) | c(7) << (n4 + n5 + n6),
                n4 + n5 + n6 + n7,
            );
        }
        if run > 0 {
            self.run(run);
        }
        for &b in chunks.remainder() {
            self.literal(b);
        }
    }

    /// Compresses a Paeth row of `stride` zero residuals, as [`Deflate::write`] would
    /// (the filter byte, a run of the zeros after it in its first eight bytes and every
    /// full eight after, then the zeros left over as literals), without reading them.
    fn repeated_row(&mut self, stride: usize) {
        let len = stride + 1;
        if len < 16 {
            let mut row = [0; 16];
            row[0] = PAETH;
            self.write(&row[..len]);
            return;
        }
        // the checksum of the filter byte and `stride` zeros (RFC 1950, 8.2): the zeros
        // add the running sum once each to the second sum
        const MOD: u64 = 65_521;
        let sums = self.adler.finish();
        let a = (u64::from(sums & 0xffff) + u64::from(PAETH)) % MOD;
        let b = (u64::from(sums >> 16) + a + a * (stride as u64 % MOD)) % MOD;
        self.adler = simd_adler32::Adler32::from_checksum((b << 16 | a) as u32);
        self.literal(PAETH);
        self.run(7 + 8 * (len as u32 / 8 - 1));
        for _ in 0..len % 8 {
            self.literal(0);
        }
    }

    /// The end-of-block code, the last bits padded to a byte, and the checksum.
    fn finish(mut self) -> Vec<u8> {
        self.bits(u64::from(CODES[256]), CODE_LENGTHS[256]);
        if !self.nbits.is_multiple_of(8) {
            self.bits(0, 8 - self.nbits % 8);
        }
        if self.nbits > 0 {
            let bytes = self.buffer.to_le_bytes();
            self.out
                .extend_from_slice(&bytes[..self.nbits as usize / 8]);
        }
        self.out
            .extend_from_slice(&self.adler.finish().to_be_bytes());
        self.out
    }
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
/// with `bpp` bytes a pixel, into `out` (ISO 15948, 9.4), on 32-byte vectors where the
/// CPU has them (integer arithmetic: the same bytes; a test compares the two paths).
#[allow(unsafe_code)] // the AVX2 call: see its SAFETY comment
fn paeth_residuals(line: &[u8], up: &[u8], bpp: usize, out: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: `paeth_avx2` needs AVX2, and the CPU has it (checked just above).
        unsafe { paeth_avx2(line, up, bpp, out) };
        return;
    }
    paeth_any(line, up, bpp, out);
}

/// [`paeth_any`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)] // needs AVX2, which only its caller can check
unsafe fn paeth_avx2(line: &[u8], up: &[u8], bpp: usize, out: &mut [u8]) {
    paeth_any(line, up, bpp, out);
}

/// [`paeth_residuals`] for any CPU (inlined into the AVX2 copy too). Each byte is
/// predicted from its left (`a`), upper (`b`) and upper-left (`c`) neighbours, 0 past the
/// left edge; the distances are taken in bytes, as in FPNGE, so that the loop has no
/// branches a compiler cannot turn into vector selects.
#[inline(always)]
fn paeth_any(line: &[u8], up: &[u8], bpp: usize, out: &mut [u8]) {
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

        /// The vector copy of the Paeth filter (where the CPU has one) gives the bytes of
        /// the plain one.
        #[test]
        fn paeth_is_the_same_on_every_cpu(
            (bpp, rows) in (prop::sample::select(vec![3usize, 4]), 1usize..70).prop_flat_map(|(bpp, n)| (
                Just(bpp),
                prop::collection::vec(any::<u8>(), 2 * n * bpp),
            ))
        ) {
            let (line, up) = rows.split_at(rows.len() / 2);
            let (mut fast, mut plain) = (vec![0; line.len()], vec![0; line.len()]);
            paeth_residuals(line, up, bpp, &mut fast);
            paeth_any(line, up, bpp, &mut plain);
            prop_assert_eq!(fast, plain);
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

    /// Rows wider than a match (258 bytes) and as wide as a view: runs of zeros split
    /// into several matches, repeated rows written without reading them, same bytes.
    #[test]
    fn wide_rows_are_the_png_crates() {
        for (w, h) in [(100, 9), (257, 7), (640, 12)] {
            for layout in [Layout::Rgb, Layout::Rgba] {
                // flat rows, repeated rows, a gradient, noise and rows half flat
                let looks: Vec<u8> = (0..w * h)
                    .map(|i| {
                        let (x, y) = (i % w, i / w);
                        match y % 6 {
                            0 | 1 => 0,
                            2 => 2,
                            3 => 1 + (x > w / 2) as u8 * 2,
                            4 => 3,
                            _ => 1,
                        }
                    })
                    .collect();
                let pixels = picture(w, h, &looks, layout);
                assert_eq!(
                    png(w, h, layout, &pixels).unwrap(),
                    reference(w, h, layout, &pixels),
                    "{w} × {h}, {layout:?}"
                );
            }
        }
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
