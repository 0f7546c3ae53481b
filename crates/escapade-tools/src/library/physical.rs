//! Terminals, items and containers: the nodes that are not plain tools.
//!
//! A terminal's output is the flag. An item has no function: its payload is drawn by
//! [`seed_value`]. A container's function checks nothing and returns its physical
//! outputs (`""`): the environment compares the code against the stored golden value
//! and then reveals what the container holds.

use rand::Rng as _;
use sha2::{Digest, Sha256};

use escapade_core::seed::Rng;

use super::code::program;
use super::words::{bytes, digits, phrase, pick, word};
use super::{Cx, ExecError, Seed, open, output};
use crate::files::Files;
use crate::template::{NodeKind, Template};
use crate::value::PortType::{
    self, BigInt as Int, CodePython, FileId, Hex, HexIvAes, HexKeyAes, HiddenItem, Item, Text,
};

// --- terminals -----------------------------------------------------------------------

pub(super) const EXIT_KEYPAD: Template = Template {
    id: "exit_keypad",
    kind: NodeKind::Terminal,
    family: "terminal",
    title: "Exit Keypad",
    semantics: "The exit door's keypad. Given the code, it shows the flag: `ESCAPE-` \
        followed by the first 12 lowercase hex digits of SHA-256 over the UTF-8 bytes of \
        `escapade/exit_keypad:` and the code's decimal text.",
    inputs: &[open("code", Int, "the exit code, a decimal integer")],
    outputs: &[output(
        "flag",
        Text,
        "the flag to submit, `ESCAPE-` + 12 hex digits",
    )],
};

pub(super) const EXIT_CONSOLE: Template = Template {
    id: "exit_console",
    kind: NodeKind::Terminal,
    family: "terminal",
    title: "Exit Console",
    semantics: "The exit console. Given the passphrase, it shows the flag: `ESCAPE-` \
        followed by the first 12 lowercase hex digits of SHA-256 over the UTF-8 bytes of \
        `escapade/exit_console:` and the passphrase.",
    inputs: &[open("passphrase", Text, "the exit passphrase")],
    outputs: &[output(
        "flag",
        Text,
        "the flag to submit, `ESCAPE-` + 12 hex digits",
    )],
};

/// The flag a terminal shows for an input.
fn flag(id: &str, input: &str) -> String {
    let digest = Sha256::digest(format!("escapade/{id}:{input}").as_bytes());
    format!("ESCAPE-{}", &hex::encode(digest)[..12])
}

// --- items ---------------------------------------------------------------------------

const ITEM: &str = "item";

macro_rules! item {
    ($name:ident, $id:literal, $title:literal, $semantics:literal, [$($port:expr),+ $(,)?]) => {
        pub(super) const $name: Template = Template {
            id: $id,
            kind: NodeKind::Item,
            family: ITEM,
            title: $title,
            semantics: $semantics,
            inputs: &[],
            outputs: &[$($port),+],
        };
    };
}

item!(
    BRASS_PLATE,
    "brass_plate",
    "Brass Plate",
    "A brass plate with a number engraved on it (a decimal integer).",
    [output("number", Int, "the engraved number, decimal")]
);
item!(
    TORN_NOTE,
    "torn_note",
    "Torn Note",
    "A torn scrap of paper with a few handwritten words.",
    [output("text", Text, "the words on the note")]
);
item!(
    USB_DRIVE,
    "usb_drive",
    "USB Drive",
    "A USB drive holding one file, referred to by its file id.",
    [output(
        "file",
        FileId,
        "the file id of the file on the drive"
    )]
);
item!(
    PUNCH_CARD,
    "punch_card",
    "Punch Card",
    "A punch card encoding a short Python 3 program that reads standard input and prints \
     one line.",
    [output("code", CodePython, "the program's Python 3 source")]
);
item!(
    STICKY_NOTE,
    "sticky_note",
    "Sticky Note",
    "A sticky note covered in hex digits (lowercase, two per byte).",
    [output("hex", Hex, "the hex string on the note")]
);
item!(
    LEDGER_PAGE,
    "ledger_page",
    "Ledger Page",
    "A ledger page with an account number and a handwritten remark.",
    [
        output("number", Int, "the account number, decimal"),
        output("text", Text, "the remark")
    ]
);
item!(
    FLOPPY_DISK,
    "floppy_disk",
    "Floppy Disk",
    "A floppy disk holding one file, referred to by its file id.",
    [output(
        "file",
        FileId,
        "the file id of the file on the disk"
    )]
);
item!(
    POSTCARD,
    "postcard",
    "Postcard",
    "A postcard with a short message on the back.",
    [output("text", Text, "the message")]
);
item!(
    DOG_TAG,
    "dog_tag",
    "Dog Tag",
    "A metal dog tag stamped with a service number (a decimal integer).",
    [output("number", Int, "the service number, decimal")]
);
item!(
    KEY_CARD,
    "key_card",
    "Key Card",
    "A magnetic key card whose stripe stores an AES key (16, 24 or 32 bytes, as hex).",
    [output("key", HexKeyAes, "the AES key, hex")]
);
item!(
    WAX_SEAL,
    "wax_seal",
    "Wax Seal",
    "A wax seal whose rim encodes a 16-byte AES initialisation vector, as hex.",
    [output("iv", HexIvAes, "the AES IV, 32 hex digits")]
);
item!(
    NOTEBOOK,
    "notebook",
    "Notebook",
    "A notebook with a short Python 3 program copied out by hand; it reads standard input \
     and prints one line.",
    [output("code", CodePython, "the program's Python 3 source")]
);
item!(
    PHOTOGRAPH,
    "photograph",
    "Photograph",
    "A faded photograph with a caption written on the back.",
    [output("caption", Text, "the caption")]
);
item!(
    CASSETTE,
    "cassette",
    "Cassette Tape",
    "A cassette tape whose label lists bytes as hex (lowercase, two digits per byte).",
    [output("hex", Hex, "the hex string on the label")]
);
item!(
    MAP_FRAGMENT,
    "map_fragment",
    "Map Fragment",
    "A fragment of a map, scanned into one file referred to by its file id.",
    [output("file", FileId, "the file id of the scanned map")]
);
item!(
    COIN,
    "coin",
    "Old Coin",
    "An old coin with a year-like number stamped on its face (a decimal integer).",
    [output("number", Int, "the stamped number, decimal")]
);

