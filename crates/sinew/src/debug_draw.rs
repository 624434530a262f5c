//! Debug drawing: the world describes itself as drawing primitives, and any back end draws
//! them (like Box2D's `b2DebugDraw` or Rapier's `DebugRenderBackend`).
//!
//! [`World::debug_draw`] walks the world and calls a [`DebugDraw`] back end once per
//! primitive — segments, circles, spheres, capsules, boxes, polygons, hulls, planes,
//! arcs, points, arrows and ropes — in world coordinates as `[f64; 3]` (z = 0 in 2D),
//! whatever the world's dimension and scalar. Each primitive comes with a [`Style`]: a
//! colour, an optional fill, the [`DrawKind`] of what it shows (particle, pin, bone,
//! rope, contact, collider, joint limit, ...) so that a back end can style by kind without
//! parsing colours, and the slot id of the object shown, for picking.
//!
//! Only [`DebugDraw::segment`] must be written: every other method has a default body
//! that falls back to simpler primitives (a capsule to two spheres and four segments, a
//! sphere to three circles of segments, a circle to a polygon of segments, ...). A back
//! end overrides what it can draw better — filled discs, shaded spheres, smooth ropes.
//!
//! ```
//! use sinew::debug_draw::{DebugDraw, DebugDrawOptions, DrawKind, Style};
//! use sinew::prelude::*;
//!
//! /// A back end that draws lines and circles, and only counts them here.
//! #[derive(Default)]
//! struct Counter {
//!     segments: usize,
//!     pins: usize,
//! }
//!
//! impl DebugDraw for Counter {
//!     fn segment(&mut self, _a: [f64; 3], _b: [f64; 3], _style: &Style) {
//!         self.segments += 1;
//!     }
//!     fn circle(&mut self, _center: [f64; 3], _radius: f64, style: &Style) {
//!         // Style by kind, not by colour.
//!         if style.kind == DrawKind::PinnedParticle {
//!             self.pins += 1;
//!         }
//!     }
//! }
//!
//! // A pendulum over the ground.
//! let mut world = World2::new(WorldDef::default()).unwrap();
//! let pin = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 2.0)).mass(0.0)).unwrap();
//! let bob = world.add_particle(&ParticleDef::at(Vector2::new(1.0, 2.0)).radius(0.1)).unwrap();
//! world.add_distance(&DistanceDef::new(pin, bob)).unwrap();
//! world.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0).unwrap())).unwrap();
//! world.step(1.0 / 60.0).unwrap();
//!
//! let mut counter = Counter::default();
//! world.debug_draw(&mut counter, &DebugDrawOptions::default());
//! assert_eq!(counter.pins, 1);
//! // The link, and the ground's boundary line and normal arrow (its default body).
//! assert!(counter.segments >= 2);
//! ```
//!
//! # What the world draws
//!
//! | part | option | 2D | 3D | kind |
//! |---|---|---|---|---|
//! | colliders | `colliders` | [`half_plane`], [`circle`], [`stadium`], [`cuboid`], [`polygon`] | [`half_space`], [`sphere`], [`capsule`], [`cuboid`], [`hull`] | `Collider` |
//! | joint limits | `joint_limits` | [`arc`]: the allowed sector at the joint | [`arc`] + [`segment`]s: the swing cone | `JointLimit` |
//! | tethers | `tethers` (off) | [`segment`] | [`segment`] | `Tether` |
//! | distances, bones | `distances` | [`segment`] | [`segment`] | `Distance` |
//! | ropes | `ropes` | [`rope`]: polyline, tension colours | same | `Rope` |
//! | particles | `particles` | [`circle`], filled | [`sphere`], filled | `Particle`, `PinnedParticle` |
//! | contacts | `contacts` | [`point`] + [`arrow`] along the normal | same | `Contact`, `RopeContact` |
//!
//! in that order — back to front for a 2D painter: free particles before pinned ones,
//! contacts last. Sleeping things are faded towards grey and flagged
//! ([`Style::sleeping`]) when [`DebugDrawOptions::sleeping`] is on. Nothing non-finite
//! is ever passed to a back end: a primitive with a NaN or infinite coordinate is left
//! out.
//!
//! Ropes come as the polyline through their particles with one tension (N) and one colour
//! per segment on a logarithmic [`TensionScale`]; a back end may smooth them with
//! [`crate::rope::curve::catmull_rom`]. Their free particles are not drawn as particles
//! unless [`DebugDrawOptions::rope_particles`] is on (they are the rope's vertices).
//!
//! [`half_plane`]: DebugDraw::half_plane
//! [`circle`]: DebugDraw::circle
//! [`stadium`]: DebugDraw::stadium
//! [`cuboid`]: DebugDraw::cuboid
//! [`polygon`]: DebugDraw::polygon
//! [`half_space`]: DebugDraw::half_space
//! [`sphere`]: DebugDraw::sphere
//! [`capsule`]: DebugDraw::capsule
//! [`hull`]: DebugDraw::hull
//! [`arc`]: DebugDraw::arc
//! [`segment`]: DebugDraw::segment
//! [`rope`]: DebugDraw::rope
//! [`point`]: DebugDraw::point
//! [`arrow`]: DebugDraw::arrow

