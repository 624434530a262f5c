//! Painting a recorded [`Frame`] with tiny-skia: anti-aliased.
//!
//! 2D is painted in layers — ground planes, colliders, trails, links, ropes, particles
//! (pins on top), debug marks — and 3D as one list of items sorted far to near, faded
//! towards the background with distance. A scale bar with its length written beside it
//! sits in the bottom-left corner, and a caption (the scene's name and time) in the top
//! left when one is given (text: `text.rs`).

use super::frame::{Dot, Frame, Mark, rope_curve};
use super::geom::{P3, add_scaled, dot, finite3, mid, sub};
use super::text;
use super::trails::Trails;
use super::view::{View, box_corners};
use sinew::debug_draw::Rgba;
use std::collections::HashMap;
use tiny_skia::{Color, FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Stroke, Transform};

pub const BACKGROUND: [u8; 3] = [0xf4, 0xf1, 0xea];
pub const PLANE_FILL: [u8; 3] = [0xc4, 0xbe, 0xb2];
pub const PLANE_EDGE: [u8; 3] = [0x6e, 0x68, 0x5e];
pub const GRID: [u8; 3] = [0xc9, 0xc3, 0xb8];
pub const COLLIDER_FILL: [u8; 3] = [0xd6, 0xd1, 0xc7];
pub const COLLIDER_EDGE: [u8; 3] = [0x55, 0x51, 0x4b];
/// Links (distance constraints, ragdoll bones).
pub const LINK: [u8; 3] = [0xb0, 0x68, 0x2a];
pub const PARTICLE: [u8; 3] = [0x2e, 0x3a, 0x4c];
pub const PINNED: [u8; 3] = [0xd2, 0x2f, 0x27];
/// Sleeping particles (when sleep is drawn).
pub const ASLEEP: [u8; 3] = [0x8f, 0x96, 0xa0];
pub const TRAIL: [u8; 3] = [0x3d, 0x7a, 0xb8];
pub const SCALE_BAR: [u8; 3] = [0x33, 0x33, 0x33];

fn paint(rgb: [u8; 3], alpha: u8) -> Paint<'static> {
    let mut paint = Paint { anti_alias: true, ..Paint::default() };
    paint.set_color_rgba8(rgb[0], rgb[1], rgb[2], alpha);
    paint
}

fn stroke(width: f32) -> Stroke {
    Stroke { width, line_cap: LineCap::Round, line_join: LineJoin::Round, ..Stroke::default() }
}

/// `rgb` faded towards the background by `t` in `0..=1`.
pub fn fade(rgb: [u8; 3], t: f64) -> [u8; 3] {
    let t = t.clamp(0.0, 1.0);
    std::array::from_fn(|i| (f64::from(rgb[i]) + (f64::from(BACKGROUND[i]) - f64::from(rgb[i])) * t).round() as u8)
}

fn fill(pixmap: &mut Pixmap, pb: PathBuilder, rgb: [u8; 3], alpha: u8) {
    if let Some(path) = pb.finish() {
        pixmap.fill_path(&path, &paint(rgb, alpha), FillRule::Winding, Transform::identity(), None);
    }
}

fn stroke_path(pixmap: &mut Pixmap, pb: PathBuilder, rgb: [u8; 3], alpha: u8, width: f32) {
    if let Some(path) = pb.finish() {
        pixmap.stroke_path(&path, &paint(rgb, alpha), &stroke(width), Transform::identity(), None);
    }
}

fn rgb(c: Rgba) -> [u8; 3] {
    [c.r, c.g, c.b]
}

/// Draws one frame into a pixmap: background, ground planes, colliders, links, ropes,
/// particles (pinned ones red), debug marks and a scale bar (1 m when it fits) in the
/// bottom-left corner.
#[allow(dead_code, reason = "API for the playground and tests; `render` draws through `draw_scene`")]
pub fn draw_frame(frame: &Frame, view: &View, pixmap: &mut Pixmap) {
    draw_scene(frame, view, None, None, pixmap);
}

/// [`draw_frame`] with trails and a caption in the top-left corner.
pub fn draw_scene(frame: &Frame, view: &View, trails: Option<&Trails>, caption: Option<&str>, pixmap: &mut Pixmap) {
    pixmap.fill(Color::from_rgba8(BACKGROUND[0], BACKGROUND[1], BACKGROUND[2], 255));
    if view.dim == 3 {
        draw_3d(frame, view, trails, pixmap);
    } else {
        draw_2d(frame, view, trails, pixmap);
    }
    draw_scale_bar(view, pixmap);
    if let Some(c) = caption {
        draw_caption(c, pixmap);
    }
}

/// Text size for a picture: 16.7 px at 600 px high, at least 14.
fn text_size(pixmap: &Pixmap) -> f32 {
    (pixmap.height() as f32 / 36.0).clamp(14.0, 28.0)
}

