//! Scripted runs of the real window, for screenshots, the Xvfb smoke test and the frame-time
//! measurement: `SINEW_PLAYGROUND_AUTO="scene=rope;wait=60;shot=a.png;drag=0.5,0.6,0.5,0.3,30;shot=b.png;quit"`.
//!
//! Commands, separated by `;`, run one after the other:
//! - `scene=ID`: open a menu scene (`rope`, `rope3d`, `rope_between`, `ragdoll`,
//!   `ragdoll3d`, `muscle`, `fighters`, `brachiation`, `determinism`, `stress`);
//! - `wait=N`: let N frames pass;
//! - `drag=X0,Y0,X1,Y1,N`: press at `(X0, Y0)` (fractions of the first canvas, from its top
//!   left) as the mouse would, move to `(X1, Y1)` over N frames, release;
//! - `dragmid=X1,Y1,N`: the same from wherever the middle free particle (of a rope: its
//!   middle) is on screen, as a user pointing at it; `holdmid=X1,Y1,N` the same without
//!   letting go (for a screenshot of the held body);
//! - `punch`: the Punch button; `pull`: the rope-between page's "Pull ends apart" (one
//!   cycle); `noplots`: hide the plots;
//! - `shot=PATH`: save the window as a PNG (eframe's screenshot command);
//! - `bench=SECONDS,PATH`: measure real frame times for SECONDS and write their median,
//!   mean, 95th percentile and count to PATH, with the medians of where a frame's time
//!   went ([`crate::app::FrameCost`]): the app's own frame (physics, egui layout, the debug
//!   drawing), egui's tessellation and the GL calls, and the rest (the buffer swap, where
//!   software OpenGL rasterises, and waiting);
//! - `quit`: close the window.

use crate::app::App;
use crate::catalog::SceneKind;
use crate::view::{self, Gesture};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Instant;

/// The environment variable that holds a script.
pub const ENV: &str = "SINEW_PLAYGROUND_AUTO";

#[derive(Clone, Debug, PartialEq)]
enum Cmd {
    Scene(SceneKind),
    Wait(u32),
    Drag { from: [f32; 2], to: [f32; 2], frames: u32 },
    DragMiddle { to: [f32; 2], frames: u32, release: bool },
    Punch,
    Pull,
    NoPlots,
    Shot(PathBuf),
    Bench { seconds: f64, out: PathBuf },
    Quit,
}

/// A running script.
#[derive(Debug)]
pub struct Auto {
    cmds: VecDeque<Cmd>,
    /// The command in progress and its frame counter.
    current: Option<(Cmd, u32)>,
    /// A screenshot requested and not yet received.
    shot_pending: Option<PathBuf>,
    bench: Option<Bench>,
    drag_depth: f64,
    drag_from: egui::Pos2,
    /// Errors (a failed save), printed on stderr.
    pub errors: Vec<String>,
}

fn scene_id(id: &str) -> Option<SceneKind> {
    Some(match id {
        "rope" => SceneKind::Rope,
        "rope3d" => SceneKind::Rope3d,
        "rope_between" => SceneKind::RopeBetween,
        "grappling_hook" => SceneKind::GrapplingHook,
        "taut3d" => SceneKind::TautRope3d,
        "ragdoll" => SceneKind::Ragdoll,
        "ragdoll3d" => SceneKind::Ragdoll3d,
        "muscle" => SceneKind::Muscle,
        "fighters" => SceneKind::Fighters,
        "brachiation" => SceneKind::Brachiation,
        "determinism" => SceneKind::Determinism,
        "stress" => SceneKind::Stress,
        _ => return None,
    })
}

