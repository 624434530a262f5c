//! Core solver benchmarks (criterion). Figures are recorded in docs/BENCHMARKS.md.
//!
//! - `hanging_rope_101`: 101 particles on rigid links hanging from a pin, 8 substeps.
//! - `particles_1000_colliders_50`: 1000 particles in 100 ten-particle chains falling onto
//!   50 colliders (circles, boxes, capsules, polygons and a ground), 8 substeps.
//!
//! Each scene runs in `f32`, `f64` and fixed point (`Fx`); `snapshot_and_hash` times
//! `World::snapshot` + `World::state_hash`, the per-frame cost of rollback support.
//!
//! Reported time is per 1/60 s frame; divide by particles × substeps for the per
//! particle-substep figure.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use sinew::prelude::*;
use sinew::{Rot2, World};
use std::hint::black_box;

fn hanging_rope<R: Real>() -> World<Space2<R>> {
    hanging_rope_ordered(ConstraintOrder::Sequential)
}

fn hanging_rope_coloured<R: Real>() -> World<Space2<R>> {
    hanging_rope_ordered(ConstraintOrder::Coloured)
}

fn hanging_rope_ordered<R: Real>(constraint_order: ConstraintOrder) -> World<Space2<R>> {
    let mut w = World::new(WorldDef::default().constraint_order(constraint_order)).unwrap();
    let mut prev = w.add_particle(&ParticleDef::at(Vector2::from_f64(0.0, 0.0)).mass(R::ZERO)).unwrap();
    for i in 1..101 {
        let p =
            w.add_particle(&ParticleDef::at(Vector2::from_f64(i as f64 * 0.05, 0.0)).mass(R::from_f64(0.01))).unwrap();
        w.add_distance(&DistanceDef::new(prev, p)).unwrap();
        prev = p;
    }
    // Warm up into a swinging, partly hanging state.
    for _ in 0..30 {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
    }
    w
}

/// 1000 particles (100 chains of 10) over 50 colliders.
pub fn collider_scene<R: Real>() -> World<Space2<R>> {
    let mut w = World::new(WorldDef::default().friction(R::from_f64(0.3))).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::from_f64(0.0, 1.0), R::from_f64(-5.0)).unwrap()))
        .unwrap();
    let mut k = 0;
    for row in 0..7 {
        for col in 0..7 {
            let c = Vector2::from_f64(-9.0 + col as f64 * 3.0 + (row % 2) as f64 * 1.5, -4.0 + row as f64 * 1.2);
            let shape = match k % 4 {
                0 => Shape::ball(R::from_f64(0.4)).unwrap(),
                1 => Shape::cuboid(Vector2::from_f64(0.6, 0.15)).unwrap(),
                2 => Shape::capsule(Vector2::from_f64(-0.5, 0.0), Vector2::from_f64(0.5, 0.2), R::from_f64(0.15))
                    .unwrap(),
                _ => Shape::convex(&[
                    Vector2::from_f64(-0.4, -0.3),
                    Vector2::from_f64(0.4, -0.3),
                    Vector2::from_f64(0.5, 0.2),
                    Vector2::from_f64(0.0, 0.5),
                    Vector2::from_f64(-0.5, 0.2),
                ])
                .unwrap(),
            };
            w.add_collider(
                &ColliderDef::new(shape).position(c).rotation(Rot2::from_angle(R::from_f64(0.1 * k as f64))),
            )
            .unwrap();
            k += 1;
        }
    }
    for chain in 0..100 {
        let x0 = -10.0 + (chain % 20) as f64 * 1.0;
        let y0 = 5.0 + (chain / 20) as f64 * 1.0;
        let mut prev = None;
        for i in 0..10 {
            let p = w
                .add_particle(
                    &ParticleDef::at(Vector2::from_f64(x0 + i as f64 * 0.08, y0))
                        .mass(R::from_f64(0.05))
                        .radius(R::from_f64(0.03)),
                )
                .unwrap();
            if let Some(q) = prev {
                w.add_distance(&DistanceDef::new(q, p)).unwrap();
            }
            prev = Some(p);
        }
    }
    for _ in 0..60 {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
    }
    w
}

fn bench_world<R: Real>(c: &mut Criterion, name: &str, make: fn() -> World<Space2<R>>) {
    bench_world_batched(c, name, make, BatchSize::SmallInput);
}

/// One step of a fresh clone of `make()`'s world per iteration, clones made `batch` at a time.
fn bench_world_batched<R: Real>(c: &mut Criterion, name: &str, make: fn() -> World<Space2<R>>, batch: BatchSize) {
    let base = make();
    let dt = R::from_f64(1.0 / 60.0);
    c.bench_function(&format!("{name}/{}", R::NAME), |b| {
        b.iter_batched_ref(
            || base.clone(),
            |w| {
                black_box(w.step(dt).unwrap());
            },
            batch,
        )
    });
}

