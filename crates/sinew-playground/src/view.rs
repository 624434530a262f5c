//! The canvas: paints a world through [`EguiDraw`] and turns the mouse into hand moves
//! (left-drag a particle), camera moves (left-drag empty space or right-drag: pan in 2D,
//! orbit in 3D; wheel: zoom) and punches (a click on the muscle ragdoll's page).

use crate::camera::Camera;
use crate::catalog::SceneKind;
use crate::painter::EguiDraw;
use crate::session::Session;
use egui::{Color32, PointerButton, Pos2, Rect, Sense, Ui, Vec2};
use sinew::debug_draw::{DebugDraw, DebugDrawOptions, FrameInfo};

/// The canvas background: the colour the window is cleared to.
pub const BACKGROUND: Color32 = Color32::from_rgb(0xf4, 0xf1, 0xea);

/// How near (screen points) a press must be to a particle to take it.
pub const PICK_RADIUS_PX: f64 = 18.0;

/// What a left drag started on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gesture {
    /// Holding a particle.
    Hand {
        /// View depth of the particle when taken (3D; the hand moves in that plane).
        depth: f64,
    },
    /// Moving the camera.
    Camera,
}

/// A view's camera and gesture.
#[derive(Clone, Debug, Default)]
pub struct ViewState {
    /// Fitted on first paint.
    pub camera: Option<Camera>,
    /// The drag in progress.
    pub gesture: Option<Gesture>,
}

/// Records the world's content bounds (the `begin` call) without drawing.
struct Bounds(Option<([f64; 3], [f64; 3])>);

impl DebugDraw for Bounds {
    fn begin(&mut self, frame: &FrameInfo) {
        self.0 = frame.bounds;
    }
    fn segment(&mut self, _: [f64; 3], _: [f64; 3], _: &sinew::Style) {}
}

/// A camera for world `index` of the session in `rect`: the file's view box, or the
/// content's bounds.
#[must_use]
pub fn fit_camera(session: &Session, index: usize, rect: Rect) -> Camera {
    let sim = &session.sims[index];
    let dim = sim.dim();
    let view = session.spec.view.as_ref();
    let from_file = view.and_then(|v| Some((v.min.clone()?, v.max.clone()?)));
    // A travelling subject: a 10 m wide window round it, looking ahead (it moves +x).
    let follow = sim.follow().map(|p| ([p[0] - 3.0, p[1] - 3.0, 0.0], [p[0] + 7.0, p[1] + 2.5, 0.0]));
    let (min, max) = match (follow, from_file) {
        (Some(window), _) => window,
        (None, Some((a, b))) if a.len() >= 2 && b.len() >= 2 => {
            let z = |v: &Vec<f64>| v.get(2).copied().unwrap_or(0.0);
            ([a[0], a[1], z(&a)], [b[0], b[1], z(&b)])
        }
        (None, _) => {
            let mut b = Bounds(None);
            sim.draw(&mut b, &DebugDrawOptions::none());
            b.0.unwrap_or(([-2.0, -0.5, -2.0], [2.0, 3.0, 2.0]))
        }
    };
    let yaw = view.and_then(|v| v.yaw_deg).unwrap_or(30.0);
    let pitch = view.and_then(|v| v.pitch_deg).unwrap_or(20.0);
    Camera::fit(dim, min, max, rect, yaw, pitch)
}

/// Paints world `index` into `rect` and handles the mouse over it.
pub fn show(
    ui: &mut Ui,
    session: &mut Session,
    state: &mut ViewState,
    index: usize,
    rect: Rect,
    opts: &DebugDrawOptions,
) {
    let mut cam = state.camera.unwrap_or_else(|| fit_camera(session, index, rect));
    cam.rect = rect;
    let response = ui.allocate_rect(rect, Sense::click_and_drag());
    let dim = session.sims[index].dim();

    // Zoom with the wheel (or a pinch) over the view.
    if let Some(at) = response.hover_pos() {
        let (scroll, zoom) = ui.input(|i| (i.smooth_scroll_delta.y, i.zoom_delta()));
        let factor = f64::from(zoom) * (f64::from(scroll) * 0.002).exp();
        if (factor - 1.0).abs() > 1e-6 {
            cam.zoom(factor, at);
        }
    }

    if response.drag_started_by(PointerButton::Primary)
        && let Some(at) = response.interact_pointer_pos()
    {
        state.gesture = Some(press(session, &cam, index, at));
    }
    if response.dragged_by(PointerButton::Primary) {
        match (state.gesture, response.interact_pointer_pos()) {
            (Some(Gesture::Hand { depth }), Some(at)) => session.drag_to(cam.unproject(at, depth)),
            (Some(Gesture::Camera), _) => move_camera(&mut cam, response.drag_delta()),
            _ => {}
        }
    }
    if response.dragged_by(PointerButton::Secondary) || response.dragged_by(PointerButton::Middle) {
        move_camera(&mut cam, response.drag_delta());
    }
    if response.drag_stopped() {
        if matches!(state.gesture, Some(Gesture::Hand { .. })) {
            session.release();
        }
        state.gesture = None;
    }
    if response.clicked()
        && session.kind() == Some(SceneKind::Muscle)
        && let Some(at) = response.interact_pointer_pos()
    {
        session.punch(Some(cam.unproject(at, 0.0)), None);
    }

    // Keep a travelling subject in view: the camera tracks it along x (panning up and
    // down and zooming stay the user's), 2 m ahead of it, unless the user is panning.
    if let Some(p) = session.sims[index].follow()
        && !matches!(state.gesture, Some(Gesture::Camera))
    {
        cam.target[0] = p[0] + 2.0;
    }

    // Paint.
    // (The background is the window's clear colour, `BACKGROUND`: no full-canvas fill, which
    // on software OpenGL costs a pass over every pixel.)
    let painter = ui.painter_at(rect);
    let mut draw = EguiDraw::new(cam);
    session.sims[index].draw(&mut draw, opts);
    painter.extend(draw.finish());
    if let Some((_, target)) = session.hand() {
        let p = cam.project(target).pos;
        painter.circle_stroke(p, 7.0, egui::Stroke::new(2.0, Color32::from_rgb(0x1f, 0x6f, 0xd0)));
    }
    if session.kind() == Some(SceneKind::RopeBetween) {
        end_blocks(&painter, session, &cam, index);
    }
    scale_bar(&painter, &cam, dim);
    state.camera = Some(cam);
}

