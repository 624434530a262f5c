//! Debug drawing of small 2D and 3D worlds into a recording back end.

use super::*;
use crate::collider::ColliderDef;
use crate::constraint::{DistanceDef, TetherDef};
use crate::math::{Fx, Quat, Rot2, Vector2, Vector3};
use crate::particle::{ParticleDef, ParticleHandle};
use crate::ragdoll::{Ragdoll, presets};
use crate::rope::RopeDef;
use crate::space::{Space2, Space3};
use crate::world::WorldDef;
use std::collections::HashMap;

/// Records every primitive as `(method, kind)`, and fails on any non-finite number.
#[derive(Default)]
struct Recorder {
    calls: Vec<(&'static str, DrawKind)>,
    frame: Option<FrameInfo>,
    ended: bool,
    sleeping: usize,
    /// Per rope: its tensions and colours.
    ropes: Vec<(Vec<f64>, Vec<Rgba>)>,
}

impl Recorder {
    fn record(&mut self, method: &'static str, style: &Style, numbers: &[f64]) {
        assert!(self.frame.is_some() && !self.ended, "{method} outside begin/end");
        assert!(numbers.iter().all(|x| x.is_finite()), "{method} {:?} got {numbers:?}", style.kind);
        self.sleeping += usize::from(style.sleeping);
        self.calls.push((method, style.kind));
    }

    fn count(&self, method: &str, kind: DrawKind) -> usize {
        self.calls.iter().filter(|&&(m, k)| m == method && k == kind).count()
    }

