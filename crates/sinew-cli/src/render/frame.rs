//! The tiny-skia back end's side of debug drawing: a [`Frame`] records what
//! `World::debug_draw` emits, in world coordinates, sorted into the layers the rasteriser
//! paints (ground planes, collider outlines, links, ropes, particles, debug marks).
//!
//! Recording first and painting later is what lets the view be fitted to the frames it
//! shows, the 3D items be depth-sorted, and the link width follow the median link length.

use super::geom::{P3, add, add_scaled, cross, dot, normalize, ring, rotate, sub};
use sinew::Vector3;
use sinew::debug_draw::{DebugDraw, DrawKind, FrameInfo, HullMesh, Rgba, RopeStrand, Style, TensionScale};

/// Points per full circle of a 2D collider outline.
const CIRCLE_2D: usize = 48;
/// Points per ring of a 3D collider wireframe.
const CIRCLE_3D: usize = 40;
/// Tension colour levels of a rope: a fixed set, so that a GIF's one colour table holds
/// them exactly (and a rope's colour changes in visible steps, not in dithering noise).
pub const TENSION_LEVELS: usize = 9;

/// A particle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dot {
    /// Position.
    pub pos: P3,
    /// Radius (m), 0 for a point.
    pub radius: f64,
    /// Kinematic (pinned, driven): drawn red, on top.
    pub pinned: bool,
    /// Sleeping, when the options draw sleep (drawn faded).
    pub asleep: bool,
    /// Particle slot (trails follow it).
    pub id: Option<u32>,
}

/// A collider outline: a closed polygon (2D, filled) or a polyline (3D wireframe).
#[derive(Clone, Debug, PartialEq)]
pub struct Outline {
    /// Points.
    pub points: Vec<P3>,
    /// Joins the last point to the first.
    pub closed: bool,
}

/// A rope: its particles and each segment's colour.
#[derive(Clone, Debug, PartialEq)]
pub struct RopeLine {
    /// Particle positions, start to end.
    pub points: Vec<P3>,
    /// Particle slots.
    pub ids: Vec<u32>,
    /// Colour of each segment (`points.len() − 1`).
    pub colors: Vec<[u8; 3]>,
    /// Radius (m).
    pub radius: f64,
    /// A taut rope's path: drawn straight between its points (its corners kept).
    pub taut: bool,
}

/// Anything else: contacts, joint limits, tethers, shapes of kinds the layers above do not
/// take. Drawn in its own colours, on top.
#[derive(Clone, Debug, PartialEq)]
pub enum Mark {
    /// A polyline or polygon.
    Path {
        /// Points.
        points: Vec<P3>,
        /// Closed.
        closed: bool,
        /// Line colour.
        color: Rgba,
        /// Fill colour (closed paths).
        fill: Option<Rgba>,
    },
    /// A marker a few pixels across.
    Dot(P3, Rgba),
    /// An arrow (its head is drawn in screen space).
    Arrow(P3, P3, Rgba),
}

/// One frame recorded from [`sinew::World::debug_draw`].
#[derive(Clone, Debug, Default)]
pub struct Frame {
    /// 2 or 3 (0 before `begin`).
    pub dim: usize,
    /// Particles, free ones first.
    pub particles: Vec<Dot>,
    /// Distance constraints (links, bones) as end points.
    pub links: Vec<[P3; 2]>,
    /// Collider outlines.
    pub outlines: Vec<Outline>,
    /// Half-planes / half-spaces as `(unit normal, offset)`: free side `n·x ≥ offset`.
    pub planes: Vec<(P3, f64)>,
    /// Ropes.
    pub ropes: Vec<RopeLine>,
    /// Debug marks.
    pub marks: Vec<Mark>,
    /// Maps rope tensions to colour levels.
    scale: TensionScale,
}

/// The level (of [`TENSION_LEVELS`]) nearest a tension's place on `scale`.
#[must_use]
pub fn tension_level(scale: &TensionScale, tension: f64) -> usize {
    (scale.fraction(tension) * (TENSION_LEVELS - 1) as f64).round() as usize
}

