//! Drawing scenes: the last frame as a PNG, or the run as a looping animated GIF.
//!
//! Rendering uses tiny-skia (anti-aliased, no text). A [`View`] maps world coordinates to
//! pixels: in 2D it fits a box (y up in the world, down in the image); in 3D it is an
//! orthographic projection after turning the world by a yaw about y and a pitch about x.
//! The view is fitted once, before the run, so the camera never jumps between frames.

use sinew_scene::spec::ViewSpec;
use sinew_scene::{DrawList, Simulation};
use std::io::Write as _;
use std::path::Path;
use tiny_skia::{Color, FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Stroke, Transform};

/// Settings for [`render`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Frames to simulate.
    pub frames: u64,
    /// GIF only: draw every k-th frame (0 counts as 1).
    pub every: u64,
    /// Also draw the path each free particle has travelled so far.
    pub trail: bool,
}

impl Default for RenderOptions {
    /// 800×600, 300 frames, every 2nd frame in a GIF, no trails.
    fn default() -> Self {
        Self { width: 800, height: 600, frames: 300, every: 2, trail: false }
    }
}

const BACKGROUND: [u8; 3] = [0xf4, 0xf1, 0xea];
const PLANE_FILL: [u8; 3] = [0xc4, 0xbe, 0xb2];
const PLANE_EDGE: [u8; 3] = [0x6e, 0x68, 0x5e];
const GRID: [u8; 3] = [0xc9, 0xc3, 0xb8];
const COLLIDER_FILL: [u8; 3] = [0xd6, 0xd1, 0xc7];
const COLLIDER_EDGE: [u8; 3] = [0x55, 0x51, 0x4b];
const ROPE: [u8; 3] = [0xb0, 0x68, 0x2a];
const PARTICLE: [u8; 3] = [0x2e, 0x3a, 0x4c];
const PINNED: [u8; 3] = [0xd2, 0x2f, 0x27];
const TRAIL: [u8; 3] = [0x3d, 0x7a, 0xb8];
const SCALE_BAR: [u8; 3] = [0x33, 0x33, 0x33];

/// Default 3D camera yaw (degrees about y).
const DEFAULT_YAW_DEG: f64 = 30.0;
/// Default 3D camera pitch (degrees about x).
const DEFAULT_PITCH_DEG: f64 = 20.0;
/// Margin around automatically fitted content, as a fraction of its larger extent.
const MARGIN: f64 = 0.1;
/// Trail samples kept over all particles together (bounds memory for long runs).
const TRAIL_BUDGET: usize = 2_000_000;

/// The world-to-pixel mapping of one image.
///
/// 2D: the world's x right and y up map to the image's x right and y down. 3D: the world
/// is turned by `yaw` about y, then by `pitch` about x, and projected orthographically
/// along the resulting z (which points at the viewer).
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    dim: usize,
    width: u32,
    height: u32,
    /// Rows: the world directions of screen right, screen up and towards the viewer.
    axes: [[f64; 3]; 3],
    /// Projected (screen-plane) coordinates at the centre of the image.
    center: [f64; 2],
    /// Pixels per metre.
    scale: f64,
    /// The world box the view was fitted to (3D plane grids span it).
    region: ([f64; 3], [f64; 3]),
}

/// A point that must be in view, with a radius around it.
#[derive(Clone, Copy, Debug)]
struct Pt {
    p: [f64; 3],
    pad: f64,
}

impl View {
    /// Fits a view of `width`×`height` pixels to a frame.
    ///
    /// With `hint.min`/`hint.max` (2D: `[x, y]`, 3D: the corners of a world region) the view
    /// shows that region; otherwise it shows the particles and bounded colliders with a 10%
    /// margin, widened to where a chain hanging from one pin can swing and to the part of any
    /// nearby plane (within twice the content's size) under the content. The aspect ratio is
    /// kept. In 3D, `hint.yaw_deg`/`hint.pitch_deg` (default 30°/20°) turn the camera.
    #[must_use]
    pub fn fit(list: &DrawList, hint: Option<&ViewSpec>, width: u32, height: u32) -> View {
        Self::fit_lists(&[list], &[], hint, width, height)
    }

    /// Fits a view to everything in several frames plus extra points.
    fn fit_lists(lists: &[&DrawList], extra: &[[f64; 3]], hint: Option<&ViewSpec>, width: u32, height: u32) -> View {
        let dim = if lists.first().is_some_and(|l| l.dim == 3) { 3 } else { 2 };
        let axes = if dim == 3 { camera_axes(hint) } else { [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] };
        let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
        let mut view = View { dim, width, height, axes, center: [0.0; 2], scale: 1.0, region: ([-1.0; 3], [1.0; 3]) };

        if let Some((lo, hi)) = hint_region(hint, dim) {
            let corners = box_corners(lo, hi, dim);
            let (plo, phi) = view.projected_bounds(corners.iter().map(|&p| Pt { p, pad: 0.0 }));
            view.set_window(plo, phi, 0.0, w, h);
            view.region = (lo, hi);
            return view;
        }

        let mut pts = Vec::new();
        for list in lists {
            content_points(list, &mut pts);
            reach_points(list, &mut pts);
        }
        pts.extend(extra.iter().filter(|p| finite3(**p)).map(|&p| Pt { p, pad: 0.0 }));
        if let Some((lo, hi)) = world_bounds(&pts) {
            let c = mid(lo, hi);
            let size = (0..3).map(|i| hi[i] - lo[i]).fold(1.0f64, f64::max);
            for list in lists {
                for &(n, off) in &list.planes {
                    let d = dot(n, c) - off;
                    if finite3(n) && d.is_finite() && d.abs() <= 2.0 * size {
                        // The content's shadow on the plane, so the ground under it shows.
                        for p in box_corners(lo, hi, dim) {
                            let e = dot(n, p) - off;
                            pts.push(Pt { p: add_scaled(p, n, -e), pad: 0.0 });
                        }
                    }
                }
            }
        }
        let Some((mut lo, mut hi)) = world_bounds(&pts) else {
            // Nothing to show: a 2 m box around the origin.
            let (lo, hi) =
                ([-1.0, -1.0, if dim == 3 { -1.0 } else { 0.0 }], [1.0, 1.0, if dim == 3 { 1.0 } else { 0.0 }]);
            let corners = box_corners(lo, hi, dim);
            let (plo, phi) = view.projected_bounds(corners.iter().map(|&p| Pt { p, pad: 0.0 }));
            view.set_window(plo, phi, 0.0, w, h);
            view.region = (lo, hi);
            return view;
        };
        let extent = (0..dim).map(|i| hi[i] - lo[i]).fold(0.0f64, f64::max);
        let margin = if extent > 1e-9 { MARGIN * extent } else { 0.5 };
        for i in 0..dim {
            lo[i] -= margin;
            hi[i] += margin;
        }
        view.region = (lo, hi);
        let (plo, phi) = view.projected_bounds(pts.iter().copied());
        view.set_window(plo, phi, MARGIN, w, h);
        view
    }

