//! The 3D scene description the ray caster draws: plain data a world builds.
//!
//! Why its own types: worlds (the `craft` world first) describe rooms as a list of
//! primitives with materials and an id, and the ray caster turns that list plus a
//! [`Camera`] into a frame. Keeping the description plain data (no BVH, no textures
//! rasterized yet) lets a world build, hash and test scenes without drawing them.
//!
//! Conventions (Unity's, so the original EscapeCraft scene files carry over): metres;
//! left-handed axes with `x` right, `y` up, `z` forward; the floor is `y = 0`; a camera
//! with `yaw = 0` looks along `+z` and positive yaw turns it right, towards `+x`;
//! positive pitch looks up; angles are degrees at this boundary.

pub use glam::Vec3;

use crate::{Canvas, Rgb};

/// What a ray can hit.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// An axis-aligned box between two corners (`min` < `max` on every axis).
    Cuboid {
        /// The corner with the smallest coordinates.
        min: Vec3,
        /// The corner with the largest coordinates.
        max: Vec3,
    },
    /// An upright cylinder (axis along `y`), closed at both ends.
    Cylinder {
        /// Centre of the bottom disc.
        base: Vec3,
        /// Radius in metres.
        radius: f32,
        /// Height in metres (the top disc is at `base.y + height`).
        height: f32,
    },
    /// A ball (lamp bulbs, fruit, the leaves of a plant).
    Sphere {
        /// Its centre.
        center: Vec3,
        /// Radius in metres.
        radius: f32,
    },
    /// An upright truncated cone (axis along `y`), closed at both ends: a lamp shade, a
    /// flower pot, a vase, a waste bin. Either radius may be zero (a point), not both.
    Cone {
        /// Centre of the bottom disc.
        base: Vec3,
        /// Radius of the bottom disc, metres.
        radius: f32,
        /// Radius of the top disc, metres.
        top: f32,
        /// Height in metres.
        height: f32,
    },
    /// A flat rectangle spanning `center ± u ± v` (`u`, `v` are half-extent vectors,
    /// perpendicular to each other); seen from both sides. Textures map `u` to the
    /// image's x axis (left to right) and `-v` to its y axis (top to bottom), so `v`
    /// points "up" in the picture.
    Quad {
        /// Centre of the rectangle.
        center: Vec3,
        /// Half-extent towards the texture's right edge.
        u: Vec3,
        /// Half-extent towards the texture's top edge.
        v: Vec3,
    },
}

/// How a surface looks. Procedural materials are computed from the hit point in world
/// coordinates, so two objects of the same material line up seamlessly.
#[derive(Debug, Clone, PartialEq)]
pub enum Material {
    /// One colour.
    Flat(Rgb),
    /// Wood grain: bands of `light` and `dark` along the object's longest horizontal
    /// axis, `scale` metres apart.
    Wood {
        /// The lighter tone.
        light: Rgb,
        /// The grain tone.
        dark: Rgb,
        /// Distance between grain bands, metres.
        scale: f32,
    },
    /// Square tiles of side `size` with `grout` lines between them.
    Tiles {
        /// Tile colour.
        tile: Rgb,
        /// Colour of the lines between tiles.
        grout: Rgb,
        /// Tile side, metres.
        size: f32,
    },
    /// A fine woven check of two colours (sofas, beds, towels).
    Fabric {
        /// The main thread colour.
        base: Rgb,
        /// The crossing thread colour.
        weave: Rgb,
    },
    /// Vertical stripes of two colours, `stripe` metres wide (walls).
    Wallpaper {
        /// The background colour.
        base: Rgb,
        /// The stripe colour.
        stripe: Rgb,
        /// Stripe width, metres.
        stripe_width: f32,
    },
    /// An image from [`Scene::textures`] stretched over a [`Shape::Quad`] (other shapes
    /// draw its average colour).
    Texture(usize),
}

/// An RGBA image used as a texture, for example a note's text drawn with the 2D canvas.
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Row-major RGBA bytes, `width * height * 4` of them.
    pub rgba: Vec<u8>,
}

impl Texture {
    /// The picture on a 2D canvas as a texture: how worlds put notes, number patterns and
    /// posters into a room (draw with [`Canvas`], then hang the texture on a quad).
    pub fn from_canvas(canvas: &Canvas) -> Texture {
        // a copy shares the canvas's pixels; drawing its pending calls copies them
        let mut drawn = canvas.clone();
        Texture {
            width: drawn.width(),
            height: drawn.height(),
            rgba: drawn.rgba().to_vec(),
        }
    }
}

/// One thing in the scene.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    /// Its geometry.
    pub shape: Shape,
    /// Its surface.
    pub material: Material,
    /// What the world calls it (reported by picking; `None` for walls and decoration that
    /// nothing refers to). Several objects can share an id (a table's top and legs).
    pub id: Option<u32>,
    /// Whether it casts a shadow (thin decorations like notes on a wall do not). A room's
    /// ceiling and walls usually do not either: the light is directional, so a ceiling
    /// that casts shadows puts the whole room in its shadow.
    pub casts_shadow: bool,
}

/// A directional light (the sun through a window, or a ceiling lamp far enough away).
#[derive(Debug, Clone, PartialEq)]
pub struct Light {
    /// Direction the light travels (towards the scene); normalised by the renderer.
    pub direction: Vec3,
    /// Strength of the direct light, 0..=1.
    pub intensity: f32,
    /// Strength of the ambient light that reaches shadowed surfaces, 0..=1.
    pub ambient: f32,
}

/// A whole scene: objects, textures, one light and a background colour.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// Everything a ray can hit.
    pub objects: Vec<Object>,
    /// Images referred to by [`Material::Texture`].
    pub textures: Vec<Texture>,
    /// The light.
    pub light: Light,
    /// What a ray that hits nothing sees.
    pub background: Rgb,
}

/// A pinhole camera.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// Eye position.
    pub position: Vec3,
    /// Heading in degrees about `y`: 0 looks along `+z`, 90 along `+x`.
    pub yaw: f32,
    /// Elevation in degrees: positive looks up, clamped by worlds to (-90, 90).
    pub pitch: f32,
    /// Horizontal field of view in degrees (see [`crate::ray::horizontal_fov`] for a
    /// camera given by its vertical angle, as Unity's are).
    pub fov: f32,
}
