//! The ray caster: golden pictures of a small room (regenerate with `ESCAPADE_BLESS=1
//! cargo test -p escapade-render --test ray`, then look at them before committing),
//! independence from the thread count, picking, shadows, refused inputs, and a property
//! test that no scene makes it panic or lose determinism.

use std::path::PathBuf;

use escapade_render::scene::{Camera, Light, Material, Object, Scene, Shape, Texture, Vec3};
use escapade_render::{Canvas, FrameOptions, Prepared, RenderError, Rgb, pick, render};
use proptest::prelude::*;

const TABLE: u32 = 1;
const LAMP: u32 = 2;
const NOTE: u32 = 3;

fn object(shape: Shape, material: Material, id: Option<u32>, casts_shadow: bool) -> Object {
    Object {
        shape,
        material,
        id,
        casts_shadow,
    }
}

fn cuboid(min: [f32; 3], max: [f32; 3]) -> Shape {
    Shape::Cuboid {
        min: Vec3::from_array(min),
        max: Vec3::from_array(max),
    }
}

/// A 4 m × 4 m room: tiled floor, papered walls, a wooden table, a lamp (a cylinder under
/// a cone), an orange (a ball), and a note on the table with text drawn by the canvas.
fn room() -> Scene {
    let wall = Material::Wallpaper {
        base: Rgb(225, 215, 195),
        stripe: Rgb(190, 175, 150),
        stripe_width: 0.15,
    };
    let wood = Material::Wood {
        light: Rgb(175, 125, 75),
        dark: Rgb(115, 75, 40),
        scale: 0.08,
    };
    let mut objects = vec![
        object(
            cuboid([-2.0, -0.1, -2.0], [2.0, 0.0, 2.0]),
            Material::Tiles {
                tile: Rgb(200, 195, 185),
                grout: Rgb(80, 80, 80),
                size: 0.5,
            },
            None,
            false,
        ),
        object(
            cuboid([-2.0, 2.5, -2.0], [2.0, 2.6, 2.0]),
            Material::Flat(Rgb(245, 245, 240)),
            None,
            false,
        ),
        object(
            cuboid([-2.1, 0.0, -2.0], [-2.0, 2.5, 2.0]),
            wall.clone(),
            None,
            false,
        ),
        object(
            cuboid([2.0, 0.0, -2.0], [2.1, 2.5, 2.0]),
            wall.clone(),
            None,
            false,
        ),
        object(
            cuboid([-2.0, 0.0, 2.0], [2.0, 2.5, 2.1]),
            wall.clone(),
            None,
            false,
        ),
        object(
            cuboid([-2.0, 0.0, -2.1], [2.0, 2.5, -2.0]),
            wall,
            None,
            false,
        ),
        // the table: top and four legs
        object(
            cuboid([-0.6, 0.7, 0.4], [0.6, 0.75, 1.2]),
            wood.clone(),
            Some(TABLE),
            true,
        ),
    ];
    for (x, z) in [(-0.6, 0.4), (0.55, 0.4), (-0.6, 1.15), (0.55, 1.15)] {
        objects.push(object(
            cuboid([x, 0.0, z], [x + 0.05, 0.7, z + 0.05]),
            wood.clone(),
            Some(TABLE),
            true,
        ));
    }
    objects.push(object(
        Shape::Cylinder {
            base: Vec3::new(1.3, 0.0, 1.3),
            radius: 0.15,
            height: 1.2,
        },
        Material::Flat(Rgb(90, 120, 170)),
        Some(LAMP),
        true,
    ));
    // the lamp's shade, and an orange on the table
    objects.push(object(
        Shape::Cone {
            base: Vec3::new(1.3, 1.2, 1.3),
            radius: 0.3,
            top: 0.15,
            height: 0.3,
        },
        Material::Flat(Rgb(240, 225, 190)),
        Some(LAMP),
        true,
    ));
    objects.push(object(
        Shape::Sphere {
            center: Vec3::new(-0.35, 0.81, 0.7),
            radius: 0.06,
        },
        Material::Flat(Rgb(240, 140, 40)),
        None,
        true,
    ));
    objects.push(object(
        Shape::Quad {
            center: Vec3::new(0.0, 0.752, 0.8),
            u: Vec3::new(0.2, 0.0, 0.0),
            v: Vec3::new(0.0, 0.0, 0.14),
        },
        Material::Texture(0),
        Some(NOTE),
        false,
    ));
    let mut note = Canvas::new(120, 84, Rgb(250, 245, 225)).unwrap();
    note.text_block(6.0, 6.0, 14.0, 108.0, Rgb::BLACK, "code 4 1 7 3");
    Scene {
        objects,
        textures: vec![Texture::from_canvas(&note)],
        light: Light {
            direction: Vec3::new(0.3, -1.0, 0.4),
            intensity: 0.65,
            ambient: 0.35,
        },
        background: Rgb(0, 0, 0),
    }
}

