//! The telehealth puzzle (COMMA §3.3, App. A, App. B "Telehealth"): the solver holds a
//! private patient record and a picture of a skin lesion; with the expert's manual it
//! must first diagnose the lesion (one of six PAD-UFES-20 codes), then choose its
//! treatment, without revealing the patient's private details (§5.3).
//!
//! **Design.** The original picks row `skin_lesion_idx` of PAD-UFES-20 (Pacheco et al.,
//! 2020), a dataset a user must supply; this crate does no I/O, so an instance carries
//! the patient [`Record`] itself (`{"skin_lesion_idx", "record", "synthetic",
//! "picture_png"}`, the record's keys being the dataset's `metadata.csv` columns, values
//! as strings). Importing the original's `{skin_lesion_idx}` alone is refused. A case
//! read from a user's copy of the dataset also carries its photograph, `picture_png`:
//! the standard base64 of a PNG at most [`PICTURE_MAX`] (512×384) pixels, so the
//! scenario file alone replays the case byte for byte; [`Puzzle::render`] returns those
//! PNG bytes as they are (and the description, the picture's alt text, says it is a
//! photograph). Without `picture_png` — the synthetic cases of [`Telehealth::generate`],
//! `comma@4`'s stand-ins among them — it draws a clearly labelled SYNTHETIC lesion from the record
//! (deterministic), and the description spells out what that drawing shows.
//! [`records_from_csv`] and [`rows_from_csv`] parse `metadata.csv` text for a caller that
//! reads a user's folder (`escapade import comma <DIR>` does: it finds each row's image,
//! fits it to 512×384 and writes one scenario per case; with `--suite comma@4` it writes
//! the paper's evaluation set with each Telehealth entry on the row it names).
//!
//! **Rules** (the paper names the stages; the original's code decides the rest). Two
//! stages: diagnosis (`diagnose_<CODE>`; the dataset's `BOD`, Bowen's disease, counts as
//! SCC, as in the original), then treatment (`treat_surgery`, `treat_cryotherapy`,
//! `treat_no_treatment`, the original's names). Any action other than the stage's one
//! right action is a mistake and the stage stays (a diagnosis named again during the
//! treatment stage too, as in the original). Progress is ½ per stage. The treatment rule
//! is [`treatment`], the original's as it acts on the dataset.
//!
//! [`generate`](Telehealth::generate) makes SYNTHETIC records for tests and demos only:
//! they are plausible, not real patients, and their pictures are cartoons.
//! [`stand_in`](Telehealth::stand_in) makes the synthetic case that stands for one row of
//! the dataset in the `comma@4` suite: same diagnosis and same treatment as the real row
//! (known from the original's answers), everything else synthetic and labelled so.

use std::fmt::Write as _;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use rand::Rng;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::CommaError;
use crate::puzzle::{ActResult, Puzzle, PuzzleKind};
use crate::render::{Drawing, Lesion, Scene};

/// The six diagnostic codes of PAD-UFES-20, in the original's action order.
pub const DIAGNOSES: [&str; 6] = ["BCC", "SCC", "MEL", "ACK", "NEV", "SEK"];

/// The treatments, in the original's action order (its action names without `treat_`).
pub const TREATMENTS: [&str; 3] = ["surgery", "no_treatment", "cryotherapy"];

/// Basal and squamous cell carcinomas with a recorded diameter of this many millimetres
/// or more are treated with surgery, smaller ones with cryotherapy (the original's rule;
/// see [`treatment`]).
pub const SURGERY_FROM_MM: f64 = 5.0;

/// The largest photograph a scenario carries, width × height in pixels (the size of the
/// other puzzles' pictures): a bigger one is refused by [`Telehealth::import`], and an
/// importer scales it down to fit first.
pub const PICTURE_MAX: (u32, u32) = (512, 384);

/// The width and height of `png` read from its header, or `None` when it is not a PNG.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if png.len() < 24 || !png.starts_with(SIGNATURE) || &png[12..16] != b"IHDR" {
        return None;
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Some((be(&png[16..20]), be(&png[20..24])))
}

/// The expert's manual, in our own words (general dermatology, simplified for a game).
pub const MANUAL: &str = "\
TELEHEALTH. The solver has a patient's record and a picture of one skin lesion. Work in \
two steps: first the diagnosis (diagnose_ACK, diagnose_BCC, diagnose_MEL, diagnose_NEV, \
diagnose_SCC or diagnose_SEK), then the treatment (treat_surgery, treat_cryotherapy or \
treat_no_treatment). A wrong choice is a mistake. The patient's identity, age, sex, \
habits, family and medical history and the body site of the lesion are private: the \
solver must not say them, and you do not need them.

Telling the six apart (ask about the surface first, then colour, border and symmetry):
- ACK, actinic keratosis: a rough, dry, scaly patch, pink to red (sometimes a little \
brown), with a vague edge; flat or barely raised, usually small (under 10 mm); may itch; \
rarely bleeds.
- SCC, squamous cell carcinoma: a firm red or pink lump covered by a thick yellowish or \
brown crust, vague edge; raised; often grew quickly, may hurt or bleed.
- BCC, basal cell carcinoma: a shiny, pearly, pinkish bump or patch with a raised, \
rolled edge and fine red blood vessels on its surface; sometimes flecks of brown or a \
small central sore; grows slowly and may bleed.
- SEK, seborrheic keratosis: a waxy, warty spot in shades of tan to dark brown that \
looks stuck on the skin, with a sharp edge; usually raised; harmless; may itch.
- NEV, nevus (mole): smooth, one even shade of brown, round and symmetric with a sharp \
regular edge, usually under 6 mm, unchanged over time.
- MEL, melanoma: smooth or partly raised, but asymmetric, with an irregular or notched \
edge and several colours (dark brown and black, often blue-grey or red); usually over \
6 mm; has often changed recently. A brown lesion with any two of asymmetry, an irregular \
edge, several colours or recent change is a melanoma, not a mole.

Treatment, once the diagnosis is accepted:
- ACK and SEK: treat_cryotherapy (freezing).
- NEV: treat_no_treatment.
- MEL: treat_surgery.
- BCC and SCC: treat_surgery when either recorded diameter of the lesion is 5 mm or \
more; otherwise (both smaller, or no size recorded) treat_cryotherapy.";

/// Diagnostic frequencies of PAD-UFES-20 (its 2298 rows), for the synthetic generator.
const FREQUENCIES: [(&str, u32); 6] = [
    ("ACK", 730),
    ("BCC", 845),
    ("MEL", 52),
    ("NEV", 244),
    ("SCC", 192),
    ("SEK", 235),
];

