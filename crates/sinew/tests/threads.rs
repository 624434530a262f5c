//! The same results whatever the thread count: worlds stepped in explicit rayon pools of
//! 1, 2 and 8 threads (`ThreadPoolBuilder::num_threads` + `install`, so the tests do not
//! depend on this machine's cores) must end in the same state hash, bit for bit, in fixed
//! point and in `f32`.
//!
//! What runs in parallel (`sinew::world` on threads): the tree solves of separate
//! ragdolls in shards of 16 (the rain below has 300 ragdolls: 19 shards, so a pool of 2 or
//! 8 threads takes the parallel path, a pool of 1 the serial one), and separate worlds in
//! `step_all`. The rope scene is stepped on the calling thread whatever the pool (ropes
//! are not split across threads); its test guards that it stays so.
//!
//! A test binary of its own: it builds pools of its own, and (like `golden.rs`) compiles
//! the library alone.
#![cfg(feature = "parallel")]

use sinew::prelude::*;
use sinew::ragdoll::presets;
use sinew::{Real, Rot2, Space2, World};

const THREADS: [usize; 3] = [1, 2, 8];

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
}

fn v2<R: Real>(x: f64, y: f64) -> Vector2<R> {
    Vector2::from_f64(x, y)
}

/// `n` `humanoid16` ragdolls raining onto a ground and tilted platforms (the 1000-ragdoll
/// benchmark's world, `scenes/bench_1000_ragdolls_2d.json`, lower and smaller, so that
/// they land within the test's frames).
fn rain<R: Real>(n: usize) -> World<Space2<R>> {
    let rig = presets::humanoid16::<R>();
    let def = WorldDef::default().substeps(4).friction(R::from_f64(0.5)).damping(R::from_f64(0.1));
    let mut w = World::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(v2(0.0, 1.0), R::ZERO).unwrap())).unwrap();
    for i in 0..20 {
        let (x, y) = (-48.0 + i as f64 * 5.0, 1.0);
        let tilt = Rot2::from_angle(R::from_f64(0.1 * ((i % 5) as f64 - 2.0)));
        let platform = Shape::cuboid(v2(1.5, 0.25)).unwrap();
        w.add_collider(&ColliderDef::new(platform).position(v2(x, y)).rotation(tilt)).unwrap();
    }
    for k in 0..n {
        let origin = v2(-50.0 + (k % 50) as f64 * 2.0, 2.5 + (k / 50) as f64 * 2.0);
        let v = v2(((k * 7) % 7) as f64 - 3.0, ((k * 3) % 5) as f64 - 2.0);
        Ragdoll::spawn(&mut w, &rig, origin, R::ONE, v).unwrap();
    }
    w
}

/// 12 ropes of 32 segments, some pinned at one end, some at both, falling onto balls and
/// a ground.
fn ropes<R: Real>() -> World<Space2<R>> {
    let mut w = World::new(WorldDef::default().substeps(8).friction(R::from_f64(0.4))).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(v2(0.0, 1.0), R::from_f64(-3.0)).unwrap())).unwrap();
    for i in 0..6 {
        let ball = ColliderDef::new(Shape::ball(R::from_f64(0.4)).unwrap()).position(v2(i as f64 * 3.0 - 7.0, -1.0));
        w.add_collider(&ball).unwrap();
    }
    for i in 0..12 {
        let x = i as f64 * 1.5 - 8.0;
        let def = RopeDef::between(v2(x, 1.0), v2(x + 2.5, 1.5 + 0.1 * i as f64))
            .segments(32)
            .mass(R::from_f64(0.5))
            .radius(R::from_f64(0.03))
            .pin_start();
        let def = if i % 3 == 0 { def.pin_end() } else { def };
        w.add_rope(&def).unwrap();
    }
    w
}

/// The world `i` of the set of independent worlds: a ragdoll thrown onto a ground and a
/// rope, each world a little different.
fn small<R: Real>(i: usize) -> World<Space2<R>> {
    let mut w = World::new(WorldDef::default().substeps(4)).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(v2(0.0, 1.0), R::ZERO).unwrap())).unwrap();
    let rig = presets::humanoid16::<R>();
    let f = i as f64;
    Ragdoll::spawn(&mut w, &rig, v2(0.1 * f, 1.0 + 0.05 * f), R::ONE, v2(2.0 - 0.07 * f, 1.0)).unwrap();
    let rope = RopeDef::between(v2(-2.0, 3.0), v2(-2.0 + 1.0 + 0.02 * f, 2.0)).segments(12).pin_start();
    w.add_rope(&rope).unwrap();
    w
}