/// A box of the background colour, mostly opaque, behind text at `(x, y)` (baseline left).
fn text_box(pixmap: &mut Pixmap, x: f32, y: f32, width: f32, size: f32) {
    let pad = 0.3 * size;
    let top = y - text::ascent(size) - pad;
    if let Some(r) = tiny_skia::Rect::from_xywh(x - pad, top, width + 2.0 * pad, y + 0.3 * size + pad - top) {
        pixmap.fill_rect(r, &paint(BACKGROUND, 220), Transform::identity(), None);
    }
}

/// The caption in the top-left corner, on a box so lines behind it do not cross it.
fn draw_caption(caption: &str, pixmap: &mut Pixmap) {
    let size = text_size(pixmap);
    let (x, y) = (12.0, 10.0 + text::ascent(size));
    text_box(pixmap, x, y, text::width(caption, size), size);
    text::draw(pixmap, caption, x, y, size, SCALE_BAR);
}

/// The scale bar's label: `1 m`, `10 cm`, `1 mm`, `100 m`.
pub fn length_label(metres: f32) -> String {
    if metres >= 1.0 {
        format!("{metres:.0} m")
    } else if metres >= 0.01 {
        format!("{:.0} cm", metres * 100.0)
    } else {
        format!("{:.0} mm", metres * 1000.0)
    }
}

