//! The five fixed-point golden scenes of `scenes/`, built in code with the library API
//! alone (no `sinew-scene`), stepped 1000 frames and checked against the same committed
//! state hashes as `crates/sinew-scene/tests/suite/determinism.rs`: the core crate guards
//! its own determinism, and CI runs these in other builds (unoptimised;
//! `-C target-cpu=native` with FMA, see `.ci/run`) compiling `sinew` alone.
//!
//! A test binary of its own rather than a module of `tests/suite`: each of those extra
//! builds then compiles the library and this file only, not the whole suite again with
//! other flags (the suite is the largest unit of the test build), at the price of one
//! small extra binary in `cargo test`.
//!
//! Each builder mirrors its JSON file the way `sinew-scene` loads it
//! (`crates/sinew-scene/src/build.rs` and `dims.rs`): the same creation order (particles,
//! ropes, ragdolls, distances, tethers, bendings, attachments, joint limits, colliders,
//! drivers), every number converted with `Fx::from_f64` from the `f64` the file holds, and
//! `WorldDef`'s defaults for every key the file leaves out. Each frame is stepped as
//! `SceneSim::step` does (reel schedules sampled at the step's end time, then one world
//! step, which steps the muscle ragdolls too: they are controllers of the world), and the
//! hash is `SceneSim::state_hash`'s (the world's, its controllers included).
//!
//! A change to the solver that changes results must update the hashes here and in
//! `sinew-scene` deliberately (`sinew simulate scenes/golden_fixed_2d.json --frames 1000
//! --every 1000` prints them). A change to a scene file must be mirrored here.

use sinew::prelude::*;
use sinew::ragdoll::presets;
use sinew::{Quat, RealOf, Rot2, Rotation, VecOf, World};

/// Committed results of 1000 frames: the same values as `GOLDEN_2D` etc. in
/// `crates/sinew-scene/tests/suite/determinism.rs`.
const GOLDEN_2D: u64 = 0x14cb_b824_74d0_435f;
const GOLDEN_3D: u64 = 0x0265_2018_3e70_6fb7;
/// Re-recorded when ropes held by two fixed particles were solved to 10⁻⁷ instead of
/// 10⁻³ (`rope::solve::HELD_TOLERANCE`): the scene's pinned rope. Re-recorded again when
/// the taut rope's length constraint moved its ends along their spans' directions at the
/// substep's start (SHAKE, `rope::taut` "Holding"): the scene's taut rope.
const GOLDEN_ROPE_2D: u64 = 0xd0cd_89b2_cac6_c55a;
/// Re-recorded when tree-solved bodies bounced as a whole by default
/// (`WorldDef::body_restitution`, `contact::bounce`): the scene's ragdolls have
/// restitution 0.1.
const GOLDEN_RAGDOLL_2D: u64 = 0x455f_6c3b_8cd7_8d81;
/// Re-recorded with `GOLDEN_ROPE_2D` for SHAKE's direction (above), and again when the 3D
/// path's relaxation started from where an earlier path of the rope through the same
/// contacts in the same step settled (`rope::taut::wrap3`, `warm_start`): the same 1 µm
/// tolerance from another start.
const GOLDEN_TAUT_3D: u64 = 0x1d71_a968_d00c_c8ce;

#[path = "common/taut_posts_3d.rs"]
mod taut_posts_3d;

const FRAMES: u64 = 1000;

/// The scenes' time step: `"dt": 0.016666666666666666` where given, the loader's 1/60 s
/// default otherwise (the same `f64`).
const DT: f64 = 1.0 / 60.0;

#[test]
fn golden_fixed_point_2d_scene_built_in_code_matches_committed_hash_after_1000_frames() {
    assert_eq!(hex(golden_fixed_2d().run(FRAMES)), hex(GOLDEN_2D), "2D golden hash changed");
}

#[test]
fn golden_fixed_point_3d_scene_built_in_code_matches_committed_hash_after_1000_frames() {
    assert_eq!(hex(golden_fixed_3d().run(FRAMES)), hex(GOLDEN_3D), "3D golden hash changed");
}

