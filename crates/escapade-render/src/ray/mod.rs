//! The deterministic CPU ray caster: a [`Scene`] and a [`Camera`] in, a [`Frame`] out.
//!
//! Why a ray caster on the CPU: the craft world shows agents first-person pictures of
//! furnished rooms, and an episode must replay to the same bytes on any machine. One
//! primary ray per pixel finds the nearest of the scene's boxes, cylinders and quads
//! (`bvh` holds them; `tile` asks it once per 16×16 block of pixels which objects the
//! block can see, and `intersect` tests only those); `shade` colours the surface
//! (procedural materials or a texture, ambient plus one directional light) and a shadow
//! ray decides whether the light reaches it. Only IEEE basic operations and `libm` are used, never `mul_add` or platform trig,
//! and every pixel is computed on its own, so the picture does not depend on the thread
//! count either, nor on whether the CPU's AVX2 copy of the tile code runs (wider lanes,
//! the same arithmetic). Start at [`Prepared`] (the scene made ready once, drawn from many poses)
//! or the one-off [`render`].

mod bvh; // the bounding volume hierarchy
mod camera; // camera basis and the ray through a pixel
mod frame; // Frame: RGB bytes, centre dot, PNG
mod intersect; // ray–shape intersection on precomputed data
mod shade; // materials, textures and light
mod tile; // drawing tile by tile with per-tile candidate lists

use glam::Vec3;
use rayon::prelude::*;

use crate::scene::{Camera, Material, Object, Scene, Shape, Texture};
use crate::{RenderError, Rgb};

pub use camera::horizontal_fov;
pub use frame::{CENTRE_DOT, Frame};

use bvh::Bvh;
use camera::View;
use intersect::{Aabb, Geom, Ray};
use shade::{Lighting, Surface, TextureData};
use tile::{Scratch, TILE};

/// The largest frame side, as for the 2D canvas.
pub const MAX_SIDE: u32 = 8192;
/// The largest thread count a frame may ask for.
pub const MAX_THREADS: usize = 1024;
/// How far a shadow ray starts off its surface, metres (keeps it from hitting its own
/// surface through rounding).
const SHADOW_BIAS: f32 = 1e-3;

/// How to draw a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameOptions {
    /// Width in pixels (default 1024).
    pub width: u32,
    /// Height in pixels (default 512).
    pub height: u32,
    /// Threads to draw with: 0 for one per core, 1 to draw on the calling thread. A frame
    /// with more threads starts its own pool (never rayon's global one). The picture is the
    /// same whatever this is.
    pub threads: usize,
    /// Whether to paint the red dot at the image centre (default true).
    pub centre_dot: bool,
}

impl Default for FrameOptions {
    fn default() -> Self {
        FrameOptions {
            width: 1024,
            height: 512,
            threads: 0,
            centre_dot: true,
        }
    }
}

/// What a ray hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The object's id ([`Object::id`]).
    pub id: Option<u32>,
    /// The object's index in [`Scene::objects`].
    pub object: usize,
    /// Distance from the ray's origin, metres.
    pub distance: f32,
    /// The point hit, world coordinates.
    pub point: Vec3,
    /// The unit surface normal there, turned to face the ray's origin.
    pub normal: Vec3,
}

/// Per-object data that shading and picking need (geometry lives apart, in
/// `Prepared::geoms`, so traversal touches less memory).
#[derive(Debug, Clone)]
struct Look {
    surface: Surface,
    id: Option<u32>,
    /// For a textured quad: the texture whose alpha decides where rays pass through.
    alpha: Option<usize>,
}

/// A scene made ready to draw: validated, its shapes precomputed and put in a BVH. Build
/// once per scene, then [`render`](Prepared::render) and [`pick`](Prepared::pick) from
/// any number of poses.
///
/// ```
/// use escapade_render::scene::{Camera, Light, Material, Object, Scene, Shape, Vec3};
/// use escapade_render::{FrameOptions, Prepared, Rgb};
/// let scene = Scene {
///     objects: vec![Object {
///         shape: Shape::Cuboid { min: Vec3::new(-1.0, 0.0, 2.0), max: Vec3::new(1.0, 1.0, 3.0) },
///         material: Material::Flat(Rgb(200, 40, 40)),
///         id: Some(7),
///         casts_shadow: true,
///     }],
///     textures: vec![],
///     light: Light { direction: Vec3::new(0.3, -1.0, 0.2), intensity: 0.7, ambient: 0.3 },
///     background: Rgb(20, 20, 30),
/// };
/// let prepared = Prepared::new(&scene).unwrap();
/// let camera = Camera { position: Vec3::new(0.0, 0.5, 0.0), yaw: 0.0, pitch: 0.0, fov: 90.0 };
/// let opts = FrameOptions { width: 64, height: 32, threads: 1, ..FrameOptions::default() };
/// let frame = prepared.render(&camera, &opts).unwrap();
/// assert_eq!(frame.rgb.len(), 64 * 32 * 3);
/// assert_eq!(prepared.pick(&camera, 32.0, 16.0, 64, 32).unwrap().id, Some(7));
/// ```
#[derive(Debug, Clone)]
pub struct Prepared {
    geoms: Vec<Geom>,
    /// Each object's bounding box (empty for shapes that are never hit).
    bounds: Vec<Aabb>,
    looks: Vec<Look>,
    textures: Vec<TextureData>,
    bvh: Bvh,
    /// The same over shadow casters only: walls and ceilings that cast no shadow are
    /// most of what a shadow ray would otherwise cross.
    shadow_bvh: Bvh,
    lighting: Lighting,
    background: Rgb,
}

