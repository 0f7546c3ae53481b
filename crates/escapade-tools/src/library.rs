//! The template library: 32 tools, 2 terminals, 16 items and 4 containers (App. A.1),
//! each with a real deterministic function and a seeding rule.
//!
//! Three entry points do all the work, dispatching on the template id:
//!
//! - [`execute`] runs a template's function on canonical input values (what the
//!   environment does when the agent calls a node, and the generator's forward pass);
//! - [`instantiate`] fills a node's unconnected inputs with seeded values consistent with
//!   the connected ones and writes the files the node reads (stages 3–4);
//! - [`seed_item`] draws an item's payload.
//!
//! Every value is the canonical text of its [`PortType`]; outputs are canonicalized
//! before they are returned (a text is its exact string: nothing is trimmed, so every
//! template's stated semantics give its output character for character).
//! Functions never panic and never run unbounded: big numbers, inflated data and file
//! members are capped, and exceeding a cap is an [`ExecError`]. All randomness comes
//! from the generator passed in, so the same generator state gives the same values and
//! the same file bytes.

use num_bigint::{BigInt, BigUint, Sign};

use escapade_core::seed::Rng;

use crate::files::Files;
use crate::sandbox::{CodeRunner, SandboxError};
use crate::template::{NodeKind, PortRole, PortSpec, Template};
use crate::value::{PortType, TypeError};

mod archive; // zip_extract, csv_query, json_query
mod arith; // big_multiply, mod_pow, big_gcd, mod_inverse, and the prime helpers
mod code; // python_exec and the seeded Python program families
mod crypto; // hashes, HMAC, AES-CBC, RSA and the AES key/IV derivations
mod encoding; // base64, hex, zlib, ROT-N, XOR
mod graph; // shortest_path
mod numeric; // base_convert, crc32, luhn_complete, iban_compose, hex_to_bigint
mod physical; // terminals, items and containers
mod text; // regex_search, unicode_normalize, bidi_sanitize, timezone_convert
mod words; // seeded words, phrases, digits and bytes

