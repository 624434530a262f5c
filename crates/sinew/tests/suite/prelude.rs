//! `use sinew::prelude::*;` sits beside `use glam::*;` (and Bevy's prelude, which re-exports
//! glam's names and adds `World`, `Rot2`, `Transform`, ...): the prelude holds none of those
//! names, so a game can glob-import both and use both.

use glam::*;
use sinew::prelude::*;

#[test]
fn the_prelude_glob_imports_beside_glams_and_both_are_usable() {
    // glam's names resolve to glam.
    let offset: Vec2 = Vec2::new(0.5, 0.0) + Vec3::new(0.5, 0.0, 0.0).truncate();
    let turn = Quat::from_rotation_z(0.0);
    assert_eq!(turn * Vec3::X, Vec3::X);
    let _: DVec2 = DVec2::ONE;
    // Sinew's through the prelude: worlds, definitions, vectors.
    let mut world = World2::new(WorldDef::default()).unwrap();
    let pin = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 0.0)).mass(0.0)).unwrap();
    let bob = world.add_particle(&ParticleDef::at(Vector2::new(offset.x, offset.y))).unwrap();
    world.add_distance(&DistanceDef::new(pin, bob)).unwrap();
    let rope = world.add_rope(&RopeDef::between(Vector2::new(2.0, 0.0), Vector2::new(3.0, 0.0)).pin_start()).unwrap();
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
    }
    // The pendulum keeps its length; the rope hangs from its pin.
    let p = world.particles().position(bob).unwrap();
    assert!((p.length() - 1.0).abs() < 1e-4, "{p:?}");
    let end = world.rope(rope).unwrap().end();
    assert!(world.particles().position(end).unwrap().y < -0.1);
}
