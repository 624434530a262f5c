//! Views: a 2D camera with pan and zoom, and a 3D orbit camera (orthographic: yaw about
//! the world's y axis, then pitch), both mapping world metres to screen points and back.

use egui::{Pos2, Rect, Vec2};

/// A point in view space: screen position and depth (larger is nearer the viewer).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projected {
    /// Screen position (points).
    pub pos: Pos2,
    /// Depth along the view direction (m, towards the viewer).
    pub depth: f64,
}

/// A camera over a world (2D or 3D).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// 2 or 3.
    pub dim: usize,
    /// World point at the centre of the view.
    pub target: [f64; 3],
    /// Screen points per metre.
    pub scale: f64,
    /// 3D: turn about y (radians).
    pub yaw: f64,
    /// 3D: tilt (radians, positive looks down).
    pub pitch: f64,
    /// Screen rectangle of the view (set every frame).
    pub rect: Rect,
}

impl Camera {
    /// A camera fitting the box `min..max` into `rect`. In 2D, when the box is wider than
    /// the canvas (the room left is above and below it), the box sits at the canvas's
    /// bottom and the room is above it: where things are lifted and thrown, and not a
    /// band of ground to fill (on software OpenGL every filled pixel costs).
    #[must_use]
    pub fn fit(dim: usize, min: [f64; 3], max: [f64; 3], rect: Rect, yaw_deg: f64, pitch_deg: f64) -> Self {
        let mut target = [0.5 * (min[0] + max[0]), 0.5 * (min[1] + max[1]), 0.5 * (min[2] + max[2])];
        let span_x = (max[0] - min[0]).max(if dim == 3 { max[2] - min[2] } else { 0.0 }).max(0.1);
        let span_y = (max[1] - min[1]).max(0.1);
        let scale = (f64::from(rect.width()) / span_x).min(f64::from(rect.height()) / span_y) * 0.92;
        let scale = if scale.is_finite() && scale > 0.0 { scale } else { 50.0 };
        if dim == 2 {
            // The box's bottom 4 % of the canvas height above the canvas's bottom.
            let bottom_up = min[1] + 0.46 * f64::from(rect.height()) / scale;
            if bottom_up.is_finite() {
                target[1] = target[1].max(bottom_up);
            }
        }
        Self { dim, target, scale, yaw: yaw_deg.to_radians(), pitch: pitch_deg.to_radians(), rect }
    }

    /// World → view axes (right, up, towards the viewer), relative to the target.
    fn view_of(&self, p: [f64; 3]) -> [f64; 3] {
        let d = [p[0] - self.target[0], p[1] - self.target[1], p[2] - self.target[2]];
        if self.dim == 2 {
            return d;
        }
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        // Yaw about y, then pitch about x.
        let x1 = cy * d[0] + sy * d[2];
        let z1 = -sy * d[0] + cy * d[2];
        let y2 = cp * d[1] - sp * z1;
        let z2 = sp * d[1] + cp * z1;
        [x1, y2, z2]
    }

    /// View axes → world (the inverse of `view_of`).
    fn world_of(&self, v: [f64; 3]) -> [f64; 3] {
        let d = if self.dim == 2 {
            [v[0], v[1], 0.0]
        } else {
            let (sy, cy) = self.yaw.sin_cos();
            let (sp, cp) = self.pitch.sin_cos();
            let y = cp * v[1] + sp * v[2];
            let z1 = -sp * v[1] + cp * v[2];
            [cy * v[0] - sy * z1, y, sy * v[0] + cy * z1]
        };
        [d[0] + self.target[0], d[1] + self.target[1], d[2] + self.target[2]]
    }

    /// The direction towards the viewer, in world axes.
    #[must_use]
    pub fn towards_viewer(&self) -> [f64; 3] {
        let o = self.world_of([0.0, 0.0, 0.0]);
        let z = self.world_of([0.0, 0.0, 1.0]);
        [z[0] - o[0], z[1] - o[1], z[2] - o[2]]
    }

    /// Projects a world point.
    #[must_use]
    pub fn project(&self, p: [f64; 3]) -> Projected {
        let v = self.view_of(p);
        let c = self.rect.center();
        Projected { pos: Pos2::new(c.x + (v[0] * self.scale) as f32, c.y - (v[1] * self.scale) as f32), depth: v[2] }
    }