/// Errors of [`execute`], [`instantiate`] and [`seed_item`].
///
/// Most variants describe a value outside a function's domain; the environment turns
/// them into feedback, and the generator retries with another seed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// Occurs when the template id is not in the library.
    #[error("unknown template `{0}`")]
    UnknownTemplate(String),
    /// Occurs when the number of input values differs from the template's input ports.
    #[error("template `{template}` takes {expected} inputs, got {got}")]
    Arity {
        /// The template id.
        template: &'static str,
        /// The number of input ports.
        expected: usize,
        /// The number of values given.
        got: usize,
    },
    /// Occurs when [`execute`] is called on an item, whose payload is seeded, not
    /// computed.
    #[error("`{0}` is an item: its payload is seeded, not computed")]
    NotExecutable(&'static str),
    /// Occurs when an input value is not of its port's type.
    #[error("input `{port}`: {source}")]
    BadInput {
        /// The input port.
        port: &'static str,
        /// Why the value is not of the type.
        #[source]
        source: TypeError,
    },
    /// Occurs when a computed output is not canonical for its type (for instance a
    /// product with more digits than a `Big_Int` may have).
    #[error("output `{port}`: {source}")]
    BadOutput {
        /// The output port.
        port: &'static str,
        /// Why the value is not of the type.
        #[source]
        source: TypeError,
    },
    /// Occurs when a value exceeds a size limit that keeps the function fast.
    #[error("`{port}` is too large (at most {limit})")]
    TooLarge {
        /// The port (or `file` for file content).
        port: &'static str,
        /// The limit, in words.
        limit: &'static str,
    },
    /// Occurs when a value is outside the function's domain (a modulus below 2, a base
    /// outside 2–36, a negative number for Luhn, a local time that does not exist).
    #[error("`{port}` is out of range: {why}")]
    OutOfRange {
        /// The port.
        port: &'static str,
        /// What the domain is.
        why: &'static str,
    },
    /// Occurs when a value is not valid in the format the function reads (Base64, a
    /// zlib stream, a regex, a JSON path, a date, a time-zone name, …).
    #[error("`{port}` is not a valid {format}")]
    Malformed {
        /// The port.
        port: &'static str,
        /// The expected format.
        format: &'static str,
    },
    /// Occurs when decoded or decrypted bytes are not UTF-8 text.
    #[error("the bytes decoded from `{port}` are not UTF-8 text")]
    NotUtf8 {
        /// The input port the bytes came from.
        port: &'static str,
    },
    /// Occurs when AES-CBC decryption fails: the ciphertext is not a whole number of
    /// blocks, or the PKCS#7 padding is wrong (usually a wrong key or IV).
    #[error("decryption failed: wrong key or iv, or ciphertext not whole blocks")]
    Decrypt,
    /// Occurs when a value has no inverse modulo the modulus (they are not coprime).
    #[error("the value has no inverse modulo the modulus")]
    NoInverse,
    /// Occurs when a `File_Id` names no written file.
    #[error("no file `{0}`")]
    NoSuchFile(String),
    /// Occurs when a file's content is not in the format the tool reads.
    #[error("file `{id}` is not a valid {format}")]
    BadFile {
        /// The file id.
        id: String,
        /// The expected format.
        format: &'static str,
    },
    /// Occurs when a lookup finds nothing: a ZIP member, a CSV key or column, a JSON
    /// node, a regex match, a graph node or a path between two nodes.
    #[error("{what} `{name}` not found")]
    NotFound {
        /// What was looked up.
        what: &'static str,
        /// The name looked for.
        name: String,
    },
    /// Occurs when a JSON path selects more than one node.
    #[error("the path selects {count} nodes, not exactly one")]
    Ambiguous {
        /// How many nodes it selects.
        count: usize,
    },
    /// Occurs when the Python sandbox refuses or fails to run the code.
    #[error("python: {0}")]
    Sandbox(#[from] SandboxError),
    /// Occurs when [`instantiate`] cannot seed values consistent with the given ones.
    #[error("cannot seed consistent inputs: {why}")]
    Unsatisfiable {
        /// What made it impossible.
        why: &'static str,
    },
}

/// All templates: 32 tools, 2 terminals, 16 items and 4 containers, in this order.
pub fn library() -> &'static [Template] {
    &LIBRARY
}

/// Looks a template up by id.
pub fn template(id: &str) -> Option<&'static Template> {
    LIBRARY.iter().find(|t| t.id == id)
}

/// Runs a template's real function.
///
/// `inputs` holds one value per port of `t.inputs` (physical ports get `""`); a trailing
/// extra value for the trigger port of a droppable variant is accepted and ignored.
/// Returns one canonical value per port of `t.outputs` (physical outputs get `""`).
/// Inputs are canonicalized first, so a value an agent typed leniently behaves like its
/// canonical form. Items have no function: calling this on one is an error.
pub fn execute(
    t: &Template,
    inputs: &[String],
    files: &Files,
    runner: &dyn CodeRunner,
) -> Result<Vec<String>, ExecError> {
    let t = lookup(t, inputs.len())?;
    if t.kind == NodeKind::Item {
        return Err(ExecError::NotExecutable(t.id));
    }
    let mut values = Vec::with_capacity(t.inputs.len());
    for (port, raw) in t.inputs.iter().zip(inputs) {
        if port.ty.is_physical() {
            values.push(String::new());
        } else {
            let v = port
                .ty
                .canonicalize(raw)
                .map_err(|source| ExecError::BadInput {
                    port: port.name,
                    source,
                })?;
            values.push(v);
        }
    }
    let cx = Cx { t, files, runner };
    let raw = dispatch_execute(&cx, &values)?;
    // every family returns one value per output (the tests check it); a mismatch would
    // be a bug in the table, reported rather than panicking
    if raw.len() != t.outputs.len() {
        return Err(ExecError::UnknownTemplate(t.id.to_string()));
    }
    t.outputs
        .iter()
        .zip(raw)
        .map(|(port, v)| {
            if port.ty.is_physical() {
                Ok(String::new())
            } else {
                port.ty
                    .canonicalize(&v)
                    .map_err(|source| ExecError::BadOutput {
                        port: port.name,
                        source,
                    })
            }
        })
        .collect()
}

