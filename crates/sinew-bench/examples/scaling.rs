//! Scaling curves: wall-clock time per 1/60 s frame against the size of a scene, one
//! curve per kind of load, plotted to `docs/images/scaling.png` (log–log, with a line of
//! slope one through each curve's smallest point, so a reader sees whether the cost
//! grows linearly) and printed as a table.
//!
//! The scenes are built in code from the public API with default settings (8 substeps,
//! one thread), `f32`:
//!
//! - **particles**: one 3D rope of `n` particles (5 cm segments) pinned at one end,
//!   released horizontal, swinging (no colliders);
//! - **ropes**: `k` 3D ropes of 32 particles, pinned at one end, swinging down among 49
//!   spheres and boxes over a ground plane;
//! - **ragdolls**: `k` 2D `humanoid16` ragdolls, 4 substeps, dropped from 2–3.5 m onto
//!   the ground side by side (they fall, land and tumble during the timed frames);
//! - **colliders**: one 14 m, 281-particle 3D rope thrown over a field of `c` spheres and
//!   boxes and a ground plane;
//! - **threads**: 1 to all cores (at least 2), each run inside a rayon pool of that many
//!   threads: 64 independent worlds of 8 dropped ragdolls each (`sinew::world::step_all`)
//!   and one world of 1000 dropped ragdolls (its tree solves in shards side by side),
//!   against the ideal `T₁ / threads`.
//!
//! Each point builds its scene, steps 30 frames untimed, then times 120 frames; the best
//! of three such runs is kept (the machine is shared; the best is the least disturbed).
//!
//! ```sh
//! cargo run --release -p sinew-bench --example scaling --features plots  # all curves, writes the PNG
//! cargo run --release -p sinew-bench --example scaling --features plots -- --quick   # small sizes only
//! cargo run --release -p sinew-bench --example scaling --features plots -- --only colliders --sizes 9,16 --out /tmp/c.png
//! ```

use plotters::prelude::*;
use sinew::World;
use sinew::prelude::*;
use sinew::ragdoll::{Ragdoll, presets};
use std::time::Instant;

type R = f32;
const DT: R = 1.0 / 60.0;
const WARM_FRAMES: u32 = 30;
const TIMED_FRAMES: u32 = 120;
const RUNS: u32 = 3;

/// A stepped scene (2D or 3D) behind one face, so the timing loop is shared.
trait Scene {
    fn step(&mut self);
}

impl<S: Space<Real = R>> Scene for World<S> {
    fn step(&mut self) {
        World::step(self, DT).expect("step");
    }
}

/// µs per frame of the scene `build` makes: best of [`RUNS`] runs.
fn time_per_frame(build: &dyn Fn() -> Box<dyn Scene>) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..RUNS {
        let mut scene = build();
        for _ in 0..WARM_FRAMES {
            scene.step();
        }
        let t = Instant::now();
        for _ in 0..TIMED_FRAMES {
            scene.step();
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e6 / f64::from(TIMED_FRAMES));
    }
    best
}

fn v3(x: f64, y: f64, z: f64) -> Vector3<R> {
    Vector3::from_f64(x, y, z)
}

/// One rope of `n` particles, pinned, released horizontal.
fn particles(n: usize) -> Box<dyn Scene> {
    let mut w = World::<Space3<R>>::new(WorldDef::default()).unwrap();
    let len = 0.05 * (n - 1) as f64;
    let def = RopeDef::between(v3(0.0, 0.0, 0.0), v3(len, 0.0, 0.0))
        .segments(n - 1)
        .mass(0.01 * n as R)
        .radius(0.01)
        .pin_start();
    w.add_rope(&def).unwrap();
    Box::new(w)
}

/// Adds `count` spheres and boxes on a grid 1.5 m apart (about `x0..`, `z0..`), at
/// heights 0.4–1.6 m, and a ground plane.
fn field(w: &mut World<Space3<R>>, count: usize, (x0, z0): (f64, f64)) {
    w.add_collider(&ColliderDef::new(Shape::half_space(v3(0.0, 1.0, 0.0), 0.0).unwrap())).unwrap();
    let side = (count as f64).sqrt().ceil() as usize;
    for k in 0..count {
        let (i, j) = (k % side, k / side);
        let at = v3(x0 + i as f64 * 1.5, 0.4 + 0.3 * (k % 5) as f64, z0 + j as f64 * 1.5);
        let shape = if k % 2 == 0 { Shape::ball(0.35).unwrap() } else { Shape::cuboid(v3(0.5, 0.2, 0.3)).unwrap() };
        w.add_collider(&ColliderDef::new(shape).position(at)).unwrap();
    }
}

