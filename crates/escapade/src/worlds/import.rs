//! Converters of the original benchmarks' files into scenarios (`escapade import`).
//!
//! comma: the original's puzzle file is a JSON list of one-key objects,
//! `[{"SimpleWirePuzzle": {"n_wires": 4, "colors": [...], "notes": "..."}}, …]`. Each
//! entry becomes one scenario (`comma-import-<n>-<puzzle>`, `n` from 1 in file order,
//! seed 0) whose instance is the entry's fields without `notes` (the original's comments
//! to authors). An entry that is not such an object, names an unknown class, or holds an
//! instance the puzzle refuses is an `Err` of its own; the others still convert.
//!
//! comma, a PAD-UFES-20 folder (the Telehealth puzzle's dataset, which a user supplies:
//! it is not shipped): `metadata.csv` (read by
//! [`escapade_comma::puzzles::telehealth::rows_from_csv`]) and the images it names in
//! its `img_id` column, looked up in `images/`, `imgs_part_*/`, `images/imgs_part_*/`
//! and the folder itself. Each row with an image becomes one scenario
//! (`comma-telehealth-<img_id without extension>`, seed 0) whose instance is
//! `{"skin_lesion_idx": <row, from 0>, "record": {…the row…}, "picture_png": "<base64>"}`:
//! the photograph, PNG or JPEG, decoded, scaled down to fit 512×384 by an area-averaging
//! box filter (deterministic integer arithmetic) and re-encoded as PNG, so the scenario
//! file alone replays the case. A row whose image is missing or unreadable, or whose
//! record cannot drive the rules (no known `diagnostic`), is an `Err` of its own.
//!
//! comma, a PAD-UFES-20 folder with `--suite comma@4`: the paper's evaluation set with
//! its Telehealth entries played on the exact cases the original names. Every scenario of
//! the suite is written as the suite builds it, except Telehealth's: each takes row
//! `skin_lesion_idx` of `metadata.csv` (counted from 0 in file order, blank lines not
//! counted, as the original's `pandas` `data.iloc[idx]`) and its photograph in place of the
//! synthetic stand-in, under the same id. A row whose diagnosis differs from the one the
//! original's answers give for it is imported, with a warning (another version of the
//! dataset). A case that cannot be read is skipped with a message, like any entry.
//!
//! vis, a copy of VisEscape's original repository (`pull-ups/VisEscape-demo`, which users
//! fetch themselves: it carries no licence, so escapade ships nothing of it): its
//! `assets/roomN/` directories are read by running the copy's own Python — our dumper,
//! [`escapade_vis::import::DUMPER`], fed to the user's `python3` on standard input with
//! the copy's `src/` on the path — and converted by [`escapade_vis::import::convert`]
//! with each room's `mapping/*/*.json`, `image/*/*/*.png` and `walkthrough_oracle.json`.
//!
//! This lives in the binary because the world crates do no I/O; it only calls
//! `escapade_comma`'s and `escapade_vis`'s public APIs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use escapade_comma::PuzzleKind;
use escapade_comma::puzzles::telehealth::{PICTURE_MAX, Record, Telehealth, rows_from_csv};
use escapade_comma::world::{COMMA, CommaScenario, CommaWorld, stand_in_answers};
use escapade_core::World as _;
use image::RgbImage;
use serde_json::Value;

/// The scenarios (JSON) of the original comma puzzle file `text`, one result per entry.
/// `Err` only when the file is not a JSON list.
pub fn comma(text: &str) -> Result<Vec<Result<String, String>>> {
    let value: Value = serde_json::from_str(text).context("not JSON")?;
    let Value::Array(entries) = value else {
        bail!("expected a JSON list of {{\"ClassName\": {{fields…}}}} entries");
    };
    Ok(entries
        .iter()
        .enumerate()
        .map(|(i, entry)| comma_entry(i + 1, entry))
        .collect())
}