/// Fills every `None` input with a seeded value consistent with the `Some` ones, and
/// writes the content of every `File_Id` input whose file is still pending (reserving a
/// new id when that input is `None`).
///
/// `Some` values come from upstream nodes and are canonical. Physical ports left `None`
/// become `""`. On `Ok`, [`execute`] on the filled inputs succeeds (this function checks
/// it by running it, which for `python_exec` runs the code once). `Err` means the given
/// values make the node impossible (no modular inverse, data that is not Base64, …):
/// the caller retries with another seed. Items have nothing to seed.
pub fn instantiate(
    t: &Template,
    inputs: &mut [Option<String>],
    files: &mut Files,
    rng: &mut Rng,
    runner: &dyn CodeRunner,
) -> Result<(), ExecError> {
    let t = lookup(t, inputs.len())?;
    for (i, slot) in inputs.iter_mut().enumerate() {
        let physical = t.inputs.get(i).is_none_or(|p| p.ty.is_physical());
        if physical && slot.is_none() {
            *slot = Some(String::new());
        }
    }
    if t.kind == NodeKind::Item {
        return Ok(());
    }
    let mut s = Seed {
        t,
        inputs,
        files,
        rng,
    };
    let given: Vec<bool> = s.inputs.iter().map(Option::is_some).collect();
    dispatch_seed(&mut s)?;
    let mut values = Vec::with_capacity(s.inputs.len());
    for (i, slot) in s.inputs.iter().enumerate() {
        let Some(v) = slot else {
            return Err(ExecError::Unsatisfiable {
                why: "an input was left unseeded",
            });
        };
        // a seeded value becomes a golden value: it must be in canonical form
        let seeded = t.inputs.get(i).filter(|p| !p.ty.is_physical() && !given[i]);
        if seeded.is_some_and(|p| p.ty.canonicalize(v).as_deref() != Ok(v.as_str())) {
            return Err(ExecError::Unsatisfiable {
                why: "a seeded value is not in canonical form",
            });
        }
        values.push(v.clone());
    }
    execute(t, &values, s.files, runner).map(|_| ())
}

/// Seeds the payload of an item: one value per port of `t.outputs`. `File_Id` outputs
/// only reserve an id (the consuming tool writes the content when it is instantiated);
/// physical outputs get `""`. Works for any template, though only items need it.
pub fn seed_item(t: &Template, files: &mut Files, rng: &mut Rng) -> Vec<String> {
    t.outputs
        .iter()
        .map(|port| physical::seed_value(t.id, port.ty, files, rng))
        .collect()
}

/// The library table. The order is part of the documented contract of [`library`].
static LIBRARY: [Template; 54] = [
    // tools (32)
    arith::BIG_MULTIPLY,
    arith::MOD_POW,
    arith::BIG_GCD,
    arith::MOD_INVERSE,
    crypto::SHA256_DIGEST,
    crypto::MD5_DIGEST,
    crypto::HMAC_SHA256,
    crypto::AES_CBC_DECRYPT,
    crypto::RSA_DECRYPT,
    encoding::BASE64_DECODE,
    encoding::BASE64_ENCODE,
    encoding::HEX_DECODE,
    encoding::HEX_ENCODE,
    encoding::ZLIB_INFLATE,
    encoding::ROT_N,
    encoding::XOR_HEX,
    archive::ZIP_EXTRACT,
    archive::CSV_QUERY,
    archive::JSON_QUERY,
    text::REGEX_SEARCH,
    graph::SHORTEST_PATH,
    code::PYTHON_EXEC,
    numeric::BASE_CONVERT,
    numeric::CRC32,
    numeric::LUHN_COMPLETE,
    numeric::IBAN_COMPOSE,
    numeric::HEX_TO_BIGINT,
    text::UNICODE_NORMALIZE,
    text::BIDI_SANITIZE,
    text::TIMEZONE_CONVERT,
    crypto::DERIVE_AES_KEY,
    crypto::DERIVE_AES_IV,
    // terminals (2)
    physical::EXIT_KEYPAD,
    physical::EXIT_CONSOLE,
    // items (16)
    physical::BRASS_PLATE,
    physical::TORN_NOTE,
    physical::USB_DRIVE,
    physical::PUNCH_CARD,
    physical::STICKY_NOTE,
    physical::LEDGER_PAGE,
    physical::FLOPPY_DISK,
    physical::POSTCARD,
    physical::DOG_TAG,
    physical::KEY_CARD,
    physical::WAX_SEAL,
    physical::NOTEBOOK,
    physical::PHOTOGRAPH,
    physical::CASSETTE,
    physical::MAP_FRAGMENT,
    physical::COIN,
    // containers (4)
    physical::COMBINATION_SAFE,
    physical::CIPHER_CHEST,
    physical::HEX_LOCKER,
    physical::PUZZLE_BOX,
];