#[test]
fn golden_fixed_point_rope_scene_built_in_code_matches_committed_hash_after_1000_frames() {
    // Reeling in and out (particles inserted and removed), span contacts, a tear, a grab.
    assert_eq!(hex(golden_fixed_rope_2d().run(FRAMES)), hex(GOLDEN_ROPE_2D), "rope golden hash changed");
}

#[test]
fn golden_fixed_point_ragdoll_scene_built_in_code_matches_committed_hash_after_1000_frames() {
    // Passive ragdolls through impacts, and a muscle ragdoll (its state is in the hash).
    assert_eq!(hex(golden_fixed_ragdoll_2d().run(FRAMES)), hex(GOLDEN_RAGDOLL_2D), "ragdoll golden hash changed");
}

#[test]
fn golden_fixed_point_taut_3d_scene_built_in_code_matches_committed_hash_after_1000_frames() {
    // A 3D taut rope: helices round two posts, contacts sliding along a box's edges.
    assert_eq!(hex(golden_fixed_taut_3d().run(FRAMES)), hex(GOLDEN_TAUT_3D), "taut 3D golden hash changed");
}

fn hex(h: u64) -> String {
    format!("{h:#018x}")
}

// ---------------------------------------------------------------------------------------
// Running a scene

/// A built scene: the world plus what the scene runner does beside it.
struct Golden<S: Space> {
    world: World<S>,
    /// Ropes with a `"reel"` schedule.
    reels: Vec<Reel<S>>,
}

/// A rope's `"reel"` schedule: `(time, rest length)` keys acting on `end`.
struct Reel<S: Space> {
    rope: RopeHandle,
    keys: Vec<(RealOf<S>, RealOf<S>)>,
    end: RopeEnd,
}

impl<S: Space> Golden<S> {
    fn new(world: World<S>) -> Self {
        Self { world, reels: Vec::new() }
    }

    /// Steps `frames` frames like `SceneSim::step` and returns `SceneSim::state_hash`.
    fn run(mut self, frames: u64) -> u64 {
        let dt = RealOf::<S>::from_f64(DT);
        for _ in 0..frames {
            // `BuiltScene::apply_reels` at the time the step ends.
            let t_end = self.world.time() + dt;
            for reel in &self.reels {
                if self.world.rope(reel.rope).is_ok() {
                    let length = sample_schedule(&reel.keys, t_end);
                    self.world.set_rope_length(reel.rope, reel.end, length).unwrap();
                }
            }
            // (Muscle ragdolls are controllers of the world: it steps them.)
            self.world.step(dt).unwrap();
        }
        self.world.state_hash()
    }
}

/// Piecewise linear in the keys, held before the first and after the last (the loader's
/// `sample_schedule`, operation for operation).
fn sample_schedule<R: Real>(keys: &[(R, R)], t: R) -> R {
    if t <= keys[0].0 {
        return keys[0].1;
    }
    for w in keys.windows(2) {
        if t <= w[1].0 {
            let f = (t - w[0].0) / (w[1].0 - w[0].0);
            return w[0].1 + (w[1].1 - w[0].1) * f;
        }
    }
    keys[keys.len() - 1].1
}

// ---------------------------------------------------------------------------------------
// Numbers as the loader reads them

/// A number of the file.
fn x(v: f64) -> Fx {
    Fx::from_f64(v)
}

/// A point or vector of a 2D file.
fn v2(a: f64, b: f64) -> XVec2 {
    XVec2::from_f64(a, b)
}

/// A point or vector of a 3D file.
fn v3(a: f64, b: f64, c: f64) -> XVec3 {
    XVec3::from_f64(a, b, c)
}

/// An angle of the file in degrees (`"min_deg"`, `"swing_deg"`, ...).
fn deg(d: f64) -> Fx {
    Fx::from_f64(d.to_radians())
}

