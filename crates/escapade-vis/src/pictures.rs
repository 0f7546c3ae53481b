//! Pictures imported with a room: the views a room's original shows, per view and state,
//! in place of drawn ones.
//!
//! VisEscape's models saw rendered photographs of each wall, receptacle and item in each
//! state (App. B.2–B.3), chosen by the original's `mapping/` files. A room imported from
//! a user's copy of those files ([`crate::import`]) carries them here, each PNG stored
//! once (keyed by its SHA-256) inside the scenario, so a scenario file alone replays
//! what the paper's models saw, hashes to what it shows, and resumes anywhere.
//!
//! A view's picture is chosen the way the original chooses it:
//! - a **wall**: among the wall's scenes whose receptacle states all match, the one whose
//!   receptacles also show the items seen now (most matches, first on ties);
//! - a **receptacle**: the scene with its state and exactly the items seen in it;
//! - an **item**: the first scene whose condition holds (`solved` or not).
//!
//! A view no scene matches, or whose picture the copy lacked, is drawn by
//! [`crate::render`] instead; the importer reports how many such views a room has.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use base64::Engine as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::VisError;
use crate::game::{Game, State, View};
use crate::room::{Room, Rule, Wall};

/// PNG bytes, written in JSON as one base64 string.
#[derive(Clone, PartialEq, Eq)]
pub struct Png(pub Vec<u8>);

impl fmt::Debug for Png {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Png({} bytes)", self.0.len())
    }
}

impl Serialize for Png {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Png {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Png, D::Error> {
        let text = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(text.as_bytes())
            .map(Png)
            .map_err(serde::de::Error::custom)
    }
}

/// What one receptacle shows in a scene: its state and the items seen in or on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shows {
    /// The receptacle id.
    pub receptacle: String,
    /// Its state.
    pub state: String,
    /// The ids of the items seen in it, in any order.
    #[serde(default)]
    pub items: Vec<String>,
}

/// One picture of a whole wall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WallScene {
    /// The wall.
    pub wall: Wall,
    /// What each receptacle on it shows (receptacles not listed do not matter).
    pub shows: Vec<Shows>,
    /// The SHA-256 (hex) of its PNG in [`Pictures::png`]; absent when the copy lacked
    /// the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub picture: Option<String>,
}

/// One picture of a receptacle close up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReceptacleScene {
    /// What it shows.
    #[serde(flatten)]
    pub shows: Shows,
    /// As in [`WallScene::picture`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub picture: Option<String>,
}

/// One picture of an item close up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemScene {
    /// The item id.
    pub item: String,
    /// When it is shown (a lock's `solved` trigger, or always).
    #[serde(default)]
    pub when: Rule,
    /// As in [`WallScene::picture`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub picture: Option<String>,
}

/// The pictures of a room, and which view and state each shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pictures {
    /// Where they come from (`VisEscape room1`), for reports.
    pub source: String,
    /// Wall views, in the original's order.
    pub walls: Vec<WallScene>,
    /// Receptacle close-ups.
    pub receptacles: Vec<ReceptacleScene>,
    /// Item close-ups.
    pub items: Vec<ItemScene>,
    /// Every PNG once, by the SHA-256 (hex) of its bytes.
    pub png: BTreeMap<String, Png>,
}

impl Pictures {
    /// How many scenes (a view in a state with its picture) are mapped: VisEscape
    /// Table 1's "scenes".
    pub fn scenes(&self) -> usize {
        self.walls.len() + self.receptacles.len() + self.items.len()
    }

    /// Scenes whose picture is missing.
    pub fn missing(&self) -> usize {
        let walls = self.walls.iter().map(|s| &s.picture);
        let recs = self.receptacles.iter().map(|s| &s.picture);
        let items = self.items.iter().map(|s| &s.picture);
        walls
            .chain(recs)
            .chain(items)
            .filter(|p| p.is_none())
            .count()
    }
}

/// What the current view shows when a room has pictures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown<'a> {
    /// An imported picture.
    Picture {
        /// Its SHA-256 (hex).
        sha: &'a str,
        /// Its PNG bytes.
        png: &'a [u8],
    },
    /// No scene matches this view and state, or its file was missing: it is drawn.
    Drawn,
}