/// Colour of tension level `k` of [`TENSION_LEVELS`].
#[must_use]
pub fn tension_level_color(k: usize) -> [u8; 3] {
    let c = sinew::debug_draw::tension_ramp(k as f64 / (TENSION_LEVELS - 1) as f64);
    [c.r, c.g, c.b]
}

impl Frame {
    /// An empty frame whose ropes are coloured on `scale`.
    #[must_use]
    pub fn new(scale: TensionScale) -> Self {
        Self { scale, ..Self::default() }
    }

    /// Every particle-like position with its id: particles and rope vertices.
    pub fn bodies(&self) -> impl Iterator<Item = (Option<u32>, P3, f64, bool)> + '_ {
        let dots = self.particles.iter().map(|d| (d.id, d.pos, d.radius, d.pinned));
        let ropes =
            self.ropes.iter().flat_map(|r| r.points.iter().zip(&r.ids).map(|(&p, &id)| (Some(id), p, r.radius, false)));
        dots.chain(ropes)
    }

    fn mark(&mut self, points: Vec<P3>, closed: bool, style: &Style) {
        self.marks.push(Mark::Path { points, closed, color: style.color, fill: style.fill });
    }

    fn outline(&mut self, points: Vec<P3>, closed: bool, style: &Style) {
        if style.kind == DrawKind::Collider {
            self.outlines.push(Outline { points, closed });
        } else {
            self.mark(points, closed, style);
        }
    }

    fn dot(&mut self, pos: P3, radius: f64, style: &Style) {
        let pinned = style.kind == DrawKind::PinnedParticle;
        self.particles.push(Dot { pos, radius, pinned, asleep: style.sleeping, id: style.id });
    }
}

impl DebugDraw for Frame {
    fn begin(&mut self, frame: &FrameInfo) {
        self.dim = frame.dim;
    }

    fn segment(&mut self, a: P3, b: P3, style: &Style) {
        if style.kind == DrawKind::Distance {
            self.links.push([a, b]);
        } else {
            self.outline(vec![a, b], false, style);
        }
    }

    fn polyline(&mut self, points: &[P3], closed: bool, style: &Style) {
        self.outline(points.to_vec(), closed, style);
    }

    fn point(&mut self, p: P3, style: &Style) {
        self.marks.push(Mark::Dot(p, style.color));
    }

    fn arrow(&mut self, from: P3, to: P3, style: &Style) {
        self.marks.push(Mark::Arrow(from, to, style.color));
    }

    fn circle(&mut self, center: P3, radius: f64, style: &Style) {
        match style.kind {
            DrawKind::Particle | DrawKind::PinnedParticle => self.dot(center, radius, style),
            _ => self.outline(ring(center, [0.0, 0.0, 1.0], radius, CIRCLE_2D), true, style),
        }
    }

    fn sphere(&mut self, center: P3, radius: f64, style: &Style) {
        match style.kind {
            DrawKind::Particle | DrawKind::PinnedParticle => self.dot(center, radius, style),
            // A wireframe: the great circles about the three axes.
            _ => {
                for axis in [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
                    self.outline(ring(center, axis, radius, CIRCLE_3D), true, style);
                }
            }
        }
    }

    fn stadium(&mut self, a: P3, b: P3, radius: f64, style: &Style) {
        // Two half circles joined by the sides, as one closed outline.
        let base = (b[1] - a[1]).atan2(b[0] - a[0]);
        let mut pts = Vec::with_capacity(50);
        for (end, start) in [(b, base - std::f64::consts::FRAC_PI_2), (a, base + std::f64::consts::FRAC_PI_2)] {
            for k in 0..=24 {
                let t = start + f64::from(k) / 24.0 * std::f64::consts::PI;
                pts.push([end[0] + radius * t.cos(), end[1] + radius * t.sin(), end[2]]);
            }
        }
        self.outline(pts, true, style);
    }

    fn polygon(&mut self, points: &[P3], style: &Style) {
        self.outline(points.to_vec(), true, style);
    }

    fn half_plane(&mut self, point: P3, normal: P3, _extent: f64, style: &Style) {
        if style.kind == DrawKind::Collider {
            self.planes.push((normal, dot(normal, point)));
        }
    }