/// Standing by the south wall, looking at the table.
fn at_door() -> Camera {
    Camera {
        position: Vec3::new(0.0, 1.5, -1.6),
        yaw: 0.0,
        pitch: -25.0,
        fov: 90.0,
    }
}

/// In a corner, looking diagonally across the room at the lamp.
fn in_corner() -> Camera {
    Camera {
        position: Vec3::new(-1.7, 1.2, -1.7),
        yaw: 45.0,
        pitch: -10.0,
        fov: 70.0,
    }
}

fn small(threads: usize) -> FrameOptions {
    FrameOptions {
        width: 256,
        height: 128,
        threads,
        ..FrameOptions::default()
    }
}

fn golden(name: &str, png: &[u8]) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{name}.png"));
    if std::env::var_os("ESCAPADE_BLESS").is_some() {
        std::fs::write(&path, png).unwrap();
        return;
    }
    let want = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with ESCAPADE_BLESS=1)", path.display()));
    assert!(
        want == png,
        "{name}: the picture changed; look at it, then bless with ESCAPADE_BLESS=1"
    );
}

#[test]
fn golden_room_from_two_poses() {
    let prepared = Prepared::new(&room()).unwrap();
    for (name, camera) in [
        ("ray_room_door", at_door()),
        ("ray_room_corner", in_corner()),
    ] {
        let frame = prepared.render(&camera, &small(1)).unwrap();
        golden(name, &frame.png().unwrap());
    }
}

#[test]
fn the_picture_does_not_depend_on_the_thread_count() {
    let prepared = Prepared::new(&room()).unwrap();
    for camera in [at_door(), in_corner()] {
        let one = prepared.render(&camera, &small(1)).unwrap();
        assert_eq!(one, prepared.render(&camera, &small(2)).unwrap());
        assert_eq!(one, prepared.render(&camera, &small(0)).unwrap());
        assert_eq!(
            one.png().unwrap(),
            render(&room(), &camera, &small(3)).unwrap().png().unwrap()
        );
    }
}

#[test]
fn the_centre_dot_is_red_and_optional() {
    let prepared = Prepared::new(&room()).unwrap();
    let with = prepared.render(&at_door(), &small(1)).unwrap();
    assert_eq!(with.pixel(128, 64), Some(Rgb(255, 0, 0)));
    assert_eq!(with.pixel(127, 63), Some(Rgb(255, 0, 0)));
    let without = prepared
        .render(
            &at_door(),
            &FrameOptions {
                centre_dot: false,
                ..small(1)
            },
        )
        .unwrap();
    assert_ne!(without.pixel(128, 64), Some(Rgb(255, 0, 0)));
    let differ = (0..with.rgb.len())
        .filter(|&i| with.rgb[i] != without.rgb[i])
        .count();
    assert!(differ > 0 && differ < 100 * 3, "{differ} bytes differ");
}

#[test]
fn picking_finds_what_the_centre_shows() {
    let prepared = Prepared::new(&room()).unwrap();
    // looking straight down at the note on the table
    let above = Camera {
        position: Vec3::new(0.0, 1.6, 0.8),
        yaw: 0.0,
        pitch: -89.0,
        fov: 60.0,
    };
    let hit = prepared.pick(&above, 128.0, 64.0, 256, 128).unwrap();
    assert_eq!(hit.id, Some(NOTE));
    assert!((hit.distance - (1.6 - 0.752)).abs() < 0.02, "{hit:?}");
    assert!(hit.normal.y > 0.99);
    // the corner view looks at the lamp
    let lamp = prepared.pick(&in_corner(), 128.0, 64.0, 256, 128).unwrap();
    assert_eq!(lamp.id, Some(LAMP));
    assert_eq!(lamp.object, 11);
    // the table's leg is the table too
    let leg = prepared
        .cast(Vec3::new(-0.575, 0.3, -1.0), Vec3::Z, 10.0)
        .unwrap();
    assert_eq!((leg.id, leg.object), (Some(TABLE), 7));
    assert!((leg.distance - 1.4).abs() < 1e-4);
    // beyond max_dist nothing is hit; walls have no id
    assert!(
        prepared
            .cast(Vec3::new(-0.575, 0.3, -1.0), Vec3::Z, 1.0)
            .is_none()
    );
    let wall = prepared
        .cast(Vec3::new(0.0, 1.0, 0.0), Vec3::X, 10.0)
        .unwrap();
    assert_eq!((wall.id, wall.object, wall.normal), (None, 3, -Vec3::X));
    // the free function agrees
    assert_eq!(
        pick(&room(), &above, 128.0, 64.0, 256, 128).unwrap(),
        Some(hit)
    );
}

