//! Port types and the canonical text form of values (App. A.1's closed vocabulary).
//!
//! Every value crosses the agent boundary as text, so each port type fixes one canonical
//! form and a lenient parser for what agents type:
//!
//! | type | canonical form | accepted from an agent |
//! |---|---|---|
//! | `Big_Int` | decimal, `-` for negatives, no leading zeros | surrounding whitespace, a leading `+`, `_` or `,` digit separators; a JSON number |
//! | `Text_Generic` | the exact string | the exact string (whitespace is part of a text) |
//! | `Hex_String` | lowercase hex, even length | upper case, a `0x` prefix, surrounding whitespace |
//! | `Hex_String_Key_AES` | as hex, 16, 24 or 32 bytes | as hex |
//! | `Hex_String_IV_AES` | as hex, exactly 16 bytes | as hex |
//! | `File_Id` | `file-` + 8 lowercase hex | surrounding whitespace |
//! | `Code_Python` | the exact source text | the exact source text |
//! | `Item`, `Hidden_Item` | physical objects: no value; never a parameter | — |

use std::fmt;

use num_bigint::BigInt;
use serde::{Deserialize, Serialize};

/// A port's type, from the paper's closed semantic vocabulary (App. A.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum PortType {
    /// Arbitrary-precision integer, decimal text.
    #[serde(rename = "Big_Int")]
    BigInt,
    /// Any UTF-8 text.
    #[serde(rename = "Text_Generic")]
    Text,
    /// Bytes as lowercase hex.
    #[serde(rename = "Hex_String")]
    Hex,
    /// An AES key (16, 24 or 32 bytes) as hex.
    #[serde(rename = "Hex_String_Key_AES")]
    HexKeyAes,
    /// An AES-CBC initialisation vector (16 bytes) as hex.
    #[serde(rename = "Hex_String_IV_AES")]
    HexIvAes,
    /// A reference to a file of the scenario (`file-xxxxxxxx`).
    #[serde(rename = "File_Id")]
    FileId,
    /// Python 3 source code.
    #[serde(rename = "Code_Python")]
    CodePython,
    /// A physical object placed in a container; revealed when the container opens.
    #[serde(rename = "Item")]
    Item,
    /// A concealed object that appears when its source node is resolved.
    #[serde(rename = "Hidden_Item")]
    HiddenItem,
}

impl PortType {
    /// All types, in declaration order.
    pub const ALL: [PortType; 9] = [
        PortType::BigInt,
        PortType::Text,
        PortType::Hex,
        PortType::HexKeyAes,
        PortType::HexIvAes,
        PortType::FileId,
        PortType::CodePython,
        PortType::Item,
        PortType::HiddenItem,
    ];