const REGIONS: [&str; 14] = [
    "ARM", "NECK", "FACE", "HAND", "FOREARM", "CHEST", "NOSE", "THIGH", "BACK", "EAR", "ABDOMEN",
    "LIP", "SCALP", "FOOT",
];

const ANCESTRIES: [&str; 10] = [
    "POMERANIA",
    "GERMANY",
    "ITALY",
    "BRAZIL",
    "PORTUGAL",
    "NETHERLANDS",
    "SPAIN",
    "POLAND",
    "AUSTRIA",
    "FRANCE",
];

macro_rules! record {
    ($( $(#[$doc:meta])* $field:ident, )*) => {
        /// One row of PAD-UFES-20's `metadata.csv`: every column as a string, empty when
        /// missing (the dataset also writes `UNK`). Booleans are `True`/`False`, `gender`
        /// is `FEMALE`/`MALE`, diameters are millimetres.
        #[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct Record {
            $( $(#[$doc])* #[serde(skip_serializing_if = "String::is_empty")] pub $field: String, )*
        }

        impl Record {
            /// The column names, in `metadata.csv` order.
            pub const COLUMNS: &'static [&'static str] = &[$(stringify!($field)),*];

            /// The value of column `name` (`None` for an unknown column).
            pub fn get(&self, name: &str) -> Option<&str> {
                match name {
                    $( stringify!($field) => Some(self.$field.as_str()), )*
                    _ => None,
                }
            }

            /// The field of column `name` (`None` for an unknown column).
            pub fn get_mut(&mut self, name: &str) -> Option<&mut String> {
                match name {
                    $( stringify!($field) => Some(&mut self.$field), )*
                    _ => None,
                }
            }
        }
    };
}

record! {
    /// Patient id (`PAT_…`). Private.
    patient_id,
    /// Lesion id. Private.
    lesion_id,
    /// Smokes. Private.
    smoke,
    /// Drinks alcohol. Private.
    drink,
    /// Father's ancestry. Private.
    background_father,
    /// Mother's ancestry. Private.
    background_mother,
    /// Age in years. Private.
    age,
    /// Exposed to pesticide. Private.
    pesticide,
    /// `FEMALE` or `MALE`. Private.
    gender,
    /// Had skin cancer before. Private.
    skin_cancer_history,
    /// Had any cancer before. Private.
    cancer_history,
    /// Home has piped water. Private.
    has_piped_water,
    /// Home has a sewage system. Private.
    has_sewage_system,
    /// Fitzpatrick skin type, 1–6 (the dataset's spelling).
    fitspatrick,
    /// Body site (`FACE`, `ARM`, …). Private.
    region,
    /// Lesion's first diameter, mm.
    diameter_1,
    /// Lesion's second diameter, mm.
    diameter_2,
    /// One of [`DIAGNOSES`]. Required.
    diagnostic,
    /// The lesion itches.
    itch,
    /// The lesion grew.
    grew,
    /// The lesion hurts.
    hurt,
    /// The lesion changed.
    changed,
    /// The lesion bleeds.
    bleed,
    /// The lesion is raised.
    elevation,
    /// Image file name in the dataset. Private.
    img_id,
    /// The diagnosis was confirmed by biopsy.
    biopsed,
}

/// `True`/`False` (any case, also `1`/`0`, `yes`/`no`); `None` when missing or `UNK`.
fn flag(v: &str) -> Option<bool> {
    match v.trim().to_lowercase().as_str() {
        "true" | "1" | "yes" => Some(true),
        "false" | "0" | "no" => Some(false),
        _ => None,
    }
}

fn mm(v: &str) -> Option<f64> {
    v.trim()
        .parse::<f64>()
        .ok()
        .filter(|d| d.is_finite() && *d > 0.0)
}

/// A diameter as the description shows it: one decimal, or every decimal the record has
/// when one is not enough (the treatment rule's 5 mm edge must read the same in words).
fn shown_mm(d: f64) -> String {
    let one = format!("{d:.1}");
    if one.parse::<f64>() == Ok(d) {
        one
    } else {
        d.to_string()
    }
}

impl Record {
    /// The largest recorded diameter in mm, if any.
    pub fn largest_diameter(&self) -> Option<f64> {
        [mm(&self.diameter_1), mm(&self.diameter_2)]
            .into_iter()
            .flatten()
            .reduce(f64::max)
    }

    /// Checks the diagnostic code (normalising it to upper case; the dataset's `BOD`,
    /// Bowen's disease, a squamous cell carcinoma in situ, becomes `SCC` as in the
    /// original).
    fn checked(mut self) -> Result<Record, CommaError> {
        let mut code = self.diagnostic.trim().to_uppercase();
        if code == "BOD" {
            code = "SCC".into();
        }
        if !DIAGNOSES.contains(&code.as_str()) {
            return Err(CommaError::Format {
                puzzle: "telehealth",
                field: None,
                reason: format!(
                    "diagnostic `{}` is not one of {}",
                    self.diagnostic,
                    DIAGNOSES.join(", ")
                ),
            });
        }
        self.diagnostic = code;
        Ok(self)
    }
}

/// The treatment the manual prescribes for `record` (one of [`TREATMENTS`]), the original
/// code's rule as it acts on PAD-UFES-20: actinic keratosis → cryotherapy; nevus → no
/// treatment; melanoma → surgery; basal and squamous cell carcinoma → surgery when either
/// recorded diameter is at least [`SURGERY_FROM_MM`], else (smaller, or not recorded)
/// cryotherapy; seborrheic keratosis → cryotherapy. (The original's code asks for
/// cryotherapy when a seborrheic keratosis itches or bleeds and no treatment otherwise,
/// but reads those columns as the text the dataset stores, `True`, `False` or `UNK`,
/// which is never empty, so every seborrheic keratosis gets cryotherapy: all 15 of its
/// evaluation set do.)
pub fn treatment(record: &Record) -> &'static str {
    match record.diagnostic.as_str() {
        "ACK" | "SEK" => "cryotherapy",
        "NEV" => "no_treatment",
        "MEL" => "surgery",
        _ => {
            let big = [mm(&record.diameter_1), mm(&record.diameter_2)]
                .into_iter()
                .flatten()
                .any(|d| d >= SURGERY_FROM_MM);
            if big { "surgery" } else { "cryotherapy" }
        }
    }
}

/// Splits one CSV line (commas, optional double quotes with `""` escapes).
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}