mod finite;
mod geom;
mod options;
mod strand;
mod style;
#[cfg(test)]
mod tests;

pub use options::DebugDrawOptions;
pub use style::{DrawKind, Rgba, Style, TensionScale, tension_ramp};

use crate::collider::{ConvexHull, ConvexShape, Shape};
use crate::constraint::{AngleLimit, JointLimit, SwingTwistLimit};
use crate::math::{Real, Rotation, Vector};
use crate::rope::RopeEnd;
use crate::space::{RealOf, RotOf, Space, VecOf};
use crate::world::World;
use geom::{P3, add, add_scaled, cross, dot, length, normalize, perpendicular, ring, rotate, scale, sub};
use std::any::Any;
use std::collections::BTreeMap;
use std::f64::consts::TAU;

/// Segments per full circle in the default bodies' polygons.
const CIRCLE_SEGMENTS: usize = 32;

/// A drawing back end: receives the primitives of [`World::debug_draw`] in world
/// coordinates (`[x, y, z]` in metres; z = 0 in 2D).
///
/// Only [`segment`](Self::segment) is required; the other methods fall back to simpler
/// primitives (see each). The trait is object-safe: the world takes `&mut dyn DebugDraw`.
/// Methods named for one dimension (circle, stadium, polygon, half-plane: 2D; sphere,
/// capsule, hull, half-space: 3D) are only called by worlds of that dimension; the others
/// by both.
pub trait DebugDraw {
    /// Starts a frame: called once before any primitive, with the world's dimension, time
    /// and content bounds. Default: nothing.
    fn begin(&mut self, frame: &FrameInfo) {
        let _ = frame;
    }

    /// Ends the frame: called once after the last primitive. Default: nothing.
    fn end(&mut self) {}

    /// A line segment from `a` to `b`.
    fn segment(&mut self, a: [f64; 3], b: [f64; 3], style: &Style);

    /// A polyline through `points`, back to the first when `closed` (and there are more
    /// than two). Default: [`segment`](Self::segment)s.
    fn polyline(&mut self, points: &[[f64; 3]], closed: bool, style: &Style) {
        if let [p] = points {
            self.segment(*p, *p, style);
        }
        for w in points.windows(2) {
            self.segment(w[0], w[1], style);
        }
        if closed && points.len() > 2 {
            self.segment(points[points.len() - 1], points[0], style);
        }
    }

    /// A marker at `p` whose size the back end chooses (a few pixels): contact points.
    /// Default: a zero-length [`segment`](Self::segment) (a dot with round caps).
    fn point(&mut self, p: [f64; 3], style: &Style) {
        self.segment(p, p, style);
    }

    /// An arrow from `from` to `to` (contact normals). Default: its shaft and two head
    /// segments a quarter of its length, in the xy plane unless it points along z.
    fn arrow(&mut self, from: [f64; 3], to: [f64; 3], style: &Style) {
        self.segment(from, to, style);
        let Some(dir) = normalize(sub(to, from)) else { return };
        let h = 0.25 * length(sub(to, from));
        let side = scale(perpendicular(dir), 0.5 * h);
        let back = add_scaled(to, dir, -h);
        self.segment(to, add(back, side), style);
        self.segment(to, sub(back, side), style);
    }

    /// 2D: a circle (with [`Style::fill`], a disc) of `radius` about `center` in the xy
    /// plane. Particles come with radius 0 when they are points: draw them at a minimum
    /// visible size. Default: a closed 32-gon [`polyline`](Self::polyline).
    fn circle(&mut self, center: [f64; 3], radius: f64, style: &Style) {
        self.polyline(&ring(center, [0.0, 0.0, 1.0], radius, CIRCLE_SEGMENTS), true, style);
    }

    /// 2D: a stadium (a capsule in the plane): the points within `radius` of segment
    /// `a`–`b`. Default: two [`circle`](Self::circle)s and the two side segments.
    fn stadium(&mut self, a: [f64; 3], b: [f64; 3], radius: f64, style: &Style) {
        self.circle(a, radius, style);
        self.circle(b, radius, style);
        if let Some(d) = normalize(sub(b, a)) {
            let n = scale(perpendicular(d), radius);
            self.segment(add(a, n), add(b, n), style);
            self.segment(sub(a, n), sub(b, n), style);
        }
    }

