//! The original's level files (`levels/*.json`) as prop chains.
//!
//! A level holds `room.exit` (`type` `interact`, `key` or `password`, with
//! `unlock_item_id`), `room.items[]` (`id`, `type` among `key`, `box`, `paper`,
//! `password`, `show`, `unlock_method`, `contents`, and for keys `use`) and a background
//! `story`. Mapping rules, where the original leaves room for choice:
//!
//! - `paper` becomes a note; a string in its `contents` must name a password; `story`
//!   and `image` objects become [`NoteLine::Story`] and [`NoteLine::Image`];
//! - a box without `unlock_method` opens by interaction;
//! - a missing `show` means "shown unless a box holds it" (passwords are never shown);
//! - a key's `opens` is taken from the lock that names it, not from its `use` field: in
//!   the original's `level3_note_first` and `level3.5` a key's `use` says `box_1` while
//!   the exit is what names it. Every such disagreement is reported in
//!   [`ImportedLevel::warnings`];
//! - password digits come from [`password_digits`] with the caller's seed (the original
//!   drew them at random on load).

use serde::Deserialize;
use serde_json::Value;

use crate::CraftError;
use crate::chain::{Chain, NoteLine, Prop, PropKind, Unlock, link_keys, password_digits};

/// A level file read as a chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedLevel {
    /// The prop chain, validated.
    pub chain: Chain,
    /// The level's background story (for the debriefing), as written.
    pub story: String,
    /// Things in the file that the import corrected or ignored, one sentence each.
    pub warnings: Vec<String>,
}

#[derive(Deserialize)]
struct RawLevel {
    room: RawRoom,
    #[serde(default)]
    story: String,
}

#[derive(Deserialize)]
struct RawRoom {
    exit: RawExit,
    #[serde(default)]
    items: Vec<RawItem>,
}

#[derive(Deserialize)]
struct RawExit {
    #[serde(rename = "type")]
    kind: String,
    unlock_item_id: Option<String>,
}

#[derive(Deserialize)]
struct RawItem {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    show: Option<bool>,
    unlock_method: Option<RawUnlock>,
    #[serde(default)]
    contents: Vec<Value>,
    #[serde(rename = "use")]
    uses: Option<String>,
}

#[derive(Deserialize)]
struct RawUnlock {
    #[serde(rename = "type")]
    kind: String,
    id: String,
}

fn unlock(kind: &str, id: Option<&str>, whose: &str) -> Result<Unlock, CraftError> {
    let need = || {
        id.map(str::to_string).ok_or_else(|| CraftError::Level {
            part: whose.to_string(),
            reason: format!("a `{kind}` lock needs the id of what opens it"),
        })
    };
    match kind {
        "interact" => Ok(Unlock::Interact),
        "key" => Ok(Unlock::Key { key: need()? }),
        "password" => Ok(Unlock::Password { password: need()? }),
        other => Err(CraftError::Level {
            part: whose.to_string(),
            reason: format!("unknown lock type `{other}` (expected interact, key or password)"),
        }),
    }
}

