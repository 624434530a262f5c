//! The side panel (scene menu, clock controls, sliders, scene buttons, debug-draw toggles,
//! statistics, the frame's time by step stage) and the plots below the canvas.

use crate::browser::Browser;
use crate::catalog::SceneKind;
use crate::session::{RopeSetup, Session};
use egui::Ui;
use egui_plot::{Line, Plot, PlotPoints};
use sinew::debug_draw::DebugDrawOptions;

/// What the side panel asks the app to do that it cannot do itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Open a menu scene.
    Open(SceneKind),
    /// Open the scene file at this path.
    OpenFile(String),
}

/// The scene menu, the path field and the button that opens the file browser.
pub fn scene_menu(ui: &mut Ui, session: &Session, path: &mut String, browser: &mut Browser) -> Option<Request> {
    let mut req = None;
    ui.heading("Scenes");
    // Wrapped rows rather than one scene a line: the menu stays short as scenes are added.
    ui.horizontal_wrapped(|ui| {
        for kind in SceneKind::ALL {
            if ui.selectable_label(session.kind() == Some(kind), kind.title()).clicked() {
                req = Some(Request::Open(kind));
            }
        }
    });
    ui.horizontal(|ui| {
        ui.label("File:");
        let edit = ui.add(egui::TextEdit::singleline(path).hint_text("scenes/….json").desired_width(120.0));
        let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if (ui.button("Open").clicked() || enter) && !path.trim().is_empty() {
            req = Some(Request::OpenFile(path.trim().to_string()));
        }
        if ui.button("Browse…").on_hover_text("Pick a scene file from disk").clicked() {
            browser.open = !browser.open;
        }
    });
    req
}

/// Pause, step, slow motion, reset.
pub fn clock(ui: &mut Ui, session: &mut Session) {
    ui.horizontal(|ui| {
        if ui.button(if session.paused { "▶ Play" } else { "⏸ Pause" }).clicked() {
            session.paused = !session.paused;
        }
        if ui.button("Step").clicked() {
            session.paused = true;
            session.single_step();
        }
        if ui.button("Reset").clicked() {
            session.reset();
        }
    });
    let mut slow = session.time_scale < 1.0;
    if ui.checkbox(&mut slow, "Slow motion (¼)").changed() {
        session.time_scale = if slow { 0.25 } else { 1.0 };
    }
}

/// The world's settings and the scene's own buttons.
pub fn scene_controls(ui: &mut Ui, session: &mut Session) {
    let kind = session.kind();
    match kind {
        Some(SceneKind::Ragdoll) => {
            let drop = ui.button("Drop").on_hover_text("Start the figure's fall again").clicked();
            if drop {
                session.reset();
            }
        }
        Some(SceneKind::Muscle) => {
            let punch = ui.button("Punch").on_hover_text("40 N·s to the chest").clicked();
            if punch {
                session.punch(None, None);
            }
        }
        Some(SceneKind::Determinism) => determinism(ui, session),
        Some(SceneKind::RopeBetween) => rope_between(ui, session),
        _ => {}
    }
    let mut p = session.params;
    let mut changed = false;
    changed |= ui.add(egui::Slider::new(&mut p.gravity, -30.0..=0.0).text("gravity (m/s²)")).changed();
    changed |= ui.add(egui::Slider::new(&mut p.substeps, 1..=32).text("substeps")).changed();
    changed |= ui.add(egui::Slider::new(&mut p.iterations, 1..=20).text("iterations")).changed();
    changed |= ui.add(egui::Slider::new(&mut p.damping, 0.0..=5.0).text("damping (1/s)")).changed();
    changed |= ui.add(egui::Slider::new(&mut p.restitution, 0.0..=1.0).text("restitution")).changed();
    changed |= ui.checkbox(&mut p.tree_solve, "exact bones (tree solve)").changed();
    if changed {
        session.set_params(p);
    }
}

fn rope_between(ui: &mut Ui, session: &mut Session) {
    let mut setup: RopeSetup = session.rope;
    let a = ui.add(egui::Slider::new(&mut setup.segments, 2..=200).text("segments"));
    let b = ui.add(egui::Slider::new(&mut setup.length, 0.5..=8.0).text("length (m)"));
    let c = ui.add(egui::Slider::new(&mut setup.load, 0.0..=20.0).text("load in the middle (kg)"));
    if (a.changed() || b.changed() || c.changed()) && setup != session.rope {
        session.set_rope(setup);
    }
    ui.horizontal(|ui| {
        if ui.button("Pull ends apart (5 m/s)").clicked() {
            session.start_pull(5.0, 2);
        }
    });
    ui.label(format!(
        "worst segment stretch: {:.3} % (this pull: {:.3} %)",
        100.0 * session.sims[0].rope_worst_stretch(),
        100.0 * session.pull_worst
    ));
}

fn determinism(ui: &mut Ui, session: &mut Session) {
    let hashes = session.hashes();
    for (label, h) in session.labels.iter().zip(&hashes) {
        ui.monospace(format!("{label:>11}: {h:016x}"));
    }
    ui.horizontal(|ui| {
        if ui.button("Save").clicked() {
            session.save();
        }
        if ui.button("Rollback").clicked() {
            session.rollback();
        }
    });
    if let Some(f) = session.saved_frame {
        ui.label(format!("snapshot at frame {f} (saved every 120 frames)"));
    }
    let (same, differ) = session.resim;
    if same + differ > 0 {
        ui.label(format!("re-simulated frames: {same} identical to the first run, {differ} different"));
    }
}