/// The imported picture of the current view of `state`; `None` when the room has no
/// pictures at all.
pub fn shown<'a>(game: &'a Game, state: &State) -> Option<Shown<'a>> {
    let pictures = game.room().pictures.as_ref()?;
    let sha = scene_picture(game, pictures, state);
    Some(
        match sha.and_then(|sha| pictures.png.get(sha).map(|p| (sha, p))) {
            Some((sha, png)) => Shown::Picture {
                sha: sha.as_str(),
                png: &png.0,
            },
            None => Shown::Drawn,
        },
    )
}

/// The PNG of the current view: the imported picture when there is one.
pub fn png<'a>(game: &'a Game, state: &State) -> Option<&'a [u8]> {
    match shown(game, state)? {
        Shown::Picture { png, .. } => Some(png),
        Shown::Drawn => None,
    }
}

/// The ids of the items seen in receptacle `r` now.
fn seen_in<'g>(game: &'g Game, state: &State, r: usize) -> BTreeSet<&'g str> {
    game.visible_items(state, r)
        .into_iter()
        .map(|i| game.room().items[i].id.as_str())
        .collect()
}

fn same_items(shows: &Shows, seen: &BTreeSet<&str>) -> bool {
    let listed: BTreeSet<&str> = shows.items.iter().map(String::as_str).collect();
    listed == *seen
}

/// The SHA of the picture the original shows for `state`'s view, if a scene matches.
fn scene_picture<'p>(game: &Game, pictures: &'p Pictures, state: &State) -> Option<&'p String> {
    let room = game.room();
    let rec_index = |id: &str| room.receptacles.iter().position(|r| r.id == id);
    match state.view() {
        View::Wall(w) => {
            let on_wall = game.on_wall(w);
            // the receptacles of this wall a scene lists, with what they show now
            let listed = |scene: &'p WallScene| -> Vec<(&'p Shows, usize)> {
                scene
                    .shows
                    .iter()
                    .filter_map(|s| {
                        rec_index(&s.receptacle)
                            .filter(|r| on_wall.contains(r))
                            .map(|r| (s, r))
                    })
                    .collect()
            };
            // several scenes may fit the states: the one whose items fit best, first on
            // ties
            let mut best: Option<(&WallScene, usize)> = None;
            for scene in pictures.walls.iter().filter(|scene| scene.wall == w) {
                let shows = listed(scene);
                if !shows
                    .iter()
                    .all(|(s, r)| game.state_name(state, *r) == s.state)
                {
                    continue;
                }
                let fits = shows
                    .iter()
                    .filter(|(s, r)| same_items(s, &seen_in(game, state, *r)))
                    .count();
                if best.is_none_or(|(_, b)| fits > b) {
                    best = Some((scene, fits));
                }
            }
            best.and_then(|(scene, _)| scene.picture.as_ref())
        }
        View::Receptacle(r) => {
            let rec = room.receptacles.get(r)?;
            let seen = seen_in(game, state, r);
            pictures
                .receptacles
                .iter()
                .find(|scene| {
                    scene.shows.receptacle == rec.id
                        && scene.shows.state == game.state_name(state, r)
                        && same_items(&scene.shows, &seen)
                })
                .and_then(|scene| scene.picture.as_ref())
        }
        View::Item(i) => {
            let item = room.items.get(i)?;
            pictures
                .items
                .iter()
                .find(|scene| scene.item == item.id && holds(game, state, &scene.when))
                .and_then(|scene| scene.picture.as_ref())
        }
    }
}

/// Whether `rule` holds in `state` (a trigger no interaction knows has never fired).
fn holds(game: &Game, state: &State, rule: &Rule) -> bool {
    match rule {
        Rule::Always => true,
        Rule::HasItem(id) => game
            .room()
            .items
            .iter()
            .position(|i| &i.id == id)
            .is_some_and(|i| game.held(state, i)),
        Rule::Trigger(name) => game
            .trigger_index(name)
            .is_some_and(|t| state.fired_triggers().any(|f| f == t)),
        Rule::And(rules) => rules.iter().all(|r| holds(game, state, r)),
        Rule::Not(r) => !holds(game, state, r),
    }
}