/// `k` ropes of 32 particles among 49 colliders.
fn ropes(k: usize) -> Box<dyn Scene> {
    let mut w = World::<Space3<R>>::new(WorldDef::default().friction(0.3)).unwrap();
    field(&mut w, 49, (-4.5, -4.5));
    let side = (k as f64).sqrt().ceil() as usize;
    let pitch = 10.0 / side as f64;
    for r in 0..k {
        let (i, j) = (r % side, r / side);
        let a = v3(-5.0 + i as f64 * pitch, 3.5, -5.0 + j as f64 * pitch);
        let b = a + v3(1.55, 0.2, 0.3);
        w.add_rope(&RopeDef::between(a, b).segments(31).mass(0.2).radius(0.02).pin_start().friction(0.3)).unwrap();
    }
    Box::new(w)
}

/// `k` humanoid16 ragdolls dropped onto the ground.
fn ragdolls(k: usize) -> Box<dyn Scene> {
    ragdoll_world(k)
}

/// The world of [`ragdolls`].
fn ragdoll_world(k: usize) -> Box<World<Space2<R>>> {
    let mut w = World::<Space2<R>>::new(WorldDef::default().substeps(4).friction(0.6)).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::from_f64(0.0, 1.0), 0.0).unwrap())).unwrap();
    let rig = presets::humanoid16::<R>();
    // Side by side within 100 m and 2–3.5 m up, so every size lands in the timed frames
    // (bodies do not collide with each other unless a world turns on `body_contacts`, so
    // overlapping ones fall through one another).
    for r in 0..k {
        let at = Vector2::from_f64(-50.0 + (r % 50) as f64 * 2.0 + 0.37 * (r / 50) as f64, 2.0 + 0.5 * (r % 4) as f64);
        Ragdoll::spawn(&mut w, &rig, at, 1.0, Vector2::from_f64(0.5 * ((r % 3) as f64 - 1.0), 0.0)).unwrap();
    }
    Box::new(w)
}

/// One 14 m rope thrown over `c` colliders.
fn colliders(c: usize) -> Box<dyn Scene> {
    let mut w = World::<Space3<R>>::new(WorldDef::default().friction(0.3)).unwrap();
    let side = (c as f64).sqrt().ceil();
    field(&mut w, c, (-0.75 * side, -0.75 * side));
    let a = v3(-7.0, 3.0, 0.0);
    let b = v3(7.0, 3.0, 0.0);
    let def = RopeDef::between(a, b).segments(280).mass(1.4).radius(0.02).friction(0.3);
    let rope = w.add_rope(&def).unwrap();
    for &p in w.rope(rope).unwrap().particles().to_vec().iter() {
        w.particles_mut().set_velocity(p, v3(0.0, -2.0, 1.5)).unwrap();
    }
    Box::new(w)
}

/// A curve to measure: name, unit of the size, full sizes, `--quick` sizes, the scene.
type CurveDef = (&'static str, &'static str, &'static [usize], &'static [usize], fn(usize) -> Box<dyn Scene>);

/// Independent worlds stepped side by side.
struct Worlds(Vec<World<Space2<R>>>);

impl Scene for Worlds {
    fn step(&mut self) {
        sinew::world::step_all(&mut self.0, DT).expect("step");
    }
}

/// `k` worlds of 8 dropped ragdolls.
fn worlds(k: usize) -> Box<dyn Scene> {
    Box::new(Worlds((0..k).map(|_| *ragdoll_world(8)).collect()))
}

/// Time per frame against the thread count, for `build`'s scene: (threads, µs). The
/// thread counts take turns, three rounds of [`time_per_frame`] each, best kept, so that
/// the machine's drift between them (it is shared) does not land on one count.
fn by_threads(name: &str, max: usize, build: &(dyn Fn() -> Box<dyn Scene> + Sync)) -> Vec<(f64, f64)> {
    let pools: Vec<rayon::ThreadPool> =
        (1..=max).map(|t| rayon::ThreadPoolBuilder::new().num_threads(t).build().expect("thread pool")).collect();
    let mut best = vec![f64::INFINITY; max];
    for _ in 0..3 {
        for (b, pool) in best.iter_mut().zip(&pools) {
            *b = b.min(pool.install(|| time_per_frame(build)));
        }
    }
    best.iter()
        .enumerate()
        .map(|(i, &us)| {
            println!("{name:>26} {:>2} threads {us:>10.1} µs/frame", i + 1);
            ((i + 1) as f64, us)
        })
        .collect()
}

struct Curve {
    name: &'static str,
    unit: &'static str,
    points: Vec<(f64, f64)>,
}

fn measure(name: &'static str, unit: &'static str, sizes: &[usize], build: fn(usize) -> Box<dyn Scene>) -> Curve {
    let mut points = Vec::new();
    for &n in sizes {
        let us = time_per_frame(&|| build(n));
        println!("{name:>10} {n:>6} {unit:<12} {us:>10.1} µs/frame  {:>8.3} µs per {unit}", us / n as f64);
        points.push((n as f64, us));
    }
    Curve { name, unit, points }
}

/// The threads panel's series: name, (threads, µs) points.
type Series = (String, Vec<(f64, f64)>);