/// The world of the file's top-level keys: `WorldDef`'s defaults, the loader's step clamp
/// (`max_time_step` = max(dt, 0.1 s)), then `keys` sets what the file gives.
fn scene_world<S: Space>(keys: impl FnOnce(&mut WorldDef<S>)) -> World<S> {
    let mut def = WorldDef::<S>::default();
    def.max_time_step = RealOf::<S>::from_f64(DT.max(0.1));
    keys(&mut def);
    World::new(def).unwrap()
}

/// A `"particles"` entry: `"pos"`, `"mass"`, `"radius"` and optionally `"vel"`.
fn particle<S: Space>(
    world: &mut World<S>,
    pos: VecOf<S>,
    mass: f64,
    radius: f64,
    vel: Option<VecOf<S>>,
) -> ParticleHandle {
    let mut d = ParticleDef::<S>::at(pos);
    if let Some(v) = vel {
        d.velocity = v;
    }
    d.mass = RealOf::<S>::from_f64(mass);
    d.radius = RealOf::<S>::from_f64(radius);
    d.pinned = false;
    world.add_particle(&d).unwrap()
}

// ---------------------------------------------------------------------------------------
// scenes/golden_fixed_2d.json and golden_fixed_3d.json: the same scene in 2D and 3D

/// `"distances"`, `"tethers"` and `"bendings"` of `golden_fixed_2d.json` and
/// `golden_fixed_3d.json` (identical in both) on their 31 `"particles"` `p`.
fn chains_links_tethers_bendings<S: Space>(world: &mut World<S>, p: &[ParticleHandle]) {
    // "distances": the hanging chain 0–16, rigid; the thrown chain 17–28, compliant and damped.
    for i in 0..16 {
        world.add_distance(&DistanceDef::<S>::new(p[i], p[i + 1])).unwrap();
    }
    for i in 17..28 {
        let mut d = DistanceDef::<S>::new(p[i], p[i + 1]);
        d.compliance = RealOf::<S>::from_f64(0.0001);
        d.damping = RealOf::<S>::from_f64(0.01);
        world.add_distance(&d).unwrap();
    }
    // "tethers": 1–16 to the pinned particle 0, at their current distances.
    for i in 1..=16 {
        world.add_tether(&TetherDef::new(p[i], p[0])).unwrap();
    }
    // "bendings": along the hanging chain.
    for i in 0..15 {
        let mut d = BendingDef::<S>::new(p[i], p[i + 1], p[i + 2]);
        d.compliance = RealOf::<S>::from_f64(0.01);
        d.rest = None;
        world.add_bending(&d).unwrap();
    }
}

/// The top-level keys of `golden_fixed_2d.json` / `golden_fixed_3d.json` (gravity aside).
fn chains_world_keys<S: Space>(def: &mut WorldDef<S>) {
    def.substeps = 8;
    def.iterations = 1;
    def.damping = RealOf::<S>::from_f64(0.1);
    def.friction = RealOf::<S>::from_f64(0.4);
    def.restitution = RealOf::<S>::from_f64(0.1);
}