/// Checks that a room's pictures refer to what the room has: walls' and close-ups'
/// receptacles, states and items exist, and every picture named is stored as a PNG.
pub fn check(room: &Room) -> Result<(), VisError> {
    let Some(pictures) = &room.pictures else {
        return Ok(());
    };
    let bad = |m: String| {
        Err(VisError::Invalid {
            field: "pictures",
            reason: format!("pictures: {m}"),
        })
    };
    let check_shows = |s: &Shows| -> Result<(), VisError> {
        let Some(rec) = room.receptacle(&s.receptacle) else {
            return bad(format!("unknown receptacle `{}`", s.receptacle));
        };
        if !rec.states.contains(&s.state) {
            return bad(format!("`{}` has no state `{}`", rec.id, s.state));
        }
        if let Some(i) = s.items.iter().find(|i| room.item(i).is_none()) {
            return bad(format!("unknown item `{i}`"));
        }
        Ok(())
    };
    let check_picture = |p: &Option<String>| -> Result<(), VisError> {
        match p {
            Some(sha) if !pictures.png.contains_key(sha) => {
                bad(format!("picture {sha} is not stored"))
            }
            _ => Ok(()),
        }
    };
    for scene in &pictures.walls {
        scene.shows.iter().try_for_each(check_shows)?;
        check_picture(&scene.picture)?;
    }
    for scene in &pictures.receptacles {
        check_shows(&scene.shows)?;
        check_picture(&scene.picture)?;
    }
    for scene in &pictures.items {
        if room.item(&scene.item).is_none() {
            return bad(format!("unknown item `{}`", scene.item));
        }
        check_picture(&scene.picture)?;
    }
    if let Some((sha, _)) = pictures
        .png
        .iter()
        .find(|(_, png)| !png.0.starts_with(b"\x89PNG\r\n\x1a\n"))
    {
        return bad(format!("{sha} is not a PNG"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_bytes_round_trip_as_base64() {
        let png = Png(b"\x89PNG\r\n\x1a\nabc".to_vec());
        let text = serde_json::to_string(&png).unwrap();
        assert_eq!(text, "\"iVBORw0KGgphYmM=\"");
        assert_eq!(serde_json::from_str::<Png>(&text).unwrap(), png);
        assert!(serde_json::from_str::<Png>("\"not base64!\"").is_err());
        assert_eq!(format!("{png:?}"), "Png(11 bytes)");
    }

    fn room_with(pictures: Pictures) -> Room {
        let mut room = crate::generator::generate(1, 7).unwrap();
        room.pictures = Some(pictures);
        room
    }

    fn empty() -> Pictures {
        Pictures {
            source: "test".into(),
            walls: Vec::new(),
            receptacles: Vec::new(),
            items: Vec::new(),
            png: BTreeMap::new(),
        }
    }

    #[test]
    fn a_room_refers_only_to_what_it_has() {
        let base = crate::generator::generate(1, 7).unwrap();
        let rec = &base.receptacles[0];
        let ok = ReceptacleScene {
            shows: Shows {
                receptacle: rec.id.clone(),
                state: rec.initial.clone(),
                items: Vec::new(),
            },
            picture: Some("ab".into()),
        };
        let mut p = empty();
        p.receptacles.push(ok.clone());
        p.png
            .insert("ab".into(), Png(b"\x89PNG\r\n\x1a\n".to_vec()));
        assert!(check(&room_with(p.clone())).is_ok());
        // a picture that is not stored, a state the receptacle lacks, a file that is no
        // PNG, an unknown item
        let mut lost = p.clone();
        lost.receptacles[0].picture = Some("cd".into());
        let mut state = p.clone();
        state.receptacles[0].shows.state = "melted".into();
        let mut not_png = p.clone();
        not_png.png.insert("ab".into(), Png(b"GIF89a".to_vec()));
        let mut item = p.clone();
        item.items.push(ItemScene {
            item: "no_such".into(),
            when: Rule::Always,
            picture: None,
        });
        for bad in [lost, state, not_png, item] {
            let e = check(&room_with(bad)).unwrap_err().to_string();
            assert!(e.contains("pictures:"), "{e}");
        }
    }

    #[test]
    fn rooms_without_pictures_are_drawn_as_before() {
        let game = Game::new(crate::generator::generate(1, 7).unwrap()).unwrap();
        assert_eq!(shown(&game, &game.start()), None);
        assert_eq!(png(&game, &game.start()), None);
        let game = Game::new(room_with(empty())).unwrap();
        assert_eq!(shown(&game, &game.start()), Some(Shown::Drawn));
    }
}