/// The hash after `frames` frames of `make()`, stepped in a pool of each thread count.
fn hashes<R: Real>(make: fn() -> World<Space2<R>>, frames: usize) -> Vec<u64> {
    THREADS
        .iter()
        .map(|&t| {
            pool(t).install(|| {
                let mut w = make();
                for _ in 0..frames {
                    w.step(R::from_f64(1.0 / 60.0)).unwrap();
                }
                w.state_hash()
            })
        })
        .collect()
}

fn assert_same(hashes: &[u64], what: &str) {
    for (t, h) in THREADS.iter().zip(hashes) {
        assert_eq!(*h, hashes[0], "{what}: {t} threads gave {h:#018x}, 1 thread {:#018x}", hashes[0]);
    }
}

/// The rain: 300 ragdolls, 90 frames (1.5 s: they land on the platforms and the ground;
/// contacts, the solves after contacts and bounces all run).
fn rain_300<R: Real>() -> World<Space2<R>> {
    rain::<R>(300)
}

#[test]
fn ragdoll_rain_is_bit_identical_on_1_2_and_8_threads_in_fixed_point() {
    let h = hashes::<Fx>(rain_300::<Fx>, 90);
    assert_same(&h, "300 ragdolls, fixed point");
}

#[test]
fn ragdoll_rain_is_bit_identical_on_1_2_and_8_threads_in_f32() {
    let h = hashes::<f32>(rain_300::<f32>, 90);
    assert_same(&h, "300 ragdolls, f32");
}

#[test]
fn ragdoll_rain_moved_and_landed() {
    // The rain above is not a still world (a hash of a world where nothing happens would
    // agree trivially): after 90 frames most ragdolls rest on something.
    let mut w = rain::<f32>(300);
    let before = w.state_hash();
    let mut contacts = 0;
    for _ in 0..90 {
        contacts = w.step(1.0 / 60.0).unwrap().contacts;
    }
    assert_ne!(w.state_hash(), before);
    assert!(contacts > 300, "{contacts} contacts in the last substep");
}

#[test]
fn ropes_are_bit_identical_on_1_2_and_8_threads_in_fixed_point() {
    let h = hashes::<Fx>(ropes::<Fx>, 120);
    assert_same(&h, "12 ropes, fixed point");
}

#[test]
fn ropes_are_bit_identical_on_1_2_and_8_threads_in_f32() {
    let h = hashes::<f32>(ropes::<f32>, 120);
    assert_same(&h, "12 ropes, f32");
}

/// 64 worlds stepped `frames` frames with `step_all` in a pool of `threads`: their hashes.
fn step_all_hashes<R: Real>(threads: usize, frames: usize) -> Vec<u64> {
    pool(threads).install(|| {
        let mut worlds: Vec<World<Space2<R>>> = (0..64).map(small::<R>).collect();
        for _ in 0..frames {
            sinew::world::step_all(&mut worlds, R::from_f64(1.0 / 60.0)).unwrap();
        }
        worlds.iter().map(World::state_hash).collect()
    })
}

/// Each world stepped alone on the calling thread: the reference for `step_all`.
fn alone_hashes<R: Real>(frames: usize) -> Vec<u64> {
    (0..64)
        .map(|i| {
            let mut w = small::<R>(i);
            for _ in 0..frames {
                w.step(R::from_f64(1.0 / 60.0)).unwrap();
            }
            w.state_hash()
        })
        .collect()
}

fn check_step_all<R: Real>(what: &str) {
    let alone = alone_hashes::<R>(60);
    for t in THREADS {
        let set = step_all_hashes::<R>(t, 60);
        for (i, (a, b)) in alone.iter().zip(&set).enumerate() {
            assert_eq!(a, b, "{what}: world {i} with step_all on {t} threads differs from stepping it alone");
        }
    }
    // The worlds differ from one another (so a mix-up of worlds would show).
    let mut distinct = alone.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 64, "{what}: the 64 worlds are distinct");
}

#[test]
fn step_all_on_1_2_and_8_threads_matches_each_world_stepped_alone_in_fixed_point() {
    check_step_all::<Fx>("fixed point");
}

#[test]
fn step_all_on_1_2_and_8_threads_matches_each_world_stepped_alone_in_f32() {
    check_step_all::<f32>("f32");
}

#[test]
fn step_all_refuses_a_bad_time_step_and_changes_no_world() {
    let mut worlds: Vec<World<Space2<f32>>> = (0..4).map(small::<f32>).collect();
    let before: Vec<u64> = worlds.iter().map(World::state_hash).collect();
    for dt in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert!(matches!(sinew::world::step_all(&mut worlds, dt), Err(sinew::SinewError::InvalidTimeStep { .. })));
    }
    let after: Vec<u64> = worlds.iter().map(World::state_hash).collect();
    assert_eq!(before, after);
    assert!(worlds.iter().all(|w| w.step_count() == 0));
}