/// Reads a level file; password digits are derived from `seed`.
///
/// # Errors
/// [`CraftError::Parse`] for text that is not JSON, [`CraftError::Level`] for an unknown item
/// or lock type, a note content that is neither a password id nor a story or image;
/// [`CraftError::InvalidChain`] when the level's chain breaks a rule of
/// [`Chain::validate`].
pub fn parse_level(json: &str, seed: u64) -> Result<ImportedLevel, CraftError> {
    let raw: RawLevel = serde_json::from_str(json).map_err(|e| CraftError::Parse {
        file: "level file",
        error: std::sync::Arc::new(e),
    })?;
    let exit = unlock(
        &raw.room.exit.kind,
        raw.room.exit.unlock_item_id.as_deref(),
        "exit",
    )?;
    let kinds: Vec<(&str, &str)> = raw
        .room
        .items
        .iter()
        .map(|i| (i.id.as_str(), i.kind.as_str()))
        .collect();
    let boxed: Vec<&str> = raw
        .room
        .items
        .iter()
        .filter(|i| i.kind == "box")
        .flat_map(|i| i.contents.iter().filter_map(Value::as_str))
        .collect();
    let mut warnings = Vec::new();
    let mut props = Vec::new();
    for item in &raw.room.items {
        let whose = format!("item `{}`", item.id);
        let kind = match item.kind.as_str() {
            "key" => PropKind::Key { opens: None },
            "password" => PropKind::Password {
                digits: password_digits(seed, &item.id),
            },
            "box" => {
                let lock = match &item.unlock_method {
                    Some(u) => unlock(&u.kind, Some(&u.id), &whose)?,
                    None => Unlock::Interact,
                };
                let contents = item
                    .contents
                    .iter()
                    .map(|c| {
                        c.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| CraftError::Level {
                                part: whose.to_string(),
                                reason: "box contents must be item ids".into(),
                            })
                    })
                    .collect::<Result<_, _>>()?;
                PropKind::Box { lock, contents }
            }
            "paper" => {
                let lines = item
                    .contents
                    .iter()
                    .map(|c| note_line(c, &kinds, &whose))
                    .collect::<Result<_, _>>()?;
                PropKind::Note { lines }
            }
            other => {
                return Err(CraftError::Level {
                    part: whose.to_string(),
                    reason: format!(
                        "unknown item type `{other}` (expected key, box, paper or password)"
                    ),
                });
            }
        };
        let is_password = matches!(kind, PropKind::Password { .. });
        let default_show = !is_password && !boxed.contains(&item.id.as_str());
        let mut show = item.show.unwrap_or(default_show);
        if is_password && show {
            warnings.push(format!(
                "password `{}` was marked shown; passwords are never placed",
                item.id
            ));
            show = false;
        }
        props.push(Prop {
            id: item.id.clone(),
            show,
            kind,
        });
    }
    let mut chain = Chain { exit, props };
    link_keys(&mut chain);
    for item in raw.room.items.iter().filter(|i| i.kind == "key") {
        let derived = chain.prop(&item.id).and_then(|p| match &p.kind {
            PropKind::Key { opens } => opens.clone(),
            _ => None,
        });
        if let Some(said) = &item.uses
            && derived.as_deref() != Some(said.as_str())
        {
            warnings.push(format!(
                "key `{}` says it is used on `{said}`, but {} names it; kept the lock's word",
                item.id,
                derived.map_or("nothing".to_string(), |d| format!("`{d}`"))
            ));
        }
    }
    chain.validate()?;
    Ok(ImportedLevel {
        chain,
        story: raw.story,
        warnings,
    })
}

fn note_line(c: &Value, kinds: &[(&str, &str)], whose: &str) -> Result<NoteLine, CraftError> {
    if let Some(id) = c.as_str() {
        return match kinds.iter().find(|(i, _)| *i == id) {
            Some((_, "password")) => Ok(NoteLine::Password {
                password: id.to_string(),
            }),
            _ => Err(CraftError::Level {
                part: whose.to_string(),
                reason: format!("a note's item content must name a password, `{id}` does not"),
            }),
        };
    }
    let field = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_string);
    match field("type").as_deref() {
        Some("story") => Ok(NoteLine::Story {
            text: field("content").unwrap_or_default(),
        }),
        Some("image") => Ok(NoteLine::Image {
            image_path: field("image_path").unwrap_or_default(),
            password: field("password_id"),
        }),
        other => Err(CraftError::Level {
            part: whose.to_string(),
            reason: format!("unknown note content type {other:?} (expected story or image)"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_levels() {
        let l = parse_level(
            r#"{"room":{"exit":{"type":"interact"},"items":[]},"story":"s"}"#,
            1,
        )
        .unwrap();
        assert_eq!(l.chain.exit, Unlock::Interact);
        assert_eq!(l.story, "s");
        let l = parse_level(
            r#"{"room":{"exit":{"type":"password","unlock_item_id":"p"},"items":[
                {"id":"n","type":"paper","contents":["p",{"type":"image","image_path":"a.png","password_id":"p"}]},
                {"id":"p","type":"password"}]}}"#,
            3,
        )
        .unwrap();
        assert!(l.chain.prop("n").unwrap().show, "a note in no box is shown");
        assert!(!l.chain.prop("p").unwrap().show);
        assert_eq!(l.chain.digits("p").unwrap(), password_digits(3, "p"));
    }

    #[test]
    fn bad_levels_are_format_errors() {
        for bad in [
            "not json",
            r#"{"room":{"exit":{"type":"teleport"}}}"#,
            r#"{"room":{"exit":{"type":"key"}}}"#,
            r#"{"room":{"exit":{"type":"interact"},"items":[{"id":"x","type":"sword"}]}}"#,
            r#"{"room":{"exit":{"type":"interact"},"items":[{"id":"n","type":"paper","contents":["k"]},{"id":"k","type":"key"}]}}"#,
        ] {
            assert!(
                matches!(
                    parse_level(bad, 0),
                    Err(CraftError::Parse { .. } | CraftError::Level { .. })
                ),
                "{bad}"
            );
        }
        let dangling = r#"{"room":{"exit":{"type":"key","unlock_item_id":"key_9"}}}"#;
        assert!(matches!(
            parse_level(dangling, 0),
            Err(CraftError::InvalidChain { .. })
        ));
    }
}
