//! Canvas drawing speed: a view-sized picture with shapes and text, encoded to PNG.

use criterion::{Criterion, criterion_group, criterion_main};
use escapade_render::{Canvas, Rgb, shapes};

fn draw() -> Vec<u8> {
    let mut c = Canvas::new(640, 400, Rgb(235, 228, 214)).unwrap();
    for i in 0..6 {
        let x = 20.0 + i as f32 * 100.0;
        c.fill_rect(x, 120.0, 80.0, 200.0, Rgb(120, 80, 40));
        c.stroke_rect(x, 120.0, 80.0, 200.0, Rgb::BLACK, 2.0);
        c.fill_polygon(
            &shapes::regular_polygon(x + 40.0, 80.0, 25.0, 3 + i, 0.0),
            Rgb(40, 90, 200),
        );
        c.text_centered(x + 40.0, 330.0, 14.0, Rgb::BLACK, "wardrobe");
    }
    c.png().unwrap()
}

fn bench(c: &mut Criterion) {
    c.bench_function("canvas 640x400 six objects + png", |b| b.iter(draw));
}

criterion_group!(benches, bench);
criterion_main!(benches);
