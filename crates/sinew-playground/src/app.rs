//! The app: a [`Session`] with its panels and canvas, drawn each frame by [`App::ui`] (what
//! eframe calls, and what the tests call through egui_kittest).

use crate::auto::Auto;
use crate::browser::Browser;
use crate::catalog::{self, SceneKind};
use crate::panels::{self, Request};
use crate::session::Session;
use crate::view::{self, ViewState};
use egui::{Rect, Vec2};
use sinew::debug_draw::DebugDrawOptions;
use std::path::Path;

/// Where the last frames' time went (ms), for the frame-time measurement (`auto`'s
/// `bench`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameCost {
    /// The app's own frame ([`App::ui`]: physics, egui layout, the debug drawing).
    pub app_ms: f64,
    /// eframe's measure of the previous frame without its buffer swap (the app's frame,
    /// egui's tessellation and the GL calls); `None` outside a window.
    pub cpu_ms: Option<f64>,
}

/// The playground app.
pub struct App {
    /// The scene and its state.
    pub session: Session,
    /// One per world shown.
    pub views: Vec<ViewState>,
    /// What is drawn.
    pub draw: DebugDrawOptions,
    /// The path field's text.
    pub path: String,
    /// The file browser (opened by "Browse…").
    pub browser: Browser,
    /// A script run instead of a user (screenshots, the smoke test, the benchmark).
    pub auto: Option<Auto>,
    /// Seconds per frame fed to the clock; `None`: egui's measured frame time.
    pub fixed_dt: Option<f64>,
    /// Show the plots under the canvas.
    pub show_plots: bool,
    /// Canvas rectangles of the last frame (one per world).
    pub canvases: Vec<Rect>,
    /// Where the last frames' time went.
    pub cost: FrameCost,
}

impl App {
    /// The app on a menu scene.
    pub fn new(kind: SceneKind) -> Result<Self, String> {
        Ok(Self::with_session(Session::open(kind)?))
    }

    /// The app on a scene file.
    pub fn with_file(path: &Path) -> Result<Self, String> {
        Ok(Self::with_session(Session::open_file(path)?))
    }

    fn with_session(session: Session) -> Self {
        let views = vec![ViewState::default(); session.sims.len()];
        let mut draw = DebugDrawOptions::default();
        draw.contacts = false;
        draw.sleeping = false;
        Self {
            session,
            views,
            draw,
            path: String::new(),
            browser: Browser::new(&catalog::scenes_dir()),
            auto: None,
            fixed_dt: None,
            show_plots: true,
            canvases: Vec::new(),
            cost: FrameCost::default(),
        }
    }

    /// Replaces the session (a scene change), keeping the draw options (the stress scene
    /// starts without particles: thousands of discs cost more to draw than to step, and
    /// its ragdolls read better as stick figures).
    pub fn set_session(&mut self, session: Session) {
        self.views = vec![ViewState::default(); session.sims.len()];
        self.draw.particles = session.kind() != Some(SceneKind::Stress);
        self.session = session;
    }

    /// Opens a menu scene or a file; an error stays on screen and the scene is kept.
    pub fn request(&mut self, req: Request) {
        let opened = match &req {
            Request::Open(kind) => Session::open(*kind),
            Request::OpenFile(path) => Session::open_file(Path::new(path)),
        };
        match opened {
            Ok(s) => self.set_session(s),
            Err(e) => self.session.error = Some(e),
        }
    }

    /// Runs one frame: the clock, the panels and the canvas.
    pub fn ui(&mut self, ctx: &egui::Context) {
        let dt = self.fixed_dt.unwrap_or_else(|| f64::from(ctx.input(|i| i.stable_dt)));
        if let Some(mut auto) = self.auto.take() {
            auto.before_frame(self, ctx);
            self.auto = Some(auto);
        }
        self.session.frame(dt);

        let mut req = None;
        // Panels are not filled: the window's clear colour shows through (on software
        // OpenGL every filled pixel costs; the canvas is cleared to the same colour).
        let frame = egui::Frame::side_top_panel(&ctx.style()).fill(egui::Color32::TRANSPARENT);
        egui::SidePanel::left("controls").resizable(false).exact_width(330.0).frame(frame).show(ctx, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                req = panels::scene_menu(ui, &self.session, &mut self.path, &mut self.browser);
                ui.separator();
                if let Some(kind) = self.session.kind() {
                    ui.label(kind.hint());
                }
                panels::clock(ui, &mut self.session);
                ui.separator();
                panels::scene_controls(ui, &mut self.session);
                ui.separator();
                panels::draw_toggles(ui, &mut self.draw);
                ui.checkbox(&mut self.show_plots, "plots");
                ui.separator();
                panels::stats(ui, &self.session);
            });
        });
        if self.show_plots {
            egui::TopBottomPanel::bottom("plots")
                .resizable(false)
                .frame(frame)
                .show(ctx, |ui| panels::plots(ui, &self.session));
        }
        egui::CentralPanel::default().frame(egui::Frame::NONE).show(ctx, |ui| {
            let full = ui.available_rect_before_wrap();
            let n = self.session.sims.len().max(1);
            let w = full.width() / n as f32;
            self.canvases.clear();
            for i in 0..self.session.sims.len() {
                let rect = Rect::from_min_size(full.min + Vec2::new(w * i as f32, 0.0), Vec2::new(w, full.height()));
                self.canvases.push(rect);
                view::show(ui, &mut self.session, &mut self.views[i], i, rect, &self.draw);
                if n > 1 {
                    let label = &self.session.labels[i];
                    ui.painter().text(
                        rect.center_top() + Vec2::new(0.0, 8.0),
                        egui::Align2::CENTER_TOP,
                        label,
                        egui::FontId::proportional(15.0),
                        egui::Color32::from_gray(40),
                    );
                }
            }
        });
        if let Some(file) = self.browser.show(ctx) {
            self.path = file.display().to_string();
            req = Some(Request::OpenFile(self.path.clone()));
        }
        if let Some(req) = req {
            self.request(req);
        }
        if let Some(mut auto) = self.auto.take() {
            auto.after_frame(self, ctx);
            self.auto = Some(auto);
        }
    }
}

impl eframe::App for App {
    fn update(&mut self, ctx: &egui::Context, frame: &mut eframe::Frame) {
        self.cost.cpu_ms = frame.info().cpu_usage.map(|s| f64::from(s) * 1e3);
        let t0 = std::time::Instant::now();
        self.ui(ctx);
        self.cost.app_ms = t0.elapsed().as_secs_f64() * 1e3;
        ctx.request_repaint();
    }

    fn clear_color(&self, _visuals: &egui::Visuals) -> [f32; 4] {
        view::BACKGROUND.to_normalized_gamma_f32()
    }
}