fn move_camera(cam: &mut Camera, delta: Vec2) {
    if cam.dim == 3 { cam.orbit(delta) } else { cam.pan(delta) }
}

/// A left press at `at`: takes the nearest particle within [`PICK_RADIUS_PX`], else moves
/// the camera.
///
/// On the rope-between page a press on an end's block takes that end, even where a rope
/// particle next to it is nearer the pointer.
pub fn press(session: &mut Session, cam: &Camera, index: usize, at: Pos2) -> Gesture {
    let picks = session.sims[index].picks();
    let ends = match session.between_ends() {
        Some((a, b, _)) if session.kind() == Some(SceneKind::RopeBetween) => vec![a, b],
        _ => Vec::new(),
    };
    let on_block = picks
        .iter()
        .filter(|p| ends.contains(&p.slot))
        .map(|&p| (p, cam.project(p.pos)))
        .find(|(_, q)| (q.pos - at).abs().max_elem() <= 0.5 * END_BLOCK_PX);
    let best = on_block.or_else(|| {
        picks
            .into_iter()
            .map(|p| (p, cam.project(p.pos)))
            .filter(|(_, q)| f64::from(q.pos.distance(at)) <= PICK_RADIUS_PX)
            .min_by(|a, b| a.1.pos.distance(at).total_cmp(&b.1.pos.distance(at)))
    });
    if let Some((p, q)) = best {
        let target = cam.unproject(at, q.depth);
        if session.press_slot(p.slot, target) {
            return Gesture::Hand { depth: q.depth };
        }
    }
    Gesture::Camera
}

/// Size of the rope-between page's end blocks (screen points).
pub const END_BLOCK_PX: f32 = 22.0;

/// The rope-between page's two objects (blocks A and B at the rope's ends) and its load's
/// mass beside the load.
fn end_blocks(painter: &egui::Painter, session: &Session, cam: &Camera, index: usize) {
    let sim = &session.sims[index];
    let Some((a, b, _)) = session.between_ends() else { return };
    for (slot, label) in [(a, "A"), (b, "B")] {
        if let Some(p) = sim.position(slot) {
            let c = cam.project(p).pos;
            let r = Rect::from_center_size(c, Vec2::splat(END_BLOCK_PX));
            painter.rect_filled(r, 3.0, Color32::from_rgb(0x5a, 0x7d, 0xa8));
            painter.text(c, egui::Align2::CENTER_CENTER, label, egui::FontId::proportional(13.0), Color32::WHITE);
        }
    }
    let load = session.rope.load;
    if load > 0.0
        && let Some(slot) = session.load_slot()
        && let Some(p) = sim.position(slot)
    {
        let c = cam.project(p).pos;
        painter.circle_filled(c, 9.0, Color32::from_rgb(0x3a, 0x3f, 0x4a));
        let text = format!("{load:.1} kg");
        let at = c + Vec2::new(14.0, 0.0);
        painter.text(at, egui::Align2::LEFT_CENTER, text, egui::FontId::proportional(13.0), Color32::from_gray(40));
    }
}

/// A scale bar in the lower left: a round length near 120 points.
fn scale_bar(painter: &egui::Painter, cam: &Camera, dim: usize) {
    let metres = cam.metres_per_point() * 120.0;
    let round = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
        .into_iter()
        .rfind(|&m| m <= metres)
        .unwrap_or(0.01);
    let len = (round / cam.metres_per_point()) as f32;
    let a = cam.rect.left_bottom() + Vec2::new(14.0, -14.0);
    let b = a + Vec2::new(len, 0.0);
    let stroke = egui::Stroke::new(2.0, Color32::from_gray(60));
    painter.line_segment([a, b], stroke);
    painter.line_segment([a, a - Vec2::new(0.0, 5.0)], stroke);
    painter.line_segment([b, b - Vec2::new(0.0, 5.0)], stroke);
    let text = if round < 1.0 { format!("{:.0} cm", round * 100.0) } else { format!("{round:.0} m") };
    let text = if dim == 3 { format!("{text} (at the target)") } else { text };
    painter.text(
        a - Vec2::new(0.0, 8.0),
        egui::Align2::LEFT_BOTTOM,
        text,
        egui::FontId::proportional(12.0),
        Color32::from_gray(60),
    );
}