    /// Bounding box of points in projected coordinates.
    fn projected_bounds(&self, pts: impl Iterator<Item = Pt>) -> ([f64; 2], [f64; 2]) {
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for Pt { p, pad } in pts {
            let q = self.rotate(p);
            for i in 0..2 {
                lo[i] = lo[i].min(q[i] - pad);
                hi[i] = hi[i].max(q[i] + pad);
            }
        }
        if !(lo[0] <= hi[0] && lo[1] <= hi[1]) {
            return ([-1.0; 2], [1.0; 2]);
        }
        (lo, hi)
    }

    /// Centres the projected box `lo..hi` (plus `margin` times its larger side) in the image.
    fn set_window(&mut self, lo: [f64; 2], hi: [f64; 2], margin: f64, w: f64, h: f64) {
        let mut size = [hi[0] - lo[0], hi[1] - lo[1]];
        if size[0].max(size[1]) < 1e-9 {
            size = [1.0, 1.0];
        }
        let m = 2.0 * margin * size[0].max(size[1]);
        let scale = (w / (size[0] + m)).min(h / (size[1] + m));
        self.center = [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])];
        self.scale = if scale.is_finite() && scale > 0.0 { scale } else { 1.0 };
    }

    fn rotate(&self, p: [f64; 3]) -> [f64; 3] {
        [dot(self.axes[0], p), dot(self.axes[1], p), dot(self.axes[2], p)]
    }

    /// The pixel position of a world point (`[x, y, 0]` in 2D).
    #[must_use]
    pub fn project(&self, p: [f64; 3]) -> [f32; 2] {
        let q = self.rotate(p);
        let x = 0.5 * f64::from(self.width) + (q[0] - self.center[0]) * self.scale;
        let y = 0.5 * f64::from(self.height) - (q[1] - self.center[1]) * self.scale;
        // Keep far-away points finite and within what the rasteriser accepts.
        [x.clamp(-1e6, 1e6) as f32, y.clamp(-1e6, 1e6) as f32]
    }

    /// Distance of a world point towards the viewer (3D; larger is nearer, 0 in 2D).
    #[must_use]
    pub fn depth(&self, p: [f64; 3]) -> f64 {
        if self.dim == 3 { dot(self.axes[2], p) } else { 0.0 }
    }

    /// The world point under a pixel (in 3D, on the screen plane through the view centre).
    #[must_use]
    pub fn world_at(&self, x: f32, y: f32) -> [f64; 3] {
        let q = [
            self.center[0] + (f64::from(x) - 0.5 * f64::from(self.width)) / self.scale,
            self.center[1] - (f64::from(y) - 0.5 * f64::from(self.height)) / self.scale,
        ];
        let a = &self.axes;
        if self.dim == 3 {
            let c = mid(self.region.0, self.region.1);
            let d = dot(a[2], c);
            std::array::from_fn(|i| a[0][i] * q[0] + a[1][i] * q[1] + a[2][i] * d)
        } else {
            [q[0], q[1], 0.0]
        }
    }

    /// Pixels per metre (in 3D, for lengths parallel to the screen).
    #[must_use]
    #[allow(dead_code, reason = "API for the playground and tests; `render` itself does not need it")]
    pub fn pixels_per_metre(&self) -> f64 {
        self.scale
    }
}

/// Rows of `Rx(pitch) · Ry(yaw)`.
fn camera_axes(hint: Option<&ViewSpec>) -> [[f64; 3]; 3] {
    let angle = |v: Option<f64>, default: f64| v.filter(|a| a.is_finite()).unwrap_or(default).to_radians();
    let yaw = angle(hint.and_then(|h| h.yaw_deg), DEFAULT_YAW_DEG);
    let pitch = angle(hint.and_then(|h| h.pitch_deg), DEFAULT_PITCH_DEG);
    let (sy, cy) = yaw.sin_cos();
    let (sp, cp) = pitch.sin_cos();
    let ry = [[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]];
    let rx = [[1.0, 0.0, 0.0], [0.0, cp, -sp], [0.0, sp, cp]];
    std::array::from_fn(|r| std::array::from_fn(|c| (0..3).map(|k| rx[r][k] * ry[k][c]).sum()))
}

/// The world region named by a view hint, if it is complete and sensible.
fn hint_region(hint: Option<&ViewSpec>, dim: usize) -> Option<([f64; 3], [f64; 3])> {
    let (min, max) = (hint?.min.as_ref()?, hint?.max.as_ref()?);
    if min.len() < dim || max.len() < dim {
        return None;
    }
    let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
    for i in 0..dim {
        lo[i] = min[i].min(max[i]);
        hi[i] = min[i].max(max[i]);
        if !lo[i].is_finite() || !hi[i].is_finite() {
            return None;
        }
    }
    // A 2D window must have an area; a 3D region may be flat but not a point.
    let positive = (0..dim).filter(|&i| hi[i] > lo[i]).count();
    if (dim == 2 && positive < 2) || positive == 0 {
        return None;
    }
    Some((lo, hi))
}

fn box_corners(lo: [f64; 3], hi: [f64; 3], dim: usize) -> Vec<[f64; 3]> {
    let n = if dim == 3 { 8 } else { 4 };
    (0..n)
        .map(|i| {
            [
                if i & 1 == 0 { lo[0] } else { hi[0] },
                if i & 2 == 0 { lo[1] } else { hi[1] },
                if i & 4 == 0 { lo[2] } else { hi[2] },
            ]
        })
        .collect()
}

/// Particles (with their radii) and collider outline points.
fn content_points(list: &DrawList, out: &mut Vec<Pt>) {
    for p in &list.particles {
        if finite3(p.pos) {
            let pad = if p.radius.is_finite() { p.radius.max(0.0) } else { 0.0 };
            out.push(Pt { p: p.pos, pad });
        }
    }
    for o in &list.outlines {
        out.extend(o.points.iter().filter(|p| finite3(**p)).map(|&p| Pt { p, pad: 0.0 }));
    }
}