/// Link width: thinner when links are only a few pixels long (dense cloth).
fn link_width(frame: &Frame, view: &View) -> f32 {
    let mut lengths: Vec<f32> = (frame.links.iter())
        .map(|&[a, b]| {
            let (pa, pb) = (view.project(a), view.project(b));
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

fn dot_color(d: &Dot) -> [u8; 3] {
    if d.pinned {
        PINNED
    } else if d.asleep {
        ASLEEP
    } else {
        PARTICLE
    }
}

fn trail_path(frame: &Frame, view: &View, trails: &Trails) -> PathBuilder {
    let now: HashMap<u32, P3> = frame.bodies().filter_map(|(id, p, _, _)| Some((id?, p))).collect();
    let mut pb = PathBuilder::new();
    for (id, path) in &trails.paths {
        let Some(first) = path.first() else { continue };
        let q = view.project(*first);
        pb.move_to(q[0], q[1]);
        for &p in path[1..].iter().chain(now.get(id).filter(|p| finite3(**p))) {
            let q = view.project(p);
            pb.line_to(q[0], q[1]);
        }
    }
    pb
}

fn segment_path(view: &View, a: P3, b: P3) -> PathBuilder {
    let mut pb = PathBuilder::new();
    let (qa, qb) = (view.project(a), view.project(b));
    pb.move_to(qa[0], qa[1]);
    pb.line_to(qb[0], qb[1]);
    pb
}

fn draw_2d(frame: &Frame, view: &View, trails: Option<&Trails>, pixmap: &mut Pixmap) {
    let (w, h) = (pixmap.width() as f32, pixmap.height() as f32);
    // The image rectangle in world space, a little larger so clipped edges stay out of sight.
    let rect = [
        view.world_at(-8.0, -8.0),
        view.world_at(w + 8.0, -8.0),
        view.world_at(w + 8.0, h + 8.0),
        view.world_at(-8.0, h + 8.0),
    ];
    for &(n, off) in &frame.planes {
        if !finite3(n) || !off.is_finite() {
            continue;
        }
        let (solid, edge) = clip_solid_side(&rect, n, off);
        if solid.len() >= 3 {
            let mut pb = PathBuilder::new();
            polyline(&mut pb, view, &solid, true);
            fill(pixmap, pb, PLANE_FILL, 255);
        }
        if edge.len() == 2 {
            let mut pb = PathBuilder::new();
            polyline(&mut pb, view, &edge, false);
            stroke_path(pixmap, pb, PLANE_EDGE, 255, 2.0);
        }
    }
    for o in &frame.outlines {
        if o.points.len() >= 3 && o.closed {
            let mut pb = PathBuilder::new();
            polyline(&mut pb, view, &o.points, true);
            fill(pixmap, pb, COLLIDER_FILL, 255);
        }
        let mut pb = PathBuilder::new();
        polyline(&mut pb, view, &o.points, o.closed);
        stroke_path(pixmap, pb, COLLIDER_EDGE, 255, 1.5);
    }
    if let Some(t) = trails {
        stroke_path(pixmap, trail_path(frame, view, t), TRAIL, 110, 1.2);
    }
    let mut pb = PathBuilder::new();
    for &[a, b] in &frame.links {
        let (qa, qb) = (view.project(a), view.project(b));
        pb.move_to(qa[0], qa[1]);
        pb.line_to(qb[0], qb[1]);
    }
    stroke_path(pixmap, pb, LINK, 255, link_width(frame, view));
    for rope in &frame.ropes {
        // Runs of pieces of one colour as one path, so that its joins stay smooth.
        let width = curve_width(view, rope.radius);
        let pieces = rope_curve(rope);
        for run in pieces.chunk_by(|x, y| x.2 == y.2) {
            let mut pb = PathBuilder::new();
            let q = view.project(run[0].0);
            pb.move_to(q[0], q[1]);
            for &(_, b, _) in run {
                let q = view.project(b);
                pb.line_to(q[0], q[1]);
            }
            stroke_path(pixmap, pb, run[0].2, 255, width);
        }
    }
    for pinned in [false, true] {
        for (color, dots) in [PARTICLE, ASLEEP, PINNED].map(|c| {
            (c, frame.particles.iter().filter(move |d| d.pinned == pinned && dot_color(d) == c).collect::<Vec<_>>())
        }) {
            let mut pb = PathBuilder::new();
            let mut big = PathBuilder::new();
            for d in dots {
                let q = view.project(d.pos);
                let r = dot_radius(view, d.radius, pinned);
                pb.push_circle(q[0], q[1], r);
                if r >= 5.0 {
                    big.push_circle(q[0], q[1], r);
                }
            }
            fill(pixmap, pb, color, 255);
            stroke_path(pixmap, big, color.map(|c| c / 2), 255, 1.0);
        }
    }
    for m in &frame.marks {
        draw_mark(m, view, pixmap);
    }
}

/// A debug mark in its own colours: paths 1.5 px (filled when closed with a fill), dots
/// 3 px across-radius, arrows with an 8 px head drawn on screen.
fn draw_mark(m: &Mark, view: &View, pixmap: &mut Pixmap) {
    match m {
        Mark::Path { points, closed, color, fill: inside } => {
            if let Some(f) = inside.filter(|_| *closed && points.len() >= 3) {
                let mut pb = PathBuilder::new();
                polyline(&mut pb, view, points, true);
                fill(pixmap, pb, rgb(f), f.a);
            }
            let mut pb = PathBuilder::new();
            polyline(&mut pb, view, points, *closed);
            stroke_path(pixmap, pb, rgb(*color), color.a, 1.5);
        }
        Mark::Dot(p, color) => {
            let q = view.project(*p);
            let mut pb = PathBuilder::new();
            pb.push_circle(q[0], q[1], 3.0);
            fill(pixmap, pb, rgb(*color), color.a);
        }
        Mark::Arrow(from, to, color) => {
            let (a, b) = (view.project(*from), view.project(*to));
            let mut pb = PathBuilder::new();
            pb.move_to(a[0], a[1]);
            pb.line_to(b[0], b[1]);
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let len = dx.hypot(dy);
            if len > 1.0 {
                let head = 8.0f32.min(0.4 * len);
                let (ux, uy) = (dx / len, dy / len);
                for side in [-0.5f32, 0.5] {
                    pb.move_to(b[0], b[1]);
                    pb.line_to(b[0] - head * ux - side * head * uy, b[1] - head * uy + side * head * ux);
                }
            }
            stroke_path(pixmap, pb, rgb(*color), color.a, 1.5);
        }
    }
}

/// Clips the rectangle to the solid side `n·x < off` of a half-plane; also returns the
/// boundary segment inside the rectangle.
fn clip_solid_side(rect: &[P3; 4], n: P3, off: f64) -> (Vec<P3>, Vec<P3>) {
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

fn polyline(pb: &mut PathBuilder, view: &View, pts: &[P3], closed: bool) {
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
enum Item<'a> {
    /// A collider edge.
    Segment(P3, P3),
    /// A piece of a rope's curve: width and colour.
    Curve(P3, P3, f32, [u8; 3]),
    Link(P3, P3),
    Particle(&'a Dot),
    Mark(&'a Mark),
}

fn draw_3d(frame: &Frame, view: &View, trails: Option<&Trails>, pixmap: &mut Pixmap) {
    let (lo, hi) = view.region;
    let corners = box_corners(lo, hi, 3);
    let center = mid(lo, hi);
    // Depth range of the region, for fading far things towards the background.
    let (dmin, dmax) = corners
        .iter()
        .map(|&c| view.depth(c))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), d| (a.min(d), b.max(d)));
    let far = |d: f64| if dmax > dmin { 0.4 * (dmax - d) / (dmax - dmin) } else { 0.0 };

    for &(n, off) in &frame.planes {
        draw_plane_grid(n, off, center, &corners, view, pixmap);
    }
    if let Some(t) = trails {
        stroke_path(pixmap, trail_path(frame, view, t), TRAIL, 110, 1.2);
    }

    let mut items: Vec<(f64, Item<'_>)> = Vec::new();
    for o in &frame.outlines {
        let pts = &o.points;
        let count = if o.closed && pts.len() > 2 { pts.len() } else { pts.len().saturating_sub(1) };
        for i in 0..count {
            let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
            items.push((view.depth(mid(a, b)), Item::Segment(a, b)));
        }
    }
    for &[a, b] in &frame.links {
        items.push((view.depth(mid(a, b)), Item::Link(a, b)));
    }
    for rope in &frame.ropes {
        let w = curve_width(view, rope.radius);
        for (a, b, c) in rope_curve(rope) {
            items.push((view.depth(mid(a, b)), Item::Curve(a, b, w, c)));
        }
    }
    for d in &frame.particles {
        // Pins go on top of everything so the links attached to them never hide them.
        let depth = if d.pinned { f64::INFINITY } else { view.depth(d.pos) };
        items.push((depth, Item::Particle(d)));
    }
    for m in &frame.marks {
        let pts: &[P3] = match m {
            Mark::Path { points, .. } => points,
            Mark::Dot(p, _) => std::slice::from_ref(p),
            Mark::Arrow(a, _, _) => std::slice::from_ref(a),
        };
        let d = pts.iter().map(|&p| view.depth(p)).sum::<f64>() / pts.len().max(1) as f64;
        items.push((d, Item::Mark(m)));
    }
    items.sort_by(|a, b| a.0.total_cmp(&b.0));

    let link_w = link_width(frame, view);
    for (d, item) in items {
        let t = far(d);
        match item {
            Item::Segment(a, b) => stroke_path(pixmap, segment_path(view, a, b), fade(COLLIDER_EDGE, t), 255, 1.3),
            Item::Curve(a, b, w, c) => stroke_path(pixmap, segment_path(view, a, b), fade(c, t), 255, w),
            Item::Link(a, b) => stroke_path(pixmap, segment_path(view, a, b), fade(LINK, t), 255, link_w),
            Item::Particle(p) => {
                let q = view.project(p.pos);
                let r = dot_radius(view, p.radius, p.pinned);
                let mut pb = PathBuilder::new();
                pb.push_circle(q[0], q[1], r);
                // Pinned particles stay full red so they read as pins at any depth.
                let rgb = if p.pinned { PINNED } else { fade(dot_color(p), t) };
                fill(pixmap, pb, rgb, 255);
                if r >= 5.0 {
                    let mut rim = PathBuilder::new();
                    rim.push_circle(q[0], q[1], r);
                    stroke_path(pixmap, rim, rgb.map(|c| c / 2), 255, 1.0);
                }
            }
            // Debug marks keep their colours at any depth: they are there to be read.
            Item::Mark(m) => draw_mark(m, view, pixmap),
        }
    }
}

/// A half-space as a grid of 11 × 11 lines in its plane, spanning the view's region.
fn draw_plane_grid(n: P3, off: f64, center: P3, corners: &[P3], view: &View, pixmap: &mut Pixmap) {
    if !finite3(n) || !off.is_finite() || dot(n, n) < 1e-12 {
        return;
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

/// A bar with end ticks in the bottom-left corner: 1 m, or the nearest power of ten that
/// fits between 8 pixels and 40% of the image width.
/// The scale bar's length in metres (a power of ten between 8 px and 40 % of the image
/// width `w` on screen), if there is one.
pub fn scale_bar_metres(view: &View, w: f32) -> Option<f32> {
    let scale = view.scale as f32;
    if !(scale.is_finite() && scale > 0.0) {
        return None;
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
    (len >= 2.0 && len <= w).then_some(metres)
}

fn draw_scale_bar(view: &View, pixmap: &mut Pixmap) {
    let (w, h) = (pixmap.width() as f32, pixmap.height() as f32);
    let Some(metres) = scale_bar_metres(view, w) else { return };
    let len = metres * view.scale as f32;
    let (x0, y0) = (16.0f32, h - 16.0);
    let mut pb = PathBuilder::new();
    pb.move_to(x0, y0);
    pb.line_to(x0 + len, y0);
    for x in [x0, x0 + len] {
        pb.move_to(x, y0 + 4.0);
        pb.line_to(x, y0 - 6.0);
    }
    let label = length_label(metres);
    let size = text_size(pixmap);
    let tw = text::width(&label, size);
    let (tx, ty) = (x0 + len + 0.5 * size, y0 + 0.35 * size);
    text_box(pixmap, tx, ty, tw, size);
    let mut s = stroke(2.0);
    s.line_cap = LineCap::Butt;
    if let Some(path) = pb.finish() {
        pixmap.stroke_path(&path, &paint(SCALE_BAR, 255), &s, Transform::identity(), None);
    }
    text::draw(pixmap, &label, tx, ty, size, SCALE_BAR);
}
