//! Golden files: bytes a test produces, compared with a copy kept in the repository.
//!
//! A picture or a prompt is easier to review as a file than as an assertion, and a change
//! to one should be deliberate. So a test calls [`check`] with the golden's path and what
//! it produced: equal bytes pass; different bytes fail with what differs (the first lines
//! of a text that differ; a picture's size or the pixels that differ); with
//! `ESCAPADE_BLESS=1` in the environment the golden is rewritten instead — look at the new
//! file (the diff, or the picture) before committing it.

use std::fmt::Write as _;
use std::path::Path;

/// The variable that rewrites goldens instead of comparing them.
pub const BLESS: &str = "ESCAPADE_BLESS";

/// The calling crate's `tests/golden` folder.
#[macro_export]
macro_rules! golden_dir {
    () => {
        ::std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
    };
}

/// Compares `got` with the golden file at `path`, or rewrites the file when
/// `ESCAPADE_BLESS` is set. Panics, saying what differs, when they differ or the golden is
/// missing.
#[track_caller]
pub fn check(path: impl AsRef<Path>, got: &[u8]) {
    let path = path.as_ref();
    if std::env::var_os(BLESS).is_some() {
        if let Err(e) = std::fs::write(path, got) {
            panic!("{}: {e} (could not rewrite the golden)", path.display());
        }
        return;
    }
    let want = std::fs::read(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (write it with {BLESS}=1, then look at it)",
            path.display()
        )
    });
    if want != got {
        panic!(
            "{} differs from what the test produced: {}\nif the change is meant, look at it, \
             then rewrite the golden with {BLESS}=1",
            path.display(),
            difference(&want, got)
        );
    }
}

/// [`check`] for text.
#[track_caller]
pub fn check_text(path: impl AsRef<Path>, got: &str) {
    check(path, got.as_bytes());
}

/// Says how `got` differs from `want` (which differ): pictures by their pixels, texts by
/// their lines, anything else by its first differing byte.
pub fn difference(want: &[u8], got: &[u8]) -> String {
    if let (Some(a), Some(b)) = (Picture::decode(want), Picture::decode(got)) {
        return a.difference(&b);
    }
    if let (Ok(a), Ok(b)) = (std::str::from_utf8(want), std::str::from_utf8(got)) {
        return text_difference(a, b);
    }
    let at = want
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(got.len()));
    format!(
        "{} bytes now, {} in the golden; the first difference is at byte {at}",
        got.len(),
        want.len()
    )
}

/// The first few lines that differ, numbered from 1.
fn text_difference(want: &str, got: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let mut out = format!("{} lines now, {} in the golden", b.len(), a.len());
    let mut shown = 0;
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i), b.get(i));
        if x == y {
            continue;
        }
        if shown == 5 {
            out.push_str("\n  …");
            break;
        }
        shown += 1;
        let _ = write!(
            out,
            "\n  line {}:\n    golden: {}\n    now:    {}",
            i + 1,
            x.map_or("(none)".to_string(), |s| format!("{s:?}")),
            y.map_or("(none)".to_string(), |s| format!("{s:?}")),
        );
    }
    if shown == 0 {
        // same lines: the line endings or the final newline differ
        out.push_str("; the lines are equal, their endings differ");
    }
    out
}

/// A decoded PNG, 8 bits a channel.
struct Picture {
    width: u32,
    height: u32,
    channels: usize,
    pixels: Vec<u8>,
}

impl Picture {
    fn decode(bytes: &[u8]) -> Option<Picture> {
        let mut decoder = png::Decoder::new(bytes);
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = decoder.read_info().ok()?;
        let mut pixels = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut pixels).ok()?;
        pixels.truncate(info.buffer_size());
        Some(Picture {
            width: info.width,
            height: info.height,
            channels: info.color_type.samples(),
            pixels,
        })
    }

    /// Sizes that differ, or how many pixels differ, where, and the first of them.
    fn difference(&self, now: &Picture) -> String {
        if (self.width, self.height, self.channels) != (now.width, now.height, now.channels) {
            return format!(
                "the picture is {}×{} ({} channels) now, {}×{} ({}) in the golden",
                now.width, now.height, now.channels, self.width, self.height, self.channels
            );
        }
        let c = self.channels;
        let mut count = 0usize;
        let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
        let mut first = None;
        for (i, (a, b)) in self.pixels.chunks(c).zip(now.pixels.chunks(c)).enumerate() {
            if a == b {
                continue;
            }
            let (x, y) = (i as u32 % self.width, i as u32 / self.width);
            count += 1;
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            first.get_or_insert((x, y, a.to_vec(), b.to_vec()));
        }
        match first {
            None => "the same pixels, encoded differently".to_string(),
            Some((x, y, a, b)) => format!(
                "{count} of {} pixels differ, within x {x0}..={x1}, y {y0}..={y1}; the first at \
                 ({x}, {y}) is {b:?} now, {a:?} in the golden",
                self.width as usize * self.height as usize
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32, pixels: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(pixels).unwrap();
        writer.finish().unwrap();
        out
    }

    #[test]
    fn texts_are_compared_line_by_line() {
        let d = difference(b"a\nb\nc\n", b"a\nB\nc\nd\n");
        assert!(d.starts_with("4 lines now, 3 in the golden"), "{d}");
        assert!(
            d.contains("line 2:\n    golden: \"b\"\n    now:    \"B\""),
            "{d}"
        );
        assert!(d.contains("line 4:\n    golden: (none)"), "{d}");
        assert!(difference(b"a\n", b"a").contains("endings differ"));
    }

    #[test]
    fn pictures_are_compared_pixel_by_pixel() {
        let black = png(3, 2, &[0; 18]);
        let mut pixels = [0; 18];
        pixels[3 * 4..3 * 4 + 3].copy_from_slice(&[9, 8, 7]); // (1, 1)
        let d = difference(&black, &png(3, 2, &pixels));
        assert_eq!(
            d,
            "1 of 6 pixels differ, within x 1..=1, y 1..=1; the first at (1, 1) is \
             [9, 8, 7] now, [0, 0, 0] in the golden"
        );
        let d = difference(&black, &png(2, 3, &[0; 18]));
        assert!(
            d.starts_with("the picture is 2×3 (3 channels) now, 3×2 (3)"),
            "{d}"
        );
    }

    #[test]
    fn other_bytes_name_the_first_difference() {
        let d = difference(&[0xff, 1, 2], &[0xff, 1, 3, 4]);
        assert_eq!(
            d,
            "4 bytes now, 3 in the golden; the first difference is at byte 2"
        );
    }

    #[test]
    fn equal_bytes_pass_and_different_ones_fail() {
        let dir = std::env::temp_dir().join(format!("escapade-testkit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.txt");
        std::fs::write(&path, "same\n").unwrap();
        if std::env::var_os(BLESS).is_none() {
            check_text(&path, "same\n");
            let failed = std::panic::catch_unwind(|| check_text(&path, "other\n"));
            let message = *failed.unwrap_err().downcast::<String>().unwrap();
            assert!(message.contains("line 1:"), "{message}");
            assert!(message.contains("ESCAPADE_BLESS=1"), "{message}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
