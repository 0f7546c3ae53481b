//! A room's `mapping/` files and `image/` pictures as [`Pictures`].

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Builder, wall_of};
use crate::VisError;
use crate::pictures::{ItemScene, Pictures, Png, ReceptacleScene, Shows, WallScene};
use crate::room::{ItemKind, Room, Rule};

#[derive(Deserialize)]
struct SceneFile {
    #[serde(default)]
    scene_states: Vec<SceneState>,
    #[serde(default)]
    item_states: Vec<ItemState>,
}

#[derive(Deserialize)]
struct SceneState {
    object_states: serde_json::Value,
    image_path: String,
}

#[derive(Deserialize)]
struct ObjectState {
    receptacle_state: String,
    #[serde(default)]
    items: Vec<String>,
}

#[derive(Deserialize)]
struct ItemState {
    name: String,
    image_path: String,
}

/// The pictures of a room, from its mapping files.
pub(super) fn pictures(b: &mut Builder<'_>, room: &Room) -> Result<Pictures, VisError> {
    let files = b.files;
    let mut out = Pictures {
        source: format!("VisEscape room{}", files.number),
        walls: Vec::new(),
        receptacles: Vec::new(),
        items: Vec::new(),
        png: BTreeMap::new(),
    };
    if files.mappings.is_empty() {
        b.note("the room has no mapping/ files: every view is drawn".into());
    }
    let mut missing: Vec<String> = Vec::new();
    let mut store = |path: String, out: &mut Pictures| -> Option<String> {
        match find_image(files.images, &path) {
            Some((_, bytes)) if bytes.starts_with(b"\x89PNG\r\n\x1a\n") => {
                let sha = escapade_core::hash::sha256_hex(bytes);
                out.png
                    .entry(sha.clone())
                    .or_insert_with(|| Png(bytes.clone()));
                Some(sha)
            }
            _ => {
                missing.push(path);
                None
            }
        }
    };
    let read = |path: &str| -> Result<SceneFile, VisError> {
        serde_json::from_str(&files.mappings[path])
            .map_err(|e| VisError::format(Some(format!("mapping/{path}")), e))
    };
    for (path, _) in files.mappings.iter() {
        let Some((view, file)) = path.split_once('/') else {
            continue;
        };
        let Some(object) = file.strip_suffix(".json") else {
            continue;
        };
        match view {
            "wall_view" => {
                let Some(wall) = wall_of(object) else {
                    b.note(format!("mapping/{path}: not a wall"));
                    continue;
                };
                for s in read(path)?.scene_states {
                    let map: BTreeMap<String, ObjectState> =
                        serde_json::from_value(s.object_states)
                            .map_err(|e| VisError::format(Some(format!("mapping/{path}")), e))?;
                    let mut shows = Vec::new();
                    let mut ok = true;
                    for (rid, st) in map {
                        // the original ignores receptacles a wall scene lists that are
                        // not on the wall
                        let Some(id) = b.rec_ids.get(&rid).cloned() else {
                            continue;
                        };
                        ok &= b.has_state(&rid, &st.receptacle_state);
                        let items: Option<Vec<String>> = st
                            .items
                            .iter()
                            .map(|n| b.item_ids.get(n).cloned())
                            .collect();
                        ok &= items.is_some();
                        shows.push(Shows {
                            receptacle: id,
                            state: st.receptacle_state,
                            items: items.unwrap_or_default(),
                        });
                    }
                    if !ok {
                        b.note(format!(
                            "mapping/{path}: a scene names a state or item the room does not \
                             have; it is left out"
                        ));
                        continue;
                    }
                    let stem = s
                        .image_path
                        .rsplit_once('.')
                        .map_or(&*s.image_path, |x| x.0);
                    let picture = store(format!("wall_view/{object}/{stem}.png"), &mut out);
                    out.walls.push(WallScene {
                        wall,
                        shows,
                        picture,
                    });
                }
            }
            "object_view" => {
                let Some(id) = b.rec_ids.get(object).cloned() else {
                    b.note(format!("mapping/{path}: no such receptacle"));
                    continue;
                };
                for s in read(path)?.scene_states {
                    let st: ObjectState = serde_json::from_value(s.object_states)
                        .map_err(|e| VisError::format(Some(format!("mapping/{path}")), e))?;
                    let items: Option<Vec<String>> = st
                        .items
                        .iter()
                        .map(|n| b.item_ids.get(n).cloned())
                        .collect();
                    let (true, Some(items)) = (b.has_state(object, &st.receptacle_state), items)
                    else {
                        b.note(format!(
                            "mapping/{path}: a scene names a state or item the room does not \
                             have; it is left out"
                        ));
                        continue;
                    };
                    let picture = store(format!("object_view/{object}/{}", s.image_path), &mut out);
                    out.receptacles.push(ReceptacleScene {
                        shows: Shows {
                            receptacle: id.clone(),
                            state: st.receptacle_state,
                            items,
                        },
                        picture,
                    });
                }
            }
            "item_view" => {
                let Some(id) = b.item_ids.get(object).cloned() else {
                    b.note(format!("mapping/{path}: no such item"));
                    continue;
                };
                let Some(item) = room.item(&id) else { continue };
                let solved = match &item.kind {
                    ItemKind::Lock { .. } => Some(format!("solved {id}")),
                    ItemKind::KeyLock { key } => Some(format!("used {key}")),
                    _ => None,
                };
                for s in read(path)?.item_states {
                    let when = match (s.name.as_str(), &solved) {
                        ("default", _) => Rule::Always,
                        ("not_solved", Some(t)) => Rule::Not(Box::new(Rule::Trigger(t.clone()))),
                        ("solved", Some(t)) => Rule::Trigger(t.clone()),
                        // an item the original never solves stays in its first state
                        ("not_solved", None) => Rule::Always,
                        (other, _) => {
                            b.note(format!(
                                "mapping/{path}: item state `{other}` never occurs; left out"
                            ));
                            continue;
                        }
                    };
                    let picture = store(format!("item_view/{object}/{}", s.image_path), &mut out);
                    out.items.push(ItemScene {
                        item: id.clone(),
                        when,
                        picture,
                    });
                }
            }
            _ => {}
        }
    }
    if !missing.is_empty() {
        missing.sort();
        missing.dedup();
        b.note(format!(
            "{} mapped picture(s) missing from image/ (drawn instead): {}",
            missing.len(),
            missing.join(", ")
        ));
    }
    Ok(out)
}

/// The picture at `path` (under `image/`), or, when no file has exactly that name, the
/// one file whose name differs only in case: the authors' file system ignored case, and
/// some mapping files name `exitdooro.png` for `exitdoorO.png`.
pub fn find_image<'a>(
    images: &'a BTreeMap<String, Vec<u8>>,
    path: &str,
) -> Option<(&'a String, &'a Vec<u8>)> {
    if let Some(found) = images.get_key_value(path) {
        return Some(found);
    }
    let mut alike = images.iter().filter(|(k, _)| k.eq_ignore_ascii_case(path));
    match (alike.next(), alike.next()) {
        (Some(found), None) => Some(found),
        _ => None,
    }
}
