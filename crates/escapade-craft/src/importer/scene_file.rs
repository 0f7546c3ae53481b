//! The original's LEGENT scene files (`levels/scene_data/<level>/<n>.json`), read for
//! reference.
//!
//! A scene file lists `instances[]` (`prefab`, `position`, `rotation`, `scale`, `type`,
//! optional `parent`, `item_id`, `item_type`), the `agent` pose and `room_polygon[]`.
//! The prefabs are Unity assets escapade does not have, so nothing here is drawn; the
//! poses, the room size and the prefab names feed statistics and comparisons with our
//! generated rooms (same axes: metres, `y` up, Unity's left-handed frame).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::CraftError;

/// A position and an Euler rotation (degrees), as LEGENT writes them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    /// `[x, y, z]` in metres.
    pub position: [f32; 3],
    /// `[x, y, z]` Euler angles in degrees (`y` is the heading).
    pub rotation: [f32; 3],
}

/// One room's outline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoomOutline {
    /// The room's number in the scene.
    pub room_id: i64,
    /// Its style (`Kitchen`, `Bedroom`…), as written.
    pub room_type: String,
    /// Floor polygon corners `[x, z]` (the first corner may repeat at the end).
    pub polygon: Vec<[f32; 2]>,
    /// `[x, y, z]` extent in metres.
    pub size: [f32; 3],
}

impl RoomOutline {
    /// Width (along `x`) and depth (along `z`) of the polygon's bounding box.
    pub fn floor_extent(&self) -> (f32, f32) {
        let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
        for p in &self.polygon {
            for a in 0..2 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
        if self.polygon.is_empty() {
            return (0.0, 0.0);
        }
        (hi[0] - lo[0], hi[1] - lo[1])
    }
}

/// One placed prefab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    /// The Unity prefab's name (or path, for the door).
    pub prefab: String,
    /// Where it stands.
    pub pose: Pose,
    /// Per-axis scale.
    pub scale: [f32; 3],
    /// LEGENT's physics type (`kinematic`, `interactable`).
    pub kind: String,
    /// The parent it was placed on, written as text (LEGENT uses numbers).
    pub parent: Option<String>,
    /// The level item it stands for (`exit`, `key_1`…), if any.
    pub item_id: Option<String>,
}

impl Instance {
    /// Whether this is part of the room shell (a wall or floor/ceiling tile).
    pub fn is_structure(&self) -> bool {
        self.prefab.contains("_Wall") || self.prefab.contains("_Floor")
    }
}

/// A scene file, as far as escapade reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SceneFile {
    /// The agent's starting pose.
    pub agent: Pose,
    /// The rooms' outlines.
    pub rooms: Vec<RoomOutline>,
    /// Every instance, in file order.
    pub instances: Vec<Instance>,
}

impl SceneFile {
    /// Instances that are neither walls, floors nor level items: the furniture and clutter
    /// the original counts among a scene's objects.
    pub fn objects(&self) -> impl Iterator<Item = &Instance> {
        self.instances
            .iter()
            .filter(|i| !i.is_structure() && i.item_id.is_none())
    }

    /// Instances linked to level items (the exit door, visible props).
    pub fn items(&self) -> impl Iterator<Item = &Instance> {
        self.instances.iter().filter(|i| i.item_id.is_some())
    }
}

#[derive(Deserialize)]
struct RawScene {
    #[serde(default)]
    instances: Vec<RawInstance>,
    agent: RawPose,
    #[serde(default)]
    room_polygon: Vec<RoomOutline>,
}

#[derive(Deserialize)]
struct RawPose {
    position: [f32; 3],
    rotation: [f32; 3],
}

#[derive(Deserialize)]
struct RawInstance {
    prefab: String,
    position: [f32; 3],
    rotation: [f32; 3],
    #[serde(default = "unit_scale")]
    scale: [f32; 3],
    #[serde(rename = "type", default)]
    kind: String,
    parent: Option<Value>,
    item_id: Option<String>,
}

fn unit_scale() -> [f32; 3] {
    [1.0; 3]
}

/// Reads a scene file.
///
/// # Errors
/// [`CraftError::Parse`] when the text is not JSON of the scene format (no `agent`, a
/// position that is not three numbers…).
pub fn parse_scene(json: &str) -> Result<SceneFile, CraftError> {
    let raw: RawScene = serde_json::from_str(json).map_err(|e| CraftError::Parse {
        file: "scene file",
        error: std::sync::Arc::new(e),
    })?;
    Ok(SceneFile {
        agent: Pose {
            position: raw.agent.position,
            rotation: raw.agent.rotation,
        },
        rooms: raw.room_polygon,
        instances: raw
            .instances
            .into_iter()
            .map(|i| Instance {
                prefab: i.prefab,
                pose: Pose {
                    position: i.position,
                    rotation: i.rotation,
                },
                scale: i.scale,
                kind: i.kind,
                parent: i.parent.and_then(|p| match p {
                    Value::Null => None,
                    Value::String(s) => Some(s),
                    other => Some(other.to_string()),
                }),
                item_id: i.item_id,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_scene() {
        let s = parse_scene(
            r#"{"instances":[{"prefab":"X_Wall1","position":[0,1,0],"rotation":[0,90,0],"type":"kinematic"},
              {"prefab":"Chair","position":[1,0,1],"rotation":[0,0,0],"parent":2,"type":"kinematic"}],
              "agent":{"position":[1,0.05,2],"rotation":[0,45,0]},
              "room_polygon":[{"room_id":1,"room_type":"Bedroom","polygon":[[0,0],[4,0],[4,5],[0,5]],"size":[4,3,5]}]}"#,
        )
        .unwrap();
        assert_eq!(s.objects().count(), 1);
        assert_eq!(s.instances[1].parent.as_deref(), Some("2"));
        assert_eq!(s.rooms[0].floor_extent(), (4.0, 5.0));
        assert!(parse_scene("{}").is_err());
    }
}