    fn by_kind(&self) -> HashMap<DrawKind, usize> {
        let mut m = HashMap::new();
        for &(_, k) in &self.calls {
            *m.entry(k).or_default() += 1;
        }
        m
    }
}

impl DebugDraw for Recorder {
    fn begin(&mut self, frame: &FrameInfo) {
        assert!(self.frame.is_none(), "one begin per frame");
        self.frame = Some(*frame);
    }
    fn end(&mut self) {
        self.ended = true;
    }
    fn segment(&mut self, a: P3, b: P3, style: &Style) {
        self.record("segment", style, &[a, b].concat());
    }
    fn polyline(&mut self, points: &[P3], _closed: bool, style: &Style) {
        self.record("polyline", style, &points.concat());
    }
    fn point(&mut self, p: P3, style: &Style) {
        self.record("point", style, &p);
    }
    fn arrow(&mut self, from: P3, to: P3, style: &Style) {
        self.record("arrow", style, &[from, to].concat());
    }
    fn circle(&mut self, center: P3, radius: f64, style: &Style) {
        assert!(radius >= 0.0);
        self.record("circle", style, &[&center[..], &[radius]].concat());
    }
    fn stadium(&mut self, a: P3, b: P3, radius: f64, style: &Style) {
        self.record("stadium", style, &[&a[..], &b, &[radius]].concat());
    }
    fn polygon(&mut self, points: &[P3], style: &Style) {
        assert!(points.len() >= 3);
        self.record("polygon", style, &points.concat());
    }
    fn half_plane(&mut self, point: P3, normal: P3, extent: f64, style: &Style) {
        assert!((length(normal) - 1.0).abs() < 1e-6 && extent > 0.0);
        self.record("half_plane", style, &[&point[..], &normal, &[extent]].concat());
    }
    fn arc(&mut self, center: P3, axis: P3, start: P3, sweep: f64, style: &Style) {
        self.record("arc", style, &[&center[..], &axis, &start, &[sweep]].concat());
    }
    fn sphere(&mut self, center: P3, radius: f64, style: &Style) {
        self.record("sphere", style, &[&center[..], &[radius]].concat());
    }
    fn capsule(&mut self, a: P3, b: P3, radius: f64, style: &Style) {
        self.record("capsule", style, &[&a[..], &b, &[radius]].concat());
    }
    fn cuboid(&mut self, center: P3, half_extents: P3, axes: [P3; 3], style: &Style) {
        self.record("cuboid", style, &[&center[..], &half_extents, &axes.concat()].concat());
    }
    fn hull(&mut self, hull: &HullMesh<'_>, style: &Style) {
        assert!(!hull.triangles.is_empty() && !hull.edges.is_empty());
        self.record("hull", style, &hull.vertices.concat());
    }
    fn half_space(&mut self, point: P3, normal: P3, extent: f64, style: &Style) {
        self.record("half_space", style, &[&point[..], &normal, &[extent]].concat());
    }
    fn rope(&mut self, rope: &RopeStrand<'_>, style: &Style) {
        let n = rope.points.len();
        assert!(n >= 2 && rope.ids.len() == n && rope.tensions.len() == n - 1 && rope.colors.len() == n - 1);
        self.ropes.push((rope.tensions.to_vec(), rope.colors.to_vec()));
        self.record("rope", style, &[&rope.points.concat()[..], rope.tensions, &[rope.radius]].concat());
    }
}

/// A back end with only the required method: every default body ends in segments.
#[derive(Default)]
struct SegmentsOnly {
    segments: usize,
}

impl DebugDraw for SegmentsOnly {
    fn segment(&mut self, a: P3, b: P3, _style: &Style) {
        assert!(geom::finite(a) && geom::finite(b), "{a:?} {b:?}");
        self.segments += 1;
    }
}

fn v2<R: Real>(x: f64, y: f64) -> Vector2<R> {
    Vector2::from_f64(x, y)
}

fn v3<R: Real>(x: f64, y: f64, z: f64) -> Vector3<R> {
    Vector3::from_f64(x, y, z)
}

/// What [`world_2d`] / [`world_3d`] hold besides the ragdoll.
const FREE: usize = 2; // a resting ball and a pendulum bob
const PINS: usize = 2; // the pendulum's pin and the rope's first particle
const SEGMENTS: usize = 8; // rope segments
const COLLIDERS: usize = 5; // one of each shape

/// A 2D world: a particle resting on the ground, a pendulum (with a tether), a pinned rope with a 2 kg
/// weight at its end, a humanoid16 ragdoll, one collider of each shape.
fn world_2d<R: Real>(weight: f64) -> (World<Space2<R>>, usize) {
    let mut w = World::new(WorldDef::default()).unwrap();
    let r = R::from_f64;
    w.add_particle(&ParticleDef::at(v2(-3.0, 0.05)).radius(r(0.05))).unwrap();
    let pin = w.add_particle(&ParticleDef::at(v2(-2.0, 3.0)).mass(R::ZERO)).unwrap();
    let bob = w.add_particle(&ParticleDef::at(v2(-1.5, 3.0)).radius(r(0.05))).unwrap();
    w.add_distance(&DistanceDef::new(pin, bob)).unwrap();
    w.add_tether(&{
        let mut d = TetherDef::new(bob, pin);
        d.length = None;
        d
    })
    .unwrap();
    let rope = w.add_rope(&RopeDef::between(v2(0.0, 4.0), v2(1.0, 4.0)).segments(SEGMENTS).pin_start()).unwrap();
    let end = *w.rope(rope).unwrap().particles().last().unwrap();
    w.particles_mut().set_mass(end, r(weight)).unwrap();
    let rig = presets::humanoid16::<R>();
    Ragdoll::spawn(&mut w, &rig, v2(3.0, 1.5), R::ONE, v2(0.0, 0.0)).unwrap();
    let shapes = [
        ColliderDef::new(Shape::half_space(v2(0.0, 1.0), R::ZERO).unwrap()),
        ColliderDef::new(Shape::ball(r(0.3)).unwrap()).position(v2(-4.0, 1.0)),
        ColliderDef::new(Shape::capsule(v2(-1.0, 0.0), v2(1.0, 0.0), r(0.1)).unwrap()).position(v2(6.0, 1.0)),
        ColliderDef::new(Shape::cuboid(v2(0.5, 0.1)).unwrap())
            .position(v2(-6.0, 1.0))
            .rotation(Rot2::from_angle(r(0.3))),
        ColliderDef::new(Shape::convex(&[v2(0.0, 0.0), v2(1.0, 0.0), v2(0.5, 0.8)]).unwrap()).position(v2(8.0, 0.0)),
    ];
    for s in &shapes {
        w.add_collider(s).unwrap();
    }
    (w, rig.resolve().unwrap().limits.len())
}

/// The same in 3D with a humanoid3d.
fn world_3d<R: Real>() -> (World<Space3<R>>, usize) {
    let mut w = World::new(WorldDef::default()).unwrap();
    let r = R::from_f64;
    w.add_particle(&ParticleDef::at(v3(-3.0, 0.05, 0.0)).radius(r(0.05))).unwrap();
    let pin = w.add_particle(&ParticleDef::at(v3(-2.0, 3.0, 0.0)).mass(R::ZERO)).unwrap();
    let bob = w.add_particle(&ParticleDef::at(v3(-1.5, 3.0, 0.5)).radius(r(0.05))).unwrap();
    w.add_distance(&DistanceDef::new(pin, bob)).unwrap();
    let rope =
        w.add_rope(&RopeDef::between(v3(0.0, 4.0, 0.0), v3(1.0, 4.0, 0.0)).segments(SEGMENTS).pin_start()).unwrap();
    let end = *w.rope(rope).unwrap().particles().last().unwrap();
    w.particles_mut().set_mass(end, r(2.0)).unwrap();
    let rig = presets::humanoid3d::<R>();
    Ragdoll::spawn(&mut w, &rig, v3(3.0, 1.5, 0.0), R::ONE, v3(0.0, 0.0, 0.0)).unwrap();
    let cube: Vec<Vector3<R>> =
        (0..8).map(|i| v3(f64::from(i & 1), f64::from((i >> 1) & 1), f64::from((i >> 2) & 1))).collect();
    let tilt = Quat::from_xyzw(r(0.0), r(0.0), r(0.0998), r(0.995));
    let shapes = [
        ColliderDef::new(Shape::half_space(v3(0.0, 1.0, 0.0), R::ZERO).unwrap()),
        ColliderDef::new(Shape::ball(r(0.3)).unwrap()).position(v3(-4.0, 1.0, 0.0)),
        ColliderDef::new(Shape::capsule(v3(-1.0, 0.0, 0.0), v3(1.0, 0.0, 0.0), r(0.1)).unwrap())
            .position(v3(6.0, 1.0, 0.0)),
        ColliderDef::new(Shape::cuboid(v3(0.5, 0.1, 0.3)).unwrap()).position(v3(-6.0, 1.0, 0.0)).rotation(tilt),
        ColliderDef::new(Shape::convex(&cube).unwrap()).position(v3(8.0, 0.0, 0.0)),
    ];
    for s in &shapes {
        w.add_collider(s).unwrap();
    }
    (w, rig.resolve().unwrap().limits.len())
}

fn draw<S: Space>(w: &World<S>, opts: &DebugDrawOptions) -> Recorder {
    let mut rec = Recorder::default();
    w.debug_draw(&mut rec, opts);
    assert!(rec.ended, "end called");
    rec
}

fn everything() -> DebugDrawOptions {
    DebugDrawOptions { tethers: true, ..DebugDrawOptions::default() }
}

/// Counts of a small 2D world, the same in every scalar.
fn check_2d<R: Real>() {
    let (mut w, limits) = world_2d::<R>(2.0);
    let nodes = presets::humanoid16::<R>().nodes.len();
    for _ in 0..5 {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
    }
    let rec = draw(&w, &everything());
    let frame = rec.frame.unwrap();
    assert_eq!(frame.dim, 2);
    assert_eq!(frame.step, 5);
    let (lo, hi) = frame.bounds.unwrap();
    assert!(lo[0] <= -6.5 && hi[0] >= 9.0 && lo[2] == 0.0 && hi[2] == 0.0, "{lo:?} {hi:?}");

    // Free particles (the rope's are its vertices), then the two pins.
    assert_eq!(rec.count("circle", DrawKind::Particle), FREE + nodes, "{:?}", rec.by_kind());
    assert_eq!(rec.count("circle", DrawKind::PinnedParticle), PINS);
    let bones = w.distances().count();
    assert_eq!(rec.count("segment", DrawKind::Distance), bones);
    assert!(bones > nodes, "the pendulum's link and the ragdoll's bones");
    assert_eq!(rec.count("rope", DrawKind::Rope), 1);
    assert_eq!(rec.ropes[0].0.len(), SEGMENTS);
    // The pendulum's tether when asked for.
    assert_eq!(rec.count("segment", DrawKind::Tether), 1);
    assert_eq!(rec.count("arc", DrawKind::JointLimit), limits);
    assert!(limits > 0);
    for shape in ["half_plane", "circle", "stadium", "cuboid", "polygon"] {
        assert_eq!(rec.count(shape, DrawKind::Collider), 1, "{shape}");
    }
    assert_eq!(rec.by_kind()[&DrawKind::Collider], COLLIDERS);
    // The resting particle (at least) touches the ground: a point and a normal each.
    let contacts = rec.count("point", DrawKind::Contact);
    assert!(contacts >= 1, "{:?}", rec.by_kind());
    assert_eq!(rec.count("arrow", DrawKind::Contact), contacts);
    // Back to front: colliders first, contacts last, pins after free particles.
    let first = |k: DrawKind| rec.calls.iter().position(|&(_, c)| c == k).unwrap();
    let last = |k: DrawKind| rec.calls.iter().rposition(|&(_, c)| c == k).unwrap();
    assert!(last(DrawKind::Collider) < first(DrawKind::Distance));
    assert!(last(DrawKind::Particle) < first(DrawKind::PinnedParticle));
    assert!(last(DrawKind::PinnedParticle) < first(DrawKind::Contact));
}

#[test]
fn a_2d_world_draws_each_part_once_in_every_scalar() {
    check_2d::<f32>();
    check_2d::<f64>();
    check_2d::<Fx>();
}

fn check_3d<R: Real>() {
    let (mut w, limits) = world_3d::<R>();
    for _ in 0..5 {
        w.step(R::from_f64(1.0 / 60.0)).unwrap();
    }
    let rec = draw(&w, &DebugDrawOptions::default());
    assert_eq!(rec.frame.unwrap().dim, 3);
    let nodes = presets::humanoid3d::<R>().nodes.len();
    assert_eq!(rec.count("sphere", DrawKind::Particle), FREE + nodes, "{:?}", rec.by_kind());
    assert_eq!(rec.count("sphere", DrawKind::PinnedParticle), PINS);
    assert_eq!(rec.count("segment", DrawKind::Distance), w.distances().count());
    assert_eq!(rec.count("segment", DrawKind::Tether), 0, "tethers are off by default");
    assert_eq!(rec.count("rope", DrawKind::Rope), 1);
    // Each swing cone: its rim and four generators (limits whose cone allows everything
    // draw nothing).
    let cones = rec.count("arc", DrawKind::JointLimit);
    assert!(cones > 0 && cones <= limits, "{cones} of {limits}");
    assert_eq!(rec.count("segment", DrawKind::JointLimit), 4 * cones);
    for shape in ["half_space", "sphere", "capsule", "cuboid", "hull"] {
        assert_eq!(rec.count(shape, DrawKind::Collider), 1, "{shape}");
    }
    assert!(rec.count("point", DrawKind::Contact) >= 1);
}

#[test]
fn a_3d_world_draws_each_part_once_in_every_scalar() {
    check_3d::<f32>();
    check_3d::<f64>();
    check_3d::<Fx>();
}

#[test]
fn a_hull_mesh_has_its_faces_and_no_diagonals() {
    let (w, _) = world_3d::<f64>();
    struct Hulls(Vec<(usize, usize, usize)>);
    impl DebugDraw for Hulls {
        fn segment(&mut self, _: P3, _: P3, _: &Style) {}
        fn hull(&mut self, h: &HullMesh<'_>, _: &Style) {
            self.0.push((h.vertices.len(), h.triangles.len(), h.edges.len()));
        }
    }
    let mut hulls = Hulls(Vec::new());
    w.debug_draw(&mut hulls, &DebugDrawOptions::default());
    // A cube: 8 corners, 12 triangles, 12 edges (not the 18 of its triangulation).
    assert_eq!(hulls.0, [(8, 12, 12)]);
}

#[test]
fn tension_colours_run_from_the_low_to_the_high_end_as_tension_grows() {
    let scale = TensionScale::default();
    let ramp_low = tension_ramp(0.0);
    let ramp_high = tension_ramp(1.0);
    assert_eq!(scale.color(0.0), ramp_low);
    assert_eq!(scale.color(-5.0), ramp_low, "compression is slack");
    assert_eq!(scale.color(f64::NAN), ramp_low);
    assert_eq!(scale.color(1e6), ramp_high);
    assert_eq!(scale.color(f64::INFINITY), ramp_high);
    assert!((scale.fraction(10.0) - 0.5).abs() < 1e-12, "10 N is the middle of 0.1 N – 1 kN");
    let mut last = -1.0;
    for k in -20..=40 {
        let u = scale.fraction(10f64.powf(f64::from(k) / 10.0));
        assert!(u >= last && (0.0..=1.0).contains(&u));
        last = u;
    }
    // Every step along the ramp is a different colour, from the slack end to the taut end.
    let steps: Vec<Rgba> = (0..=16).map(|k| tension_ramp(f64::from(k) / 16.0)).collect();
    assert_eq!((steps[0], steps[16]), (ramp_low, ramp_high));
    assert!(steps.windows(2).all(|w| w[0] != w[1]));
    assert_eq!(scale.color(10.0), tension_ramp(0.5));

    // In a world: the same rope holding a heavier weight is coloured further up the ramp.
    let fractions = |weight: f64| {
        let (mut w, _) = world_2d::<f64>(weight);
        for _ in 0..60 {
            w.step(1.0 / 60.0).unwrap();
        }
        let rec = draw(&w, &DebugDrawOptions::default());
        let (tensions, colors) = rec.ropes[0].clone();
        for (t, c) in tensions.iter().zip(&colors) {
            assert_eq!(*c, scale.color(*t), "each segment in its tension's colour");
        }
        tensions.iter().map(|&t| scale.fraction(t)).sum::<f64>() / tensions.len() as f64
    };
    let (light, heavy) = (fractions(0.2), fractions(20.0));
    assert!(light > 0.2 && heavy > light + 0.2, "light {light}, heavy {heavy}");
}

#[test]
fn nothing_non_finite_is_emitted() {
    let (mut w, _) = world_2d::<f64>(2.0);
    for _ in 0..3 {
        w.step(1.0 / 60.0).unwrap();
    }
    let clean = draw(&w, &everything()).calls.len();
    // Poison a ragdoll node, the rope's middle and a free particle: the recorder asserts
    // that every number it receives is finite; the world leaves their primitives out.
    let hs: Vec<ParticleHandle> = w.particles().handles().collect();
    let rope_mid = w.ropes().next().unwrap().1.particles()[4];
    for (h, v) in [(hs[0], f64::NAN), (hs[hs.len() - 1], f64::INFINITY), (rope_mid, f64::NEG_INFINITY)] {
        w.particles_mut().positions_mut()[h.index()] = Vector2::new(v, 0.0);
    }
    let rec = draw(&w, &everything());
    assert!(rec.calls.len() < clean);
    assert_eq!(rec.count("rope", DrawKind::Rope), 0, "a rope with a bad vertex is left out whole");
    let mut minimal = SegmentsOnly::default();
    w.debug_draw(&mut minimal, &everything());
    assert!(minimal.segments > 0);
}

#[test]
fn a_back_end_with_segments_only_gets_every_shape_as_segments() {
    let (mut w2, _) = world_2d::<f32>(2.0);
    let (mut w3, _) = world_3d::<f32>();
    for _ in 0..5 {
        w2.step(1.0 / 60.0).unwrap();
        w3.step(1.0 / 60.0).unwrap();
    }
    for (segments, calls) in [
        (
            {
                let mut m = SegmentsOnly::default();
                w2.debug_draw(&mut m, &everything());
                m.segments
            },
            draw(&w2, &everything()).calls.len(),
        ),
        (
            {
                let mut m = SegmentsOnly::default();
                w3.debug_draw(&mut m, &everything());
                m.segments
            },
            draw(&w3, &everything()).calls.len(),
        ),
    ] {
        // Every primitive becomes at least one segment (circles and spheres many).
        assert!(segments > 2 * calls, "{segments} segments for {calls} primitives");
    }
}

#[test]
fn options_select_the_parts() {
    let (mut w, _) = world_2d::<f64>(2.0);
    w.step(1.0 / 60.0).unwrap();
    let rec = draw(&w, &DebugDrawOptions::none());
    assert!(rec.calls.is_empty() && rec.frame.is_some(), "begin and end only");
    let only = DebugDrawOptions { ropes: true, rope_particles: true, particles: true, ..DebugDrawOptions::none() };
    let rec = draw(&w, &only);
    let kinds = rec.by_kind();
    assert_eq!(kinds.len(), 3, "{kinds:?}");
    // With rope particles on, the rope's free particles are drawn too.
    assert_eq!(rec.count("circle", DrawKind::Particle), w.particles().len() - PINS);
}

#[test]
fn sleeping_particles_are_flagged_and_faded() {
    let mut w = World::<Space2<f64>>::new(WorldDef::default()).unwrap();
    let p = w.add_particle(&ParticleDef::at(v2(0.0, 0.1)).radius(0.1)).unwrap();
    w.add_sleep_group(&[p]).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(v2(0.0, 1.0), 0.0).unwrap())).unwrap();
    let awake = draw(&w, &DebugDrawOptions::default());
    assert_eq!(awake.sleeping, 0);
    for _ in 0..200 {
        w.step(1.0 / 60.0).unwrap();
    }
    let mut styles = Vec::new();
    struct Styles<'a>(&'a mut Vec<Style>);
    impl DebugDraw for Styles<'_> {
        fn segment(&mut self, _: P3, _: P3, _: &Style) {}
        fn circle(&mut self, _: P3, _: f64, style: &Style) {
            self.0.push(*style);
        }
    }
    w.debug_draw(&mut Styles(&mut styles), &DebugDrawOptions::default());
    assert_eq!(styles.len(), 1);
    assert!(styles[0].sleeping && styles[0].color != DrawKind::Particle.color(), "{:?}", styles[0]);
    let off = DebugDrawOptions { sleeping: false, ..DebugDrawOptions::default() };
    styles.clear();
    w.debug_draw(&mut Styles(&mut styles), &off);
    assert!(!styles[0].sleeping && styles[0].color == DrawKind::Particle.color());
}