#[test]
fn picking_the_sky_finds_nothing() {
    let mut scene = room();
    scene.objects.truncate(1); // the floor only
    let prepared = Prepared::new(&scene).unwrap();
    let up = Camera {
        pitch: 30.0,
        ..at_door()
    };
    assert_eq!(prepared.pick(&up, 128.0, 64.0, 256, 128), None);
    let frame = prepared
        .render(
            &up,
            &FrameOptions {
                centre_dot: false,
                ..small(1)
            },
        )
        .unwrap();
    assert_eq!(frame.pixel(128, 10), Some(scene.background));
    // an invalid camera or size picks nothing rather than panicking
    let bad = Camera {
        fov: f32::NAN,
        ..up
    };
    assert_eq!(prepared.pick(&bad, 1.0, 1.0, 256, 128), None);
    assert_eq!(prepared.pick(&up, 1.0, 1.0, 0, 128), None);
    assert_eq!(prepared.cast(Vec3::ZERO, Vec3::ZERO, 1.0), None);
}

#[test]
fn the_floor_under_the_table_is_in_shadow() {
    let prepared = Prepared::new(&room()).unwrap();
    let down = Camera {
        position: Vec3::ZERO,
        yaw: 0.0,
        pitch: -90.0,
        fov: 2.0,
    };
    // look straight down at the same tile colour, under the table and in the open
    let brightness = |x: f32, z: f32| {
        let camera = Camera {
            position: Vec3::new(x, 0.5, z),
            ..down
        };
        let frame = prepared
            .render(
                &camera,
                &FrameOptions {
                    width: 8,
                    height: 8,
                    threads: 1,
                    centre_dot: false,
                },
            )
            .unwrap();
        let p = frame.pixel(4, 4).unwrap();
        p.0 as u32 + p.1 as u32 + p.2 as u32
    };
    let (shadow, open) = (brightness(0.2, 1.0), brightness(-1.25, -1.25));
    assert!(
        shadow * 10 < open * 8,
        "under the table {shadow}, in the open {open}"
    );
}

#[test]
fn a_transparent_texel_lets_rays_through() {
    let mut scene = room();
    // a half-transparent texture: left column opaque red, right column clear
    scene.textures.push(Texture {
        width: 2,
        height: 1,
        rgba: vec![255, 0, 0, 255, 0, 0, 0, 0],
    });
    scene.objects.push(object(
        Shape::Quad {
            center: Vec3::new(0.0, 1.0, 0.0),
            u: Vec3::new(0.5, 0.0, 0.0),
            v: Vec3::new(0.0, 0.5, 0.0),
        },
        Material::Texture(1),
        Some(99),
        true,
    ));
    let prepared = Prepared::new(&scene).unwrap();
    let opaque = prepared
        .cast(Vec3::new(-0.25, 1.0, -1.0), Vec3::Z, 10.0)
        .unwrap();
    assert_eq!(opaque.id, Some(99));
    let clear = prepared
        .cast(Vec3::new(0.25, 1.0, -1.0), Vec3::Z, 10.0)
        .unwrap();
    assert_eq!(clear.id, None);
}

#[test]
fn bad_inputs_are_errors() {
    let scene = room();
    let camera = at_door();
    let err = |opts: FrameOptions| render(&scene, &camera, &opts).unwrap_err();
    assert_eq!(
        err(FrameOptions {
            width: 0,
            ..small(1)
        }),
        RenderError::FrameSize {
            width: 0,
            height: 128
        }
    );
    assert!(matches!(
        err(FrameOptions {
            height: 9000,
            ..small(1)
        }),
        RenderError::FrameSize { .. }
    ));
    assert!(matches!(
        err(FrameOptions {
            threads: 100_000,
            ..small(1)
        }),
        RenderError::Threads { .. }
    ));
    for bad in [
        Camera {
            position: Vec3::new(f32::NAN, 0.0, 0.0),
            ..camera
        },
        Camera {
            yaw: f32::INFINITY,
            ..camera
        },
        Camera { fov: 0.0, ..camera },
        Camera {
            fov: 200.0,
            ..camera
        },
    ] {
        assert_eq!(
            render(&scene, &bad, &small(1)).unwrap_err(),
            RenderError::Camera
        );
    }
    let with = |f: &dyn Fn(&mut Scene)| {
        let mut s = room();
        f(&mut s);
        Prepared::new(&s).unwrap_err()
    };
    assert_eq!(
        with(&|s| s.light.direction.x = f32::NAN),
        RenderError::Light
    );
    assert_eq!(
        with(&|s| s.objects[3].material = Material::Texture(5)),
        RenderError::MissingTexture {
            object: 3,
            texture: 5
        }
    );
    assert_eq!(
        with(&|s| s.objects[2].shape = cuboid([0.0, f32::INFINITY, 0.0], [1.0, 1.0, 1.0])),
        RenderError::NonFinite { object: 2 }
    );
    assert!(matches!(
        with(&|s| s.textures[0].rgba.pop().map(drop).unwrap()),
        RenderError::Texture { index: 0, .. }
    ));
    assert!(matches!(
        with(&|s| s.textures[0] = Texture {
            width: 0,
            height: 0,
            rgba: vec![]
        }),
        RenderError::Texture { index: 0, .. }
    ));
    // messages are lowercase with no final period
    let msg = RenderError::Camera.to_string();
    assert!(msg.starts_with("bad camera") && !msg.ends_with('.'));
}

