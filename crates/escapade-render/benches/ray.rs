//! Ray caster speed: a furnished room of about a hundred primitives drawn at 1024×512 on
//! one thread and on all cores, and the PNG encoding of that frame.

use criterion::{Criterion, criterion_group, criterion_main};
use escapade_render::scene::{Camera, Light, Material, Object, Scene, Shape, Texture, Vec3};
use escapade_render::{Canvas, FrameOptions, Prepared, Rgb};

fn cuboid(min: [f32; 3], max: [f32; 3], material: Material, id: Option<u32>) -> Object {
    Object {
        shape: Shape::Cuboid {
            min: Vec3::from_array(min),
            max: Vec3::from_array(max),
        },
        material,
        id,
        casts_shadow: true,
    }
}

fn cylinder(
    base: [f32; 3],
    radius: f32,
    height: f32,
    material: Material,
    id: Option<u32>,
) -> Object {
    Object {
        shape: Shape::Cylinder {
            base: Vec3::from_array(base),
            radius,
            height,
        },
        material,
        id,
        casts_shadow: true,
    }
}

fn wood() -> Material {
    Material::Wood {
        light: Rgb(170, 120, 70),
        dark: Rgb(120, 80, 45),
        scale: 0.06,
    }
}

fn fabric() -> Material {
    Material::Fabric {
        base: Rgb(60, 90, 140),
        weave: Rgb(80, 110, 160),
    }
}

/// A table: top and four legs.
fn table(o: &mut Vec<Object>, x: f32, z: f32, w: f32, d: f32, h: f32, id: u32) {
    o.push(cuboid(
        [x, h - 0.04, z],
        [x + w, h, z + d],
        wood(),
        Some(id),
    ));
    for (lx, lz) in [
        (x, z),
        (x + w - 0.05, z),
        (x, z + d - 0.05),
        (x + w - 0.05, z + d - 0.05),
    ] {
        o.push(cuboid(
            [lx, 0.0, lz],
            [lx + 0.05, h - 0.04, lz + 0.05],
            wood(),
            Some(id),
        ));
    }
}

/// A chair: seat, four legs, back.
fn chair(o: &mut Vec<Object>, x: f32, z: f32, id: u32) {
    table(o, x, z, 0.45, 0.45, 0.46, id);
    o.push(cuboid(
        [x, 0.46, z + 0.4],
        [x + 0.45, 0.95, z + 0.45],
        wood(),
        Some(id),
    ));
}