/// One entry, numbered `n` from 1.
fn comma_entry(n: usize, entry: &Value) -> Result<String, String> {
    let known = || {
        PuzzleKind::ALL
            .iter()
            .map(|k| k.class())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (class, fields) = match entry {
        Value::Object(map) if map.len() == 1 => map.iter().next().expect("one key"),
        _ => {
            return Err(format!(
                "expected an object with one key, the puzzle class ({})",
                known()
            ));
        }
    };
    // the original's class names only: a short name (`wire`) is not a class
    let kind = PuzzleKind::ALL
        .into_iter()
        .find(|k| k.class() == class)
        .ok_or_else(|| format!("unknown puzzle class `{class}`; known: {}", known()))?;
    let Value::Object(fields) = fields else {
        return Err(format!("the fields of {class} must be an object"));
    };
    let mut instance = fields.clone();
    instance.remove("notes");
    let id = format!("comma-import-{n}-{}", kind.name());
    let scenario = CommaScenario::of(kind, 0, Value::Object(instance), id);
    let json = scenario.to_json();
    // the world's own check: the puzzle must accept the instance
    CommaScenario::from_json(&json).map_err(|e| format!("{class}: {e}"))?;
    Ok(json)
}

/// One case of a PAD-UFES-20 folder: its label (the image name, or the CSV line when
/// the row has none) and its scenario (JSON) or why it was skipped.
pub struct Case {
    /// The row's `img_id`, or `line N`.
    pub label: String,
    /// The scenario, or why the row was skipped.
    pub scenario: Result<String, String>,
}

/// The scenarios of the PAD-UFES-20 folder `dir`, one [`Case`] per row of its
/// `metadata.csv` (only the first `limit` rows when given). `Err` when `dir` is not a
/// folder, has no readable `metadata.csv`, or that file has no header with a
/// `diagnostic` column.
pub fn telehealth_folder(dir: &Path, limit: Option<usize>) -> Result<Vec<Case>> {
    let rows = metadata_rows(dir)?;
    let folders = image_folders(dir);
    let mut seen = std::collections::BTreeSet::new();
    Ok(rows
        .into_iter()
        .enumerate()
        .take(limit.unwrap_or(usize::MAX))
        .map(|(idx, row)| {
            let label = match &row {
                Ok(r) if !r.img_id.is_empty() => r.img_id.clone(),
                _ => format!("row {}", idx + 1),
            };
            let scenario = row
                .map_err(|e| e.to_string())
                .and_then(|r| telehealth_case(idx, r, &folders, &mut seen));
            Case { label, scenario }
        })
        .collect())
}

/// Where a PAD-UFES-20 folder may keep its images, in search order: `images/`,
/// `imgs_part_*/` and `images/imgs_part_*/` (each sorted by name), then the folder.
fn image_folders(dir: &Path) -> Vec<PathBuf> {
    let parts = |d: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_dir()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("imgs_part_"))
            })
            .collect();
        v.sort();
        v
    };
    let images = dir.join("images");
    let mut out = vec![images.clone()];
    out.extend(parts(dir));
    out.extend(parts(&images));
    out.push(dir.to_path_buf());
    out.retain(|p| p.is_dir());
    out
}

/// The scenario of row `idx`, or why it is skipped.
fn telehealth_case(
    idx: usize,
    record: Record,
    folders: &[PathBuf],
    seen: &mut std::collections::BTreeSet<String>,
) -> Result<String, String> {
    let name = record.img_id.trim().to_string();
    let stem = Path::new(&name)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(&name)
        .to_string();
    let id = format!("comma-telehealth-{stem}");
    if !name.is_empty() && !seen.insert(id.clone()) {
        return Err(format!("a second row for image {name}"));
    }
    case_with_photo(idx, record, folders, id)
}

/// The scenario `id` of row `idx` with its photograph, or why it cannot be made.
fn case_with_photo(
    idx: usize,
    record: Record,
    folders: &[PathBuf],
    id: String,
) -> Result<String, String> {
    let name = record.img_id.trim().to_string();
    if name.is_empty() {
        return Err("no img_id: the row names no image".into());
    }
    if name.contains(['/', '\\']) || name == ".." {
        return Err(format!("img_id `{name}` is not a file name"));
    }
    let path = find_image(&name, folders).ok_or_else(|| {
        format!("image {name} not found (looked in images/, imgs_part_*/ and the folder)")
    })?;
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let png = fit_png(&bytes).map_err(|e| format!("{}: {e:#}", path.display()))?;
    let puzzle = Telehealth::from_dataset(idx as u64, record)
        .and_then(|p| p.with_photo(png))
        .map_err(|e| e.to_string())?;
    let json = CommaScenario::of(
        PuzzleKind::Telehealth,
        0,
        escapade_comma::Puzzle::instance(&puzzle),
        id,
    )
    .to_json();
    // the world's own check: the puzzle must accept the instance
    CommaScenario::from_json(&json).map_err(|e| e.to_string())?;
    Ok(json)
}