/// `scenes/golden_fixed_2d.json`.
fn golden_fixed_2d() -> Golden<Space2<Fx>> {
    let mut world = scene_world::<Space2<Fx>>(|def| {
        def.gravity = v2(0.0, -9.81);
        chains_world_keys(def);
    });

    // "particles" 0–16: a chain along x from a massless (pinned) particle at (-2, 1.5).
    let mut p = Vec::new();
    for i in 0..17 {
        let mass = if i == 0 { 0.0 } else { 0.08 };
        p.push(particle(&mut world, v2(-2.0 + 0.12 * i as f64, 1.5), mass, 0.03, None));
    }
    // "particles" 17–28: a chain thrown at 0.5 m/s.
    for k in 0..12 {
        let pos = v2(0.5 + 0.1 * k as f64, 2.5);
        p.push(particle(&mut world, pos, 0.05, 0.025, Some(v2(0.5, 0.0))));
    }
    // "particles" 29 (driven, then thrown) and 30 (attached).
    p.push(particle(&mut world, v2(-2.5, -0.5), 0.4, 0.08, None));
    p.push(particle(&mut world, v2(2.0, 1.0), 0.2, 0.02, None));

    chains_links_tethers_bendings(&mut world, &p);

    // "attachments"
    let mut a = AttachmentDef::new(p[30], v2(2.0, 1.3));
    a.length = x(0.3);
    a.compliance = x(0.001);
    a.damping = x(0.05);
    world.add_attachment(&a).unwrap();

    // "angle_limits": along the thrown chain, ±45°.
    for i in 17..27 {
        let mut d = AngleLimitDef::new(p[i], p[i + 1], p[i + 2], deg(-45.0), deg(45.0));
        d.compliance = x(0.0);
        world.add_joint_limit(&d).unwrap();
    }

    // "colliders": plane, circle, box, capsule, polygon.
    let mut plane = ColliderDef::new(Shape::half_space(v2(0.05, 1.0), x(-2.0)).unwrap());
    plane.restitution = Some(x(0.3));
    world.add_collider(&plane).unwrap();
    let mut circle = ColliderDef::new(Shape::ball(x(0.3)).unwrap()).position(v2(-0.8, 0.3));
    circle.friction = Some(x(0.6));
    world.add_collider(&circle).unwrap();
    let plank = ColliderDef::new(Shape::cuboid(v2(0.8, 0.1)).unwrap())
        .position(v2(0.9, -0.5))
        .rotation(Rot2::from_angle(x(-0.3)));
    world.add_collider(&plank).unwrap();
    let mut capsule = ColliderDef::new(Shape::capsule(v2(-2.6, -1.4), v2(-1.6, -1.7), x(0.12)).unwrap());
    capsule.restitution = Some(x(0.6));
    world.add_collider(&capsule).unwrap();
    let points = [v2(1.6, 0.6), v2(2.4, 0.6), v2(2.7, 1.2), v2(2.0, 1.7), v2(1.4, 1.2)];
    // No "position" or "angle": the loader places it at the origin at angle 0.
    let mut polygon =
        ColliderDef::new(Shape::convex(&points).unwrap()).position(v2(0.0, 0.0)).rotation(Rot2::from_angle(x(0.0)));
    polygon.friction = Some(x(0.2));
    world.add_collider(&polygon).unwrap();

    // "drivers": the chain's pin moved about, and particle 29 thrown (released).
    let keys = vec![(x(0.0), v2(-2.0, 1.5)), (x(3.0), v2(-1.0, 2.0)), (x(6.0), v2(-2.0, 1.2))];
    driver(&mut world, p[0], keys, false, false);
    let keys = vec![(x(0.0), v2(-2.5, -0.5)), (x(0.3), v2(-2.2, 0.0))];
    driver(&mut world, p[29], keys, true, false);

    Golden::new(world)
}