/// Where chains hanging from a single pinned particle can swing to (y is up).
///
/// A particle at distance `r` from the pin of its linked group can fall to `r` below the
/// pin, and reach sideways as far as a pendulum of length `r` released from its height.
/// Groups with several pins (cloth held at two corners) are left alone.
fn reach_points(list: &DrawList, out: &mut Vec<Pt>) {
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let n = list.particles.len();
    if list.links.is_empty() || n == 0 {
        return;
    }
    let mut parent: Vec<usize> = (0..n).collect();
    for &(a, b) in &list.links {
        if a < n && b < n {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra] = rb;
        }
    }
    // The one pin of each group (usize::MAX when several).
    let mut pin = vec![None::<usize>; n];
    for (i, p) in list.particles.iter().enumerate() {
        if p.pinned && finite3(p.pos) {
            let r = root(&mut parent, i);
            pin[r] = match pin[r] {
                None => Some(i),
                Some(_) => Some(usize::MAX),
            };
        }
    }
    for (i, p) in list.particles.iter().enumerate() {
        let r = root(&mut parent, i);
        let Some(k) = pin[r].filter(|&k| k != usize::MAX) else { continue };
        if p.pinned || !finite3(p.pos) {
            continue;
        }
        let c = list.particles[k].pos;
        let d = sub(p.pos, c);
        let len = dot(d, d).sqrt();
        let drop = -d[1];
        let side = if drop > 0.0 { (len * len - drop * drop).max(0.0).sqrt() } else { len };
        let y = p.pos[1].min(c[1]);
        out.push(Pt { p: [c[0], c[1] - len, c[2]], pad: p.radius.max(0.0) });
        out.push(Pt { p: [c[0] - side, y, c[2]], pad: 0.0 });
        out.push(Pt { p: [c[0] + side, y, c[2]], pad: 0.0 });
        if list.dim == 3 {
            out.push(Pt { p: [c[0], y, c[2] - side], pad: 0.0 });
            out.push(Pt { p: [c[0], y, c[2] + side], pad: 0.0 });
        }
    }
}

fn world_bounds(pts: &[Pt]) -> Option<([f64; 3], [f64; 3])> {
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for Pt { p, pad } in pts {
        for i in 0..3 {
            lo[i] = lo[i].min(p[i] - pad);
            hi[i] = hi[i].max(p[i] + pad);
        }
    }
    (lo[0] <= hi[0]).then_some((lo, hi))
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn add_scaled(a: [f64; 3], b: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] + b[0] * s, a[1] + b[1] * s, a[2] + b[2] * s]
}

fn mid(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2])]
}

fn finite3(p: [f64; 3]) -> bool {
    p.iter().all(|c| c.is_finite())
}

fn paint(rgb: [u8; 3], alpha: u8) -> Paint<'static> {
    let mut paint = Paint { anti_alias: true, ..Paint::default() };
    paint.set_color_rgba8(rgb[0], rgb[1], rgb[2], alpha);
    paint
}

fn stroke(width: f32) -> Stroke {
    Stroke { width, line_cap: LineCap::Round, line_join: LineJoin::Round, ..Stroke::default() }
}

/// `rgb` faded towards the background by `t` in `0..=1`.
fn fade(rgb: [u8; 3], t: f64) -> [u8; 3] {
    let t = t.clamp(0.0, 1.0);
    std::array::from_fn(|i| (f64::from(rgb[i]) + (f64::from(BACKGROUND[i]) - f64::from(rgb[i])) * t).round() as u8)
}

fn fill(pixmap: &mut Pixmap, pb: PathBuilder, rgb: [u8; 3]) {
    if let Some(path) = pb.finish() {
        pixmap.fill_path(&path, &paint(rgb, 255), FillRule::Winding, Transform::identity(), None);
    }
}

fn stroke_path(pixmap: &mut Pixmap, pb: PathBuilder, rgb: [u8; 3], alpha: u8, width: f32) {
    if let Some(path) = pb.finish() {
        pixmap.stroke_path(&path, &paint(rgb, alpha), &stroke(width), Transform::identity(), None);
    }
}

/// Recorded particle paths, thinned as they grow so memory stays bounded.
struct Trails {
    stride: u64,
    ticks: u64,
    cap: usize,
    paths: Vec<Vec<[f64; 3]>>,
}

impl Trails {
    fn new(particles: usize) -> Self {
        Trails { stride: 1, ticks: 0, cap: (TRAIL_BUDGET / particles.max(1)).clamp(4, 1024), paths: Vec::new() }
    }

    /// Records one frame (call once per simulated frame).
    fn record(&mut self, list: &DrawList) {
        if self.ticks % self.stride == 0 {
            if self.paths.len() < list.particles.len() {
                self.paths.resize_with(list.particles.len(), Vec::new);
            }
            let mut full = false;
            for (path, p) in self.paths.iter_mut().zip(&list.particles) {
                if !p.pinned && finite3(p.pos) {
                    path.push(p.pos);
                    full |= path.len() > self.cap;
                }
            }
            if full {
                for path in &mut self.paths {
                    let mut k = 0;
                    path.retain(|_| {
                        k += 1;
                        k % 2 == 1
                    });
                }
                self.stride *= 2;
            }
        }
        self.ticks += 1;
    }

    fn points(&self) -> impl Iterator<Item = [f64; 3]> + '_ {
        self.paths.iter().flatten().copied()
    }
}

/// Draws one frame into a pixmap: background, ground planes, colliders, links, particles
/// (pinned ones red) and a scale bar (1 m when it fits) in the bottom-left corner.
#[allow(dead_code, reason = "API for the playground and tests; `render` draws through `draw_scene`")]
pub fn draw_frame(list: &DrawList, view: &View, pixmap: &mut Pixmap) {
    draw_scene(list, view, None, pixmap);
}

fn draw_scene(list: &DrawList, view: &View, trails: Option<&Trails>, pixmap: &mut Pixmap) {
    pixmap.fill(Color::from_rgba8(BACKGROUND[0], BACKGROUND[1], BACKGROUND[2], 255));
    if view.dim == 3 {
        draw_3d(list, view, trails, pixmap);
    } else {
        draw_2d(list, view, trails, pixmap);
    }
    draw_scale_bar(view, pixmap);
}