/// A nearest hit, before it becomes a public [`Hit`].
#[derive(Debug, Clone, Copy)]
struct Nearest {
    object: usize,
    t: f32,
    normal: Vec3,
    /// A quad's texture coordinates.
    st: Option<(f32, f32)>,
}

impl Prepared {
    /// Validates `scene` and builds its BVH.
    ///
    /// Errors: [`RenderError::Light`], [`RenderError::NonFinite`],
    /// [`RenderError::Texture`], [`RenderError::MissingTexture`]. Degenerate shapes (a box
    /// with no volume, a zero radius, parallel quad axes) are not errors: they are simply
    /// never hit.
    pub fn new(scene: &Scene) -> Result<Prepared, RenderError> {
        let light = &scene.light;
        if !(light.direction.is_finite()
            && light.intensity.is_finite()
            && light.ambient.is_finite())
        {
            return Err(RenderError::Light);
        }
        for (index, t) in scene.textures.iter().enumerate() {
            check_texture(index, t)?;
        }
        let textures: Vec<TextureData> = scene.textures.iter().map(TextureData::new).collect();
        let mut geoms = Vec::with_capacity(scene.objects.len());
        let mut looks = Vec::with_capacity(scene.objects.len());
        let mut bounds = Vec::with_capacity(scene.objects.len());
        let mut boxes = Vec::with_capacity(scene.objects.len());
        let mut shadow_boxes = Vec::new();
        for (i, object) in scene.objects.iter().enumerate() {
            check_object(i, object, textures.len())?;
            let geom = Geom::new(&object.shape);
            bounds.push(geom.bounds(&object.shape).unwrap_or(Aabb::EMPTY));
            if let Some(b) = geom.bounds(&object.shape) {
                boxes.push((i as u32, b));
                if object.casts_shadow {
                    shadow_boxes.push((i as u32, b));
                }
            }
            // only a texture with holes needs its alpha looked up per ray
            let alpha = match (&object.material, geom) {
                (Material::Texture(t), Geom::Quad { .. }) if !textures[*t].opaque => Some(*t),
                _ => None,
            };
            looks.push(Look {
                surface: Surface::new(&object.material, &object.shape, &textures),
                id: object.id,
                alpha,
            });
            geoms.push(geom);
        }
        let len = light.direction.length();
        let to_light = if len > 0.0 && len.is_finite() {
            -(light.direction * (1.0 / len))
        } else {
            Vec3::ZERO
        };
        Ok(Prepared {
            geoms,
            bounds,
            looks,
            textures,
            bvh: Bvh::build(boxes),
            shadow_bvh: Bvh::build(shadow_boxes),
            lighting: Lighting {
                to_light,
                intensity: light.intensity.clamp(0.0, 1.0),
                ambient: light.ambient.clamp(0.0, 1.0),
            },
            background: scene.background,
        })
    }