    /// 2D: a convex polygon, counter-clockwise. Default: a closed
    /// [`polyline`](Self::polyline).
    fn polygon(&mut self, points: &[[f64; 3]], style: &Style) {
        self.polyline(points, true, style);
    }

    /// 2D: a half-plane, solid on the side opposite the unit `normal`, whose boundary line
    /// passes through `point` (the point of the line nearest the world's content).
    /// `extent` is how far along the line from `point` a back end that cannot clip an
    /// infinite line should draw it (the world passes twice its content's size).
    /// Default: the boundary as a [`segment`](Self::segment) and a short
    /// [`arrow`](Self::arrow) along the normal.
    fn half_plane(&mut self, point: [f64; 3], normal: [f64; 3], extent: f64, style: &Style) {
        let t = scale(perpendicular(normal), extent);
        self.segment(sub(point, t), add(point, t), style);
        self.arrow(point, add_scaled(point, normal, 0.05 * extent), style);
    }

    /// An arc about `center`: `start` (the vector from the centre to the arc's first
    /// point, whose length is the radius) turned by `0..sweep` radians about the unit
    /// `axis`, right-handed (in 2D the axis is +z and a positive sweep runs
    /// counter-clockwise). With [`Style::fill`] it is a sector (a pie slice): joint limits.
    /// Default: a [`polyline`](Self::polyline), and the two radii when filled.
    fn arc(&mut self, center: [f64; 3], axis: [f64; 3], start: [f64; 3], sweep: f64, style: &Style) {
        let n = ((sweep.abs() / TAU * CIRCLE_SEGMENTS as f64).ceil() as usize).clamp(2, 4 * CIRCLE_SEGMENTS);
        let pts: Vec<P3> = (0..=n).map(|k| add(center, rotate(start, axis, sweep * k as f64 / n as f64))).collect();
        self.polyline(&pts, false, style);
        if style.fill.is_some() && sweep.abs() < TAU {
            self.segment(center, pts[0], style);
            self.segment(center, pts[n], style);
        }
    }

    /// 3D: a sphere. Particles come with radius 0 when they are points: draw them at a
    /// minimum visible size. Default: three great circles (about x, y and z) of segments.
    fn sphere(&mut self, center: [f64; 3], radius: f64, style: &Style) {
        for axis in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] {
            self.polyline(&ring(center, axis, radius, CIRCLE_SEGMENTS), true, style);
        }
    }

    /// 3D: a capsule, the points within `radius` of segment `a`–`b`. Default: two
    /// [`sphere`](Self::sphere)s and four segments along its sides.
    fn capsule(&mut self, a: [f64; 3], b: [f64; 3], radius: f64, style: &Style) {
        self.sphere(a, radius, style);
        self.sphere(b, radius, style);
        let axis = normalize(sub(b, a)).unwrap_or([0.0, 1.0, 0.0]);
        let u = perpendicular(axis);
        let v = cross(axis, u);
        for d in [u, scale(u, -1.0), v, scale(v, -1.0)] {
            self.segment(add_scaled(a, d, radius), add_scaled(b, d, radius), style);
        }
    }

    /// An oriented box: `center`, `half_extents` along its local axes, and `axes`, the
    /// world directions of its local x, y and z (unit, orthogonal: the rows of the
    /// transposed rotation matrix; a point at local `l` is at `center + Σ axes[i]·l[i]`).
    /// 2D boxes come with `half_extents[2] == 0` and turn about z. Default: in 2D a
    /// [`polygon`](Self::polygon), in 3D its twelve edges as segments.
    fn cuboid(&mut self, center: [f64; 3], half_extents: [f64; 3], axes: [[f64; 3]; 3], style: &Style) {
        let corner = |i: usize| {
            let s = |bit: usize| if i & bit != 0 { 1.0 } else { -1.0 };
            let mut p = center;
            for (k, bit) in [1, 2, 4].into_iter().enumerate() {
                p = add_scaled(p, axes[k], s(bit) * half_extents[k]);
            }
            p
        };
        if half_extents[2] == 0.0 {
            self.polygon(&[corner(0), corner(1), corner(3), corner(2)], style);
            return;
        }
        for i in 0..8 {
            for bit in [1, 2, 4] {
                if i & bit == 0 {
                    self.segment(corner(i), corner(i | bit), style);
                }
            }
        }
    }

    /// 3D: a convex hull given as a mesh (see [`HullMesh`]). Default: its edges as
    /// segments.
    fn hull(&mut self, hull: &HullMesh<'_>, style: &Style) {
        for &[i, j] in hull.edges {
            if let (Some(&a), Some(&b)) = (hull.vertices.get(i as usize), hull.vertices.get(j as usize)) {
                self.segment(a, b, style);
            }
        }
    }

    /// 3D: a half-space, solid on the side opposite the unit `normal`, whose boundary
    /// plane passes through `point` (the point of the plane nearest the world's content);
    /// `extent` as for [`half_plane`](Self::half_plane). Default: a square of side
    /// `2·extent` in the plane, its two middle lines, and a short arrow along the normal.
    fn half_space(&mut self, point: [f64; 3], normal: [f64; 3], extent: f64, style: &Style) {
        let u = scale(perpendicular(normal), extent);
        let v = scale(cross(normal, perpendicular(normal)), extent);
        let square = [add(add(point, u), v), add(sub(point, u), v), sub(sub(point, u), v), sub(add(point, u), v)];
        self.polyline(&square, true, style);
        self.segment(sub(point, u), add(point, u), style);
        self.segment(sub(point, v), add(point, v), style);
        self.arrow(point, add_scaled(point, normal, 0.05 * extent), style);
    }

    /// A rope (see [`RopeStrand`]): the polyline through its particles, each segment in
    /// its tension colour. Default: one [`segment`](Self::segment) per rope segment in
    /// that colour.
    fn rope(&mut self, rope: &RopeStrand<'_>, style: &Style) {
        for (i, w) in rope.points.windows(2).enumerate() {
            let color = rope.colors.get(i).copied().unwrap_or(style.color);
            self.segment(w[0], w[1], &style.with_color(color));
        }
    }
}