/// Resolves `t` to the library's own entry (so the ports are the library's) and checks
/// the number of inputs (`n` or `n + 1` with a trailing trigger).
fn lookup(t: &Template, got: usize) -> Result<&'static Template, ExecError> {
    let lib = template(t.id).ok_or_else(|| ExecError::UnknownTemplate(t.id.to_string()))?;
    let n = lib.inputs.len();
    if got != n && got != n + 1 {
        return Err(ExecError::Arity {
            template: lib.id,
            expected: n,
            got,
        });
    }
    Ok(lib)
}

fn dispatch_execute(cx: &Cx<'_>, v: &[String]) -> Result<Vec<String>, ExecError> {
    arith::execute(cx, v)
        .or_else(|| crypto::execute(cx, v))
        .or_else(|| encoding::execute(cx, v))
        .or_else(|| archive::execute(cx, v))
        .or_else(|| text::execute(cx, v))
        .or_else(|| graph::execute(cx, v))
        .or_else(|| code::execute(cx, v))
        .or_else(|| numeric::execute(cx, v))
        .or_else(|| physical::execute(cx, v))
        .unwrap_or_else(|| Err(ExecError::UnknownTemplate(cx.t.id.to_string())))
}

fn dispatch_seed(s: &mut Seed<'_>) -> Result<(), ExecError> {
    let found = [
        arith::seed,
        crypto::seed,
        encoding::seed,
        archive::seed,
        text::seed,
        graph::seed,
        code::seed,
        numeric::seed,
        physical::seed,
    ]
    .into_iter()
    .find_map(|f| f(s));
    found.unwrap_or_else(|| Err(ExecError::UnknownTemplate(s.t.id.to_string())))
}

// ---------------------------------------------------------------------------------------
// Helpers shared by the family modules.

/// Largest modulus and exponent for modular exponentiation (and RSA), in bits.
const MAX_POW_BITS: u64 = 4096;
/// Largest operand of the Euclidean algorithms (gcd, inverse), in bits.
const MAX_EUCLID_BITS: u64 = 16_384;
/// Largest number of bytes a tool inflates, extracts or reads from a file.
const MAX_BYTES: usize = 1 << 20;

/// An input port that may be wired to any upstream output of its type.
const fn open(name: &'static str, ty: PortType, doc: &'static str) -> PortSpec {
    PortSpec {
        name,
        ty,
        role: PortRole::Open,
        doc,
    }
}

/// A semantically sensitive input port whose source feeds nothing else.
const fn exclusive(name: &'static str, ty: PortType, doc: &'static str) -> PortSpec {
    PortSpec {
        name,
        ty,
        role: PortRole::Exclusive,
        doc,
    }
}

/// An input port that is always seeded.
const fn seed_only(name: &'static str, ty: PortType, doc: &'static str) -> PortSpec {
    PortSpec {
        name,
        ty,
        role: PortRole::SeedOnly,
        doc,
    }
}