impl Auto {
    /// Parses a script (see the module docs).
    pub fn parse(script: &str) -> Result<Self, String> {
        let mut cmds = VecDeque::new();
        for part in script.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, arg) = part.split_once('=').unwrap_or((part, ""));
            let nums = || -> Result<Vec<f64>, String> {
                arg.split(',').map(|x| x.trim().parse::<f64>().map_err(|e| format!("{part}: {e}"))).collect()
            };
            cmds.push_back(match name {
                "scene" => Cmd::Scene(scene_id(arg).ok_or_else(|| format!("{part}: unknown scene"))?),
                "wait" => Cmd::Wait(arg.parse().map_err(|e| format!("{part}: {e}"))?),
                "drag" => match nums()?.as_slice() {
                    &[x0, y0, x1, y1, n] => Cmd::Drag {
                        from: [x0 as f32, y0 as f32],
                        to: [x1 as f32, y1 as f32],
                        frames: n.max(1.0) as u32,
                    },
                    _ => return Err(format!("{part}: expected X0,Y0,X1,Y1,N")),
                },
                "dragmid" | "holdmid" => match nums()?.as_slice() {
                    &[x1, y1, n] => Cmd::DragMiddle {
                        to: [x1 as f32, y1 as f32],
                        frames: n.max(1.0) as u32,
                        release: name == "dragmid",
                    },
                    _ => return Err(format!("{part}: expected X1,Y1,N")),
                },
                "punch" => Cmd::Punch,
                "pull" => Cmd::Pull,
                "noplots" => Cmd::NoPlots,
                "shot" => Cmd::Shot(PathBuf::from(arg)),
                "bench" => {
                    let (s, out) = arg.split_once(',').ok_or_else(|| format!("{part}: expected SECONDS,PATH"))?;
                    Cmd::Bench { seconds: s.parse().map_err(|e| format!("{part}: {e}"))?, out: PathBuf::from(out) }
                }
                "quit" => Cmd::Quit,
                _ => return Err(format!("{part}: unknown command")),
            });
        }
        Ok(Self {
            cmds,
            current: None,
            shot_pending: None,
            bench: None,
            drag_depth: 0.0,
            drag_from: egui::Pos2::ZERO,
            errors: Vec::new(),
        })
    }

    /// Before the app's frame: screenshots that arrived, the command's input.
    pub fn before_frame(&mut self, app: &mut App, ctx: &egui::Context) {
        let image = ctx.input(|i| {
            i.raw.events.iter().find_map(|e| match e {
                egui::Event::Screenshot { image, .. } => Some(image.clone()),
                _ => None,
            })
        });
        if let Some(image) = image
            && let Some(path) = self.shot_pending.take()
        {
            match save_png(&image, &path) {
                Ok(()) => eprintln!("sinew-playground: saved {}", path.display()),
                Err(e) => self.errors.push(e),
            }
        }
        if let Some(b) = &mut self.bench {
            let now = Instant::now();
            b.frames.push((now - b.last).as_secs_f64() * 1e3);
            b.last = now;
            b.physics.push(app.session.physics_ms);
            b.app.push(app.cost.app_ms);
            if let Some(cpu) = app.cost.cpu_ms {
                b.cpu.push(cpu);
            }
        }
        if self.current.is_none() && self.shot_pending.is_none() {
            self.current = self.cmds.pop_front().map(|c| (c, 0));
        }
        let Some((cmd, n)) = self.current.clone() else { return };

        let done = match cmd {
            Cmd::Scene(kind) => {
                app.request(crate::panels::Request::Open(kind));
                true
            }
            Cmd::Wait(frames) => n >= frames,
            Cmd::Drag { from, to, frames } => self.drag(app, Some(from), to, n, frames, true),
            Cmd::DragMiddle { to, frames, release } => self.drag(app, None, to, n, frames, release),
            Cmd::Punch => {
                app.session.punch(None, None);
                true
            }
            Cmd::Pull => {
                app.session.start_pull(5.0, 1);
                true
            }
            Cmd::NoPlots => {
                app.show_plots = false;
                true
            }
            Cmd::Shot(ref path) => {
                ctx.send_viewport_cmd(egui::ViewportCommand::Screenshot(egui::UserData::default()));
                self.shot_pending = Some(path.clone());
                true
            }
            Cmd::Bench { seconds, ref out } => match &self.bench {
                None => {
                    let now = Instant::now();
                    self.bench = Some(Bench { start: now, last: now, ..Bench::default() });
                    false
                }
                Some(b) if b.start.elapsed().as_secs_f64() >= seconds => {
                    if let Err(e) = b.write(out) {
                        self.errors.push(e);
                    }
                    self.bench = None;
                    true
                }
                Some(_) => false,
            },
            Cmd::Quit => {
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                false
            }
        };
        self.current = if done { None } else { Some((cmd, n + 1)) };
    }

    /// After the app's frame: keep frames coming.
    pub fn after_frame(&mut self, _app: &mut App, ctx: &egui::Context) {
        for e in self.errors.drain(..) {
            eprintln!("sinew-playground: {e}");
        }
        ctx.request_repaint();
    }

    /// One frame of a drag (from the middle free particle when `from` is `None`); true
    /// when done.
    fn drag(
        &mut self,
        app: &mut App,
        from: Option<[f32; 2]>,
        to: [f32; 2],
        n: u32,
        frames: u32,
        release: bool,
    ) -> bool {
        let (Some(rect), Some(cam)) = (app.canvases.first().copied(), app.views.first().and_then(|v| v.camera)) else {
            return n > 10;
        };
        let t = (n as f32 / frames as f32).min(1.0);
        let at = |f: [f32; 2]| rect.min + egui::Vec2::new(f[0] * rect.width(), f[1] * rect.height());
        if n == 0 {
            self.drag_from = match from {
                Some(f) => at(f),
                None => {
                    let picks = app.session.sims[0].picks();
                    let free: Vec<_> = picks.iter().filter(|p| !p.kinematic).collect();
                    free.get(free.len() / 2).map_or(rect.center(), |p| cam.project(p.pos).pos)
                }
            };
        }
        let pos = self.drag_from + (at(to) - self.drag_from) * t;
        if n == 0 {
            if let Gesture::Hand { depth } = view::press(&mut app.session, &cam, 0, pos) {
                self.drag_depth = depth;
            }
            return false;
        }
        app.session.drag_to(cam.unproject(pos, self.drag_depth));
        if n >= frames {
            if release {
                app.session.release();
            }
            return true;
        }
        false
    }
}