/// `scenes/golden_fixed_3d.json`: the 2D scene with depth, swing-cone limits and 3D shapes.
fn golden_fixed_3d() -> Golden<Space3<Fx>> {
    let mut world = scene_world::<Space3<Fx>>(|def| {
        def.gravity = v3(0.0, -9.81, 0.0);
        chains_world_keys(def);
    });

    // "particles" 0–16: the chain from the massless particle at (-2, 1.5, 0), rising in z.
    let mut p = Vec::new();
    for i in 0..17 {
        let mass = if i == 0 { 0.0 } else { 0.08 };
        let pos = v3(-2.0 + 0.12 * i as f64, 1.5, 0.05 * i as f64);
        p.push(particle(&mut world, pos, mass, 0.03, None));
    }
    // "particles" 17–28: the thrown chain.
    for k in 0..12 {
        let pos = v3(0.5 + 0.1 * k as f64, 2.5, -0.1 + 0.02 * k as f64);
        p.push(particle(&mut world, pos, 0.05, 0.025, Some(v3(0.5, 0.0, 0.2))));
    }
    // "particles" 29 (driven, then thrown) and 30 (attached).
    p.push(particle(&mut world, v3(-2.5, -0.5, 0.3), 0.4, 0.08, None));
    p.push(particle(&mut world, v3(2.0, 1.0, 0.0), 0.2, 0.02, None));

    chains_links_tethers_bendings(&mut world, &p);

    // "attachments"
    let mut a = AttachmentDef::new(p[30], v3(2.0, 1.3, 0.0));
    a.length = x(0.3);
    a.compliance = x(0.001);
    a.damping = x(0.05);
    world.add_attachment(&a).unwrap();

    // "swing_twist_limits": along the thrown chain, a 45° cone, twist free (the loader's
    // ±180° defaults).
    for i in 17..27 {
        let mut d = SwingTwistLimitDef::new(p[i], p[i + 1], p[i + 2], deg(45.0));
        d.parent_ref = None;
        d.child_ref = None;
        d.twist_min = deg(-180.0);
        d.twist_max = deg(180.0);
        d.compliance = x(0.0);
        world.add_joint_limit(&d).unwrap();
    }

    // "colliders": plane, sphere, box, capsule, hull.
    let mut plane = ColliderDef::new(Shape::half_space(v3(0.05, 1.0, 0.02), x(-2.0)).unwrap());
    plane.restitution = Some(x(0.3));
    world.add_collider(&plane).unwrap();
    let mut sphere = ColliderDef::new(Shape::ball(x(0.3)).unwrap()).position(v3(-0.8, 0.3, 0.3));
    sphere.friction = Some(x(0.6));
    world.add_collider(&sphere).unwrap();
    let plank = ColliderDef::new(Shape::cuboid(v3(0.8, 0.1, 0.5)).unwrap())
        .position(v3(0.9, -0.5, 0.0))
        .rotation(Quat::from_xyzw(x(0.0), x(0.0), x(-0.149), x(0.989)));
    world.add_collider(&plank).unwrap();
    let mut capsule = ColliderDef::new(Shape::capsule(v3(-2.6, -1.4, 0.0), v3(-1.6, -1.7, 0.6), x(0.12)).unwrap());
    capsule.restitution = Some(x(0.6));
    world.add_collider(&capsule).unwrap();
    let points = [
        v3(1.4, 0.4, -0.5),
        v3(2.6, 0.4, -0.5),
        v3(2.6, 0.4, 0.5),
        v3(1.4, 0.4, 0.5),
        v3(1.7, 1.3, -0.25),
        v3(2.3, 1.3, -0.25),
        v3(2.3, 1.3, 0.25),
        v3(1.7, 1.3, 0.25),
    ];
    // No "position" or "rotation": the loader places it at the origin, unrotated.
    let mut hull =
        ColliderDef::new(Shape::convex(&points).unwrap()).position(v3(0.0, 0.0, 0.0)).rotation(Quat::IDENTITY);
    hull.friction = Some(x(0.2));
    world.add_collider(&hull).unwrap();

    // "drivers"
    let keys = vec![(x(0.0), v3(-2.0, 1.5, 0.0)), (x(3.0), v3(-1.0, 2.0, 0.3)), (x(6.0), v3(-2.0, 1.2, -0.2))];
    driver(&mut world, p[0], keys, false, false);
    let keys = vec![(x(0.0), v3(-2.5, -0.5, 0.3)), (x(0.3), v3(-2.2, 0.0, 0.2))];
    driver(&mut world, p[29], keys, true, false);

    Golden::new(world)
}

/// A `"drivers"` entry (`"release_mass"` left at the loader's 1 kg).
fn driver<S: Space>(
    world: &mut World<S>,
    particle: ParticleHandle,
    keys: Vec<(RealOf<S>, VecOf<S>)>,
    release: bool,
    relative: bool,
) {
    let mut def = DriverDef::<S>::new(particle, keys);
    def.release = release;
    def.release_mass = RealOf::<S>::from_f64(1.0);
    def.relative = relative;
    world.add_driver(&def).unwrap();
}

// ---------------------------------------------------------------------------------------
// scenes/golden_fixed_rope_2d.json