/// An output port.
const fn output(name: &'static str, ty: PortType, doc: &'static str) -> PortSpec {
    PortSpec {
        name,
        ty,
        role: PortRole::Open,
        doc,
    }
}

/// What a family's `execute` sees.
struct Cx<'a> {
    t: &'static Template,
    files: &'a Files,
    runner: &'a dyn CodeRunner,
}

impl Cx<'_> {
    /// The name of input port `i`.
    fn port(&self, i: usize) -> &'static str {
        self.t.inputs.get(i).map_or("input", |p| p.name)
    }

    /// Input `i` as an integer.
    fn big(&self, v: &[String], i: usize) -> Result<BigInt, ExecError> {
        v[i].parse().map_err(|_| ExecError::Malformed {
            port: self.port(i),
            format: "decimal integer",
        })
    }

    /// Input `i` as an integer of at most `max_bits` bits in absolute value.
    fn big_capped(
        &self,
        v: &[String],
        i: usize,
        max_bits: u64,
        limit: &'static str,
    ) -> Result<BigInt, ExecError> {
        let n = self.big(v, i)?;
        if n.bits() > max_bits {
            return Err(ExecError::TooLarge {
                port: self.port(i),
                limit,
            });
        }
        Ok(n)
    }

    /// Input `i` as hex-decoded bytes.
    fn hex(&self, v: &[String], i: usize) -> Result<Vec<u8>, ExecError> {
        hex::decode(&v[i]).map_err(|_| ExecError::Malformed {
            port: self.port(i),
            format: "hex string",
        })
    }

    /// The bytes of the file named by input `i`.
    fn file(&self, v: &[String], i: usize) -> Result<Vec<u8>, ExecError> {
        let entry = self
            .files
            .get(&v[i])
            .ok_or_else(|| ExecError::NoSuchFile(v[i].clone()))?;
        Ok(entry.bytes())
    }
}

/// What a family's `seed` sees.
struct Seed<'a> {
    t: &'static Template,
    inputs: &'a mut [Option<String>],
    files: &'a mut Files,
    rng: &'a mut Rng,
}

impl Seed<'_> {
    /// The given (or already seeded) value of input `i`.
    fn get(&self, i: usize) -> Option<&str> {
        self.inputs.get(i).and_then(|o| o.as_deref())
    }

    /// Whether input `i` still needs a value.
    fn is_none(&self, i: usize) -> bool {
        self.inputs.get(i).is_some_and(Option::is_none)
    }

    /// Seeds input `i` with `f(rng)` if it has no value.
    fn fill(&mut self, i: usize, f: impl FnOnce(&mut Rng) -> String) {
        if self.is_none(i) {
            self.inputs[i] = Some(f(self.rng));
        }
    }

    /// Sets input `i` (it must be `None`; a given value is never overwritten).
    fn set(&mut self, i: usize, v: String) {
        if self.is_none(i) {
            self.inputs[i] = Some(v);
        }
    }

    /// Input `i` parsed as an integer (`None` when unset or not an integer).
    fn big(&self, i: usize) -> Option<BigInt> {
        self.get(i).and_then(|s| s.parse().ok())
    }

    /// The file id of `File_Id` input `i`, reserving one when unset, and whether its
    /// content still has to be written.
    fn file_slot(&mut self, i: usize) -> (String, bool) {
        if self.is_none(i) {
            let id = self.files.reserve(self.rng);
            self.inputs[i] = Some(id);
        }
        let id = self.get(i).unwrap_or_default().to_string();
        let pending = !self.files.is_written(&id);
        (id, pending)
    }
}

/// Decodes bytes as UTF-8, naming the port they came from.
fn utf8(port: &'static str, bytes: Vec<u8>) -> Result<String, ExecError> {
    String::from_utf8(bytes).map_err(|_| ExecError::NotUtf8 { port })
}

/// A non-negative `BigInt` from a `BigUint`.
fn signed(n: BigUint) -> BigInt {
    BigInt::from_biguint(Sign::Plus, n)
}

#[cfg(test)]
mod tests;