fn save_png(image: &egui::ColorImage, path: &std::path::Path) -> Result<(), String> {
    let [w, h] = image.size;
    let data: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
    let size = tiny_skia::IntSize::from_wh(w as u32, h as u32).ok_or("empty screenshot")?;
    let pixmap = tiny_skia::Pixmap::from_vec(data, size).ok_or("bad screenshot size")?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    pixmap.save_png(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Frame times being measured (`bench=`), in ms per frame.
#[derive(Debug)]
struct Bench {
    start: Instant,
    last: Instant,
    /// Between frames (what the user sees).
    frames: Vec<f64>,
    /// The physics steps of the frame.
    physics: Vec<f64>,
    /// The app's frame ([`App::ui`]: physics, egui layout, debug drawing).
    app: Vec<f64>,
    /// eframe's measure of the previous frame without the buffer swap: the app's frame,
    /// egui's tessellation and the GL calls.
    cpu: Vec<f64>,
}

impl Default for Bench {
    fn default() -> Self {
        let now = Instant::now();
        Self { start: now, last: now, frames: Vec::new(), physics: Vec::new(), app: Vec::new(), cpu: Vec::new() }
    }
}

fn median(v: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = v.iter().copied().filter(|t| t.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

impl Bench {
    fn write(&self, out: &std::path::Path) -> Result<(), String> {
        let mut v: Vec<f64> = self.frames.iter().copied().filter(|t| t.is_finite()).collect();
        v.sort_by(f64::total_cmp);
        let Some(&median_ms) = v.get(v.len() / 2) else { return Err("no frames measured".into()) };
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let p95 = v[(v.len() * 95 / 100).min(v.len() - 1)];
        let (physics, app, cpu) = (median(&self.physics), median(&self.app), median(&self.cpu));
        let ms = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |x| format!("{x:.3}"));
        let tessellate_gl = app.zip(cpu).map(|(a, c)| c - a);
        let swap = cpu.map(|c| median_ms - c);
        let text = format!(
            "frames {}\nmedian_ms {median_ms:.3}\nmean_ms {mean:.3}\np95_ms {p95:.3}\nmedian_fps {:.1}\n\
             physics_ms {}\napp_ms {}\ncpu_ms {}\ntessellate_gl_ms {}\nswap_ms {}\n",
            v.len(),
            1e3 / median_ms,
            ms(physics),
            ms(app),
            ms(cpu),
            ms(tessellate_gl),
            ms(swap),
        );
        std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_parse_and_bad_ones_say_why() {
        let a = Auto::parse("scene=rope; wait=3; drag=0.1,0.2,0.3,0.4,5; shot=x.png; bench=10,b.txt; quit").unwrap();
        assert_eq!(a.cmds.len(), 6);
        assert!(Auto::parse("scene=nope").unwrap_err().contains("unknown scene"));
        assert!(Auto::parse("drag=1,2").unwrap_err().contains("X0,Y0"));
        assert!(Auto::parse("fly").unwrap_err().contains("unknown command"));
    }
}