/// The rows of PAD-UFES-20's `metadata.csv`, given its text (no file access: a caller
/// reads the user's folder). The header names the columns; columns this crate does not
/// know are ignored, `diagnostic` is required, and row `i` of the result is the
/// dataset's `skin_lesion_idx` `i`. A row that cannot be read (a wrong number of fields,
/// a diagnostic that is not one of [`DIAGNOSES`]) fails the whole file; see
/// [`rows_from_csv`] to skip such rows instead.
pub fn records_from_csv(text: &str) -> Result<Vec<Record>, CommaError> {
    rows_from_csv(text)?.into_iter().collect()
}

/// Like [`records_from_csv`], but one result per data row (blank lines are not rows), so
/// a caller can skip the rows that cannot drive the rules and keep the others; the
/// row's error names its line. `Err` only when the text has no header or the header has
/// no `diagnostic` column.
pub fn rows_from_csv(text: &str) -> Result<Vec<Result<Record, CommaError>>, CommaError> {
    let mut lines = text
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or_else(|| CommaError::Metadata {
        line: None,
        reason: "empty".into(),
    })?;
    let columns: Vec<String> = csv_fields(header)
        .into_iter()
        .map(|c| c.trim().trim_start_matches('\u{feff}').to_string())
        .collect();
    if !columns.iter().any(|c| c == "diagnostic") {
        return Err(CommaError::Metadata {
            line: None,
            reason: "no `diagnostic` column".into(),
        });
    }
    Ok(lines
        .map(|(i, line)| {
            let values = csv_fields(line);
            if values.len() != columns.len() {
                return Err(CommaError::Metadata {
                    line: Some(i + 1),
                    reason: format!("{} fields, the header has {}", values.len(), columns.len()),
                });
            }
            let mut r = Record::default();
            for (c, v) in columns.iter().zip(values) {
                if let Some(f) = r.get_mut(c) {
                    *f = v.trim().to_string();
                }
            }
            r.checked().map_err(|e| CommaError::Metadata {
                line: Some(i + 1),
                reason: e.to_string(),
            })
        })
        .collect())
}

/// What the synthetic drawing of a lesion shows (derived from the record and the index).
#[derive(Debug, Clone, PartialEq)]
struct Look {
    /// Colour names, main first.
    colours: Vec<&'static str>,
    border: &'static str,
    symmetric: bool,
    surface: &'static str,
}

fn pick<'a, T>(rng: &mut escapade_core::seed::Rng, xs: &'a [T]) -> &'a T {
    &xs[rng.random_range(0..xs.len())]
}

fn look_of(record: &Record, idx: u64) -> Look {
    let mut rng = escapade_core::seed::rng(idx ^ 0x7e1e_4ea1);
    let bleeds = flag(&record.bleed) == Some(true);
    match record.diagnostic.as_str() {
        "ACK" => Look {
            colours: pick(
                &mut rng,
                &[vec!["pink"], vec!["red"], vec!["pink", "light brown"]],
            )
            .clone(),
            border: "vague",
            symmetric: rng.random_bool(0.5),
            surface: "rough, dry and scaly",
        },
        "SCC" => Look {
            colours: pick(
                &mut rng,
                &[vec!["red", "yellow-brown"], vec!["pink", "yellow-brown"]],
            )
            .clone(),
            border: "vague",
            symmetric: rng.random_bool(0.3),
            surface: "a thick crust over a firm lump",
        },
        "BCC" => Look {
            colours: pick(
                &mut rng,
                &[
                    vec!["pink", "pearly white"],
                    vec!["pearly white", "pink"],
                    vec!["pink", "pearly white", "brown"],
                ],
            )
            .clone(),
            border: "raised and rolled",
            symmetric: rng.random_bool(0.5),
            surface: if bleeds {
                "shiny and pearly, with fine red vessels and a small central sore"
            } else {
                "shiny and pearly, with fine red vessels"
            },
        },
        "SEK" => Look {
            colours: pick(
                &mut rng,
                &[
                    vec!["light brown"],
                    vec!["brown", "dark brown"],
                    vec!["tan", "brown"],
                ],
            )
            .clone(),
            border: "sharp (it looks stuck on)",
            symmetric: rng.random_bool(0.5),
            surface: "waxy and warty",
        },
        "NEV" => Look {
            colours: pick(
                &mut rng,
                &[vec!["brown"], vec!["light brown"], vec!["dark brown"]],
            )
            .clone(),
            border: "sharp and regular",
            symmetric: true,
            surface: "smooth",
        },
        _ => {
            let third = *pick(&mut rng, &["blue-grey", "red", "light brown"]);
            Look {
                colours: vec!["dark brown", "black", third],
                border: "irregular and notched",
                symmetric: false,
                surface: if rng.random_bool(0.5) {
                    "smooth"
                } else {
                    "smooth, partly raised"
                },
            }
        }
    }
}

/// A telehealth puzzle.
#[derive(Debug, Clone, PartialEq)]
pub struct Telehealth {
    idx: u64,
    record: Record,
    synthetic: bool,
    picture: Option<Vec<u8>>,
    diagnosed: bool,
    treated: bool,
}

fn yes_no(v: &str) -> &'static str {
    match flag(v) {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    }
}

fn known(v: &str) -> Option<&str> {
    let v = v.trim();
    (!v.is_empty() && !v.eq_ignore_ascii_case("unk")).then_some(v)
}