fn room() -> Scene {
    let mut o = Vec::new();
    let wall = Material::Wallpaper {
        base: Rgb(220, 210, 190),
        stripe: Rgb(200, 185, 160),
        stripe_width: 0.12,
    };
    let mut fixed = |min, max, m| {
        let mut c = cuboid(min, max, m, None);
        c.casts_shadow = false;
        o.push(c);
    };
    fixed(
        [-4.0, -0.1, -4.0],
        [4.0, 0.0, 4.0],
        Material::Tiles {
            tile: Rgb(190, 180, 165),
            grout: Rgb(90, 85, 80),
            size: 0.4,
        },
    );
    fixed(
        [-4.0, 3.0, -4.0],
        [4.0, 3.1, 4.0],
        Material::Flat(Rgb(240, 240, 235)),
    );
    fixed([-4.1, 0.0, -4.0], [-4.0, 3.0, 4.0], wall.clone());
    fixed([4.0, 0.0, -4.0], [4.1, 3.0, 4.0], wall.clone());
    fixed([-4.0, 0.0, -4.1], [4.0, 3.0, -4.0], wall.clone());
    fixed([-4.0, 0.0, 4.0], [4.0, 3.0, 4.1], wall);
    // furniture
    table(&mut o, -1.0, 0.5, 1.6, 0.9, 0.75, 1);
    table(&mut o, 2.5, 2.5, 1.0, 1.0, 0.7, 2);
    for (i, (x, z)) in [(-0.8, -0.1), (0.0, -0.1), (-0.8, 1.5), (0.0, 1.5)]
        .into_iter()
        .enumerate()
    {
        chair(&mut o, x, z, 10 + i as u32);
    }
    // sofa: base, back, arms, cushions
    let sofa = Some(20);
    o.push(cuboid([-3.8, 0.0, -2.0], [-2.9, 0.4, 0.2], fabric(), sofa));
    o.push(cuboid([-4.0, 0.0, -2.0], [-3.8, 0.9, 0.2], fabric(), sofa));
    o.push(cuboid(
        [-3.8, 0.0, -2.2],
        [-2.9, 0.65, -2.0],
        fabric(),
        sofa,
    ));
    o.push(cuboid([-3.8, 0.0, 0.2], [-2.9, 0.65, 0.4], fabric(), sofa));
    o.push(cuboid(
        [-3.7, 0.4, -1.95],
        [-3.0, 0.52, -0.95],
        fabric(),
        sofa,
    ));
    o.push(cuboid(
        [-3.7, 0.4, -0.85],
        [-3.0, 0.52, 0.15],
        fabric(),
        sofa,
    ));
    // shelf with books
    let shelf = Some(30);
    o.push(cuboid([1.0, 0.0, 3.6], [1.04, 2.0, 4.0], wood(), shelf));
    o.push(cuboid([2.46, 0.0, 3.6], [2.5, 2.0, 4.0], wood(), shelf));
    for k in 0..5 {
        let y = k as f32 * 0.48;
        o.push(cuboid([1.04, y, 3.6], [2.46, y + 0.03, 4.0], wood(), shelf));
    }
    for k in 0..16 {
        let (row, col) = (k / 8, k % 8);
        let x = 1.08 + col as f32 * 0.17;
        let y = 0.03 + row as f32 * 0.48;
        let shade = (40 + 25 * (k % 7)) as u8;
        o.push(cuboid(
            [x, y, 3.65],
            [x + 0.12, y + 0.3 + 0.01 * (k % 5) as f32, 3.95],
            Material::Flat(Rgb(shade, 200 - shade, 90)),
            Some(100 + k),
        ));
    }
    // a cabinet with drawers
    o.push(cuboid([2.8, 0.0, -3.9], [3.9, 0.9, -3.3], wood(), Some(40)));
    for k in 0..3 {
        let y = 0.1 + k as f32 * 0.27;
        o.push(cuboid(
            [2.9, y, -3.32],
            [3.8, y + 0.2, -3.28],
            wood(),
            Some(41 + k),
        ));
        o.push(cylinder(
            [3.35, y + 0.08, -3.3],
            0.02,
            0.04,
            Material::Flat(Rgb(200, 180, 60)),
            None,
        ));
    }
    // lamps (base, pole, shade), vases, a bin
    for (i, (x, z)) in [(-3.4, 1.0), (3.5, 0.5)].into_iter().enumerate() {
        let id = Some(50 + i as u32);
        o.push(cylinder(
            [x, 0.0, z],
            0.18,
            0.04,
            Material::Flat(Rgb(40, 40, 40)),
            id,
        ));
        o.push(cylinder(
            [x, 0.04, z],
            0.02,
            1.4,
            Material::Flat(Rgb(60, 60, 60)),
            id,
        ));
        o.push(cylinder(
            [x, 1.44, z],
            0.22,
            0.3,
            Material::Flat(Rgb(250, 235, 200)),
            id,
        ));
    }
    for (i, x) in [-0.6f32, 0.1, 2.8, 3.2].into_iter().enumerate() {
        let on_table = if i < 2 { (0.75, 0.9) } else { (0.7, 2.9) };
        o.push(cylinder(
            [x, on_table.0, on_table.1],
            0.07,
            0.25,
            Material::Flat(Rgb(180, 60, 60)),
            Some(60 + i as u32),
        ));
    }
    o.push(cylinder(
        [-2.0, 0.0, 3.5],
        0.18,
        0.4,
        Material::Flat(Rgb(90, 90, 95)),
        Some(70),
    ));
    // boxes on the floor
    for k in 0..5 {
        let x = -2.5 + k as f32 * 0.45;
        o.push(cuboid(
            [x, 0.0, -3.8],
            [x + 0.35, 0.3 + 0.05 * k as f32, -3.4],
            wood(),
            Some(80 + k),
        ));
    }
    // a door with its handle
    o.push(cuboid([-1.0, 0.0, 3.95], [0.0, 2.1, 4.0], wood(), Some(90)));
    o.push(cylinder(
        [-0.15, 1.0, 3.9],
        0.03,
        0.06,
        Material::Flat(Rgb(200, 180, 60)),
        Some(90),
    ));
    // a rug, a window, two textured quads (a note and a number pattern)
    let quad = |c: [f32; 3], u: [f32; 3], v: [f32; 3], material, id| Object {
        shape: Shape::Quad {
            center: Vec3::from_array(c),
            u: Vec3::from_array(u),
            v: Vec3::from_array(v),
        },
        material,
        id,
        casts_shadow: false,
    };
    o.push(quad(
        [0.0, 0.005, 1.0],
        [1.5, 0.0, 0.0],
        [0.0, 0.0, 1.2],
        fabric(),
        None,
    ));
    o.push(quad(
        [-3.99, 1.6, 2.5],
        [0.0, 0.0, -0.6],
        [0.0, 0.5, 0.0],
        Material::Flat(Rgb(170, 200, 230)),
        None,
    ));
    o.push(quad(
        [0.2, 0.755, 1.0],
        [0.15, 0.0, 0.0],
        [0.0, 0.0, 0.1],
        Material::Texture(0),
        Some(95),
    ));
    o.push(quad(
        [3.99, 1.5, -1.0],
        [0.0, 0.0, 0.5],
        [0.0, 0.25, 0.0],
        Material::Texture(1),
        Some(96),
    ));
    // picture frames
    for k in 0..4 {
        let x = -3.0 + k as f32 * 1.2;
        o.push(quad(
            [x, 1.8, -3.99],
            [0.3, 0.0, 0.0],
            [0.0, 0.22, 0.0],
            Material::Flat(Rgb(40 + 40 * k as u8, 90, 120)),
            None,
        ));
    }

    let mut note = Canvas::new(192, 128, Rgb(245, 240, 220)).unwrap();
    note.text_block(
        8.0,
        8.0,
        16.0,
        176.0,
        Rgb::BLACK,
        "the code is under the lamp: 4 1 7 3",
    );
    let mut pattern = Canvas::new(256, 128, Rgb(250, 250, 250)).unwrap();
    pattern.text(10.0, 30.0, 64.0, Rgb(20, 20, 120), "3 8 5 1");
    Scene {
        objects: o,
        textures: vec![Texture::from_canvas(&note), Texture::from_canvas(&pattern)],
        light: Light {
            direction: Vec3::new(0.4, -1.0, 0.3),
            intensity: 0.65,
            ambient: 0.35,
        },
        background: Rgb(0, 0, 0),
    }
}