    /// The paper's name (`Big_Int`, …).
    pub fn paper_name(self) -> &'static str {
        match self {
            PortType::BigInt => "Big_Int",
            PortType::Text => "Text_Generic",
            PortType::Hex => "Hex_String",
            PortType::HexKeyAes => "Hex_String_Key_AES",
            PortType::HexIvAes => "Hex_String_IV_AES",
            PortType::FileId => "File_Id",
            PortType::CodePython => "Code_Python",
            PortType::Item => "Item",
            PortType::HiddenItem => "Hidden_Item",
        }
    }

    /// Physical-object types (`Item`, `Hidden_Item`): single-use, carry no value, and
    /// reveal their target when the source resolves (A.2).
    pub fn is_physical(self) -> bool {
        matches!(self, PortType::Item | PortType::HiddenItem)
    }

    /// How an agent should write a value of this type (for prompts and errors).
    pub fn hint(self) -> &'static str {
        match self {
            PortType::BigInt => "a decimal integer, e.g. 12345",
            PortType::Text => "a text string",
            PortType::Hex => "a hex string with an even number of digits, e.g. 0a1b2c",
            PortType::HexKeyAes => "an AES key as hex: 32, 48 or 64 hex digits",
            PortType::HexIvAes => "an AES IV as hex: exactly 32 hex digits",
            PortType::FileId => "a file id such as file-1a2b3c4d",
            PortType::CodePython => "Python 3 source code",
            PortType::Item | PortType::HiddenItem => "a physical object (not a parameter)",
        }
    }

    /// Parses what an agent typed into the canonical form, or says why it is not of
    /// this type.
    pub fn canonicalize(self, raw: &str) -> Result<String, TypeError> {
        let t = raw.trim();
        let err = |why: &str| TypeError {
            expected: self,
            why: why.to_string(),
        };
        match self {
            PortType::BigInt => {
                let cleaned: String = t
                    .strip_prefix('+')
                    .unwrap_or(t)
                    .chars()
                    .filter(|c| *c != '_' && *c != ',')
                    .collect();
                if cleaned.is_empty() || cleaned.len() > 20_000 {
                    return Err(err("not a decimal integer"));
                }
                let digits = cleaned.strip_prefix('-').unwrap_or(&cleaned);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(err("not a decimal integer"));
                }
                let n: BigInt = cleaned.parse().map_err(|_| err("not a decimal integer"))?;
                Ok(n.to_string())
            }
            // a text is compared as it is: a tool's output may begin or end with
            // whitespace (hex_decode of `0a79…`), and the agent must pass it on unchanged
            PortType::Text | PortType::CodePython => Ok(raw.to_string()),
            PortType::Hex | PortType::HexKeyAes | PortType::HexIvAes => {
                let h = t
                    .strip_prefix("0x")
                    .or_else(|| t.strip_prefix("0X"))
                    .unwrap_or(t);
                if !h.len().is_multiple_of(2) || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(err("not an even-length hex string"));
                }
                let n = h.len() / 2;
                match self {
                    PortType::HexKeyAes if ![16, 24, 32].contains(&n) => {
                        return Err(err("an AES key must be 16, 24 or 32 bytes"));
                    }
                    PortType::HexIvAes if n != 16 => {
                        return Err(err("an AES IV must be exactly 16 bytes"));
                    }
                    _ => {}
                }
                Ok(h.to_ascii_lowercase())
            }
            PortType::FileId => {
                let ok = t.len() == 13
                    && t.starts_with("file-")
                    && t[5..].bytes().all(|b| b.is_ascii_hexdigit());
                if !ok {
                    return Err(err("not a file id (file- followed by 8 hex digits)"));
                }
                Ok(t.to_ascii_lowercase())
            }
            PortType::Item | PortType::HiddenItem => {
                Err(err("physical objects are not parameters"))
            }
        }
    }

    /// Canonicalizes a JSON value an agent sent (numbers are accepted for `Big_Int`).
    pub fn canonicalize_json(self, v: &serde_json::Value) -> Result<String, TypeError> {
        match v {
            serde_json::Value::String(s) => self.canonicalize(s),
            serde_json::Value::Number(n) if self == PortType::BigInt => {
                self.canonicalize(&n.to_string())
            }
            other => Err(TypeError {
                expected: self,
                why: format!("got JSON {}", json_kind(other)),
            }),
        }
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

impl fmt::Display for PortType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.paper_name())
    }
}

/// A value that is not of the expected port type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected} ({hint}): {why}", hint = expected.hint())]
pub struct TypeError {
    /// The port's type.
    pub expected: PortType,
    /// What was wrong.
    pub why: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_ints_are_lenient_but_canonical() {
        let t = PortType::BigInt;
        assert_eq!(t.canonicalize(" +0012 ").unwrap(), "12");
        assert_eq!(t.canonicalize("1_000,000").unwrap(), "1000000");
        assert_eq!(t.canonicalize("-5").unwrap(), "-5");
        assert!(t.canonicalize("12a").is_err());
        assert!(t.canonicalize("").is_err());
        assert!(t.canonicalize("-").is_err());
        assert_eq!(t.canonicalize_json(&serde_json::json!(42)).unwrap(), "42");
        assert!(t.canonicalize_json(&serde_json::json!(true)).is_err());
    }

    #[test]
    fn hex_forms() {
        assert_eq!(PortType::Hex.canonicalize("0xABcd").unwrap(), "abcd");
        assert!(PortType::Hex.canonicalize("abc").is_err());
        assert!(PortType::HexIvAes.canonicalize("00").is_err());
        assert!(PortType::HexKeyAes.canonicalize(&"ab".repeat(24)).is_ok());
        assert!(PortType::HexKeyAes.canonicalize(&"ab".repeat(20)).is_err());
    }

    #[test]
    fn file_ids() {
        assert_eq!(
            PortType::FileId.canonicalize(" file-0A1b2c3d").unwrap(),
            "file-0a1b2c3d"
        );
        assert!(PortType::FileId.canonicalize("file-xyz").is_err());
        assert!(PortType::FileId.canonicalize("file-é0000000").is_err());
    }
}