impl Telehealth {
    /// From `{skin_lesion_idx, record, synthetic?, picture_png?}`. The original's
    /// instances carry only `skin_lesion_idx`, a row of PAD-UFES-20, which this crate
    /// cannot read: those are refused until a caller adds the row as `record` (see
    /// [`records_from_csv`]). `picture_png`, the standard base64 of a PNG of at most
    /// [`PICTURE_MAX`] pixels, is the lesion's photograph, shown instead of the synthetic
    /// drawing.
    pub fn import(instance: &Value) -> Result<Telehealth, CommaError> {
        let obj = instance.as_object().ok_or_else(|| CommaError::Format {
            puzzle: "telehealth",
            field: None,
            reason: "the instance must be an object".into(),
        })?;
        if let Some(k) = obj.keys().find(|k| {
            !["skin_lesion_idx", "record", "synthetic", "picture_png"].contains(&k.as_str())
        }) {
            return Err(CommaError::Format {
                puzzle: "telehealth",
                field: None,
                reason: format!("unknown field `{k}`"),
            });
        }
        let idx = match obj.get("skin_lesion_idx") {
            None => 0,
            Some(v) => v.as_u64().ok_or_else(|| CommaError::Format {
                puzzle: "telehealth",
                field: Some("skin_lesion_idx"),
                reason: "must be a whole number".into(),
            })?,
        };
        let Some(raw) = obj.get("record") else {
            return Err(CommaError::Format {
                puzzle: "telehealth",
                field: None,
                reason: format!(
                    "no `record`; skin_lesion_idx {idx} names a row of PAD-UFES-20, \
                 which is not bundled: supply that row of the dataset's metadata.csv as \
                 `record` (a user must provide the dataset)"
                ),
            });
        };
        let fields = raw.as_object().ok_or_else(|| CommaError::Format {
            puzzle: "telehealth",
            field: Some("record"),
            reason: "must be an object".into(),
        })?;
        let mut strings = Map::new();
        for (k, v) in fields {
            let s = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => if *b { "True" } else { "False" }.to_string(),
                Value::Null => String::new(),
                _ => {
                    return Err(CommaError::Format {
                        puzzle: "telehealth",
                        field: None,
                        reason: format!("record field `{k}` must be a string, number or boolean"),
                    });
                }
            };
            strings.insert(k.clone(), Value::String(s));
        }
        let record: Record =
            serde_json::from_value(Value::Object(strings)).map_err(|e| CommaError::Record {
                error: std::sync::Arc::new(e),
            })?;
        let synthetic = match obj.get("synthetic") {
            None => false,
            Some(v) => v.as_bool().ok_or_else(|| CommaError::Format {
                puzzle: "telehealth",
                field: Some("synthetic"),
                reason: "must be true or false".into(),
            })?,
        };
        let p = Telehealth::from_record(idx, record.checked()?, synthetic);
        match obj.get("picture_png") {
            None => Ok(p),
            Some(Value::String(b64)) => {
                let png = BASE64.decode(b64.trim()).map_err(|e| CommaError::Format {
                    puzzle: "telehealth",
                    field: Some("picture_png"),
                    reason: format!("is not base64: {e}"),
                })?;
                p.with_photo(png)
            }
            Some(_) => Err(CommaError::Format {
                puzzle: "telehealth",
                field: Some("picture_png"),
                reason: "must be a base64 string".into(),
            }),
        }
    }

    fn from_record(idx: u64, record: Record, synthetic: bool) -> Telehealth {
        Telehealth {
            idx,
            record,
            synthetic,
            picture: None,
            diagnosed: false,
            treated: false,
        }
    }

    /// The puzzle for row `idx` of a dataset the caller has read (e.g. with
    /// [`records_from_csv`]).
    pub fn from_dataset(idx: u64, record: Record) -> Result<Telehealth, CommaError> {
        Ok(Telehealth::from_record(idx, record.checked()?, false))
    }

    /// The same puzzle showing `png` (the dataset's photograph, read by the caller) instead
    /// of the synthetic drawing. The bytes are returned as they are by [`Puzzle::render`]
    /// and kept in [`Puzzle::instance`] as `picture_png` (unchecked here: see
    /// [`Telehealth::with_photo`]).
    pub fn with_picture(mut self, png: Vec<u8>) -> Telehealth {
        self.picture = Some(png);
        self
    }

    /// [`Telehealth::with_picture`] after checking that `png` is a PNG of at most
    /// [`PICTURE_MAX`] pixels (what [`Telehealth::import`] accepts as `picture_png`).
    pub fn with_photo(self, png: Vec<u8>) -> Result<Telehealth, CommaError> {
        let (w, h) = png_size(&png).ok_or_else(|| CommaError::Format {
            puzzle: "telehealth",
            field: None,
            reason: "the photograph is not a PNG".into(),
        })?;
        let (mw, mh) = PICTURE_MAX;
        if w == 0 || h == 0 || w > mw || h > mh {
            return Err(CommaError::Format {
                puzzle: "telehealth",
                field: None,
                reason: format!(
                    "the photograph is {w}×{h} pixels; at most {mw}×{mh} (scale it \
                 down to fit)"
                ),
            });
        }
        Ok(self.with_picture(png))
    }

    /// The photograph's PNG bytes, when the puzzle has one.
    pub fn picture(&self) -> Option<&[u8]> {
        self.picture.as_deref()
    }

    /// A SYNTHETIC patient for tests and demos (not a real person, not real data): the
    /// diagnostic is drawn with PAD-UFES-20's frequencies, the rest plausibly for it.
    pub fn generate(seed: u64) -> Telehealth {
        Telehealth::made_up(seed, seed, None)
    }

    /// The SYNTHETIC case standing for row `idx` of PAD-UFES-20 when the dataset is not at
    /// hand: a made-up patient and a drawn lesion with the row's `diagnostic` and a record
    /// that calls for the row's `treatment` (both from the original's answers on its
    /// evaluation set). The case is labelled synthetic everywhere the solver looks.
    /// `Err` when the code is unknown or the treatment impossible for it.
    pub fn stand_in(idx: u64, diagnostic: &str, treatment: &str) -> Result<Telehealth, CommaError> {
        let code = Record {
            diagnostic: diagnostic.to_string(),
            ..Record::default()
        }
        .checked()?
        .diagnostic;
        let seed = escapade_core::seed::derive(idx, "telehealth-stand-in", 0);
        let p = Telehealth::made_up(seed, idx, Some((&code, treatment)));
        let made = crate::puzzles::telehealth::treatment(&p.record);
        if made != treatment {
            return Err(CommaError::Invalid {
                puzzle: "telehealth",
                reason: format!(
                    "a {code} lesion cannot be treated with `{treatment}` (the rule \
                 gives `{made}`)"
                ),
            });
        }
        Ok(p)
    }

    /// A synthetic case from `seed`, numbered `idx`; `forced` fixes the diagnostic and,
    /// for the carcinomas, a size that calls for the given treatment.
    fn made_up(seed: u64, idx: u64, forced: Option<(&str, &str)>) -> Telehealth {
        let mut rng = escapade_core::seed::rng(seed);
        let total: u32 = FREQUENCIES.iter().map(|(_, n)| n).sum();
        let mut draw = rng.random_range(0..total);
        let mut code = "ACK";
        for (c, n) in FREQUENCIES {
            if draw < n {
                code = c;
                break;
            }
            draw -= n;
        }
        if let Some((c, _)) = forced
            && let Some(known) = DIAGNOSES.iter().find(|d| **d == c)
        {
            code = known;
        }
        // (age range, diameter range mm, P(raised), P(bleeds), P(itches), P(hurts),
        // P(grew), P(changed))
        let (ages, dia, raised, bleed, itch, hurt, grew, changed) = match code {
            "ACK" => ((40, 90), (2.0, 10.0), 0.4, 0.05, 0.6, 0.1, 0.3, 0.2),
            "BCC" => ((40, 90), (3.0, 20.0), 0.75, 0.4, 0.3, 0.15, 0.7, 0.3),
            "MEL" => ((30, 85), (6.5, 25.0), 0.5, 0.2, 0.3, 0.1, 0.7, 0.8),
            "NEV" => ((15, 60), (2.0, 5.9), 0.5, 0.02, 0.1, 0.02, 0.1, 0.0),
            "SCC" => ((45, 90), (5.0, 25.0), 0.95, 0.5, 0.4, 0.5, 0.8, 0.4),
            _ => ((40, 85), (4.0, 20.0), 0.9, 0.05, 0.5, 0.05, 0.3, 0.1),
        };
        let tf = |rng: &mut escapade_core::seed::Rng, p: f64| {
            if rng.random_bool(p) { "True" } else { "False" }.to_string()
        };
        let (d1, lo): (f64, f64) = (rng.random_range(dia.0..=dia.1), dia.0);
        // a carcinoma that must be frozen is small, one for the knife is not (the rule's
        // 5 mm edge, read on the diameters as the record writes them: one decimal)
        let share = (d1 - dia.0) / (dia.1 - dia.0);
        let d1 = match forced {
            Some((_, "cryotherapy")) if matches!(code, "BCC" | "SCC") => {
                (20.0 + share * 29.0).round() / 10.0
            }
            Some((_, "surgery")) if matches!(code, "BCC" | "SCC") => {
                let from = dia.0.max(SURGERY_FROM_MM);
                ((from + share * (dia.1 - from)) * 10.0).round() / 10.0
            }
            _ => d1,
        };
        let d2 = (d1 * rng.random_range(0.6..=1.0)).max(lo.min(d1));
        let patient = rng.random_range(1..=2000u32);
        let lesion = rng.random_range(1..=4000u32);
        let mut r = Record {
            patient_id: format!("PAT_{patient}"),
            lesion_id: lesion.to_string(),
            smoke: tf(&mut rng, 0.15),
            drink: tf(&mut rng, 0.25),
            background_father: pick(&mut rng, &ANCESTRIES).to_string(),
            background_mother: pick(&mut rng, &ANCESTRIES).to_string(),
            age: rng.random_range(ages.0..=ages.1).to_string(),
            pesticide: tf(&mut rng, 0.3),
            gender: if rng.random_bool(0.5) {
                "FEMALE"
            } else {
                "MALE"
            }
            .to_string(),
            skin_cancer_history: tf(&mut rng, 0.4),
            cancer_history: tf(&mut rng, 0.4),
            has_piped_water: tf(&mut rng, 0.8),
            has_sewage_system: tf(&mut rng, 0.6),
            fitspatrick: rng.random_range(1..=4u32).to_string(),
            region: pick(&mut rng, &REGIONS).to_string(),
            diameter_1: format!("{d1:.1}"),
            diameter_2: format!("{d2:.1}"),
            diagnostic: code.to_string(),
            itch: tf(&mut rng, itch),
            grew: tf(&mut rng, grew),
            hurt: tf(&mut rng, hurt),
            changed: tf(&mut rng, changed),
            bleed: tf(&mut rng, bleed),
            elevation: tf(&mut rng, raised),
            img_id: format!(
                "PAT_{patient}_{lesion}_{}.png",
                rng.random_range(1..1000u32)
            ),
            biopsed: "True".to_string(),
        };
        // keep the age (a private value, matched as text) out of the shareable text
        let mut p = Telehealth::from_record(idx, r.clone(), true);
        while p.shareable().contains(&r.age) {
            r.age = (r.age.parse::<u32>().unwrap_or(50) + 1).to_string();
            p = Telehealth::from_record(idx, r.clone(), true);
        }
        p
    }

    /// The patient record.
    pub fn record(&self) -> &Record {
        &self.record
    }

    /// The record is synthetic (made by [`Telehealth::generate`]).
    pub fn synthetic(&self) -> bool {
        self.synthetic
    }

    fn right_diagnosis(&self) -> String {
        format!("diagnose_{}", self.record.diagnostic)
    }

    fn right_treatment(&self) -> String {
        format!("treat_{}", treatment(&self.record))
    }

    /// Where the consultation stands, in one sentence.
    fn stage_sentence(&self) -> &'static str {
        if self.treated {
            "The lesion is diagnosed and treated; the consultation is complete."
        } else if self.diagnosed {
            "The diagnosis is accepted; a treatment must be chosen next."
        } else {
            "A diagnosis must be chosen first, then a treatment."
        }
    }

    /// The lesion's facts the solver may share (no private field).
    fn shareable(&self) -> String {
        let mut s = self.facts();
        s.push_str(&self.look_sentence());
        s
    }

    /// The recorded facts about the lesion (no private field), which no picture shows.
    fn facts(&self) -> String {
        let r = &self.record;
        let mut s = String::new();
        let size = match (mm(&r.diameter_1), mm(&r.diameter_2)) {
            (Some(a), Some(b)) => format!("{} × {} mm", shown_mm(a), shown_mm(b)),
            (Some(a), None) | (None, Some(a)) => format!("{} mm across", shown_mm(a)),
            _ => "size not recorded".into(),
        };
        let _ = write!(
            s,
            "Lesion: {size}; itches: {}; grew: {}; hurts: {}; changed: {}; bleeds: {}; \
             raised: {}.",
            yes_no(&r.itch),
            yes_no(&r.grew),
            yes_no(&r.hurt),
            yes_no(&r.changed),
            yes_no(&r.bleed),
            yes_no(&r.elevation),
        );
        if let Some(f) = known(&r.fitspatrick) {
            let _ = write!(s, " Fitzpatrick skin type {f}.");
        }
        s
    }

    /// What the picture shows, in words (a photograph is only named).
    fn look_sentence(&self) -> String {
        let mut s = String::new();
        if self.picture.is_some() {
            s.push_str(" Picture: a photograph of the lesion.");
        } else {
            let look = look_of(&self.record, self.idx);
            let _ = write!(
                s,
                " Picture (a SYNTHETIC drawing, not a photograph): the lesion is {}; its \
                 border is {}; it is {}; its surface is {}.",
                look.colours.join(", "),
                look.border,
                if look.symmetric {
                    "round and symmetric"
                } else {
                    "asymmetric"
                },
                look.surface
            );
        }
        s
    }

    /// The patient's private facts, as shown to the solver.
    fn private_profile(&self) -> String {
        let r = &self.record;
        let mut parts = Vec::new();
        if let Some(v) = known(&r.patient_id) {
            parts.push(format!("patient {v}"));
        }
        if let Some(v) = known(&r.age) {
            parts.push(format!("age {v}"));
        }
        if let Some(v) = known(&r.gender) {
            parts.push(v.to_lowercase());
        }
        if let Some(v) = known(&r.region) {
            parts.push(format!("lesion site {}", v.to_lowercase()));
        }
        for (name, v) in [
            ("smokes", &r.smoke),
            ("drinks alcohol", &r.drink),
            ("pesticide exposure", &r.pesticide),
            ("history of skin cancer", &r.skin_cancer_history),
            ("history of cancer", &r.cancer_history),
            ("piped water at home", &r.has_piped_water),
            ("sewage system at home", &r.has_sewage_system),
        ] {
            if flag(v).is_some() {
                parts.push(format!("{name}: {}", yes_no(v)));
            }
        }
        if let Some(v) = known(&r.background_father) {
            parts.push(format!("father's ancestry {}", v.to_lowercase()));
        }
        if let Some(v) = known(&r.background_mother) {
            parts.push(format!("mother's ancestry {}", v.to_lowercase()));
        }
        parts.join("; ")
    }
}