/// Link width: thinner when links are only a few pixels long (dense cloth).
fn link_width(list: &DrawList, view: &View) -> f32 {
    let n = list.particles.len();
    let mut lengths: Vec<f32> = list
        .links
        .iter()
        .filter(|&&(a, b)| a < n && b < n)
        .map(|&(a, b)| {
            let (pa, pb) = (view.project(list.particles[a].pos), view.project(list.particles[b].pos));
            (pa[0] - pb[0]).hypot(pa[1] - pb[1])
        })
        .filter(|l| l.is_finite())
        .collect();
    if lengths.is_empty() {
        return 2.5;
    }
    let m = lengths.len() / 2;
    let median = *lengths.select_nth_unstable_by(m, f32::total_cmp).1;
    (median * 0.3).clamp(1.0, 2.5)
}

/// Rope curve width: the rope's diameter on screen, at least 2.5 px so thin ropes show.
fn curve_width(view: &View, radius: f64) -> f32 {
    let w = if radius.is_finite() { (2.0 * radius * view.scale) as f32 } else { 0.0 };
    w.clamp(2.5, 40.0)
}

fn dot_radius(view: &View, radius: f64, pinned: bool) -> f32 {
    let r = if radius.is_finite() { (radius * view.scale) as f32 } else { 0.0 };
    r.max(if pinned { 3.5 } else { 2.0 }).min(1e5)
}

fn trail_path(list: &DrawList, view: &View, trails: &Trails) -> PathBuilder {
    let mut pb = PathBuilder::new();
    for (i, path) in trails.paths.iter().enumerate() {
        let Some(first) = path.first() else { continue };
        let q = view.project(*first);
        pb.move_to(q[0], q[1]);
        for &p in &path[1..] {
            let q = view.project(p);
            pb.line_to(q[0], q[1]);
        }
        if let Some(p) = list.particles.get(i).filter(|p| finite3(p.pos)) {
            let q = view.project(p.pos);
            pb.line_to(q[0], q[1]);
        }
    }
    pb
}

fn draw_2d(list: &DrawList, view: &View, trails: Option<&Trails>, pixmap: &mut Pixmap) {
    let (w, h) = (pixmap.width() as f32, pixmap.height() as f32);
    // The image rectangle in world space, a little larger so clipped edges stay out of sight.
    let rect = [
        view.world_at(-8.0, -8.0),
        view.world_at(w + 8.0, -8.0),
        view.world_at(w + 8.0, h + 8.0),
        view.world_at(-8.0, h + 8.0),
    ];
    for &(n, off) in &list.planes {
        if !finite3(n) || !off.is_finite() {
            continue;
        }
        let (solid, edge) = clip_solid_side(&rect, n, off);
        if solid.len() >= 3 {
            let mut pb = PathBuilder::new();
            polyline(&mut pb, view, &solid, true);
            fill(pixmap, pb, PLANE_FILL);
        }
        if edge.len() == 2 {
            let mut pb = PathBuilder::new();
            polyline(&mut pb, view, &edge, false);
            stroke_path(pixmap, pb, PLANE_EDGE, 255, 2.0);
        }
    }
    for o in &list.outlines {
        let pts: Vec<[f64; 3]> = o.points.iter().copied().filter(|p| finite3(*p)).collect();
        if pts.len() >= 3 && o.closed {
            let mut pb = PathBuilder::new();
            polyline(&mut pb, view, &pts, true);
            fill(pixmap, pb, COLLIDER_FILL);
        }
        let mut pb = PathBuilder::new();
        polyline(&mut pb, view, &pts, o.closed);
        stroke_path(pixmap, pb, COLLIDER_EDGE, 255, 1.5);
    }
    if let Some(t) = trails {
        stroke_path(pixmap, trail_path(list, view, t), TRAIL, 110, 1.2);
    }
    let mut pb = PathBuilder::new();
    for &(a, b) in &list.links {
        let (Some(pa), Some(pc)) = (list.particles.get(a), list.particles.get(b)) else { continue };
        if finite3(pa.pos) && finite3(pc.pos) {
            let (qa, qb) = (view.project(pa.pos), view.project(pc.pos));
            pb.move_to(qa[0], qa[1]);
            pb.line_to(qb[0], qb[1]);
        }
    }
    stroke_path(pixmap, pb, ROPE, 255, link_width(list, view));
    for c in &list.curves {
        let pts: Vec<[f64; 3]> = c.points.iter().copied().filter(|p| finite3(*p)).collect();
        let mut pb = PathBuilder::new();
        polyline(&mut pb, view, &pts, false);
        stroke_path(pixmap, pb, ROPE, 255, curve_width(view, c.radius));
    }
    for pinned in [false, true] {
        let mut pb = PathBuilder::new();
        let mut big = PathBuilder::new();
        for p in list.particles.iter().filter(|p| p.pinned == pinned && !p.hidden && finite3(p.pos)) {
            let q = view.project(p.pos);
            let r = dot_radius(view, p.radius, pinned);
            pb.push_circle(q[0], q[1], r);
            if r >= 5.0 {
                big.push_circle(q[0], q[1], r);
            }
        }
        let rgb = if pinned { PINNED } else { PARTICLE };
        fill(pixmap, pb, rgb);
        stroke_path(pixmap, big, rgb.map(|c| c / 2), 255, 1.0);
    }
}

/// Clips the rectangle to the solid side `n·x < off` of a half-plane; also returns the
/// boundary segment inside the rectangle.
fn clip_solid_side(rect: &[[f64; 3]; 4], n: [f64; 3], off: f64) -> (Vec<[f64; 3]>, Vec<[f64; 3]>) {
    let mut solid = Vec::with_capacity(6);
    let mut edge = Vec::with_capacity(2);
    for i in 0..4 {
        let (a, b) = (rect[i], rect[(i + 1) % 4]);
        let (da, db) = (dot(n, a) - off, dot(n, b) - off);
        if da < 0.0 {
            solid.push(a);
        }
        if (da < 0.0) != (db < 0.0) {
            let t = da / (da - db);
            let x = add_scaled(a, sub(b, a), t);
            solid.push(x);
            edge.push(x);
        }
    }
    (solid, edge)
}

fn polyline(pb: &mut PathBuilder, view: &View, pts: &[[f64; 3]], closed: bool) {
    for (i, &p) in pts.iter().enumerate() {
        let q = view.project(p);
        if i == 0 {
            pb.move_to(q[0], q[1]);
        } else {
            pb.line_to(q[0], q[1]);
        }
    }
    if closed && pts.len() > 2 {
        pb.close();
    }
}