    /// Draws the scene from `camera`.
    ///
    /// Errors: [`RenderError::FrameSize`] (a side of 0 or over [`MAX_SIDE`]),
    /// [`RenderError::Camera`], [`RenderError::Threads`].
    pub fn render(&self, camera: &Camera, opts: &FrameOptions) -> Result<Frame, RenderError> {
        let (width, height) = (opts.width, opts.height);
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(RenderError::FrameSize { width, height });
        }
        camera::check(camera)?;
        if opts.threads > MAX_THREADS {
            return Err(RenderError::Threads {
                threads: opts.threads,
            });
        }
        let view = View::new(camera, width, height);
        let width = width as usize;
        let band_bytes = width * 3 * TILE;
        let mut rgb = vec![0u8; width * 3 * height as usize];
        let draw = |scratch: &mut Scratch, (band, rows): (usize, &mut [u8])| {
            self.draw_band(&view, width, band * TILE, rows, scratch);
        };
        if opts.threads == 1 {
            let mut scratch = Scratch::new();
            rgb.chunks_mut(band_bytes)
                .enumerate()
                .for_each(|band| draw(&mut scratch, band));
        } else {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(opts.threads)
                .build()
                .map_err(|_| RenderError::Threads {
                    threads: opts.threads,
                })?;
            pool.install(|| {
                rgb.par_chunks_mut(band_bytes)
                    .enumerate()
                    .for_each_init(Scratch::new, draw)
            });
        }
        let width = width as u32;
        let mut frame = Frame { width, height, rgb };
        if opts.centre_dot {
            frame.centre_dot();
        }
        Ok(frame)
    }

    /// The nearest hit no farther than `t_max` by (distance, object index), walking the
    /// BVH; transparent texels let the ray through.
    fn nearest(&self, ray: &Ray, t_max: f32) -> Option<Nearest> {
        let mut best: Option<Nearest> = None;
        self.bvh
            .traverse(ray, t_max, &mut bvh::new_stack(), |i, t_max| {
                let hit = self.hit_object(ray, i as usize, t_max)?;
                let better = best
                    .as_ref()
                    .is_none_or(|b| hit.t < b.t || (hit.t == b.t && hit.object < b.object));
                better.then(|| {
                    best = Some(hit);
                    hit.t
                })
            });
        best
    }

    /// The object under image point `(x, y)` (pixels from the top-left corner; pixel
    /// `(i, j)` has its centre at `(i + 0.5, j + 0.5)` and the red dot is at
    /// `(width / 2, height / 2)`) of a `width` × `height` frame drawn from `camera`.
    /// `None` when the ray hits nothing, or when the camera or size is invalid (as
    /// [`Prepared::render`] would report).
    pub fn pick(&self, camera: &Camera, x: f32, y: f32, width: u32, height: u32) -> Option<Hit> {
        if width == 0 || height == 0 || camera::check(camera).is_err() {
            return None;
        }
        let (origin, dir) = ray_through_pixel(camera, x, y, width, height);
        self.cast(origin, dir, f32::INFINITY)
    }

    /// The first object along the ray from `origin` in direction `dir` (need not be
    /// normalised) closer than `max_dist` metres, for line-of-sight checks. Surfaces
    /// closer than 0.1 mm are ignored; transparent texels let the ray through. `None` for
    /// a non-finite origin or a zero or non-finite direction.
    pub fn cast(&self, origin: Vec3, dir: Vec3, max_dist: f32) -> Option<Hit> {
        let len = dir.length();
        if !(origin.is_finite() && len > 0.0 && len.is_finite()) {
            return None;
        }
        let dir = dir * (1.0 / len);
        let ray = Ray::new(origin, dir);
        let hit = self.nearest(&ray, max_dist)?;
        let normal = tile::facing(hit.normal, dir);
        Some(Hit {
            id: self.looks[hit.object].id,
            object: hit.object,
            distance: hit.t,
            point: origin + dir * hit.t,
            normal,
        })
    }
}

/// The ray through image point `(x, y)` of a `width` × `height` frame (see
/// [`Prepared::pick`] for the coordinates): the camera position and a unit direction.
/// For a camera that [`Prepared::render`] would refuse, the direction may not be finite.
pub fn ray_through_pixel(camera: &Camera, x: f32, y: f32, width: u32, height: u32) -> (Vec3, Vec3) {
    let view = View::new(camera, width, height);
    (view.origin, view.dir(x, y))
}

/// Prepares `scene` and draws it once; see [`Prepared`] to draw a scene many times.
pub fn render(scene: &Scene, camera: &Camera, opts: &FrameOptions) -> Result<Frame, RenderError> {
    Prepared::new(scene)?.render(camera, opts)
}

/// Prepares `scene` and picks the object under `(x, y)`; see [`Prepared::pick`].
pub fn pick(
    scene: &Scene,
    camera: &Camera,
    x: f32,
    y: f32,
    width: u32,
    height: u32,
) -> Result<Option<Hit>, RenderError> {
    Ok(Prepared::new(scene)?.pick(camera, x, y, width, height))
}

fn check_texture(index: usize, t: &Texture) -> Result<(), RenderError> {
    let ok = (1..=MAX_SIDE).contains(&t.width)
        && (1..=MAX_SIDE).contains(&t.height)
        && t.rgba.len() as u64 == t.width as u64 * t.height as u64 * 4;
    if ok {
        Ok(())
    } else {
        Err(RenderError::Texture {
            index,
            width: t.width,
            height: t.height,
            len: t.rgba.len(),
        })
    }
}

fn check_object(object: usize, o: &Object, textures: usize) -> Result<(), RenderError> {
    let finite = match o.shape {
        Shape::Cuboid { min, max } => min.is_finite() && max.is_finite(),
        Shape::Cylinder {
            base,
            radius,
            height,
        } => base.is_finite() && radius.is_finite() && height.is_finite(),
        Shape::Sphere { center, radius } => center.is_finite() && radius.is_finite(),
        Shape::Cone {
            base,
            radius,
            top,
            height,
        } => base.is_finite() && radius.is_finite() && top.is_finite() && height.is_finite(),
        Shape::Quad { center, u, v } => center.is_finite() && u.is_finite() && v.is_finite(),
    } && match o.material {
        Material::Wood { scale, .. } => scale.is_finite(),
        Material::Tiles { size, .. } => size.is_finite(),
        Material::Wallpaper { stripe_width, .. } => stripe_width.is_finite(),
        Material::Flat(_) | Material::Fabric { .. } | Material::Texture(_) => true,
    };
    if !finite {
        return Err(RenderError::NonFinite { object });
    }
    match o.material {
        Material::Texture(texture) if texture >= textures => {
            Err(RenderError::MissingTexture { object, texture })
        }
        _ => Ok(()),
    }
}