/// Seeds one output value of type `ty` for template `id`. `File_Id` only reserves an
/// id; physical types get `""`.
pub(super) fn seed_value(id: &str, ty: PortType, files: &mut Files, rng: &mut Rng) -> String {
    match ty {
        Int => match id {
            "coin" => rng.random_range(1200..2030).to_string(),
            "brass_plate" => digits(rng, 3, 6),
            "dog_tag" => digits(rng, 6, 9),
            _ => digits(rng, 4, 12),
        },
        Text => match id {
            "torn_note" => word(rng),
            _ => phrase(rng),
        },
        Hex => {
            let n = rng.random_range(4..=16);
            hex::encode(bytes(rng, n))
        }
        HexKeyAes => {
            let n = *pick(rng, &[16usize, 24, 32]);
            hex::encode(bytes(rng, n))
        }
        HexIvAes => hex::encode(bytes(rng, 16)),
        FileId => files.reserve(rng),
        CodePython => program(rng),
        Item | HiddenItem => String::new(),
    }
}

// --- containers ----------------------------------------------------------------------

const CONTAINER: &str = "container";

pub(super) const COMBINATION_SAFE: Template = Template {
    id: "combination_safe",
    kind: NodeKind::Container,
    family: CONTAINER,
    title: "Combination Safe",
    semantics: "A safe with a numeric dial. Entering the right combination (a decimal \
        integer) opens it and reveals what was hidden inside.",
    inputs: &[open(
        "combination",
        Int,
        "the combination, a decimal integer",
    )],
    outputs: &[output(
        "contents",
        HiddenItem,
        "what is hidden inside, revealed on opening",
    )],
};

pub(super) const CIPHER_CHEST: Template = Template {
    id: "cipher_chest",
    kind: NodeKind::Container,
    family: CONTAINER,
    title: "Cipher Chest",
    semantics: "A chest with a letter lock. The right passphrase (exact text) opens it, \
        revealing its contents and what lies under its false bottom.",
    inputs: &[open("passphrase", Text, "the passphrase, exact text")],
    outputs: &[
        output(
            "contents",
            Item,
            "the object in the chest, revealed on opening",
        ),
        output(
            "false_bottom",
            HiddenItem,
            "what is hidden under the false bottom",
        ),
    ],
};

pub(super) const HEX_LOCKER: Template = Template {
    id: "hex_locker",
    kind: NodeKind::Container,
    family: CONTAINER,
    title: "Hex Locker",
    semantics: "A locker with a hexadecimal keypad. The right access code (hex, two digits \
        per byte) opens its compartment.",
    inputs: &[open("access_code", Hex, "the access code as hex")],
    outputs: &[output(
        "compartment",
        HiddenItem,
        "what the compartment hides",
    )],
};

pub(super) const PUZZLE_BOX: Template = Template {
    id: "puzzle_box",
    kind: NodeKind::Container,
    family: CONTAINER,
    title: "Puzzle Box",
    semantics: "A wooden puzzle box that opens when the right sequence of moves is \
        entered (exact text).",
    inputs: &[open("sequence", Text, "the sequence of moves, exact text")],
    outputs: &[output(
        "contents",
        Item,
        "the object in the box, revealed on opening",
    )],
};

pub(super) fn execute(cx: &Cx<'_>, v: &[String]) -> Option<Result<Vec<String>, ExecError>> {
    match cx.t.kind {
        NodeKind::Terminal => Some(Ok(vec![flag(cx.t.id, &v[0])])),
        NodeKind::Container => Some(Ok(vec![String::new(); cx.t.outputs.len()])),
        _ => None,
    }
}

pub(super) fn seed(s: &mut Seed<'_>) -> Option<Result<(), ExecError>> {
    match s.t.id {
        "exit_keypad" => s.fill(0, |r| digits(r, 4, 9)),
        "exit_console" => s.fill(0, phrase),
        "combination_safe" => s.fill(0, |r| digits(r, 3, 8)),
        "cipher_chest" => s.fill(0, |r| format!("{} {}", word(r), word(r))),
        "hex_locker" => s.fill(0, |r| {
            let n = r.random_range(2..=6);
            hex::encode(bytes(r, n))
        }),
        "puzzle_box" => s.fill(0, |r| {
            let n = r.random_range(4..=6);
            (0..n)
                .map(|_| *pick(r, &["up", "down", "left", "right", "twist"]))
                .collect::<Vec<_>>()
                .join("-")
        }),
        _ => return None,
    }
    Some(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags() {
        let f = flag("exit_keypad", "1234");
        assert!(f.starts_with("ESCAPE-") && f.len() == 19);
        assert_ne!(f, flag("exit_console", "1234"));
    }
}