#[test]
fn a_violated_angle_limit_is_drawn_red() {
    let mut w = World::<Space2<f64>>::new(WorldDef::default()).unwrap();
    let a = w.add_particle(&ParticleDef::at(v2(0.0, 0.0)).mass(0.0)).unwrap();
    let b = w.add_particle(&ParticleDef::at(v2(1.0, 0.0)).mass(0.0)).unwrap();
    let c = w.add_particle(&ParticleDef::at(v2(1.0, 1.0)).mass(0.0)).unwrap();
    // A 90° bend against a limit of ±10°.
    let def = {
        let mut d = crate::constraint::AngleLimitDef::new(a, b, c, -0.17, 0.17);
        d.compliance = 0.0;
        d
    };
    w.add_joint_limit(&def).unwrap();
    let mut arcs = Vec::new();
    struct Arcs<'a>(&'a mut Vec<(P3, f64, Style)>);
    impl DebugDraw for Arcs<'_> {
        fn segment(&mut self, _: P3, _: P3, _: &Style) {}
        fn arc(&mut self, _: P3, _: P3, start: P3, sweep: f64, style: &Style) {
            self.0.push((start, sweep, *style));
        }
    }
    w.debug_draw(&mut Arcs(&mut arcs), &DebugDrawOptions::default());
    let (start, sweep, style) = arcs[0];
    assert!((sweep - 0.34).abs() < 1e-12);
    // Starts at the parent bone's direction (+x) turned by −10°, 0.35 bone lengths out.
    assert!((start[1].atan2(start[0]) + 0.17).abs() < 1e-9 && (length(start) - 0.35).abs() < 1e-9);
    assert_eq!(style.color, style::LIMIT_VIOLATED);
}

#[test]
fn a_ropes_attached_end_is_drawn_as_the_body_it_is() {
    let mut w = World::<Space2<f64>>::new(WorldDef::default()).unwrap();
    let load = w.add_particle(&ParticleDef::at(v2(0.0, -1.0)).mass(10.0).radius(0.2)).unwrap();
    let def = RopeDef::between(v2(0.0, 0.0), v2(0.0, -1.0)).segments(10).pin_start().attach_end(load);
    w.add_rope(&def).unwrap();
    w.step(1.0 / 60.0).unwrap();
    let rec = draw(&w, &DebugDrawOptions::default());
    // The rope's own free particles are its vertices (not drawn); the attached load is.
    assert_eq!(rec.count("circle", DrawKind::Particle), 1);
    assert_eq!(rec.count("rope", DrawKind::Rope), 1);
}
