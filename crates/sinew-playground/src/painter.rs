//! The egui back end of the library's debug drawing ([`sinew::debug_draw::DebugDraw`]): the
//! same primitives `sinew render` rasterises, turned into egui shapes.
//!
//! In 2D the primitives become shapes in the order the world sends them (back to front):
//! filled discs, stadiums and polygons with outlines, half-planes as a filled band, ropes as
//! polylines coloured by tension. In 3D solids are tessellated into flat faces (a 12 × 8
//! sphere, a capsule's cylinder between two spheres, a box's six faces, a hull's
//! triangles), faces turned away from the viewer are dropped, each face is shaded by one
//! directional light (`ambient + diffuse·max(0, n·l)`), and faces and lines together are
//! sorted far to near before painting (the painter's algorithm). The ground half-space is a
//! shaded square with a grid, painted first.

use crate::camera::Camera;
use egui::epaint::{Mesh, PathShape, Vertex};
use egui::{Color32, Pos2, Shape, Stroke};
use sinew::debug_draw::{DebugDraw, DrawKind, HullMesh, Rgba, RopeStrand, Style};

type P3 = [f64; 3];

/// Light direction (towards the light), world axes; normalised on use.
const LIGHT: P3 = [0.35, 0.9, 0.55];
/// Share of a colour a face turned away from the light keeps.
const AMBIENT: f64 = 0.38;
/// Smallest radius a particle is drawn with (screen points).
const MIN_PARTICLE_PX: f32 = 2.5;

fn color(c: Rgba) -> Color32 {
    Color32::from_rgba_unmultiplied(c.r, c.g, c.b, c.a)
}