/// What [`DebugDraw::begin`] is told about the frame.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct FrameInfo {
    /// 2 or 3.
    pub dim: usize,
    /// Simulated time (s).
    pub time: f64,
    /// Steps taken.
    pub step: u64,
    /// World box `(min, max)` around the live particles (with their radii) and the
    /// bounded colliders; `None` when there are none. For fitting a camera.
    pub bounds: Option<([f64; 3], [f64; 3])>,
}

/// A rope for [`DebugDraw::rope`]: `n` points and `n − 1` segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RopeStrand<'a> {
    /// Particle positions from the rope's start to its end.
    pub points: &'a [[f64; 3]],
    /// Particle slot of each point (for picking: grab the rope at a particle).
    pub ids: &'a [u32],
    /// Tension of each segment (N, positive when pulled) in the last substep.
    pub tensions: &'a [f64],
    /// Colour of each segment: its tension on the options' [`TensionScale`] (faded when
    /// the rope sleeps and sleep is drawn).
    pub colors: &'a [Rgba],
    /// The rope's radius (m).
    pub radius: f64,
    /// The points are a taut rope's path: straight spans with corners (and sampled arcs)
    /// that a back end draws as they are, not smoothed.
    pub taut: bool,
}

/// A convex hull for [`DebugDraw::hull`], in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HullMesh<'a> {
    /// Vertices.
    pub vertices: &'a [[f64; 3]],
    /// Triangles as vertex indices, counter-clockwise seen from outside: for solid
    /// drawing (a planar face of `k` corners is `k − 2` coplanar triangles).
    pub triangles: &'a [[u32; 3]],
    /// The hull's edges between faces that are not coplanar (so no diagonals across
    /// planar faces): for wireframes.
    pub edges: &'a [[u32; 2]],
}

/// A particle–collider contact as drawing needs it (world frame, `f64`).
struct PlaneContact {
    particle: usize,
    normal: P3,
    /// The plane `normal·x ≥ d` the particle's centre is kept on.
    d: f64,
}

/// A rope span–collider contact: the point `(1 − t)·x_a + t·x_b` is kept on
/// `normal·p ≥ d`.
struct SpanContact {
    a: usize,
    b: usize,
    t: f64,
    normal: P3,
    d: f64,
}

/// What debug drawing reads of the world beyond its particles, ropes and colliders.
struct Internals<'w, S: Space> {
    contacts: Vec<PlaneContact>,
    span_contacts: Vec<SpanContact>,
    /// `(tether slot, particle slot, anchor slot)`.
    tethers: Vec<(u32, usize, usize)>,
    /// `(limit slot, limit)`.
    limits: Vec<(u32, &'w S::JointLimit)>,
    /// Per particle slot: in a sleeping sleep group.
    asleep: Vec<bool>,
}