/// How `escapade import vis` runs the dumper.
#[derive(Debug, Clone)]
pub struct VisOptions {
    /// The Python interpreter (`python3`).
    pub python: String,
    /// Seeded random walks per room through the original engine, replayed as a check.
    pub walks: u32,
    /// Actions per random walk.
    pub walk_steps: u32,
    /// Only the first N rooms (by number).
    pub limit: Option<usize>,
    /// The seed of the random walks.
    pub seed: u64,
}

/// One room directory of a VisEscape copy and what became of it.
pub struct VisRoom {
    /// The directory's name (`room1`).
    pub name: String,
    /// The conversion, or why the room cannot be imported.
    pub result: Result<escapade_vis::import::Imported, String>,
    /// How many triggers the original engine had set at the end of the walkthrough
    /// (the original's own count of a room's checkpoints).
    pub original_triggers: Option<usize>,
    /// Bytes of PNG files under the room's `image/`.
    pub image_bytes: u64,
}

/// A whole copy, converted.
pub struct VisImport {
    /// The copy's root (it holds `assets/` and `src/`).
    pub root: PathBuf,
    /// The Python version that ran the copy's code.
    pub python: String,
    /// Every room directory, by number.
    pub rooms: Vec<VisRoom>,
}

/// The copy's root from what the user gave: the root itself or its `assets/` folder.
fn visescape_root(path: &Path) -> Result<PathBuf> {
    let root = if path.join("assets").is_dir() {
        path.to_path_buf()
    } else if path.file_name().is_some_and(|n| n == "assets") {
        path.parent().map(Path::to_path_buf).unwrap_or_default()
    } else {
        bail!(
            "{} is not a copy of VisEscape's repository (pull-ups/VisEscape-demo): it has no \
             assets/ folder of rooms",
            path.display()
        );
    };
    if !root.join("src").join("vis_escape").is_dir() {
        bail!(
            "{} has no src/vis_escape/: the rooms are read by running the copy's own Python \
             package, so a full copy of the repository is needed",
            root.display()
        );
    }
    Ok(root)
}

/// The `assets/roomN` directories of a copy, by number.
fn room_dirs(root: &Path) -> Result<Vec<(u32, PathBuf)>> {
    let assets = root.join("assets");
    let mut rooms: Vec<(u32, PathBuf)> = std::fs::read_dir(&assets)
        .with_context(|| format!("cannot read {}", assets.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("config.py").is_file())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            let n = name.strip_prefix("room")?.parse::<u32>().ok()?;
            Some((n, p))
        })
        .collect();
    rooms.sort();
    if rooms.is_empty() {
        bail!("{} holds no roomN/config.py", assets.display());
    }
    Ok(rooms)
}

/// Files under `dir` two levels down (`<view>/<file>`, or `<view>/<object>/<file>` with
/// `depth` 3) whose name ends in `ext`, keyed by their path under `dir` with `/`.
fn files_under(dir: &Path, depth: usize, ext: &str) -> Result<BTreeMap<String, Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![(dir.to_path_buf(), String::new(), 1)];
    while let Some((d, prefix, level)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            let key = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            if path.is_dir() && level < depth {
                stack.push((path, key, level + 1));
            } else if path.is_file() && level == depth && name.ends_with(ext) {
                let bytes = std::fs::read(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                out.insert(key, bytes);
            }
        }
    }
    Ok(out)
}

/// Runs the dumper on the copy at `root` for `rooms`.
fn run_dumper(root: &Path, rooms: &[(u32, PathBuf)], opts: &VisOptions) -> Result<String> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut cmd = Command::new(&opts.python);
    // `-B`: no bytecode written into the user's copy; the hash seed fixes the order of
    // the original's sets, so its walks are the same on every run
    cmd.arg("-B")
        .arg("-")
        .arg(root)
        .args(rooms.iter().map(|(_, p)| p.as_os_str()))
        .args(["--walks", &opts.walks.to_string()])
        .args(["--walk-steps", &opts.walk_steps.to_string()])
        .args(["--seed", &opts.seed.to_string()])
        .env("PYTHONHASHSEED", "0")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().with_context(|| {
        format!(
            "cannot run `{}`: `escapade import vis` reads the rooms by running the copy's own \
             Python code; install Python 3.8 or later, or name an interpreter with --python",
            opts.python
        )
    })?;
    if let Some(mut stdin) = child.stdin.take() {
        // python reads the whole script before running it
        stdin
            .write_all(escapade_vis::import::DUMPER.as_bytes())
            .context("cannot hand the dumper to python")?;
    }
    let output = child
        .wait_with_output()
        .context("the dumper did not finish")?;
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = err.lines().rev().take(12).collect();
        bail!(
            "the dumper failed ({}):\n{}",
            output.status,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    String::from_utf8(output.stdout).context("the dumper printed something that is not UTF-8")
}