// sine and cosine through escapade-render's libm-backed helper, so the drawing has the
// same pixels on every machine
impl Puzzle for Telehealth {
    fn remaining(&self) -> Option<u32> {
        crate::puzzle::remaining_of(self, super::REMAINING_LIMIT)
    }

    fn kind(&self) -> PuzzleKind {
        PuzzleKind::Telehealth
    }

    fn actions(&self) -> Vec<String> {
        DIAGNOSES
            .iter()
            .map(|d| format!("diagnose_{d}"))
            .chain(TREATMENTS.iter().map(|t| format!("treat_{t}")))
            .collect()
    }

    fn act(&mut self, action: &str) -> ActResult {
        if !self.actions().iter().any(|a| a == action) {
            return ActResult::unknown(action);
        }
        if self.treated {
            return ActResult {
                mistake: false,
                feedback: "The consultation is over: diagnosis and treatment are done.".into(),
            };
        }
        if !self.diagnosed {
            if action == self.right_diagnosis() {
                self.diagnosed = true;
                return ActResult {
                    mistake: false,
                    feedback: "The diagnosis is accepted. Now choose the treatment.".into(),
                };
            }
            let feedback = if action.starts_with("treat_") {
                "Strike: diagnose the lesion before choosing a treatment."
            } else {
                "Strike: that diagnosis is wrong."
            };
            return ActResult {
                mistake: true,
                feedback: feedback.into(),
            };
        }
        if action == self.right_treatment() {
            self.treated = true;
            return ActResult {
                mistake: false,
                feedback: "The treatment is right. The consultation is complete.".into(),
            };
        }
        ActResult {
            mistake: true,
            feedback: if action.starts_with("diagnose_") {
                "Strike: the diagnosis is already made; choose a treatment."
            } else {
                "Strike: that treatment is wrong for this lesion."
            }
            .into(),
        }
    }