fn any_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        -10.0f32..10.0,
        Just(0.0),
        Just(-0.0),
        Just(f32::MAX),
        Just(f32::MIN),
        Just(1e-30),
        -1e30f32..1e30,
    ]
}

fn any_vec() -> impl Strategy<Value = Vec3> {
    (any_f32(), any_f32(), any_f32()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn any_rgb() -> impl Strategy<Value = Rgb> {
    any::<(u8, u8, u8)>().prop_map(|(r, g, b)| Rgb(r, g, b))
}

fn any_shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        (any_vec(), any_vec()).prop_map(|(min, max)| Shape::Cuboid { min, max }),
        (any_vec(), any_f32(), any_f32()).prop_map(|(base, radius, height)| Shape::Cylinder {
            base,
            radius,
            height
        }),
        (any_vec(), any_vec(), any_vec()).prop_map(|(center, u, v)| Shape::Quad { center, u, v }),
        (any_vec(), any_f32()).prop_map(|(center, radius)| Shape::Sphere { center, radius }),
        (any_vec(), any_f32(), any_f32(), any_f32()).prop_map(|(base, radius, top, height)| {
            Shape::Cone {
                base,
                radius,
                top,
                height,
            }
        }),
    ]
}

fn any_material() -> impl Strategy<Value = Material> {
    prop_oneof![
        any_rgb().prop_map(Material::Flat),
        (any_rgb(), any_rgb(), any_f32()).prop_map(|(light, dark, scale)| Material::Wood {
            light,
            dark,
            scale
        }),
        (any_rgb(), any_rgb(), any_f32()).prop_map(|(tile, grout, size)| Material::Tiles {
            tile,
            grout,
            size
        }),
        (any_rgb(), any_rgb()).prop_map(|(base, weave)| Material::Fabric { base, weave }),
        (any_rgb(), any_rgb(), any_f32()).prop_map(|(base, stripe, stripe_width)| {
            Material::Wallpaper {
                base,
                stripe,
                stripe_width,
            }
        }),
        Just(Material::Texture(0)),
    ]
}

fn any_scene() -> impl Strategy<Value = Scene> {
    let objects = prop::collection::vec(
        (
            any_shape(),
            any_material(),
            prop::option::of(0u32..5),
            any::<bool>(),
        )
            .prop_map(|(shape, material, id, casts_shadow)| Object {
                shape,
                material,
                id,
                casts_shadow,
            }),
        0..12,
    );
    (
        objects,
        any_vec(),
        any_f32(),
        any_f32(),
        prop::collection::vec(any::<u8>(), 4 * 3 * 2),
    )
        .prop_map(|(objects, direction, intensity, ambient, rgba)| Scene {
            objects,
            textures: vec![Texture {
                width: 3,
                height: 2,
                rgba,
            }],
            light: Light {
                direction,
                intensity,
                ambient,
            },
            background: Rgb(10, 20, 30),
        })
}

fn any_camera() -> impl Strategy<Value = Camera> {
    (
        any_vec(),
        any_f32(),
        any_f32(),
        prop_oneof![Just(90.0f32), 0.001f32..179.999],
    )
        .prop_map(|(position, yaw, pitch, fov)| Camera {
            position,
            yaw,
            pitch,
            fov,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_scene_renders_without_panicking_and_the_same_twice(
        scene in any_scene(),
        camera in any_camera(),
        (x, y) in (any_f32(), any_f32()),
    ) {
        let opts = FrameOptions { width: 24, height: 12, threads: 1, ..FrameOptions::default() };
        let prepared = Prepared::new(&scene).unwrap();
        let one = prepared.render(&camera, &opts).unwrap();
        let two = prepared.render(&camera, &FrameOptions { threads: 2, ..opts }).unwrap();
        prop_assert_eq!(one.png().unwrap(), two.png().unwrap());
        let _ = prepared.pick(&camera, x, y, 24, 12);
        let _ = prepared.cast(camera.position, Vec3::new(x, y, 1.0), x);
    }
}