/// Reads and converts the rooms of the VisEscape copy at `path` (its root or its
/// `assets/`). `Err` when it is not a copy, or python cannot run the dumper; a room that
/// cannot be converted is a [`VisRoom`] with an `Err` of its own.
pub fn vis(path: &Path, opts: &VisOptions) -> Result<VisImport> {
    let root = visescape_root(path)?;
    let mut rooms = room_dirs(&root)?;
    if let Some(n) = opts.limit {
        rooms.truncate(n);
    }
    let text = run_dumper(&root, &rooms, opts)?;
    let dump = escapade_vis::import::dump::Dump::from_json(&text)?;
    let mut out = Vec::new();
    for ((number, dir), dumped) in rooms.iter().zip(&dump.rooms) {
        let mappings: BTreeMap<String, String> = files_under(&dir.join("mapping"), 2, ".json")?
            .into_iter()
            .map(|(k, v)| (k, String::from_utf8_lossy(&v).into_owned()))
            .collect();
        let images = files_under(&dir.join("image"), 3, ".png")?;
        let image_bytes = images.values().map(|b| b.len() as u64).sum();
        let walkthrough = std::fs::read_to_string(dir.join("walkthrough_oracle.json")).ok();
        let files = escapade_vis::import::RoomFiles {
            number: *number,
            dump: dumped,
            mappings: &mappings,
            images: &images,
            walkthrough: walkthrough.as_deref(),
        };
        let original_triggers = dumped
            .trace
            .as_ref()
            .and_then(|t| t.steps.iter().rev().find_map(|s| s.snapshot.as_ref()))
            .map(|s| s.triggers.len());
        out.push(VisRoom {
            name: dumped.name.clone(),
            result: escapade_vis::import::convert(files).map_err(|e| e.to_string()),
            original_triggers,
            image_bytes,
        });
    }
    Ok(VisImport {
        root,
        python: dump.python,
        rooms: out,
    })
}

/// The comma suite `suite` (`comma@4`) with its Telehealth scenarios made from the
/// PAD-UFES-20 folder `dir` (see the module docs): one [`Case`] per scenario, in suite
/// order, and the warnings to show. `Err` when `dir` is no readable PAD-UFES-20 folder or
/// the suite is not `comma@4`.
pub fn telehealth_suite(dir: &Path, suite: &str) -> Result<(Vec<Case>, Vec<String>)> {
    if suite != COMMA {
        bail!(
            "only {COMMA} names rows of PAD-UFES-20 (its Telehealth entries come from the \
             paper's evaluation set); {suite} does not"
        );
    }
    let rows = metadata_rows(dir)?;
    let folders = image_folders(dir);
    let scenarios = CommaWorld
        .build_suite(suite)
        .with_context(|| format!("cannot build {suite}"))?;
    let answers = stand_in_answers();
    let mut warnings = Vec::new();
    let mut cases = Vec::new();
    for json in scenarios {
        let (s, kind) = CommaScenario::from_json(&json)?;
        let label = format!("scenario {}", s.id);
        if kind != PuzzleKind::Telehealth {
            cases.push(Case {
                label,
                scenario: Ok(json),
            });
            continue;
        }
        let idx = s.instance["skin_lesion_idx"].as_u64().unwrap_or(u64::MAX);
        let scenario = match rows.get(idx as usize) {
            None => Err(format!(
                "metadata.csv has {} rows; row {idx} is not there",
                rows.len()
            )),
            Some(Err(e)) => Err(e.to_string()),
            Some(Ok(record)) => {
                if let Some((code, _)) = answers.get(&idx)
                    && *code != record.diagnostic
                {
                    warnings.push(format!(
                        "{}: row {idx} is a {} here, a {code} in the original's answers \
                         (another version of PAD-UFES-20?)",
                        s.id, record.diagnostic
                    ));
                }
                case_with_photo(idx as usize, record.clone(), &folders, s.id.clone())
            }
        };
        cases.push(Case { label, scenario });
    }
    Ok((cases, warnings))
}