/// Gathers what `opts` asks for: the last substep's contacts (the world's scratch, read
/// within the crate), tethers, joint limits and the sleeping groups' particles.
fn internals<'w, S: Space>(w: &'w World<S>, opts: &DebugDrawOptions) -> Internals<'w, S> {
    let zero = RealOf::<S>::ZERO;
    let mut out = Internals {
        contacts: Vec::new(),
        span_contacts: Vec::new(),
        tethers: Vec::new(),
        limits: Vec::new(),
        asleep: Vec::new(),
    };
    if opts.contacts {
        // Only contacts that pushed their particle (the ones `StepReport::contacts` counts);
        // the list also holds planes a particle was merely tested against.
        out.contacts = (w.scratch.contacts.iter().filter(|c| c.dn > zero))
            .map(|c| PlaneContact { particle: c.particle as usize, normal: c.normal.to_f64_array(), d: c.d.to_f64() })
            .collect();
        out.span_contacts = (w.scratch.edge_contacts.iter())
            .map(|c| SpanContact {
                a: c.a as usize,
                b: c.b as usize,
                t: c.t.to_f64(),
                normal: c.normal.to_f64_array(),
                d: c.d.to_f64(),
            })
            .collect();
    }
    if opts.tethers {
        out.tethers = w.tethers().map(|(h, t)| (h.index() as u32, t.indices().0, t.indices().1)).collect();
    }
    if opts.joint_limits {
        out.limits = w.joint_limits().map(|(h, l)| (h.index() as u32, l)).collect();
    }
    if opts.sleeping {
        out.asleep = vec![false; w.particles().slot_count()];
        for g in w.sleep_groups().filter(|g| g.is_sleeping()) {
            for &k in g.particle_slots() {
                if let Some(a) = out.asleep.get_mut(k as usize) {
                    *a = true;
                }
            }
        }
    }
    out
}

impl<S: Space> World<S> {
    /// Draws the world into a back end: see the [module docs](crate::debug_draw) for what
    /// is drawn with which primitive, in which order. Reads the world only; costs about
    /// one pass over what `opts` selects (and allocates a few buffers per call).
    pub fn debug_draw(&self, out: &mut dyn DebugDraw, opts: &DebugDrawOptions) {
        let mut out = finite::Finite(out);
        let ps = self.particles();
        let at: Vec<Option<P3>> = (0..ps.slot_count())
            .map(|k| ps.handle_at(k).map(|_| ps.positions()[k].to_f64_array()).filter(|&p| geom::finite(p)))
            .collect();
        let mut internals = internals(self, opts);
        // Asleep: the particles of sleeping groups and of sleeping ropes.
        let mut asleep = std::mem::take(&mut internals.asleep);
        if opts.sleeping {
            for (_, r) in self.ropes().filter(|(_, r)| r.is_sleeping()) {
                for &p in r.particles() {
                    if let Some(s) = asleep.get_mut(p.index()) {
                        *s = true;
                    }
                }
            }
        }
        let mut walk = Walk { world: self, opts, at, asleep, bounds: None, internals };
        walk.bounds = walk.content_bounds();
        out.begin(&FrameInfo { dim: S::DIM, time: self.time().to_f64(), step: self.step_count(), bounds: walk.bounds });
        if opts.colliders {
            walk.colliders(&mut out);
        }
        if opts.joint_limits {
            walk.joint_limits(&mut out);
        }
        if opts.tethers {
            walk.tethers(&mut out);
        }
        if opts.distances {
            walk.distances(&mut out);
        }
        if opts.ropes {
            walk.ropes(&mut out);
        }
        if opts.particles {
            walk.particles(&mut out);
        }
        if opts.contacts {
            walk.contacts(&mut out);
        }
        out.end();
    }
}

/// One call of [`World::debug_draw`]: the world and what was read from it.
struct Walk<'w, S: Space> {
    world: &'w World<S>,
    opts: &'w DebugDrawOptions,
    /// Position per particle slot (`None`: free slot, or not finite).
    at: Vec<Option<P3>>,
    /// Per particle slot: asleep (empty unless sleep is drawn).
    asleep: Vec<bool>,
    bounds: Option<(P3, P3)>,
    internals: Internals<'w, S>,
}

/// World directions of a rotation's local axes (z stays z in 2D).
fn rotation_axes<S: Space>(rot: RotOf<S>) -> [P3; 3] {
    let mut axes = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for (i, a) in axes.iter_mut().enumerate().take(S::DIM) {
        let mut e = VecOf::<S>::ZERO;
        e.set(i, RealOf::<S>::ONE);
        *a = rot.rotate(e).to_f64_array();
    }
    axes
}