fn bench(c: &mut Criterion) {
    let scene = room();
    let prepared = Prepared::new(&scene).unwrap();
    let camera = Camera {
        position: Vec3::new(0.5, 1.6, -3.0),
        yaw: -15.0,
        pitch: -12.0,
        fov: 90.0,
    };
    let opts = |threads| FrameOptions {
        threads,
        ..FrameOptions::default()
    };
    println!("room: {} objects", scene.objects.len());
    c.bench_function("ray prepare room", |b| {
        b.iter(|| Prepared::new(&scene).unwrap())
    });
    c.bench_function("ray 1024x512 room, 1 thread", |b| {
        b.iter(|| prepared.render(&camera, &opts(1)).unwrap())
    });
    c.bench_function("ray 1024x512 room, all cores", |b| {
        b.iter(|| prepared.render(&camera, &opts(0)).unwrap())
    });
    let frame = prepared.render(&camera, &opts(1)).unwrap();
    c.bench_function("ray 1024x512 png encode", |b| {
        b.iter(|| frame.png().unwrap())
    });
    if let Some(path) = std::env::var_os("ESCAPADE_RAY_BENCH_PNG") {
        // look at the benchmark room: ESCAPADE_RAY_BENCH_PNG=/tmp/room.png cargo bench ...
        std::fs::write(path, frame.png().unwrap()).unwrap();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