/// Something drawn in depth order in 3D.
enum Item {
    Segment([f64; 3], [f64; 3]),
    Curve([f64; 3], [f64; 3], f32),
    Link(usize, usize),
    Particle(usize),
}

fn draw_3d(list: &DrawList, view: &View, trails: Option<&Trails>, pixmap: &mut Pixmap) {
    let (lo, hi) = view.region;
    let corners = box_corners(lo, hi, 3);
    let center = mid(lo, hi);
    // Depth range of the region, for fading far things towards the background.
    let (dmin, dmax) = corners
        .iter()
        .map(|&c| view.depth(c))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), d| (a.min(d), b.max(d)));
    let far = |d: f64| if dmax > dmin { 0.4 * (dmax - d) / (dmax - dmin) } else { 0.0 };

    for &(n, off) in &list.planes {
        if !finite3(n) || !off.is_finite() || dot(n, n) < 1e-12 {
            continue;
        }
        let n = {
            let l = dot(n, n).sqrt();
            [n[0] / l, n[1] / l, n[2] / l]
        };
        let origin = add_scaled(center, n, -(dot(n, center) - off));
        // In-plane axes: start from the world axis most perpendicular to the normal.
        let axis = (0..3).min_by(|&i, &j| n[i].abs().total_cmp(&n[j].abs())).unwrap_or(0);
        let mut e = [0.0; 3];
        e[axis] = 1.0;
        let u = add_scaled(e, n, -n[axis]);
        let ul = dot(u, u).sqrt();
        let u = [u[0] / ul, u[1] / ul, u[2] / ul];
        let v = [n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2], n[0] * u[1] - n[1] * u[0]];
        let su = corners.iter().map(|&c| dot(sub(c, origin), u).abs()).fold(0.0, f64::max);
        let sv = corners.iter().map(|&c| dot(sub(c, origin), v).abs()).fold(0.0, f64::max);
        let mut pb = PathBuilder::new();
        for k in 0..=10 {
            let t = f64::from(k) / 5.0 - 1.0;
            for (along, across, s_along, s_across) in [(u, v, su, sv), (v, u, sv, su)] {
                let base = add_scaled(origin, along, t * s_along);
                let a = view.project(add_scaled(base, across, -s_across));
                let b = view.project(add_scaled(base, across, s_across));
                pb.move_to(a[0], a[1]);
                pb.line_to(b[0], b[1]);
            }
        }
        stroke_path(pixmap, pb, GRID, 255, 1.0);
    }

    if let Some(t) = trails {
        stroke_path(pixmap, trail_path(list, view, t), TRAIL, 110, 1.2);
    }

    let n = list.particles.len();
    let mut items: Vec<(f64, Item)> = Vec::new();
    for o in &list.outlines {
        let pts: Vec<[f64; 3]> = o.points.iter().copied().filter(|p| finite3(*p)).collect();
        let count = if o.closed && pts.len() > 2 { pts.len() } else { pts.len().saturating_sub(1) };
        for i in 0..count {
            let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
            items.push((view.depth(mid(a, b)), Item::Segment(a, b)));
        }
    }
    for &(a, b) in &list.links {
        if a < n && b < n && finite3(list.particles[a].pos) && finite3(list.particles[b].pos) {
            items.push((view.depth(mid(list.particles[a].pos, list.particles[b].pos)), Item::Link(a, b)));
        }
    }
    for c in &list.curves {
        let w = curve_width(view, c.radius);
        for pair in c.points.windows(2) {
            if finite3(pair[0]) && finite3(pair[1]) {
                items.push((view.depth(mid(pair[0], pair[1])), Item::Curve(pair[0], pair[1], w)));
            }
        }
    }
    for (i, p) in list.particles.iter().enumerate() {
        if finite3(p.pos) && !p.hidden {
            // Pins go on top of everything so the links attached to them never hide them.
            let depth = if p.pinned { f64::INFINITY } else { view.depth(p.pos) };
            items.push((depth, Item::Particle(i)));
        }
    }
    items.sort_by(|a, b| a.0.total_cmp(&b.0));

    let link_w = link_width(list, view);
    for (d, item) in items {
        let t = far(d);
        let mut pb = PathBuilder::new();
        match item {
            Item::Segment(a, b) => {
                let (qa, qb) = (view.project(a), view.project(b));
                pb.move_to(qa[0], qa[1]);
                pb.line_to(qb[0], qb[1]);
                stroke_path(pixmap, pb, fade(COLLIDER_EDGE, t), 255, 1.3);
            }
            Item::Curve(a, b, w) => {
                let (qa, qb) = (view.project(a), view.project(b));
                pb.move_to(qa[0], qa[1]);
                pb.line_to(qb[0], qb[1]);
                stroke_path(pixmap, pb, fade(ROPE, t), 255, w);
            }
            Item::Link(a, b) => {
                let (qa, qb) = (view.project(list.particles[a].pos), view.project(list.particles[b].pos));
                pb.move_to(qa[0], qa[1]);
                pb.line_to(qb[0], qb[1]);
                stroke_path(pixmap, pb, fade(ROPE, t), 255, link_w);
            }
            Item::Particle(i) => {
                let p = list.particles[i];
                let q = view.project(p.pos);
                let r = dot_radius(view, p.radius, p.pinned);
                pb.push_circle(q[0], q[1], r);
                // Pinned particles stay full red so they read as pins at any depth.
                let rgb = if p.pinned { PINNED } else { fade(PARTICLE, t) };
                fill(pixmap, pb, rgb);
                if r >= 5.0 {
                    let mut rim = PathBuilder::new();
                    rim.push_circle(q[0], q[1], r);
                    stroke_path(pixmap, rim, rgb.map(|c| c / 2), 255, 1.0);
                }
            }
        }
    }
}