/// The rows of `dir/metadata.csv`, each read or refused on its own; `Err` when `dir` is not
/// a folder or has no readable `metadata.csv` with a `diagnostic` column.
fn metadata_rows(dir: &Path) -> Result<Vec<Result<Record, escapade_comma::CommaError>>> {
    if !dir.is_dir() {
        bail!("{} is not a folder", dir.display());
    }
    let csv = dir.join("metadata.csv");
    if !csv.is_file() {
        bail!(
            "{} has no metadata.csv (a PAD-UFES-20 folder holds metadata.csv and the images \
             it names, in images/ or imgs_part_*/)",
            dir.display()
        );
    }
    let bytes = std::fs::read(&csv).with_context(|| format!("cannot read {}", csv.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    rows_from_csv(&text).with_context(|| format!("cannot read {}", csv.display()))
}

/// The first `folders/<name>`, also trying `.png`, `.jpg` and `.jpeg` when `name` has no
/// extension.
fn find_image(name: &str, folders: &[PathBuf]) -> Option<PathBuf> {
    let mut names = vec![name.to_string()];
    if Path::new(name).extension().is_none() {
        names.extend(["png", "jpg", "jpeg"].map(|e| format!("{name}.{e}")));
    }
    folders
        .iter()
        .flat_map(|f| names.iter().map(move |n| f.join(n)))
        .find(|p| p.is_file())
}

/// The PNG of the image `bytes` (PNG or JPEG), scaled down to fit [`PICTURE_MAX`] when
/// bigger (never up), without alpha.
pub fn fit_png(bytes: &[u8]) -> Result<Vec<u8>> {
    let format = image::guess_format(bytes).context("not an image")?;
    if !matches!(format, image::ImageFormat::Png | image::ImageFormat::Jpeg) {
        bail!("a {format:?} image; PNG or JPEG only");
    }
    let img = image::load_from_memory_with_format(bytes, format)
        .context("cannot decode the image")?
        .to_rgb8();
    let img = fit(&img, PICTURE_MAX);
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .context("cannot encode the PNG")?;
    Ok(out)
}

/// `img` scaled down to fit `max` (width, height), keeping its aspect ratio (each side
/// rounded, at least 1), by area averaging: each output pixel is the mean of the input
/// area it covers, partial pixels weighted by their overlap, in integer arithmetic.
/// An image that fits is returned as it is.
pub fn fit(img: &RgbImage, max: (u32, u32)) -> RgbImage {
    let (w, h) = img.dimensions();
    if w <= max.0 && h <= max.1 {
        return img.clone();
    }
    // scale = min(max.0 / w, max.1 / h), exactly: compare max.0 * h with max.1 * w
    let (tw, th) = if u64::from(max.0) * u64::from(h) <= u64::from(max.1) * u64::from(w) {
        let th = (u64::from(h) * u64::from(max.0) + u64::from(w) / 2) / u64::from(w);
        (max.0, (th as u32).clamp(1, max.1))
    } else {
        let tw = (u64::from(w) * u64::from(max.1) + u64::from(h) / 2) / u64::from(h);
        ((tw as u32).clamp(1, max.0), max.1)
    };
    // In units where an input pixel is `t` wide, output pixel `o` spans
    // [o·n, (o+1)·n) and input pixel `i` spans [i·t, (i+1)·t): weights are overlaps.
    let weights = |n: u32, t: u32| -> Vec<Vec<(usize, u64)>> {
        (0..t)
            .map(|o| {
                let (lo, hi) = (u64::from(o) * u64::from(n), u64::from(o + 1) * u64::from(n));
                let first = lo / u64::from(t);
                let last = (hi - 1) / u64::from(t);
                (first..=last)
                    .map(|i| {
                        let (a, b) = (i * u64::from(t), (i + 1) * u64::from(t));
                        (i as usize, b.min(hi) - a.max(lo))
                    })
                    .collect()
            })
            .collect()
    };
    let (wx, wy) = (weights(w, tw), weights(h, th));
    let src = img.as_raw();
    // horizontal pass: sums (not yet divided) per input row and output column
    let mut rows = vec![0u64; (tw as usize) * (h as usize) * 3];
    for y in 0..h as usize {
        let line = &src[y * w as usize * 3..(y + 1) * w as usize * 3];
        for (x, ws) in wx.iter().enumerate() {
            let out = &mut rows[(y * tw as usize + x) * 3..][..3];
            for &(i, wt) in ws {
                for c in 0..3 {
                    out[c] += wt * u64::from(line[i * 3 + c]);
                }
            }
        }
    }
    // vertical pass, then one rounding division by the whole area (w · h units)
    let area = u64::from(w) * u64::from(h);
    let mut out = RgbImage::new(tw, th);
    for (y, ws) in wy.iter().enumerate() {
        for x in 0..tw as usize {
            let mut sum = [0u64; 3];
            for &(i, wt) in ws {
                let px = &rows[(i * tw as usize + x) * 3..][..3];
                for c in 0..3 {
                    sum[c] += wt * px[c];
                }
            }
            let px = sum.map(|s| ((s + area / 2) / area).min(255) as u8);
            out.put_pixel(x as u32, y as u32, image::Rgb(px));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_convert_one_by_one() {
        let text = r#"[
            {"SimpleWirePuzzle": {"notes": "n", "n_wires": 3, "colors": ["blue", "white", "black"]}},
            {"NoSuchPuzzle": {}},
            {"SimpleWirePuzzle": {"n_wires": 9}},
            [1, 2]
        ]"#;
        let out = comma(text).unwrap();
        assert_eq!(out.len(), 4);
        let first: Value = serde_json::from_str(out[0].as_ref().unwrap()).unwrap();
        assert_eq!(first["id"], "comma-import-1-wire");
        assert_eq!(first["difficulty"], 1);
        assert!(first["instance"].get("notes").is_none());
        let e = out[1].as_ref().unwrap_err();
        assert!(e.contains("unknown puzzle class `NoSuchPuzzle`"), "{e}");
        assert!(e.contains("SimpleWirePuzzle"), "{e}");
        assert!(
            out[2]
                .as_ref()
                .unwrap_err()
                .starts_with("SimpleWirePuzzle:")
        );
        assert!(out[3].is_err());
        assert!(comma("{}").is_err());
    }

    #[test]
    fn fitting_keeps_the_aspect_and_averages_areas() {
        let flat = RgbImage::from_pixel(1600, 1200, image::Rgb([10, 200, 30]));
        let small = fit(&flat, PICTURE_MAX);
        assert_eq!(small.dimensions(), (512, 384));
        assert!(small.pixels().all(|p| p.0 == [10, 200, 30]));
        assert_eq!(
            fit(&RgbImage::new(1000, 200), PICTURE_MAX).dimensions(),
            (512, 102)
        );
        assert_eq!(
            fit(&RgbImage::new(300, 3000), PICTURE_MAX).dimensions(),
            (38, 384)
        );
        assert_eq!(
            fit(&RgbImage::new(5000, 1), PICTURE_MAX).dimensions(),
            (512, 1)
        );
        let fits = RgbImage::from_fn(40, 30, |x, y| image::Rgb([x as u8, y as u8, 7]));
        assert_eq!(fit(&fits, PICTURE_MAX), fits);
        // halving a 2×1 checker of black and white gives mid grey
        let checker = RgbImage::from_fn(1024, 768, |x, y| {
            image::Rgb(if (x + y) % 2 == 0 { [0; 3] } else { [255; 3] })
        });
        let grey = fit(&checker, PICTURE_MAX);
        assert!(
            grey.pixels().all(|p| p.0 == [128; 3]),
            "{:?}",
            grey.get_pixel(0, 0)
        );
        // a 3:1 reduction weights partial pixels: 1 2 3 | 4 5 6 -> 2, 5
        let ramp = RgbImage::from_fn(1536, 384, |x, _| image::Rgb([(x % 6 + 1) as u8; 3]));
        let r = fit(&ramp, PICTURE_MAX);
        assert_eq!((r.get_pixel(0, 0).0[0], r.get_pixel(1, 0).0[0]), (2, 5));
    }

    #[test]
    fn fit_png_reads_png_and_jpeg_and_refuses_the_rest() {
        let img = RgbImage::from_fn(700, 700, |x, y| image::Rgb([x as u8, y as u8, 90]));
        for format in [image::ImageFormat::Png, image::ImageFormat::Jpeg] {
            let mut bytes = Vec::new();
            img.write_to(&mut std::io::Cursor::new(&mut bytes), format)
                .unwrap();
            let png = fit_png(&bytes).unwrap();
            assert_eq!(
                escapade_comma::puzzles::telehealth::png_size(&png),
                Some((384, 384)),
                "{format:?}"
            );
            assert_eq!(png, fit_png(&bytes).unwrap(), "deterministic");
        }
        assert!(fit_png(b"GIF89a not really").is_err());
        assert!(fit_png(b"\x89PNG\r\n\x1a\n broken").is_err());
    }
}