fn plot(curves: &[Curve], threads: &[Series], path: &str) -> Result<(), Box<dyn std::error::Error>> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, epaint_default_fonts::UBUNTU_LIGHT)
        .map_err(|_| "font")?;
    let root = BitMapBackend::new(path, (1200, 1350)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((3, 2));
    let grey = RGBColor(160, 160, 160);
    for (panel, c) in panels.iter().zip(curves) {
        let (x0, x1) = (c.points[0].0, c.points.last().unwrap().0);
        let y_lo = c.points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let y_hi = c.points.iter().map(|p| p.1).fold(0.0, f64::max).max(c.points[0].1 * x1 / x0);
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{}: µs per frame (log–log)", c.name), ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((x0 * 0.8..x1 * 1.25).log_scale(), (y_lo * 0.6..y_hi * 1.6).log_scale())?;
        chart
            .configure_mesh()
            .x_desc(c.unit)
            .y_desc("µs / frame")
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .label_style(("sans-serif", 15))
            .draw()?;
        let (xa, ya) = c.points[0];
        chart
            .draw_series(LineSeries::new([(x0, ya), (x1, ya * x1 / xa)], ShapeStyle::from(&grey).stroke_width(2)))?
            .label("linear (slope 1)")
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], grey));
        chart
            .draw_series(LineSeries::new(c.points.iter().copied(), ShapeStyle::from(&BLUE).stroke_width(2)))?
            .label("measured")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLUE));
        chart.draw_series(c.points.iter().map(|&p| Circle::new(p, 4, BLUE.filled())))?;
        chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
    }
    if let (Some(panel), Some(first)) = (panels.get(curves.len()), threads.first()) {
        // Speed-up over one thread, with the ideal (the thread count) for reference.
        let max_t = first.1.last().map_or(2.0, |p| p.0);
        let mut chart = ChartBuilder::on(panel)
            .caption("threads: speed-up over one thread", ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.8..max_t + 0.2, 0.0..max_t + 0.5)?;
        chart
            .configure_mesh()
            .x_desc("threads")
            .y_desc("× one thread")
            .x_labels(max_t as usize + 1)
            .label_style(("sans-serif", 15))
            .draw()?;
        chart
            .draw_series(LineSeries::new([(1.0, 1.0), (max_t, max_t)], ShapeStyle::from(&grey).stroke_width(2)))?
            .label("ideal")
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], grey));
        for (k, (name, pts)) in threads.iter().enumerate() {
            let colour = [BLUE, RED, GREEN][k % 3];
            let t1 = pts[0].1;
            let speed: Vec<(f64, f64)> = pts.iter().map(|&(t, us)| (t, t1 / us)).collect();
            chart
                .draw_series(LineSeries::new(speed.iter().copied(), ShapeStyle::from(&colour).stroke_width(2)))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour));
            chart.draw_series(speed.iter().map(|&p| Circle::new(p, 4, colour.filled())))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let out = std::env::args()
        .skip_while(|a| a != "--out")
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/images/scaling.png").to_string());
    let arg = |name: &str| std::env::args().skip_while(|a| a != name).nth(1);
    let only = arg("--only");
    let sizes: Option<Vec<usize>> =
        arg("--sizes").map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).filter(|&n| n > 0).collect());
    let all: [CurveDef; 4] = [
        ("particles", "particles", &[32, 64, 128, 256, 512, 1024, 2048, 4096], &[32, 64], particles),
        ("ropes", "ropes × 32", &[4, 8, 16, 32, 64, 128, 256], &[4, 8], ropes),
        ("ragdolls", "ragdolls", &[8, 16, 32, 64, 128, 256, 512, 1024], &[8, 16], ragdolls),
        ("colliders", "colliders", &[4, 9, 16, 36, 64, 144, 256, 576], &[4, 9], colliders),
    ];
    let curves: Vec<Curve> = all
        .iter()
        .filter(|c| only.as_deref().is_none_or(|o| o == c.0))
        .map(|&(name, unit, full, small, build)| {
            let n = sizes.as_deref().unwrap_or(if quick { small } else { full });
            measure(name, unit, n, build)
        })
        .collect();
    let mut threads = Vec::new();
    if only.as_deref().is_none_or(|o| o == "threads") {
        let max = std::thread::available_parallelism().map_or(2, |n| n.get()).max(2);
        let (w, r) = if quick { (4, 40) } else { (64, 1000) };
        let name = format!("{w} worlds × 8 ragdolls");
        threads.push((name.clone(), by_threads(&name, max, &|| worlds(w))));
        let name = format!("one world of {r} ragdolls");
        threads.push((name.clone(), by_threads(&name, max, &|| ragdolls(r))));
    }
    match plot(&curves, &threads, &out) {
        Ok(()) => println!("wrote {out}"),
        Err(e) => {
            eprintln!("could not draw {out}: {e}");
            std::process::exit(1);
        }
    }
}
