//! `scenes/golden_fixed_taut_3d.json` built in code: a taut rope round two posts and over a
//! box's top edges, a 30 kg load on its end swinging under the box (fixed point).
//!
//! Shared (through `#[path]`) by the golden test (`tests/golden.rs`), which checks its
//! state hash after 1000 frames, and by the rollback test of `tests/suite/rope_taut_3d.rs`,
//! which steps it back and forth: one scene, one builder. It mirrors the file the way
//! `sinew-scene` loads it (creation order particles, ropes, colliders; every number
//! through `Fx::from_f64`); a change to the file must be mirrored here.

use sinew::prelude::*;
use sinew::{Space3, World};

/// Adds the scene's load, rope and colliders to `world` (whose keys the caller sets: the
/// file's `"substeps": 8`, the loader's step clamp).
pub fn add_taut_posts_3d(world: &mut World<Space3<Fx>>) {
    let v = |x: f64, y: f64, z: f64| Vector3::<Fx>::from_f64(x, y, z);
    let x = Fx::from_f64;

    // "particles" 0: the load.
    let load = world
        .add_particle(&ParticleDef::at(v(2.1, -0.6, 0.0)).mass(x(30.0)).radius(x(0.15)).velocity(v(0.0, 0.0, 2.5)))
        .unwrap();

    // "ropes"[0]: laid round the posts and over the box, 80 segments, pinned at its start,
    // attached to the load, taut ("always").
    let points = vec![
        v(-4.0, 0.3, -1.0),
        v(-2.5, 0.3, 0.75),
        v(-1.0, 0.35, -0.85),
        v(0.3, 1.35, 0.0),
        v(1.7, 1.35, 0.0),
        v(2.1, -0.6, 0.0),
    ];
    let mut def = RopeDef::along(points).attach_end(load).taut(TautMode::Always);
    def.segments = Some(80);
    def.mass = x(0.5);
    def.radius = x(0.02);
    def.tethers = true;
    def.edge_collisions = true;
    def.pin_start = true;
    world.add_rope(&def).unwrap();

    // "colliders": ground, two posts, the box.
    world.add_collider(&ColliderDef::new(Shape::half_space(v(0.0, 1.0, 0.0), x(-2.0)).unwrap())).unwrap();
    for (px, pz) in [(-2.5, 0.5), (-1.0, -0.6)] {
        let post = Shape::capsule(v(px, -2.0, pz), v(px, 2.6, pz), x(0.12)).unwrap();
        world.add_collider(&ColliderDef::new(post)).unwrap();
    }
    let block = ColliderDef::new(Shape::cuboid(v(0.6, 0.6, 1.0)).unwrap()).position(v(1.0, 0.6, 0.0));
    world.add_collider(&block).unwrap();
}