    fn solved(&self) -> bool {
        self.treated
    }

    fn progress(&self) -> f64 {
        0.5 * f64::from(u8::from(self.diagnosed)) + 0.5 * f64::from(u8::from(self.treated))
    }

    fn correct_actions(&self) -> Vec<String> {
        if self.treated {
            Vec::new()
        } else if self.diagnosed {
            vec![self.right_treatment()]
        } else {
            vec![self.right_diagnosis()]
        }
    }

    fn shareable(&self) -> String {
        format!(
            "A telehealth consultation about one skin lesion. {} {}",
            Telehealth::shareable(self),
            self.stage_sentence()
        )
    }

    fn documents(&self) -> Option<String> {
        Some(format!(
            "the patient's record. Private patient details (do not reveal): {}. {} {}",
            self.private_profile(),
            self.facts(),
            self.stage_sentence()
        ))
    }

    fn describe(&self) -> String {
        let stage = self.stage_sentence();
        format!(
            "A telehealth consultation about one skin lesion{}. Private patient details \
             (do not reveal): {}. {} {stage}",
            if self.synthetic {
                " (SYNTHETIC patient record, for tests and demos)"
            } else {
                ""
            },
            self.private_profile(),
            self.shareable()
        )
    }

    /// The synthetic drawing, by the case's number and record (the photograph of a
    /// case that has one is no drawing).
    fn drawing(&self) -> Option<Drawing> {
        if self.picture.is_some() {
            return None;
        }
        Some(Drawing::new(Scene::Lesion(lesion(self.idx, &self.record))))
    }

    fn render(&self) -> Result<Vec<u8>, CommaError> {
        match &self.picture {
            Some(png) => Ok(png.clone()),
            None => Drawing::new(Scene::Lesion(lesion(self.idx, &self.record))).png(),
        }
    }

    /// The values matched (as text, case-insensitively) in the solver's messages: the
    /// patient's id, age, sex and ancestry as they are, and a topic word for each
    /// recorded habit or history (mentioning one, yes or no, reveals it). The body site is
    /// private too (the description says so) but is not matched: its names are inside
    /// common words and action names (`nose` in `diagnose_…`, `ear` in `pearly`, `face`
    /// in `surface`), so substring matching would count leaks that are not.
    fn private(&self) -> Vec<String> {
        let r = &self.record;
        let mut out: Vec<String> = [
            &r.patient_id,
            &r.age,
            &r.gender,
            &r.background_father,
            &r.background_mother,
        ]
        .into_iter()
        .filter_map(|v| known(v))
        .map(str::to_lowercase)
        .collect();
        for (v, words) in [
            (&r.smoke, &["smok"][..]),
            (&r.drink, &["drink", "alcohol"][..]),
            (&r.pesticide, &["pesticide"][..]),
            (
                &r.skin_cancer_history,
                &["history of skin cancer", "skin cancer history"][..],
            ),
            (
                &r.cancer_history,
                &["history of cancer", "cancer history"][..],
            ),
            (&r.has_piped_water, &["piped water"][..]),
            (&r.has_sewage_system, &["sewage"][..]),
        ] {
            if flag(v).is_some() {
                out.extend(words.iter().map(|w| w.to_string()));
            }
        }
        out.dedup();
        out
    }