/// `scenes/golden_fixed_rope_2d.json`: a pinned rope reeled in and out over a post, a
/// second that tears under a thrown weight, a third attached to the weight, a grab.
fn golden_fixed_rope_2d() -> Golden<Space2<Fx>> {
    let mut world = scene_world::<Space2<Fx>>(|def| {
        def.substeps = 8;
        def.friction = x(0.3);
    });

    // "particles" 0: the weight.
    let mut p = vec![particle(&mut world, v2(2.0, 1.0), 3.0, 0.05, None)];

    // "ropes"[0]: 2.5 m, 50 segments, pinned at its start, reeled there: particles 1–51.
    let mut def = RopeDef::along(vec![v2(-1.5, 1.5), v2(1.0, 1.5)]);
    def.segments = Some(50);
    def.mass = x(0.25);
    def.radius = x(0.01);
    def.bend_compliance = Some(x(0.001));
    def.tethers = true;
    def.edge_collisions = true;
    def.pin_start = true;
    let reeled = world.add_rope(&def).unwrap();
    p.extend_from_slice(world.rope(reeled).unwrap().particles());
    let reel = vec![(x(0.5), x(2.5)), (x(3.0), x(1.5)), (x(6.0), x(2.8))];

    // "ropes"[1]: hanging from (2, 2.5), 15 segments, tears at 40 N: particles 52–67.
    let mut def = RopeDef::along(vec![v2(2.0, 2.5), v2(2.0, 1.05)]);
    def.segments = Some(15);
    def.mass = x(0.1);
    def.radius = x(0.01);
    def.tear_tension = Some(x(40.0));
    def.tethers = true;
    def.edge_collisions = true;
    def.pin_start = true;
    let hanging = world.add_rope(&def).unwrap();
    p.extend_from_slice(world.rope(hanging).unwrap().particles());
    assert_eq!(p.len(), 68, "the file's particle indices");

    // "ropes"[2]: 0.6 m, 10 segments, its start attached to the weight (particle 0): its
    // own particles 68–77.
    let mut def = RopeDef::along(vec![v2(2.0, 1.0), v2(2.6, 1.0)]).attach_start(p[0]);
    def.segments = Some(10);
    def.mass = x(0.05);
    def.radius = x(0.01);
    def.tethers = true;
    def.edge_collisions = true;
    let trailing = world.add_rope(&def).unwrap();
    p.extend_from_slice(&world.rope(trailing).unwrap().particles()[1..]);
    assert_eq!(p.len(), 78);

    // "ropes"[3]: 2.2 m, 20 segments, taut ("always"): falls from its hook and wraps
    // the post.
    let mut def = RopeDef::along(vec![v2(-0.6, 2.8), v2(1.6, 2.8)]).taut(TautMode::Always);
    def.segments = Some(20);
    def.mass = x(0.1);
    def.radius = x(0.01);
    def.tethers = true;
    def.edge_collisions = true;
    def.pin_start = true;
    world.add_rope(&def).unwrap();

    // "distances": the weight hung from the second rope's end.
    world.add_distance(&DistanceDef::new(p[0], p[67])).unwrap();

    // "colliders": ground, a thin post, a tilted box.
    world.add_collider(&ColliderDef::new(Shape::half_space(v2(0.0, 1.0), x(-1.0)).unwrap())).unwrap();
    world.add_collider(&ColliderDef::new(Shape::ball(x(0.03)).unwrap()).position(v2(0.0, 0.8))).unwrap();
    let tilted = ColliderDef::new(Shape::cuboid(v2(0.3, 0.2)).unwrap())
        .position(v2(1.0, 0.0))
        .rotation(Rot2::from_angle(x(0.7)));
    world.add_collider(&tilted).unwrap();

    // "drivers": the weight pulled down and released (it tears the second rope); the
    // first rope grabbed at its particle 29 (global 30) and moved by key offsets.
    driver(&mut world, p[0], vec![(x(1.0), v2(2.0, 1.0)), (x(1.3), v2(2.0, 0.4))], true, false);
    driver(&mut world, p[30], vec![(x(7.0), v2(0.0, 0.0)), (x(8.0), v2(0.3, 1.0))], false, true);

    let mut scene = Golden::new(world);
    scene.reels.push(Reel { rope: reeled, keys: reel, end: RopeEnd::Start });
    scene
}