/// A bar with end ticks in the bottom-left corner: 1 m, or the nearest power of ten that
/// fits between 8 pixels and 40% of the image width.
fn draw_scale_bar(view: &View, pixmap: &mut Pixmap) {
    let (w, h) = (pixmap.width() as f32, pixmap.height() as f32);
    let scale = view.scale as f32;
    if !(scale.is_finite() && scale > 0.0) {
        return;
    }
    let mut metres = 1.0f32;
    for _ in 0..12 {
        if metres * scale > 0.4 * w {
            metres /= 10.0;
        } else if metres * scale < 8.0 {
            metres *= 10.0;
        } else {
            break;
        }
    }
    let len = metres * scale;
    if !(len >= 2.0 && len <= w) {
        return;
    }
    let (x0, y0) = (16.0f32, h - 16.0);
    let mut pb = PathBuilder::new();
    pb.move_to(x0, y0);
    pb.line_to(x0 + len, y0);
    for x in [x0, x0 + len] {
        pb.move_to(x, y0 + 4.0);
        pb.line_to(x, y0 - 6.0);
    }
    let mut s = stroke(2.0);
    s.line_cap = LineCap::Butt;
    if let Some(path) = pb.finish() {
        pixmap.stroke_path(&path, &paint(SCALE_BAR, 255), &s, Transform::identity(), None);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Png,
    Gif,
}

fn output_format(out: &Path) -> Result<Format, String> {
    let ext = out.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("png") => Ok(Format::Png),
        Some("gif") => Ok(Format::Gif),
        Some(other) => Err(format!("unsupported output format `.{other}` for {}: use .png or .gif", out.display())),
        None => Err(format!("unsupported output format (no extension) for {}: use .png or .gif", out.display())),
    }
}

fn step(sim: &mut dyn Simulation) -> Result<(), String> {
    sim.step().map_err(|e| format!("simulation failed at frame {}: {e}", sim.frame() + 1))
}

/// Steps `sim` for `opts.frames` frames and writes the final frame (`.png`) or an animation
/// (`.gif`: one image every `opts.every` frames starting with the initial state, delay
/// `every·dt` rounded to centiseconds (at least 2), looping). Returns a human-readable summary
/// line such as `wrote out/rope.png (800x600, 300 frames simulated, 5.0 s)`.
///
/// The view comes from the scene's `view` hints, else it is fitted once to the initial frame
/// (for a PNG, to the initial and final frames). Parent directories of `out` are created.
///
/// # Errors
///
/// A one-line message when the extension is not `.png`/`.gif`, the size is zero or too large,
/// a directory or the file cannot be written, or a simulation step fails (the message then
/// names the frame). A GIF left unfinished by an error is removed.
pub fn render(sim: &mut dyn Simulation, out: &Path, opts: &RenderOptions) -> Result<String, String> {
    let format = output_format(out)?;
    let (width, height) = (opts.width, opts.height);
    if width == 0 || height == 0 {
        return Err(format!("image size {width}x{height}: width and height must be at least 1"));
    }
    if format == Format::Gif && (width > u32::from(u16::MAX) || height > u32::from(u16::MAX)) {
        return Err(format!("image size {width}x{height}: a GIF is at most 65535 pixels wide and high"));
    }
    let mut pixmap = Pixmap::new(width, height).ok_or_else(|| format!("image size {width}x{height} is too large"))?;
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("cannot create directory {}: {e}", parent.display()))?;
    }
    let first = sim.draw();
    let mut trails = opts.trail.then(|| Trails::new(first.particles.len()));
    if let Some(t) = &mut trails {
        t.record(&first);
    }
    let hint = sim.view().cloned();

    match format {
        Format::Png => {
            for _ in 0..opts.frames {
                step(sim)?;
                if let Some(t) = &mut trails {
                    t.record(&sim.draw());
                }
            }
            let last = sim.draw();
            let trail_pts: Vec<[f64; 3]> = trails.as_ref().map(|t| t.points().collect()).unwrap_or_default();
            let view = View::fit_lists(&[&first, &last], &trail_pts, hint.as_ref(), width, height);
            draw_scene(&last, &view, trails.as_ref(), &mut pixmap);
            let data = pixmap.encode_png().map_err(|e| format!("cannot encode PNG: {e}"))?;
            std::fs::write(out, data).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
            Ok(format!(
                "wrote {} ({width}x{height}, {} frames simulated, {:.1} s)",
                out.display(),
                opts.frames,
                sim.time()
            ))
        }
        Format::Gif => {
            let view = View::fit(&first, hint.as_ref(), width, height);
            let result = write_gif(sim, out, opts, &view, &first, trails.as_mut(), &mut pixmap);
            if result.is_err() {
                let _ = std::fs::remove_file(out);
            }
            let images = result?;
            Ok(format!(
                "wrote {} ({width}x{height}, {images} images, {} frames simulated, {:.1} s)",
                out.display(),
                opts.frames,
                sim.time()
            ))
        }
    }
}

/// The fixed GIF colour table: every drawing colour exactly, its anti-aliasing blends with the
/// background, a grey ramp and a colour cube for everything else. One table for the whole
/// animation keeps colours steady between frames (small red pins never turn orange).
struct Palette {
    /// `[r, g, b, ...]`, 256 entries.
    rgb: Vec<u8>,
    /// Nearest entry of colours seen so far.
    cache: std::collections::HashMap<[u8; 3], u8>,
    last: ([u8; 3], u8),
}

impl Palette {
    fn new() -> Self {
        let style = [
            BACKGROUND,
            PLANE_FILL,
            PLANE_EDGE,
            GRID,
            COLLIDER_FILL,
            COLLIDER_EDGE,
            ROPE,
            PARTICLE,
            PINNED,
            TRAIL,
            SCALE_BAR,
            PARTICLE.map(|c| c / 2),
            PINNED.map(|c| c / 2),
        ];
        let mut colors: Vec<[u8; 3]> = Vec::with_capacity(256);
        for c in style {
            colors.extend([c, fade(c, 0.25), fade(c, 0.5), fade(c, 0.75)]);
        }
        for k in 0..16u8 {
            colors.push([k * 17; 3]);
        }
        for r in 0..5u16 {
            for g in 0..7u16 {
                for b in 0..5u16 {
                    colors.push([(r * 255 / 4) as u8, (g * 255 / 6) as u8, (b * 255 / 4) as u8]);
                }
            }
        }
        colors.truncate(256);
        colors.resize(256, BACKGROUND);
        // Entry 0 is the background, by far the most common pixel.
        Palette { rgb: colors.concat(), cache: std::collections::HashMap::new(), last: (BACKGROUND, 0) }
    }