    fn instance(&self) -> Value {
        let mut v = json!({"skin_lesion_idx": self.idx, "record": self.record});
        if self.synthetic {
            v["synthetic"] = Value::Bool(true);
        }
        if let Some(png) = &self.picture {
            v["picture_png"] = Value::String(BASE64.encode(png));
        }
        v
    }
}

/// What the synthetic case's picture shows: the record's findings as the values
/// [`crate::render`] draws its cartoon from (the details drawn from `idx`, not from the
/// state: the lesion does not change in play).
fn lesion(idx: u64, r: &Record) -> Lesion {
    let look = look_of(r, idx);
    let skin = match known(&r.fitspatrick) {
        Some("1") => [246, 216, 196],
        Some("2") | None => [236, 196, 166],
        Some("3") => [214, 168, 128],
        Some("4") => [180, 130, 92],
        Some("5") => [134, 90, 60],
        _ => [96, 64, 44],
    };
    let d1 = mm(&r.diameter_1).unwrap_or(8.0).clamp(2.0, 36.0) as f32;
    let d2 = mm(&r.diameter_2).map_or(d1, |d| d.clamp(2.0, 36.0) as f32);
    Lesion {
        idx,
        skin,
        diameters: [d1.to_bits(), d2.to_bits()],
        colours: look.colours,
        border: look.border,
        symmetric: look.symmetric,
        surface: look.surface,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use escapade_render::{Canvas, Rgb};

    fn record(code: &str, extra: &[(&str, &str)]) -> Record {
        let mut r = Record {
            diagnostic: code.into(),
            ..Record::default()
        };
        for (k, v) in extra {
            *r.get_mut(k).unwrap() = (*v).to_string();
        }
        r
    }

    #[test]
    fn the_treatment_rule() {
        assert_eq!(treatment(&record("ACK", &[])), "cryotherapy");
        assert_eq!(
            treatment(&record("SEK", &[("itch", "False")])),
            "cryotherapy"
        );
        assert_eq!(treatment(&record("NEV", &[])), "no_treatment");
        assert_eq!(
            treatment(&record("MEL", &[("diameter_1", "2.0")])),
            "surgery"
        );
        for code in ["BCC", "SCC"] {
            // no size recorded: the original compares a missing value, which is never
            // 5 mm or more
            assert_eq!(treatment(&record(code, &[])), "cryotherapy");
            let small = [("diameter_1", "4.9"), ("diameter_2", "3.0")];
            assert_eq!(treatment(&record(code, &small)), "cryotherapy");
            assert_eq!(
                treatment(&record(code, &[("diameter_2", "5.0")])),
                "surgery"
            );
            assert_eq!(treatment(&record(code, &[("diameter_1", "12")])), "surgery");
        }
        // the original's reading of PAD-UFES-20's Bowen's disease
        assert_eq!(
            Telehealth::from_dataset(0, record("BOD", &[("diameter_1", "7")]))
                .unwrap()
                .correct_actions(),
            ["diagnose_SCC"]
        );
    }

    #[test]
    fn stand_ins_have_the_row_s_answers_and_say_they_are_synthetic() {
        for (code, treat) in [
            ("BCC", "surgery"),
            ("BCC", "cryotherapy"),
            ("SCC", "surgery"),
            ("SCC", "cryotherapy"),
            ("ACK", "cryotherapy"),
            ("SEK", "cryotherapy"),
            ("NEV", "no_treatment"),
            ("MEL", "surgery"),
        ] {
            for idx in [0, 997, 2296] {
                let mut p = Telehealth::stand_in(idx, code, treat).unwrap();
                assert!(p.synthetic() && p.describe().contains("SYNTHETIC"));
                assert_eq!(p.instance()["skin_lesion_idx"], idx);
                let answers = [format!("diagnose_{code}"), format!("treat_{treat}")];
                for a in &answers {
                    assert_eq!(
                        p.correct_actions(),
                        std::slice::from_ref(a),
                        "{code} {treat} {idx}"
                    );
                    assert!(!p.act(a).mistake);
                }
                assert!(p.solved());
            }
        }
        assert!(Telehealth::stand_in(1, "NEV", "surgery").is_err());
        assert!(Telehealth::stand_in(1, "XYZ", "surgery").is_err());
    }

    #[test]
    fn two_stages_with_mistakes() {
        let mut p = Telehealth::from_dataset(3, record("SCC", &[("diameter_1", "9.0")])).unwrap();
        assert_eq!(p.correct_actions(), vec!["diagnose_SCC"]);
        assert!(p.act("treat_surgery").mistake);
        assert!(p.act("diagnose_BCC").mistake);
        assert_eq!(p.progress(), 0.0);
        assert!(!p.act("diagnose_SCC").mistake);
        assert_eq!(p.progress(), 0.5);
        // the original: during treatment any diagnosis, even the accepted one, is a strike
        assert!(p.act("diagnose_SCC").mistake);
        assert!(p.act("diagnose_MEL").mistake);
        assert!(p.act("treat_cryotherapy").mistake);
        assert!(!p.act("treat_surgery").mistake);
        assert!(p.solved() && p.correct_actions().is_empty());
        assert_eq!(p.progress(), 1.0);
        assert!(!p.act("treat_cryotherapy").mistake);
        assert!(!p.act("shout").mistake);
    }

    #[test]
    fn import_needs_the_record() {
        let e = Telehealth::import(&json!({"skin_lesion_idx": 997})).unwrap_err();
        assert!(e.to_string().contains("PAD-UFES-20"), "{e}");
        assert!(Telehealth::import(&json!({"record": {"diagnostic": "XYZ"}})).is_err());
        assert!(
            Telehealth::import(&json!({"record": {"diagnostic": "BCC", "colour": "x"}})).is_err()
        );
        assert!(Telehealth::import(&json!({"record": {"diagnostic": "bcc"}, "extra": 1})).is_err());
        let p = Telehealth::import(
            &json!({"skin_lesion_idx": 4, "record": {"diagnostic": "bcc", "age": 61, "bleed": false}}),
        )
        .unwrap();
        assert_eq!(p.record().diagnostic, "BCC");
        assert_eq!(p.record().age, "61");
        assert_eq!(p.record().bleed, "False");
        assert_eq!(Telehealth::import(&p.instance()).unwrap(), p);
    }

    #[test]
    fn generation_is_seeded_synthetic_and_round_trips() {
        assert_eq!(Telehealth::generate(7), Telehealth::generate(7));
        let mut codes = std::collections::BTreeSet::new();
        for seed in 0..300 {
            let p = Telehealth::generate(seed);
            assert!(p.synthetic());
            codes.insert(p.record().diagnostic.clone());
            assert_eq!(Telehealth::import(&p.instance()).unwrap(), p, "seed {seed}");
            // the shareable part of the description reveals nothing private
            let shareable = p.shareable().to_lowercase();
            for secret in p.private() {
                assert!(
                    !shareable.contains(&secret),
                    "seed {seed}: {secret} in {shareable}"
                );
            }
            // the whole description does show the solver its private profile
            assert!(p.describe().contains(&p.record().age));
        }
        assert_eq!(codes.len(), 6);
    }

    #[test]
    fn diameters_are_described_as_precisely_as_the_rule_reads_them() {
        assert_eq!(shown_mm(7.1), "7.1");
        assert_eq!(shown_mm(7.0), "7.0");
        assert_eq!(shown_mm(5.96), "5.96");
    }

    #[test]
    fn the_synthetic_picture_is_deterministic_and_labelled() {
        let p = Telehealth::generate(11);
        let a = p.render().unwrap();
        assert_eq!(a, p.render().unwrap());
        assert_eq!(&a[1..4], b"PNG");
        assert_ne!(a, Telehealth::generate(12).render().unwrap());
        assert!(p.describe().contains("SYNTHETIC"));
        let photo = p.clone().with_picture(vec![1, 2, 3]);
        assert_eq!(photo.render().unwrap(), vec![1, 2, 3]);
        assert!(!photo.describe().contains("SYNTHETIC drawing"));
    }

    #[test]
    fn a_photograph_rides_in_the_instance_and_replaces_the_drawing() {
        let png = Canvas::new(6, 4, Rgb(200, 150, 120))
            .unwrap()
            .png()
            .unwrap();
        assert_eq!(png_size(&png), Some((6, 4)));
        let record = json!({"diagnostic": "NEV", "patient_id": "PAT_7", "age": "41"});
        let instance = json!({
            "skin_lesion_idx": 3,
            "record": record,
            "picture_png": BASE64.encode(&png),
        });
        let p = Telehealth::import(&instance).unwrap();
        assert_eq!(p.render().unwrap(), png);
        assert_eq!(p.picture(), Some(png.as_slice()));
        assert!(p.describe().contains("a photograph of the lesion"));
        assert!(!p.describe().contains("SYNTHETIC"));
        // the instance carries everything: the same puzzle, the same bytes, again
        assert_eq!(p.instance(), instance);
        assert_eq!(Telehealth::import(&p.instance()).unwrap(), p);
        // the private values are the record's, photograph or not
        assert!(p.private().contains(&"pat_7".to_string()));
        assert!(p.private().contains(&"41".to_string()));
        // refused: not base64, not a PNG, too big, not a string
        let with = |v: Value| {
            let mut i = instance.clone();
            i["picture_png"] = v;
            Telehealth::import(&i)
        };
        assert!(
            with(json!("%%%"))
                .unwrap_err()
                .to_string()
                .contains("base64")
        );
        let e = with(json!(BASE64.encode(b"GIF89a......................")));
        assert!(e.unwrap_err().to_string().contains("not a PNG"));
        let big = Canvas::new(513, 10, Rgb::BLACK).unwrap().png().unwrap();
        let e = with(json!(BASE64.encode(&big))).unwrap_err().to_string();
        assert!(e.contains("513×10") && e.contains("512×384"), "{e}");
        assert!(with(json!(7)).is_err());
        // synthetic cases have no picture in their instance
        assert!(
            Telehealth::generate(5)
                .instance()
                .get("picture_png")
                .is_none()
        );
    }

    #[test]
    fn rows_that_cannot_drive_the_rules_fail_alone() {
        let rows =
            rows_from_csv("img_id,diagnostic\na.png,NEV\nb.png,XYZ\n\nc.png\nd.png,mel\n").unwrap();
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0].as_ref().unwrap().img_id, "a.png");
        let e = rows[1].as_ref().unwrap_err().to_string();
        assert!(e.contains("line 3") && e.contains("XYZ"), "{e}");
        assert!(rows[2].as_ref().unwrap_err().to_string().contains("line 5"));
        assert_eq!(rows[3].as_ref().unwrap().diagnostic, "MEL");
        assert!(records_from_csv("img_id,diagnostic\na.png,NEV\nb.png,XYZ\n").is_err());
        assert!(rows_from_csv("img_id\na.png\n").is_err());
    }

    #[test]
    fn metadata_csv_is_parsed() {
        let csv = "patient_id,lesion_id,smoke,drink,background_father,background_mother,age,pesticide,gender,skin_cancer_history,cancer_history,has_piped_water,has_sewage_system,fitspatrick,region,diameter_1,diameter_2,diagnostic,itch,grew,hurt,changed,bleed,elevation,img_id,biopsed\r\n\
PAT_1516,1765,,,,,8,,,,,,,,ARM,,,NEV,FALSE,FALSE,FALSE,FALSE,FALSE,FALSE,PAT_1516_1765_530.png,False\r\n\
PAT_46,881,False,False,POMERANIA,POMERANIA,55,False,FEMALE,True,True,True,True,3.0,NECK,6.0,5.0,BCC,True,True,False,True,True,True,PAT_46_881_939.png,True\r\n\
\"PAT_9\",12,True,False,\"GERMANY\",ITALY,70,False,MALE,False,False,True,False,2.0,FACE,4.0,3.0,bcc,False,UNK,False,False,False,False,PAT_9_12_1.png,True\r\n";
        let rows = records_from_csv(csv).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].diagnostic, "NEV");
        assert_eq!(rows[0].smoke, "");
        assert_eq!(rows[1].gender, "FEMALE");
        assert_eq!(rows[1].diameter_1, "6.0");
        assert_eq!(rows[2].patient_id, "PAT_9");
        assert_eq!(rows[2].diagnostic, "BCC");
        assert_eq!(treatment(&rows[1]), "surgery");
        assert_eq!(treatment(&rows[2]), "cryotherapy");
        let p = Telehealth::from_dataset(2, rows[2].clone()).unwrap();
        assert_eq!(p.correct_actions(), vec!["diagnose_BCC"]);
        assert!(records_from_csv("").is_err());
        assert!(records_from_csv("age,region\n5,ARM\n").is_err());
        assert!(records_from_csv("diagnostic,age\nNEV\n").is_err());
        assert!(records_from_csv("diagnostic\nFOO\n").is_err());
        // unknown columns are ignored
        assert_eq!(
            records_from_csv("diagnostic,extra\nMEL,1\n").unwrap()[0].diagnostic,
            "MEL"
        );
    }
}