    fn arc(&mut self, center: P3, axis: P3, start: P3, sweep: f64, style: &Style) {
        let n = ((sweep.abs() / std::f64::consts::TAU * 48.0).ceil() as usize).clamp(2, 192);
        let mut pts: Vec<P3> = (0..=n).map(|k| add(center, rotate(start, axis, sweep * k as f64 / n as f64))).collect();
        let sector = style.fill.is_some() && sweep.abs() < std::f64::consts::TAU;
        if sector {
            pts.insert(0, center);
        }
        self.mark(pts, sector, style);
    }

    fn capsule(&mut self, a: P3, b: P3, radius: f64, style: &Style) {
        // End rings across the axis and four lines along it.
        let axis = normalize(sub(b, a)).unwrap_or([0.0, 1.0, 0.0]);
        self.outline(ring(a, axis, radius, CIRCLE_3D), true, style);
        self.outline(ring(b, axis, radius, CIRCLE_3D), true, style);
        let u = super::geom::perpendicular(axis);
        let v = cross(axis, u);
        for d in [u, v, u.map(|c| -c), v.map(|c| -c)] {
            self.outline(vec![add_scaled(a, d, radius), add_scaled(b, d, radius)], false, style);
        }
    }

    fn cuboid(&mut self, center: P3, half: P3, axes: [P3; 3], style: &Style) {
        let corner = |i: usize| {
            let mut p = center;
            for k in 0..3 {
                p = add_scaled(p, axes[k], if i & (1 << k) != 0 { half[k] } else { -half[k] });
            }
            p
        };
        if half[2] == 0.0 {
            self.outline(vec![corner(0), corner(1), corner(3), corner(2)], true, style);
            return;
        }
        for i in 0..8 {
            for bit in [1, 2, 4] {
                if i & bit == 0 {
                    self.outline(vec![corner(i), corner(i | bit)], false, style);
                }
            }
        }
    }

    fn hull(&mut self, hull: &HullMesh<'_>, style: &Style) {
        for &[i, j] in hull.edges {
            if let (Some(&a), Some(&b)) = (hull.vertices.get(i as usize), hull.vertices.get(j as usize)) {
                self.outline(vec![a, b], false, style);
            }
        }
    }

    fn half_space(&mut self, point: P3, normal: P3, extent: f64, style: &Style) {
        self.half_plane(point, normal, extent, style);
    }

    fn rope(&mut self, rope: &RopeStrand<'_>, style: &Style) {
        let colors = (0..rope.points.len().saturating_sub(1))
            .map(|i| {
                if style.sleeping {
                    let c = rope.colors.get(i).copied().unwrap_or(style.color);
                    return [c.r, c.g, c.b];
                }
                tension_level_color(tension_level(&self.scale, rope.tensions.get(i).copied().unwrap_or(0.0)))
            })
            .collect();
        self.ropes.push(RopeLine {
            points: rope.points.to_vec(),
            ids: rope.ids.to_vec(),
            colors,
            radius: rope.radius,
            taut: rope.taut,
        });
    }
}

/// A rope's smooth curve (centripetal Catmull–Rom, 4 pieces per segment), each piece with
/// its segment's colour; a taut rope's path as it is (straight spans, corners kept).
#[must_use]
pub fn rope_curve(rope: &RopeLine) -> Vec<(P3, P3, [u8; 3])> {
    const PER: usize = 4;
    if rope.taut {
        return (rope.points.windows(2).enumerate())
            .map(|(k, w)| (w[0], w[1], rope.colors.get(k).copied().unwrap_or([0; 3])))
            .collect();
    }
    let pts: Vec<Vector3<f64>> = rope.points.iter().map(|p| Vector3::new(p[0], p[1], p[2])).collect();
    let curve = sinew::rope::curve::catmull_rom(&pts, PER);
    let arr = |v: Vector3<f64>| [v.x, v.y, v.z];
    (curve.windows(2).enumerate())
        .map(|(k, w)| (arr(w[0]), arr(w[1]), rope.colors.get(k / PER).copied().unwrap_or([0; 3])))
        .collect()
}