/// A hull's triangles and its edges between non-coplanar faces (the hull stores planar
/// faces as fans of coplanar triangles, whose diagonals a wireframe should not show).
fn hull_mesh<R: Real>(hull: &ConvexHull<R>) -> (Vec<[u32; 3]>, Vec<[u32; 2]>) {
    let faces = hull.faces();
    let normals: Vec<P3> = hull.planes().iter().map(|(n, _)| n.to_f64_array()).collect();
    let mut sides: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
    for (f, tri) in faces.iter().enumerate() {
        for k in 0..3 {
            let (i, j) = (tri[k], tri[(k + 1) % 3]);
            sides.entry((i.min(j), i.max(j))).or_default().push(f);
        }
    }
    let edges = (sides.into_iter())
        .filter(|(_, fs)| match fs.as_slice() {
            // Coplanar within rounding: `f32` hulls' face normals differ by ~1e-7.
            [f, g] => dot(normals[*f], normals[*g]) < 1.0 - 1e-5,
            _ => true,
        })
        .map(|((i, j), _)| [i as u32, j as u32])
        .collect();
    (faces.iter().map(|t| t.map(|i| i as u32)).collect(), edges)
}

impl<S: Space> Walk<'_, S> {
    fn pos(&self, slot: usize) -> Option<P3> {
        self.at.get(slot).copied().flatten()
    }

    fn is_asleep(&self, slot: usize) -> bool {
        self.asleep.get(slot).copied().unwrap_or(false)
    }

    /// `style`, faded when sleep is drawn and `asleep`.
    fn sleepy(&self, style: Style, asleep: bool) -> Style {
        if self.opts.sleeping && asleep { style.asleep() } else { style }
    }

    /// The box around live particles (with radii) and bounded colliders.
    fn content_bounds(&self) -> Option<(P3, P3)> {
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        let mut grow = |p: P3, pad: f64| {
            // (A 2D world's box stays flat: z = 0.)
            for i in 0..3 {
                let pad = if i < S::DIM { pad } else { 0.0 };
                lo[i] = lo[i].min(p[i] - pad);
                hi[i] = hi[i].max(p[i] + pad);
            }
        };
        let radii = self.world.particles().radii();
        for (k, p) in self.at.iter().enumerate() {
            if let Some(p) = *p {
                let r = radii.get(k).map_or(0.0, |r| r.to_f64());
                grow(p, if r.is_finite() { r.max(0.0) } else { 0.0 });
            }
        }
        for (_, c) in self.world.colliders() {
            let Some((l, h)) = c.shape.local_aabb() else { continue };
            for mask in 0..1usize << S::DIM {
                let mut v = l;
                for i in 0..S::DIM {
                    if mask & (1 << i) != 0 {
                        v.set(i, h.get(i));
                    }
                }
                grow((c.position() + c.rotation().rotate(v)).to_f64_array(), 0.0);
            }
        }
        (lo[0] <= hi[0] && geom::finite(lo) && geom::finite(hi)).then_some((lo, hi))
    }

    fn colliders(&self, out: &mut dyn DebugDraw) {
        let (center, size) = match self.bounds {
            Some((lo, hi)) => (scale(add(lo, hi), 0.5), length(sub(hi, lo)).max(1.0)),
            None => ([0.0; 3], 5.0),
        };
        for (h, c) in self.world.colliders() {
            let style = Style::of(DrawKind::Collider).with_fill(style::COLLIDER_FILL).with_id(h.index() as u32);
            let (pos, rot) = (c.position(), c.rotation());
            let world = |v: VecOf<S>| (pos + rot.rotate(v)).to_f64_array();
            let p = pos.to_f64_array();
            let planar = S::DIM == 2;
            match &c.shape {
                Shape::HalfSpace(hs) => {
                    let n = rot.rotate(hs.normal);
                    let (n, off) = (n.to_f64_array(), (hs.offset + n.dot(pos)).to_f64());
                    let point = add_scaled(center, n, off - dot(n, center));
                    let style = style.with_color(style::GROUND_EDGE).with_fill(style::GROUND_FILL);
                    if planar {
                        out.half_plane(point, n, 2.0 * size, &style);
                    } else {
                        out.half_space(point, n, 2.0 * size, &style);
                    }
                }
                Shape::Ball(b) if planar => out.circle(p, b.radius.to_f64(), &style),
                Shape::Ball(b) => out.sphere(p, b.radius.to_f64(), &style),
                Shape::Capsule(cap) if planar => out.stadium(world(cap.a), world(cap.b), cap.radius.to_f64(), &style),
                Shape::Capsule(cap) => out.capsule(world(cap.a), world(cap.b), cap.radius.to_f64(), &style),
                Shape::Cuboid(b) => out.cuboid(p, b.half_extents.to_f64_array(), rotation_axes::<S>(rot), &style),
                Shape::Convex(cv) => {
                    let vertices: Vec<P3> = cv.vertices().iter().map(|&v| world(v)).collect();
                    if planar {
                        out.polygon(&vertices, &style);
                        continue;
                    }
                    // `S::Convex` is `ConvexHull` in 3D; the `Space` trait has no drawing
                    // hook, so the type is told by its id (the `else` cannot happen).
                    let (triangles, edges) = match (cv as &dyn Any).downcast_ref::<ConvexHull<RealOf<S>>>() {
                        Some(hull) => hull_mesh(hull),
                        None => (Vec::new(), cv.edges().into_iter().map(|(i, j)| [i as u32, j as u32]).collect()),
                    };
                    out.hull(&HullMesh { vertices: &vertices, triangles: &triangles, edges: &edges }, &style);
                }
            }
        }
    }

    /// 2D: the allowed sector of each angle limit at its joint, from the parent bone's
    /// direction turned by `min` to `max`. 3D: the swing cone about the parent bone's
    /// direction through the joint. Red when outside the range.
    fn joint_limits(&self, out: &mut dyn DebugDraw) {
        let ps = self.world.particles();
        for &(id, limit) in &self.internals.limits {
            let idx = limit.particle_indices();
            let (Some(a), Some(b), Some(c)) = (
                idx.first().and_then(|&k| self.pos(k)),
                idx.get(1).and_then(|&k| self.pos(k)),
                idx.get(2).and_then(|&k| self.pos(k)),
            ) else {
                continue;
            };
            let (u, v) = (sub(b, a), sub(c, b));
            let Some(dir) = normalize(u) else { continue };
            let reach = 0.35 * length(u).min(length(v));
            let violated = limit.violation(ps).to_f64() > 0.0;
            let (color, fill) = if violated {
                (style::LIMIT_VIOLATED, style::LIMIT_VIOLATED_FILL)
            } else {
                (DrawKind::JointLimit.color(), style::LIMIT_FILL)
            };
            let asleep = idx.iter().take(3).any(|&k| self.is_asleep(k));
            let style = self.sleepy(Style::new(DrawKind::JointLimit, color).with_fill(fill).with_id(id), asleep);
            // `S::JointLimit` is one of these two; the `Space` trait has no drawing hook, so
            // the type is told by its id.
            let any = limit as &dyn Any;
            if let Some(l) = any.downcast_ref::<AngleLimit<RealOf<S>>>() {
                let (min, max) = (l.min.to_f64(), l.max.to_f64());
                let z = [0.0, 0.0, 1.0];
                out.arc(b, z, scale(rotate(dir, z, min), reach), max - min, &style);
            } else if let Some(l) = any.downcast_ref::<SwingTwistLimit<RealOf<S>>>() {
                let swing = l.swing_max.to_f64();
                if !(swing < 0.999 * std::f64::consts::PI) {
                    continue; // every direction allowed: no cone to show
                }
                let rim = add_scaled(b, dir, reach * swing.cos());
                let (p, q) = (perpendicular(dir), cross(dir, perpendicular(dir)));
                let rho = reach * swing.sin();
                out.arc(rim, dir, scale(p, rho), TAU, &Style { fill: None, ..style });
                for d in [p, q, scale(p, -1.0), scale(q, -1.0)] {
                    out.segment(b, add_scaled(rim, d, rho), &style);
                }
            }
        }
    }

    fn tethers(&self, out: &mut dyn DebugDraw) {
        for &(id, p, anchor) in &self.internals.tethers {
            if let (Some(x), Some(y)) = (self.pos(p), self.pos(anchor)) {
                let asleep = self.is_asleep(p) || self.is_asleep(anchor);
                out.segment(x, y, &self.sleepy(Style::of(DrawKind::Tether).with_id(id), asleep));
            }
        }
    }

    fn distances(&self, out: &mut dyn DebugDraw) {
        for (h, d) in self.world.distances() {
            let (i, j) = d.indices();
            if let (Some(x), Some(y)) = (self.pos(i), self.pos(j)) {
                let asleep = self.is_asleep(i) || self.is_asleep(j);
                out.segment(x, y, &self.sleepy(Style::of(DrawKind::Distance).with_id(h.index() as u32), asleep));
            }
        }
        // The links the world's controllers hold (a muscle ragdoll's bones), drawn alike.
        for [i, j] in self.world.controller_links() {
            if let (Some(x), Some(y)) = (self.pos(i), self.pos(j)) {
                let asleep = self.is_asleep(i) || self.is_asleep(j);
                out.segment(x, y, &self.sleepy(Style::of(DrawKind::Distance), asleep));
            }
        }
    }

    fn ropes(&self, out: &mut dyn DebugDraw) {
        let scale = &self.opts.tension_scale;
        for (h, r) in self.world.ropes() {
            let mut ids: Vec<u32> = r.particles().iter().map(|p| p.index() as u32).collect();
            let Some(mut points) = ids.iter().map(|&k| self.pos(k as usize)).collect::<Option<Vec<P3>>>() else {
                continue;
            };
            let mut tensions: Vec<f64> = (self.world.rope_tensions(h).unwrap_or_default().into_iter())
                .map(|t| Some(t.to_f64()).filter(|t| t.is_finite()).unwrap_or(0.0))
                .collect();
            tensions.resize(points.len().saturating_sub(1), 0.0);
            if r.is_taut() {
                let path: Vec<P3> =
                    self.world.rope_path(h).unwrap_or_default().into_iter().map(|p| p.to_f64_array()).collect();
                if path.len() >= 2 && path.iter().all(|p| p.iter().all(|c| c.is_finite())) {
                    (ids, tensions) = strand::taut_strand(&path, &ids, &tensions);
                    points = path;
                }
            }
            let asleep = self.opts.sleeping && r.is_sleeping();
            let fade = |c: Rgba| if asleep { style::asleep(c) } else { c };
            let colors: Vec<Rgba> = tensions.iter().map(|&t| fade(scale.color(t))).collect();
            let top = tensions.iter().copied().fold(0.0, f64::max);
            let style = self.sleepy(Style::new(DrawKind::Rope, scale.color(top)).with_id(h.index() as u32), asleep);
            let strand = RopeStrand {
                points: &points,
                ids: &ids,
                tensions: &tensions,
                colors: &colors,
                radius: r.radius.to_f64(),
                taut: r.is_taut(),
            };
            out.rope(&strand, &style);
        }
    }

    fn particles(&self, out: &mut dyn DebugDraw) {
        let ps = self.world.particles();
        // Free rope particles are the rope's vertices, drawn by the rope (attached ends
        // are bodies of their own and stay drawn).
        let mut hidden = vec![false; ps.slot_count()];
        if self.opts.ropes && !self.opts.rope_particles {
            for (_, r) in self.world.ropes() {
                let [first, last] = [RopeEnd::Start, RopeEnd::End].map(|e| r.is_attached(e));
                let n = r.particles().len();
                for (i, &p) in r.particles().iter().enumerate() {
                    let attached = (i == 0 && first) || (i + 1 == n && last);
                    if !attached && !ps.is_kinematic(p) {
                        hidden[p.index()] = true;
                    }
                }
            }
        }
        // Free particles first, so that pins stay on top in a 2D painter.
        for pinned in [false, true] {
            for h in ps.handles().filter(|&h| ps.is_kinematic(h) == pinned && !hidden[h.index()]) {
                let Some(p) = self.pos(h.index()) else { continue };
                let kind = if pinned { DrawKind::PinnedParticle } else { DrawKind::Particle };
                let style = Style::of(kind).with_fill(kind.color()).with_id(h.index() as u32);
                let style = self.sleepy(style, self.is_asleep(h.index()));
                let r = ps.radius(h).map_or(0.0, |r| r.to_f64());
                if S::DIM == 2 {
                    out.circle(p, r, &style);
                } else {
                    out.sphere(p, r, &style);
                }
            }
        }
    }

    /// Each contact's point on the collider's surface (the particle's centre moved onto
    /// its contact plane, then in by its radius) and an arrow along the normal.
    fn contacts(&self, out: &mut dyn DebugDraw) {
        let radii = self.world.particles().radii();
        let radius = |k: usize| radii.get(k).map_or(0.0, |r| r.to_f64().max(0.0));
        let len = self.opts.contact_normal_length;
        let mut mark = |q: P3, n: P3, d: f64, r: f64, style: Style| {
            let p = add_scaled(q, n, d - r - dot(n, q));
            out.point(p, &style);
            out.arrow(p, add_scaled(p, n, len), &style);
        };
        for c in &self.internals.contacts {
            if let Some(x) = self.pos(c.particle) {
                let style = Style::of(DrawKind::Contact).with_id(c.particle as u32);
                mark(x, c.normal, c.d, radius(c.particle), style);
            }
        }
        for c in &self.internals.span_contacts {
            if let (Some(xa), Some(xb)) = (self.pos(c.a), self.pos(c.b)) {
                let q = add(scale(xa, 1.0 - c.t), scale(xb, c.t));
                mark(q, c.normal, c.d, radius(c.a), Style::of(DrawKind::RopeContact).with_id(c.a as u32));
            }
        }
    }
}