    fn index(&mut self, c: [u8; 3]) -> u8 {
        if self.last.0 == c {
            return self.last.1;
        }
        let rgb = &self.rgb;
        let i = *self.cache.entry(c).or_insert_with(|| {
            let dist = |e: &[u8]| -> i32 {
                let d = |k: usize| i32::from(e[k]) - i32::from(c[k]);
                2 * d(0) * d(0) + 4 * d(1) * d(1) + 3 * d(2) * d(2)
            };
            rgb.chunks_exact(3).enumerate().min_by_key(|(_, e)| dist(e)).map_or(0, |(i, _)| i as u8)
        });
        self.last = (c, i);
        i
    }
}

/// Writes the GIF frame by frame; returns the number of images.
fn write_gif(
    sim: &mut dyn Simulation,
    out: &Path,
    opts: &RenderOptions,
    view: &View,
    first: &DrawList,
    mut trails: Option<&mut Trails>,
    pixmap: &mut Pixmap,
) -> Result<u64, String> {
    let (w, h) = (opts.width as u16, opts.height as u16);
    let every = opts.every.max(1);
    let cs = (every as f64 * sim.dt() * 100.0).round();
    let delay = if cs.is_finite() { cs.clamp(2.0, f64::from(u16::MAX)) as u16 } else { 2 };
    let io_err = |e: std::io::Error| format!("cannot write {}: {e}", out.display());
    let gif_err = |e: gif::EncodingError| format!("cannot write {}: {e}", out.display());

    let mut palette = Palette::new();
    let file = std::fs::File::create(out).map_err(io_err)?;
    let mut encoder = gif::Encoder::new(std::io::BufWriter::new(file), w, h, &palette.rgb).map_err(gif_err)?;
    encoder.set_repeat(gif::Repeat::Infinite).map_err(gif_err)?;
    let mut indices = vec![0u8; usize::from(w) * usize::from(h)];
    let mut images = 0u64;
    let mut emit = |list: &DrawList, trails: Option<&Trails>, pixmap: &mut Pixmap| -> Result<(), String> {
        draw_scene(list, view, trails, pixmap);
        // The background is opaque, so premultiplied RGBA equals plain RGBA.
        for (index, px) in indices.iter_mut().zip(pixmap.data().chunks_exact(4)) {
            *index = palette.index([px[0], px[1], px[2]]);
        }
        let frame =
            gif::Frame { width: w, height: h, delay, buffer: indices.as_slice().into(), ..gif::Frame::default() };
        encoder.write_frame(&frame).map_err(gif_err)?;
        images += 1;
        Ok(())
    };
    emit(first, trails.as_deref(), pixmap)?;
    for k in 1..=opts.frames {
        step(sim)?;
        let keep = k % every == 0;
        if trails.is_none() && !keep {
            continue;
        }
        let list = sim.draw();
        if let Some(t) = trails.as_deref_mut() {
            t.record(&list);
        }
        if keep {
            emit(&list, trails.as_deref(), pixmap)?;
        }
    }
    encoder.into_inner().map_err(gif_err)?.flush().map_err(io_err)?;
    Ok(images)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const SCENE_2D: &str = r#"{
        "dim": 2,
        "particles": [{"pos": [0, 0], "mass": 0}, {"pos": [0.5, 0]}, {"pos": [1, 0]}],
        "distances": [{"a": 0, "b": 1}, {"a": 1, "b": 2}],
        "colliders": [
            {"plane": {"normal": [0, 1], "offset": -2}},
            {"circle": {"center": [1, -1], "radius": 0.3}},
            {"box": {"center": [0, -1.5], "half_extents": [0.5, 0.1], "angle": 0.2}}
        ]
    }"#;

    const SCENE_3D: &str = r#"{
        "dim": 3,
        "particles": [{"pos": [0, 0, 0], "mass": 0}, {"pos": [0.5, 0, 0]}, {"pos": [1, 0, 0.2]}],
        "distances": [{"a": 0, "b": 1}, {"a": 1, "b": 2}],
        "colliders": [
            {"plane": {"normal": [0, 1, 0], "offset": -2}},
            {"sphere": {"center": [1, -1, 0], "radius": 0.3}},
            {"box": {"center": [0, -1.5, 0], "half_extents": [0.5, 0.1, 0.3], "rotation": [0, 0, 0.0998, 0.995]}}
        ]
    }"#;

    fn temp_dir(name: &str) -> PathBuf {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        std::env::temp_dir().join(format!("sinew-render-{name}-{}-{nanos}", std::process::id()))
    }

    fn small() -> RenderOptions {
        RenderOptions { width: 160, height: 120, frames: 12, every: 3, trail: false }
    }

    fn is_background(px: tiny_skia::PremultipliedColorU8) -> bool {
        [px.red(), px.green(), px.blue()] == BACKGROUND
    }

    /// Pixels within `r` of `(x, y)` that are not background.
    fn inked_near(pixmap: &Pixmap, x: f32, y: f32, r: i64) -> usize {
        let (cx, cy) = (x.round() as i64, y.round() as i64);
        let mut count = 0;
        for py in cy - r..=cy + r {
            for px in cx - r..=cx + r {
                if px < 0 || py < 0 {
                    continue;
                }
                if let Some(c) = pixmap.pixel(px as u32, py as u32) {
                    count += usize::from(!is_background(c));
                }
            }
        }
        count
    }

    fn check_png(path: &Path, w: u32, h: u32) {
        let bytes = std::fs::read(path).expect("png written");
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "PNG signature");
        let img = Pixmap::decode_png(&bytes).expect("png decodes");
        assert_eq!((img.width(), img.height()), (w, h));
        assert!(img.pixels().iter().any(|&p| !is_background(p)), "something drawn");
    }

    fn check_gif(path: &Path, w: u16, h: u16, images: usize) {
        let bytes = std::fs::read(path).expect("gif written");
        assert!(bytes.starts_with(b"GIF89a"), "GIF signature");
        let mut decoder = gif::DecodeOptions::new().read_info(bytes.as_slice()).expect("gif decodes");
        assert_eq!((decoder.width(), decoder.height()), (w, h));
        let mut n = 0;
        while let Some(frame) = decoder.read_next_frame().expect("frame decodes") {
            assert_eq!((frame.width, frame.height), (w, h));
            assert!(frame.delay >= 2);
            n += 1;
        }
        assert_eq!(n, images);
    }

    #[test]
    fn renders_2d_png_and_gif() {
        let dir = temp_dir("2d");
        let mut sim = sinew_scene::load_str(SCENE_2D).expect("scene loads");
        let png = dir.join("nested").join("rope.PNG");
        let msg = render(sim.as_mut(), &png, &small()).expect("png renders");
        assert!(msg.starts_with("wrote ") && msg.contains("160x120") && msg.contains("12 frames"), "{msg}");
        check_png(&png, 160, 120);

        let mut sim = sinew_scene::load_str(SCENE_2D).expect("scene loads");
        let gif = dir.join("rope.gif");
        let opts = RenderOptions { trail: true, ..small() };
        let msg = render(sim.as_mut(), &gif, &opts).expect("gif renders");
        assert!(msg.contains("5 images"), "{msg}");
        check_gif(&gif, 160, 120, 5);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn renders_3d_png_and_gif() {
        let dir = temp_dir("3d");
        let mut sim = sinew_scene::load_str(SCENE_3D).expect("scene loads");
        let png = dir.join("rope3.png");
        render(sim.as_mut(), &png, &RenderOptions { trail: true, ..small() }).expect("png renders");
        check_png(&png, 160, 120);

        let mut sim = sinew_scene::load_str(SCENE_3D).expect("scene loads");
        let gif = dir.join("rope3.gif");
        render(sim.as_mut(), &gif, &RenderOptions { every: 0, frames: 3, ..small() }).expect("gif renders");
        check_gif(&gif, 160, 120, 4);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn draw_frame_marks_particles() {
        for scene in [SCENE_2D, SCENE_3D] {
            let sim = sinew_scene::load_str(scene).expect("scene loads");
            let list = sim.draw();
            let view = View::fit(&list, sim.view(), 200, 150);
            let mut pixmap = Pixmap::new(200, 150).expect("pixmap");
            draw_frame(&list, &view, &mut pixmap);
            for p in &list.particles {
                let q = view.project(p.pos);
                assert!((0.0..200.0).contains(&q[0]) && (0.0..150.0).contains(&q[1]), "{q:?} in view");
                assert!(inked_near(&pixmap, q[0], q[1], 1) > 0, "particle at {q:?} drawn");
            }
            // Pinned particle is red.
            let q = view.project(list.particles[0].pos);
            let c = pixmap.pixel(q[0].round() as u32, q[1].round() as u32).expect("pixel");
            assert!(c.red() > 150 && c.green() < 100, "pinned particle red: {c:?}");
        }
    }

    #[test]
    fn view_2d_keeps_y_up_and_fills_ground() {
        let sim = sinew_scene::load_str(SCENE_2D).expect("scene loads");
        let list = sim.draw();
        let view = View::fit(&list, None, 200, 150);
        let (top, bottom) = (view.project([0.0, 0.0, 0.0]), view.project([0.0, -1.0, 0.0]));
        assert!(bottom[1] > top[1], "y up in the world is up in the image");
        let ground = view.project([0.0, -2.0, 0.0]);
        assert!(ground[1] < 150.0, "ground plane in view: {ground:?}");
        let mut pixmap = Pixmap::new(200, 150).expect("pixmap");
        draw_frame(&list, &view, &mut pixmap);
        // Below the ground line everything is the plane fill (away from the scale bar).
        let c = pixmap.pixel(190, 149).expect("pixel");
        assert_eq!([c.red(), c.green(), c.blue()], PLANE_FILL);
        // Inside the circle collider: collider fill.
        let q = view.project([1.0, -1.0, 0.0]);
        let c = pixmap.pixel(q[0] as u32, q[1] as u32).expect("pixel");
        assert_eq!([c.red(), c.green(), c.blue()], COLLIDER_FILL);
    }

    #[test]
    fn view_hint_sets_the_window() {
        let spec = ViewSpec { min: Some(vec![-5.0, -5.0]), max: Some(vec![5.0, 5.0]), yaw_deg: None, pitch_deg: None };
        let sim = sinew_scene::load_str(SCENE_2D).expect("scene loads");
        let view = View::fit(&sim.draw(), Some(&spec), 200, 100);
        assert!((view.pixels_per_metre() - 10.0).abs() < 1e-9);
        let c = view.project([0.0, 0.0, 0.0]);
        assert!((c[0] - 100.0).abs() < 1e-3 && (c[1] - 50.0).abs() < 1e-3);
        let w = view.world_at(c[0], c[1]);
        assert!(w[0].abs() < 1e-6 && w[1].abs() < 1e-6);
    }

    #[test]
    fn rejects_other_formats() {
        let mut sim = sinew_scene::load_str(SCENE_2D).expect("scene loads");
        let out = temp_dir("bmp").join("x.bmp");
        let err = render(sim.as_mut(), &out, &small()).expect_err("bmp rejected");
        assert!(err.contains("unsupported output format") && err.contains("use .png or .gif"), "{err}");
        assert!(!out.exists());
        let err = render(sim.as_mut(), Path::new("noext"), &small()).expect_err("no extension rejected");
        assert!(err.contains("unsupported output format"), "{err}");
        let err = render(sim.as_mut(), Path::new("x.png"), &RenderOptions { width: 0, ..small() })
            .expect_err("empty image rejected");
        assert!(err.contains("at least 1"), "{err}");
    }

    #[test]
    fn step_errors_are_reported() {
        // A time step that is positive in the file but rounds to 0 in f32 fails at the first
        // step. (Should the loader start rejecting it, there is nothing left to test here.)
        let scene = r#"{"dim": 2, "dt": 1e-50, "particles": [{"pos": [0, 0]}]}"#;
        let Ok(mut sim) = sinew_scene::load_str(scene) else { return };
        let dir = temp_dir("fail");
        let err = render(sim.as_mut(), &dir.join("x.png"), &small()).expect_err("png fails");
        assert!(err.contains("frame 1") && err.contains("time step"), "{err}");
        let mut sim = sinew_scene::load_str(scene).expect("scene loads");
        let gif = dir.join("x.gif");
        let err = render(sim.as_mut(), &gif, &small()).expect_err("gif fails");
        assert!(err.contains("time step"), "{err}");
        assert!(!gif.exists(), "unfinished GIF removed");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn empty_scene_still_renders() {
        let sim = sinew_scene::load_str(r#"{"dim": 3}"#).expect("scene loads");
        let list = sim.draw();
        let view = View::fit(&list, None, 64, 48);
        assert!(view.pixels_per_metre().is_finite() && view.pixels_per_metre() > 0.0);
        let mut pixmap = Pixmap::new(64, 48).expect("pixmap");
        draw_frame(&list, &view, &mut pixmap);
    }
}