/// Debug-draw toggles.
pub fn draw_toggles(ui: &mut Ui, opts: &mut DebugDrawOptions) {
    ui.horizontal_wrapped(|ui| {
        ui.checkbox(&mut opts.particles, "particles");
        ui.checkbox(&mut opts.rope_particles, "rope particles");
        ui.checkbox(&mut opts.distances, "links");
        ui.checkbox(&mut opts.tethers, "tethers");
        ui.checkbox(&mut opts.ropes, "ropes");
        ui.checkbox(&mut opts.contacts, "contacts");
        ui.checkbox(&mut opts.colliders, "colliders");
        ui.checkbox(&mut opts.joint_limits, "joint limits");
        ui.checkbox(&mut opts.sleeping, "sleeping");
    });
}

/// Statistics and the frame's time by stage.
pub fn stats(ui: &mut Ui, session: &Session) {
    let s = &session.stats;
    egui::Grid::new("stats").num_columns(2).show(ui, |ui| {
        let mut row = |k: &str, v: String| {
            ui.label(k);
            ui.monospace(v);
            ui.end_row();
        };
        row("time", format!("{:.2} s", session.sims[0].time()));
        row("particles", format!("{}", s.particles));
        if let Some(v) = s.head_speed {
            row("head speed", format!("{v:.2} m/s"));
        }
        row("total constraint error", format!("{:.2} mm", s.total_error * 1e3));
        row("worst constraint error", format!("{:.3} %", s.worst_error * 100.0));
        row(
            "solver passes / step",
            format!("{} ({} × {})", s.passes, session.params.substeps, session.params.iterations),
        );
        row("solver passes / frame", format!("{}", s.passes * session.steps_last_frame));
        row("energy", format!("{:.2} J", s.energy()));
        let frame = session.history.median(|x| x.frame_ms);
        row("frame time (median)", format!("{frame:.2} ms"));
        row("physics / frame", format!("{:.2} ms", session.physics_ms));
    });
    ui.label("step time by stage (last frame):");
    let total = session.profile.total.as_secs_f64().max(1e-9);
    for (name, d) in session.profile.stages() {
        let ms = d.as_secs_f64() * 1e3;
        if ms > 0.0 {
            ui.add(
                egui::ProgressBar::new((d.as_secs_f64() / total) as f32)
                    .text(format!("{name} {ms:.3} ms"))
                    .desired_height(12.0),
            );
        }
    }
    if let Some(e) = &session.error {
        ui.colored_label(egui::Color32::from_rgb(0xc0, 0x30, 0x30), e);
    }
}

/// Points per plotted line: on software OpenGL the plots were most of a frame's cost.
const PLOT_POINTS: usize = 120;

/// A plot's heading: its name, the latest value and the range shown (the plots have no
/// axes: on software OpenGL their tick labels cost ~3.7 ms a frame, a fifth of it).
fn plot_heading(name: &str, points: &[[f64; 2]]) -> String {
    let ys = points.iter().map(|p| p[1]).filter(|y| y.is_finite());
    let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| (lo.min(y), hi.max(y)));
    match points.last() {
        Some(p) if lo <= hi => format!("{name}: {} ({} … {})", short(p[1]), short(lo), short(hi)),
        _ => name.to_string(),
    }
}

/// A number in about four significant digits.
fn short(x: f64) -> String {
    let a = x.abs();
    if a >= 1000.0 || a == 0.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 0.1 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// Energy, worst constraint error and frame time over the last 10 s (each point the
/// largest of its run of frames), each headed by its latest value and range.
pub fn plots(ui: &mut Ui, session: &Session) {
    let h = &session.history;
    let width = (ui.available_width() / 3.0 - 8.0).max(80.0);
    ui.horizontal(|ui| {
        let series: [(&str, Vec<[f64; 2]>); 3] = [
            ("energy (J)", h.series(|s| s.energy, PLOT_POINTS)),
            ("worst constraint error (%)", h.series(|s| s.worst_error * 100.0, PLOT_POINTS)),
            ("frame time (ms)", h.series(|s| s.frame_ms, PLOT_POINTS)),
        ];
        for (name, points) in series {
            ui.vertical(|ui| {
                ui.label(plot_heading(name, &points));
                Plot::new(name)
                    .width(width)
                    .height(110.0)
                    .allow_drag(false)
                    .allow_zoom(false)
                    .allow_scroll(false)
                    .show_x(false)
                    .show_background(false)
                    .show_grid(false)
                    .show_axes(false)
                    .show(ui, |plot| plot.line(Line::new(name, PlotPoints::from(points))));
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plot_heading_gives_the_latest_value_and_the_range() {
        let pts = [[0.0, 2.0], [1.0, 0.5], [2.0, 1234.4]];
        assert_eq!(plot_heading("e", &pts), "e: 1234 (0.50 … 1234)");
        assert_eq!(plot_heading("e", &[]), "e");
        assert_eq!(plot_heading("e", &[[0.0, f64::NAN]]), "e");
        assert_eq!(short(0.01234), "0.012");
        assert_eq!(short(-12.34), "-12.3");
    }
}