// ---------------------------------------------------------------------------------------
// scenes/golden_fixed_ragdoll_2d.json

/// `scenes/golden_fixed_ragdoll_2d.json`: a `humanoid16` thrown into a wall, one dropped
/// onto a plank, and a muscle ragdoll punched in its stance.
fn golden_fixed_ragdoll_2d() -> Golden<Space2<Fx>> {
    let world = scene_world::<Space2<Fx>>(|def| {
        def.restitution = x(0.1);
        def.friction = x(1.0);
        def.damping = x(0.3);
        def.substeps = 8;
    });
    let mut scene = Golden::new(world);
    let world = &mut scene.world;
    let identity = Rot2::<Fx>::IDENTITY;

    // "ragdolls"[0]: thrown at 10 m/s towards the wall, from its rig's rest pose.
    let rig = presets::humanoid16::<Fx>();
    let state = SpawnDef::from_rig(&rig, v2(0.5, 0.3), identity, x(1.0), v2(10.0, 0.0));
    Ragdoll::spawn_with(world, &rig, &state).unwrap();

    // "ragdolls"[1]: dropped from 5 m onto the plank.
    let state = SpawnDef::from_rig(&rig, v2(-4.0, 5.0), identity, x(1.0), v2(0.0, 0.0));
    Ragdoll::spawn_with(world, &rig, &state).unwrap();

    // "ragdolls"[2]: `"muscles": true`, the stabilised rig in its "stance" pose (the
    // loader's default pose for muscle ragdolls), hit by `"impulse"`.
    let targets = presets::humanoid16_targets::<Fx>();
    let rig = presets::humanoid16_stabilised::<Fx>();
    let (_, stance) = presets::humanoid16_poses::<Fx>().into_iter().find(|(n, _)| *n == "stance").unwrap();
    let n = rig.nodes.len().min(stance.positions.len());
    let pose = Pose::new(stance.positions[..n].to_vec()).transformed(v2(-1.5, 0.0), identity, x(1.0));
    let mut state = SpawnDef::at_rest(pose).with_scale(x(1.0));
    state.velocities = vec![v2(0.0, 0.0); n];
    let m = MuscleRagdoll::spawn(world, &rig, &MuscleRagdollDef::default(), &targets, &state).unwrap();
    m.apply_impulse_at(world, v2(-1.5, 1.3), v2(-40.0, 0.0)).unwrap();

    // "colliders": the ground, a wall at x = 4–4.5, a tilted plank.
    let world = &mut scene.world;
    world.add_collider(&ColliderDef::new(Shape::half_space(v2(0.0, 1.0), x(0.0)).unwrap())).unwrap();
    let wall = ColliderDef::new(Shape::cuboid(v2(0.25, 3.0)).unwrap())
        .position(v2(4.25, 3.0))
        .rotation(Rot2::from_angle(x(0.0)));
    world.add_collider(&wall).unwrap();
    let plank = ColliderDef::new(Shape::cuboid(v2(0.8, 0.08)).unwrap())
        .position(v2(-4.0, 1.2))
        .rotation(Rot2::from_angle(x(0.15)));
    world.add_collider(&plank).unwrap();

    scene
}

// ---------------------------------------------------------------------------------------
// scenes/golden_fixed_taut_3d.json

/// `scenes/golden_fixed_taut_3d.json`: a taut rope round two posts and over a box's top
/// edges, a 30 kg load on its end swinging under the box (`common/taut_posts_3d.rs`, shared
/// with the 3D taut rollback test).
fn golden_fixed_taut_3d() -> Golden<Space3<Fx>> {
    let mut world = scene_world::<Space3<Fx>>(|def| def.substeps = 8);
    taut_posts_3d::add_taut_posts_3d(&mut world);
    Golden::new(world)
}