    /// The world point under screen point `s` at view depth `depth` (0 = the target's).
    #[must_use]
    pub fn unproject(&self, s: Pos2, depth: f64) -> [f64; 3] {
        let c = self.rect.center();
        let x = f64::from(s.x - c.x) / self.scale;
        let y = -f64::from(s.y - c.y) / self.scale;
        let mut p = self.world_of([x, y, depth]);
        if self.dim == 2 {
            p[2] = 0.0;
        }
        p
    }

    /// View depth of a world point.
    #[must_use]
    pub fn depth_of(&self, p: [f64; 3]) -> f64 {
        self.view_of(p)[2]
    }

    /// Pans by a screen drag.
    pub fn pan(&mut self, delta: Vec2) {
        let c = self.rect.center();
        let moved = self.unproject(c - delta, 0.0);
        self.target = moved;
    }

    /// Zooms by `factor` about screen point `at` (the world point under it stays put).
    pub fn zoom(&mut self, factor: f64, at: Pos2) {
        if !(factor.is_finite() && factor > 0.0) {
            return;
        }
        let before = self.unproject(at, 0.0);
        self.scale = (self.scale * factor).clamp(1.0, 20_000.0);
        let after = self.unproject(at, 0.0);
        for i in 0..3 {
            self.target[i] += before[i] - after[i];
        }
    }

    /// 3D: orbits by a screen drag.
    pub fn orbit(&mut self, delta: Vec2) {
        self.yaw -= f64::from(delta.x) * 0.01;
        self.pitch = (self.pitch + f64::from(delta.y) * 0.01).clamp(-1.5, 1.5);
    }

    /// Metres per screen point.
    #[must_use]
    pub fn metres_per_point(&self) -> f64 {
        1.0 / self.scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_and_unproject_are_inverse_in_3d() {
        let rect = Rect::from_min_size(Pos2::new(10.0, 20.0), Vec2::new(800.0, 600.0));
        let cam = Camera::fit(3, [-1.0, 0.0, -1.0], [3.0, 2.0, 1.0], rect, 35.0, 20.0);
        let p = [0.7, 1.3, -0.4];
        let q = cam.project(p);
        let back = cam.unproject(q.pos, q.depth);
        for i in 0..3 {
            assert!((back[i] - p[i]).abs() < 1e-4, "{back:?} vs {p:?}");
        }
    }

    #[test]
    fn a_wide_2d_box_sits_at_the_bottom_and_a_tall_one_in_the_middle() {
        let rect = Rect::from_min_size(Pos2::new(0.0, 10.0), Vec2::new(800.0, 500.0));
        // 12 × 4 m: limited by the width, 300 px of room.
        let wide = Camera::fit(2, [0.0, 0.0, 0.0], [12.0, 4.0, 0.0], rect, 0.0, 0.0);
        let (bottom, top) = (wide.project([6.0, 0.0, 0.0]).pos.y, wide.project([6.0, 4.0, 0.0]).pos.y);
        assert!((bottom - (510.0 - 20.0)).abs() < 0.5, "bottom at {bottom}");
        assert!(top > 10.0 && top < bottom, "top at {top}");
        let (left, right) = (wide.project([0.0, 0.0, 0.0]).pos.x, wide.project([12.0, 0.0, 0.0]).pos.x);
        assert!((left + right - 800.0).abs() < 0.5, "centred across: {left} {right}");
        // 4 × 12 m: limited by the height, centred.
        let tall = Camera::fit(2, [0.0, 0.0, 0.0], [4.0, 12.0, 0.0], rect, 0.0, 0.0);
        let (bottom, top) = (tall.project([2.0, 0.0, 0.0]).pos.y, tall.project([2.0, 12.0, 0.0]).pos.y);
        assert!((bottom + top - 520.0).abs() < 0.5, "centred: {top} {bottom}");
    }

    #[test]
    fn zoom_keeps_the_point_under_the_mouse() {
        let rect = Rect::from_min_size(Pos2::ZERO, Vec2::new(400.0, 300.0));
        let mut cam = Camera::fit(2, [0.0, 0.0, 0.0], [4.0, 3.0, 0.0], rect, 0.0, 0.0);
        let at = Pos2::new(100.0, 80.0);
        let before = cam.unproject(at, 0.0);
        cam.zoom(1.7, at);
        let after = cam.unproject(at, 0.0);
        assert!((before[0] - after[0]).abs() < 1e-4 && (before[1] - after[1]).abs() < 1e-4);
    }
}