fn sub(a: P3, b: P3) -> P3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn add(a: P3, b: P3) -> P3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn scale(a: P3, s: f64) -> P3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn dot(a: P3, b: P3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: P3, b: P3) -> P3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn normalize(a: P3) -> Option<P3> {
    let l = dot(a, a).sqrt();
    (l > 1e-12 && l.is_finite()).then(|| scale(a, 1.0 / l))
}
/// Some unit vector perpendicular to unit `n`.
fn perpendicular(n: P3) -> P3 {
    let t = if n[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
    normalize(cross(n, t)).unwrap_or([0.0, 0.0, 1.0])
}

/// A shape with the depth it sorts at (3D).
struct Item {
    depth: f64,
    shape: Shape,
}

/// Draws debug-draw primitives as egui shapes through a [`Camera`].
pub struct EguiDraw {
    cam: Camera,
    /// 2D shapes in order, or the 3D ground (painted before the sorted items).
    flat: Vec<Shape>,
    items: Vec<Item>,
    light: P3,
    towards_viewer: P3,
    /// Primitives received (for tests).
    pub primitives: usize,
}

impl EguiDraw {
    /// A back end drawing through `cam`.
    #[must_use]
    pub fn new(cam: Camera) -> Self {
        Self {
            cam,
            flat: Vec::new(),
            items: Vec::new(),
            light: normalize(LIGHT).unwrap_or([0.0, 1.0, 0.0]),
            towards_viewer: cam.towards_viewer(),
            primitives: 0,
        }
    }

    /// The shapes to paint, back to front.
    #[must_use]
    pub fn finish(mut self) -> Vec<Shape> {
        self.items.sort_by(|a, b| a.depth.total_cmp(&b.depth));
        let mut out = self.flat;
        out.extend(self.items.into_iter().map(|i| i.shape));
        out
    }

    fn is_3d(&self) -> bool {
        self.cam.dim == 3
    }

    fn px(&self, p: P3) -> Pos2 {
        self.cam.project(p).pos
    }

    fn push(&mut self, depth: f64, shape: Shape) {
        if self.is_3d() {
            self.items.push(Item { depth, shape });
        } else {
            self.flat.push(shape);
        }
    }

    fn line_width(style: &Style) -> f32 {
        match style.kind {
            DrawKind::Distance => 2.0,
            DrawKind::Collider => 1.2,
            DrawKind::Rope => 2.5,
            _ => 1.5,
        }
    }

    /// The colour of a face with outward normal `n` lit by the light.
    fn shade(&self, base: Rgba, n: P3) -> Color32 {
        let k = AMBIENT + (1.0 - AMBIENT) * dot(n, self.light).max(0.0);
        let f = |c: u8| (f64::from(c) * k).round().clamp(0.0, 255.0) as u8;
        Color32::from_rgba_unmultiplied(f(base.r), f(base.g), f(base.b), base.a)
    }

    /// A flat 3D face (convex, counter-clockwise seen from outside): culled when it faces
    /// away, shaded, sorted by its mean depth.
    fn face(&mut self, pts: &[P3], base: Rgba) {
        if pts.len() < 3 {
            return;
        }
        let Some(n) = normalize(cross(sub(pts[1], pts[0]), sub(pts[2], pts[0]))) else { return };
        if dot(n, self.towards_viewer) < 0.0 {
            return;
        }
        let fill = self.shade(base, n);
        let depth = pts.iter().map(|&p| self.cam.depth_of(p)).sum::<f64>() / pts.len() as f64;
        let screen: Vec<Pos2> = pts.iter().map(|&p| self.px(p)).collect();
        // Faces under a square point are invisible, and their outlines' mitred joins would
        // spike (a near-degenerate polygon): leave them out.
        let area: f32 = (0..screen.len())
            .map(|i| {
                let (a, b) = (screen[i], screen[(i + 1) % screen.len()]);
                a.x * b.y - b.x * a.y
            })
            .sum::<f32>()
            .abs()
            * 0.5;
        if area < 1.0 {
            return;
        }
        // A hairline of the fill closes the seams between neighbouring faces.
        let shape =
            Shape::Path(PathShape { points: screen, closed: true, fill, stroke: Stroke::new(0.6, fill).into() });
        self.items.push(Item { depth, shape });
    }

    fn sphere_faces(&mut self, c: P3, r: f64, base: Rgba) {
        const LON: usize = 12;
        const LAT: usize = 8;
        let at = |i: usize, j: usize| {
            let th = std::f64::consts::PI * j as f64 / LAT as f64;
            let ph = std::f64::consts::TAU * i as f64 / LON as f64;
            add(c, [r * th.sin() * ph.cos(), r * th.cos(), r * th.sin() * ph.sin()])
        };
        for j in 0..LAT {
            for i in 0..LON {
                let (a, b, cc, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
                // Counter-clockwise seen from outside.
                if j == 0 {
                    self.face(&[a, cc, d], base);
                } else if j == LAT - 1 {
                    self.face(&[a, b, d], base);
                } else {
                    self.face(&[a, b, cc, d], base);
                }
            }
        }
    }

    fn base_of(style: &Style) -> Rgba {
        style.fill.map_or(style.color, |f| Rgba { a: 255, ..f })
    }
}

impl DebugDraw for EguiDraw {
    fn segment(&mut self, a: P3, b: P3, style: &Style) {
        self.primitives += 1;
        let (pa, pb) = (self.cam.project(a), self.cam.project(b));
        let stroke = Stroke::new(Self::line_width(style), color(style.color));
        // Lines sort slightly in front of the faces they lie on.
        self.push(0.5 * (pa.depth + pb.depth) + 1e-3, Shape::line_segment([pa.pos, pb.pos], stroke));
    }

    fn polyline(&mut self, points: &[P3], closed: bool, style: &Style) {
        self.primitives += 1;
        if points.len() < 2 {
            return;
        }
        let screen: Vec<Pos2> = points.iter().map(|&p| self.px(p)).collect();
        let depth = points.iter().map(|&p| self.cam.depth_of(p)).sum::<f64>() / points.len() as f64;
        let stroke = Stroke::new(Self::line_width(style), color(style.color));
        let shape = if closed { Shape::closed_line(screen, stroke) } else { Shape::line(screen, stroke) };
        self.push(depth + 1e-3, shape);
    }

    fn point(&mut self, p: P3, style: &Style) {
        self.primitives += 1;
        let q = self.cam.project(p);
        self.push(q.depth + 2e-3, Shape::circle_filled(q.pos, 2.5, color(style.color)));
    }

    fn circle(&mut self, center: P3, radius: f64, style: &Style) {
        self.primitives += 1;
        let q = self.cam.project(center);
        let r = ((radius * self.cam.scale) as f32).max(if radius == 0.0 || style.kind == DrawKind::Particle {
            MIN_PARTICLE_PX
        } else {
            0.5
        });
        let stroke = Stroke::new(1.0, color(style.color));
        let fill = style.fill.map_or(Color32::TRANSPARENT, color);
        self.push(q.depth, Shape::Circle(egui::epaint::CircleShape { center: q.pos, radius: r, fill, stroke }));
    }

    fn stadium(&mut self, a: P3, b: P3, radius: f64, style: &Style) {
        self.primitives += 1;
        let d = normalize(sub(b, a)).unwrap_or([1.0, 0.0, 0.0]);
        let ang = d[1].atan2(d[0]);
        let mut pts = Vec::with_capacity(34);
        for (c, from) in [(b, ang - std::f64::consts::FRAC_PI_2), (a, ang + std::f64::consts::FRAC_PI_2)] {
            for k in 0..=16 {
                let t = from + std::f64::consts::PI * k as f64 / 16.0;
                pts.push(self.px([c[0] + radius * t.cos(), c[1] + radius * t.sin(), 0.0]));
            }
        }
        let fill = style.fill.map_or(Color32::TRANSPARENT, color);
        self.flat.push(Shape::convex_polygon(pts, fill, Stroke::new(1.2, color(style.color))));
    }

    fn polygon(&mut self, points: &[P3], style: &Style) {
        self.primitives += 1;
        let pts: Vec<Pos2> = points.iter().map(|&p| self.px(p)).collect();
        let fill = style.fill.map_or(Color32::TRANSPARENT, color);
        self.flat.push(Shape::convex_polygon(pts, fill, Stroke::new(1.2, color(style.color))));
    }

    fn half_plane(&mut self, point: P3, normal: P3, _extent: f64, style: &Style) {
        self.primitives += 1;
        // The solid side (`n·(x − point) ≤ 0`) clipped to the canvas, a little enlarged:
        // software OpenGL bins a triangle over every tile of its bounds, so a band drawn
        // far beyond the view (and clipped only by the scissor) cost ~5 ms a frame.
        let r = self.cam.rect.expand(4.0);
        let corners =
            [r.left_top(), r.right_top(), r.right_bottom(), r.left_bottom()].map(|c| self.cam.unproject(c, 0.0));
        let side = |p: P3| (p[0] - point[0]) * normal[0] + (p[1] - point[1]) * normal[1];
        let mut solid: Vec<Pos2> = Vec::with_capacity(6);
        for k in 0..4 {
            let (a, b) = (corners[k], corners[(k + 1) % 4]);
            let (sa, sb) = (side(a), side(b));
            if sa <= 0.0 {
                solid.push(self.px(a));
            }
            if (sa < 0.0) != (sb < 0.0) && sa != sb {
                let t = sa / (sa - sb);
                solid.push(self.px(add(a, scale(sub(b, a), t))));
            }
        }
        if solid.len() >= 3 {
            let fill = style.fill.map_or(Color32::TRANSPARENT, color);
            self.flat.push(Shape::convex_polygon(solid, fill, Stroke::NONE));
        }
        // The surface line across the canvas.
        let t = [-normal[1], normal[0], 0.0];
        let reach =
            corners.iter().map(|&c| dot(sub(c, point), t).abs() + dot(sub(c, point), normal).abs()).fold(0.0, f64::max);
        let (a, b) = (add(point, scale(t, reach)), sub(point, scale(t, reach)));
        self.flat.push(Shape::line_segment([self.px(a), self.px(b)], Stroke::new(1.5, color(style.color))));
    }

    fn arc(&mut self, center: P3, axis: P3, start: P3, sweep: f64, style: &Style) {
        self.primitives += 1;
        let n = ((sweep.abs() / std::f64::consts::TAU * 32.0).ceil() as usize).clamp(2, 128);
        let u = start;
        let v = cross(normalize(axis).unwrap_or([0.0, 0.0, 1.0]), start);
        let pts: Vec<P3> = (0..=n)
            .map(|k| {
                let t = sweep * k as f64 / n as f64;
                add(center, add(scale(u, t.cos()), scale(v, t.sin())))
            })
            .collect();
        let screen: Vec<Pos2> = pts.iter().map(|&p| self.px(p)).collect();
        let depth = self.cam.depth_of(center) + 1e-3;
        if let Some(fill) = style.fill {
            let mut mesh = Mesh::default();
            let c = self.px(center);
            let col = color(fill);
            mesh.vertices.push(Vertex { pos: c, uv: Pos2::ZERO, color: col });
            for &p in &screen {
                mesh.vertices.push(Vertex { pos: p, uv: Pos2::ZERO, color: col });
            }
            for k in 1..screen.len() as u32 {
                mesh.add_triangle(0, k, k + 1);
            }
            self.push(depth, Shape::mesh(mesh));
        }
        self.push(depth, Shape::line(screen, Stroke::new(1.2, color(style.color))));
    }

    fn sphere(&mut self, center: P3, radius: f64, style: &Style) {
        self.primitives += 1;
        let r = radius.max(f64::from(MIN_PARTICLE_PX) / self.cam.scale);
        let px = (r * self.cam.scale) as f32;
        if px < 6.0 {
            // Too small for faces: a disc in the shade of a face turned to the viewer.
            let q = self.cam.project(center);
            let fill = self.shade(Self::base_of(style), self.towards_viewer);
            self.items.push(Item { depth: q.depth, shape: Shape::circle_filled(q.pos, px, fill) });
            return;
        }
        self.sphere_faces(center, r, Self::base_of(style));
    }

    fn capsule(&mut self, a: P3, b: P3, radius: f64, style: &Style) {
        self.primitives += 1;
        let base = Self::base_of(style);
        self.sphere_faces(a, radius, base);
        self.sphere_faces(b, radius, base);
        let axis = normalize(sub(b, a)).unwrap_or([0.0, 1.0, 0.0]);
        let u = perpendicular(axis);
        let v = cross(axis, u);
        const SIDES: usize = 12;
        let ring = |c: P3, k: usize| {
            let t = std::f64::consts::TAU * k as f64 / SIDES as f64;
            add(c, add(scale(u, radius * t.cos()), scale(v, radius * t.sin())))
        };
        for k in 0..SIDES {
            self.face(&[ring(a, k), ring(a, k + 1), ring(b, k + 1), ring(b, k)], base);
        }
    }

    fn cuboid(&mut self, center: P3, half: P3, axes: [P3; 3], style: &Style) {
        self.primitives += 1;
        let corner = |sx: f64, sy: f64, sz: f64| {
            add(
                center,
                add(scale(axes[0], sx * half[0]), add(scale(axes[1], sy * half[1]), scale(axes[2], sz * half[2]))),
            )
        };
        if half[2] == 0.0 {
            let pts = [corner(-1.0, -1.0, 0.0), corner(1.0, -1.0, 0.0), corner(1.0, 1.0, 0.0), corner(-1.0, 1.0, 0.0)];
            self.primitives -= 1;
            return self.polygon(&pts, style);
        }
        let base = Self::base_of(style);
        // Each face counter-clockwise seen from outside.
        let faces = [
            [(1.0, -1.0, -1.0), (1.0, 1.0, -1.0), (1.0, 1.0, 1.0), (1.0, -1.0, 1.0)],
            [(-1.0, -1.0, -1.0), (-1.0, -1.0, 1.0), (-1.0, 1.0, 1.0), (-1.0, 1.0, -1.0)],
            [(-1.0, 1.0, -1.0), (-1.0, 1.0, 1.0), (1.0, 1.0, 1.0), (1.0, 1.0, -1.0)],
            [(-1.0, -1.0, -1.0), (1.0, -1.0, -1.0), (1.0, -1.0, 1.0), (-1.0, -1.0, 1.0)],
            [(-1.0, -1.0, 1.0), (1.0, -1.0, 1.0), (1.0, 1.0, 1.0), (-1.0, 1.0, 1.0)],
            [(-1.0, -1.0, -1.0), (-1.0, 1.0, -1.0), (1.0, 1.0, -1.0), (1.0, -1.0, -1.0)],
        ];
        for f in faces {
            let pts = f.map(|(x, y, z)| corner(x, y, z));
            self.face(&pts, base);
        }
    }

    fn hull(&mut self, hull: &HullMesh<'_>, style: &Style) {
        self.primitives += 1;
        let base = Self::base_of(style);
        for t in hull.triangles {
            let v = |i: u32| hull.vertices.get(i as usize).copied();
            if let (Some(a), Some(b), Some(c)) = (v(t[0]), v(t[1]), v(t[2])) {
                self.face(&[a, b, c], base);
            }
        }
    }

    fn half_space(&mut self, point: P3, normal: P3, extent: f64, style: &Style) {
        self.primitives += 1;
        let u = scale(perpendicular(normal), extent);
        let v = scale(cross(normal, perpendicular(normal)), extent);
        let sq = [add(add(point, u), v), add(sub(point, u), v), sub(sub(point, u), v), sub(add(point, u), v)];
        let base = Self::base_of(style);
        let fill = self.shade(base, normal);
        let screen: Vec<Pos2> = sq.iter().map(|&p| self.px(p)).collect();
        self.flat.push(Shape::convex_polygon(screen, fill, Stroke::new(1.0, color(style.color))));
        // A grid, for depth.
        let grid = Stroke::new(0.7, color(style.color.with_alpha(90)));
        for k in 1..10 {
            let t = -1.0 + 2.0 * k as f64 / 10.0;
            let (a, b) = (add(add(point, scale(u, t)), v), sub(add(point, scale(u, t)), v));
            let (c, d) = (add(add(point, scale(v, t)), u), sub(add(point, scale(v, t)), u));
            self.flat.push(Shape::line_segment([self.px(a), self.px(b)], grid));
            self.flat.push(Shape::line_segment([self.px(c), self.px(d)], grid));
        }
    }

    fn rope(&mut self, rope: &RopeStrand<'_>, style: &Style) {
        self.primitives += 1;
        let width = ((rope.radius * 2.0 * self.cam.scale) as f32).clamp(2.0, 8.0);
        let n = rope.points.len();
        if n < 2 {
            return;
        }
        let colour = |i: usize| rope.colors.get(i).copied().unwrap_or(style.color);
        // One polyline per run of segments of the same colour (the tension ramp has a few
        // levels): far fewer shapes than one per segment.
        let mut start = 0;
        while start < n - 1 {
            let c = colour(start);
            let mut end = start + 1;
            while end < n - 1 && colour(end) == c {
                end += 1;
            }
            let pts: Vec<Pos2> = rope.points[start..=end].iter().map(|&p| self.px(p)).collect();
            let depth = rope.points[start..=end].iter().map(|&p| self.cam.depth_of(p)).sum::<f64>() / pts.len() as f64;
            self.push(depth + 1e-3, Shape::line(pts, Stroke::new(width, color(c))));
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::{Rect, Vec2};
    use sinew::debug_draw::DebugDrawOptions;

    fn camera(dim: usize) -> Camera {
        let rect = Rect::from_min_size(Pos2::ZERO, Vec2::new(640.0, 480.0));
        Camera::fit(dim, [-1.0, -1.0, -1.0], [1.0, 1.0, 1.0], rect, 30.0, 20.0)
    }

    #[test]
    fn a_sphere_shows_only_faces_towards_the_viewer_lit_unevenly() {
        let mut d = EguiDraw::new(camera(3));
        d.sphere([0.0; 3], 0.5, &Style::of(DrawKind::Collider).with_fill(Rgba::rgb(200, 200, 200)));
        let shapes = d.finish();
        // 12 × 8 faces, about half visible.
        assert!(shapes.len() > 30 && shapes.len() < 70, "{}", shapes.len());
        let fills: std::collections::BTreeSet<_> =
            shapes.iter().filter_map(|s| if let Shape::Path(p) = s { Some(p.fill.to_array()) } else { None }).collect();
        assert!(fills.len() > 5, "flat shading gives faces different shades");
    }

    #[test]
    fn a_3d_scene_draws_solids_sorted_far_to_near() {
        let text = std::fs::read_to_string(crate::catalog::scenes_dir().join("ragdoll_3d.json")).unwrap();
        let (_, sim) = crate::sim::load_str(&text).unwrap();
        let mut d = EguiDraw::new(camera(3));
        sim.draw(&mut d, &DebugDrawOptions::default());
        assert!(d.primitives > 20);
        let depths: Vec<f64> = d.items.iter().map(|i| i.depth).collect();
        let shapes = d.finish();
        assert!(shapes.len() > depths.len());
    }
}
