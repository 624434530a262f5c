//! The world-to-pixel mapping: a [`View`] fitted once to the frames it will show.
//!
//! 2D: it fits a box (y up in the world, down in the image). 3D: an orthographic
//! projection after turning the world by a yaw about y and a pitch about x. The view is
//! fitted before the run (to the first frame; for a PNG also to the last), so the camera
//! never jumps between frames.

use super::frame::Frame;
use super::geom::{P3, add_scaled, dot, finite3, mid, sub};
use sinew_scene::spec::ViewSpec;
use std::collections::HashMap;

/// Default 3D camera yaw (degrees about y).
const DEFAULT_YAW_DEG: f64 = 30.0;
/// Default 3D camera pitch (degrees about x).
const DEFAULT_PITCH_DEG: f64 = 20.0;
/// Margin around automatically fitted content, as a fraction of its larger extent.
const MARGIN: f64 = 0.1;

/// The world-to-pixel mapping of one image.
///
/// 2D: the world's x right and y up map to the image's x right and y down. 3D: the world
/// is turned by `yaw` about y, then by `pitch` about x, and projected orthographically
/// along the resulting z (which points at the viewer).
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub(super) dim: usize,
    width: u32,
    height: u32,
    /// Rows: the world directions of screen right, screen up and towards the viewer.
    axes: [[f64; 3]; 3],
    /// Projected (screen-plane) coordinates at the centre of the image.
    center: [f64; 2],
    /// Pixels per metre.
    pub(super) scale: f64,
    /// The world box the view was fitted to (3D plane grids span it).
    pub(super) region: ([f64; 3], [f64; 3]),
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
    pub fn fit(frame: &Frame, hint: Option<&ViewSpec>, width: u32, height: u32) -> View {
        Self::fit_frames(&[frame], &[], hint, width, height)
    }

    /// Fits a view to everything in several frames plus extra points.
    pub fn fit_frames(frames: &[&Frame], extra: &[P3], hint: Option<&ViewSpec>, width: u32, height: u32) -> View {
        let dim = if frames.first().is_some_and(|f| f.dim == 3) { 3 } else { 2 };
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
        for frame in frames {
            content_points(frame, &mut pts);
            reach_points(frame, &mut pts);
        }
        pts.extend(extra.iter().filter(|p| finite3(**p)).map(|&p| Pt { p, pad: 0.0 }));
        if let Some((lo, hi)) = world_bounds(&pts) {
            let c = mid(lo, hi);
            let size = (0..3).map(|i| hi[i] - lo[i]).fold(1.0f64, f64::max);
            for frame in frames {
                for &(n, off) in &frame.planes {
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

pub(super) fn box_corners(lo: [f64; 3], hi: [f64; 3], dim: usize) -> Vec<[f64; 3]> {
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

/// Particles and rope vertices (with their radii) and collider outline points.
fn content_points(frame: &Frame, out: &mut Vec<Pt>) {
    for (_, p, radius, _) in frame.bodies() {
        if finite3(p) {
            let pad = if radius.is_finite() { radius.max(0.0) } else { 0.0 };
            out.push(Pt { p, pad });
        }
    }
    for o in &frame.outlines {
        out.extend(o.points.iter().filter(|p| finite3(**p)).map(|&p| Pt { p, pad: 0.0 }));
    }
}

/// Where chains hanging from a single pinned particle can swing to (y is up).
///
/// A particle at distance `r` from the pin of its linked group can fall to `r` below the
/// pin, and reach sideways as far as a pendulum of length `r` released from its height.
/// Groups with several pins (cloth held at two corners) are left alone. The groups are
/// those the frame's links (distance constraints) join; a link's ends are matched to the
/// particles at exactly their positions (both come from the same world state). Rope
/// segments do not count as links: a rope is fitted where it is.
fn reach_points(frame: &Frame, out: &mut Vec<Pt>) {
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    if frame.links.is_empty() {
        return;
    }
    // Nodes: particles and rope vertices, one per position.
    let key = |p: P3| p.map(f64::to_bits);
    let mut nodes: Vec<(P3, f64, bool)> = Vec::new();
    let mut index: HashMap<[u64; 3], usize> = HashMap::new();
    for (_, p, radius, pinned) in frame.bodies() {
        if !finite3(p) {
            continue;
        }
        let k = *index.entry(key(p)).or_insert_with(|| {
            nodes.push((p, radius, false));
            nodes.len() - 1
        });
        nodes[k].2 |= pinned;
    }
    let n = nodes.len();
    let mut parent: Vec<usize> = (0..n).collect();
    for [a, b] in &frame.links {
        if let (Some(&a), Some(&b)) = (index.get(&key(*a)), index.get(&key(*b))) {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra] = rb;
        }
    }
    // The one pin of each group (usize::MAX when several).
    let mut pin = vec![None::<usize>; n];
    for (i, &(_, _, pinned)) in nodes.iter().enumerate() {
        if pinned {
            let r = root(&mut parent, i);
            pin[r] = match pin[r] {
                None => Some(i),
                Some(_) => Some(usize::MAX),
            };
        }
    }
    for (i, &(p, radius, pinned)) in nodes.iter().enumerate() {
        let r = root(&mut parent, i);
        let Some(k) = pin[r].filter(|&k| k != usize::MAX) else { continue };
        if pinned {
            continue;
        }
        let c = nodes[k].0;
        let d = sub(p, c);
        let len = dot(d, d).sqrt();
        let drop = -d[1];
        let side = if drop > 0.0 { (len * len - drop * drop).max(0.0).sqrt() } else { len };
        let y = p[1].min(c[1]);
        out.push(Pt { p: [c[0], c[1] - len, c[2]], pad: radius.max(0.0) });
        out.push(Pt { p: [c[0] - side, y, c[2]], pad: 0.0 });
        out.push(Pt { p: [c[0] + side, y, c[2]], pad: 0.0 });
        if frame.dim == 3 {
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