/// [`bench_world`] with the world cloned right before each timed step (one clone per
/// iteration), so its memory is warm in the cache, as in a game loop that steps the same
/// world every frame; `bench_world` prepares a batch of clones first, so each timed step
/// starts with its world's memory cold.
fn bench_world_warm<R: Real>(c: &mut Criterion, name: &str, make: fn() -> World<Space2<R>>) {
    bench_world_batched(c, &format!("{name}/warm"), make, BatchSize::PerIteration);
}

/// 1000 `humanoid16` ragdolls (16 000 particles, 19 000 bones, 10 000 angle limits) raining
/// onto a ground and 40 tilted platforms: 60 Hz, 4 substeps × 1 iteration, timed after
/// 180 warm-up frames (3 s: most have landed; a few still fall).
fn ragdoll_rain<R: Real>() -> World<Space2<R>> {
    use sinew::ragdoll::{Ragdoll, presets};
    let rig = presets::humanoid16::<R>();
    let def = WorldDef::default().substeps(4).friction(R::from_f64(0.5)).damping(R::from_f64(0.1));
    let mut w = World::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::from_f64(0.0, 1.0), R::ZERO).unwrap())).unwrap();
    for i in 0..40 {
        let (x, y) = (-48.0 + (i % 20) as f64 * 5.0, 2.0 + (i / 20) as f64 * 3.0);
        let tilt = Rot2::from_angle(R::from_f64(0.1 * ((i % 5) as f64 - 2.0)));
        let platform = Shape::cuboid(Vector2::from_f64(1.5, 0.25)).unwrap();
        w.add_collider(&ColliderDef::new(platform).position(Vector2::from_f64(x, y)).rotation(tilt)).unwrap();
    }
    for k in 0..1000 {
        let origin = Vector2::from_f64(-50.0 + (k % 50) as f64 * 2.0, 8.0 + (k / 50) as f64 * 2.0);
        let v = Vector2::from_f64(((k * 7) % 7) as f64 - 3.0, ((k * 3) % 5) as f64 - 2.0);
        Ragdoll::spawn(&mut w, &rig, origin, R::ONE, v).unwrap();
    }
    for _ in 0..180 {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
    }
    w
}

/// Snapshot + state hash of a world: the per-frame cost of rollback support.
fn bench_snapshot<R: Real>(c: &mut Criterion, name: &str, make: fn() -> World<Space2<R>>) {
    let w = make();
    // A rollback client overwrites the oldest snapshot of its ring every frame.
    let mut ring = w.snapshot();
    c.bench_function(&format!("{name}/snapshot_and_hash/{}", R::NAME), |b| {
        b.iter(|| {
            black_box(&w).snapshot_into(&mut ring);
            black_box(w.state_hash())
        })
    });
}

fn benches(c: &mut Criterion) {
    bench_world::<f32>(c, "hanging_rope_101", hanging_rope::<f32>);
    bench_world::<f64>(c, "hanging_rope_101", hanging_rope::<f64>);
    bench_world::<Fx>(c, "hanging_rope_101", hanging_rope::<Fx>);
    bench_snapshot::<Fx>(c, "hanging_rope_101", hanging_rope::<Fx>);
    bench_snapshot::<f32>(c, "hanging_rope_101", hanging_rope::<f32>);
    bench_world::<f32>(c, "hanging_rope_101_coloured", hanging_rope_coloured::<f32>);
    bench_world::<f64>(c, "hanging_rope_101_coloured", hanging_rope_coloured::<f64>);
    bench_world::<Fx>(c, "hanging_rope_101_coloured", hanging_rope_coloured::<Fx>);
    bench_world::<f32>(c, "particles_1000_colliders_50", collider_scene::<f32>);
    bench_world::<f64>(c, "particles_1000_colliders_50", collider_scene::<f64>);
    bench_world::<Fx>(c, "particles_1000_colliders_50", collider_scene::<Fx>);
    bench_snapshot::<Fx>(c, "particles_1000_colliders_50", collider_scene::<Fx>);
    bench_world::<f32>(c, "ragdolls_1000_humanoid16", ragdoll_rain::<f32>);
    bench_world_warm::<f32>(c, "ragdolls_1000_humanoid16", ragdoll_rain::<f32>);
    bench_world::<Fx>(c, "ragdolls_1000_humanoid16", ragdoll_rain::<Fx>);
}

criterion_group!(core, benches);
criterion_main!(core);
