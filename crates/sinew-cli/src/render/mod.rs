//! Drawing scenes: the last frame as a PNG, or the run as a looping animated GIF.
//!
//! `sinew render` is a back end of the library's debug drawing
//! ([`sinew::debug_draw`]): each frame the scene's world is drawn through
//! `World::debug_draw` into a [`Frame`] (the recording back end, `frame.rs`), and the frame
//! is painted with tiny-skia (`raster.rs`, anti-aliased; the caption and the scale bar's
//! label are set in `text.rs`). A [`View`] (`view.rs`)
//! maps world coordinates to pixels: in 2D it fits a box (y up in the world, down in the
//! image); in 3D it is an orthographic projection after turning the world by a yaw about y
//! and a pitch about x. The view is fitted once, before the run, so the camera never jumps
//! between frames. `animation.rs` writes GIFs, `trails.rs` records particle paths.

mod animation;
mod frame;
mod geom;
mod raster;
mod text;
mod trails;
mod view;

pub use frame::Frame;
pub use view::View;

use sinew::debug_draw::DebugDrawOptions;
use sinew_scene::Simulation;
use std::path::Path;
use tiny_skia::Pixmap;
use trails::Trails;

/// Settings for [`render`].
#[derive(Clone, Debug, PartialEq)]
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
    /// What of the world to draw (see [`RenderOptions::default`]).
    pub draw: DebugDrawOptions,
    /// Largest image accepted, in pixels (`width × height`), checked before the image is
    /// allocated. Default [`MAX_PIXELS`].
    pub max_pixels: u64,
    /// The scene's name, written in the top-left corner with the simulated time of the
    /// picture (`rope_14m_2d · 4.0 s`); `None` writes no caption.
    pub title: Option<String>,
}

/// The default [`RenderOptions::max_pixels`]: 2²⁵ pixels (8192 × 4096), a 128 MiB
/// canvas; the GIF encoder's buffers add about a third of that.
pub const MAX_PIXELS: u64 = 1 << 25;

impl Default for RenderOptions {
    /// 800×600, 300 frames, every 2nd frame in a GIF, no trails; particles, links, ropes
    /// and colliders drawn, without contacts, joint limits or sleep (see
    /// [`scene_look`]).
    fn default() -> Self {
        Self {
            width: 800,
            height: 600,
            frames: 300,
            every: 2,
            trail: false,
            draw: scene_look(),
            max_pixels: MAX_PIXELS,
            title: None,
        }
    }
}

/// The debug-draw options of a plain scene picture: particles, links, ropes (coloured by
/// tension) and colliders. Contacts, joint limits and sleep are debugging overlays, off
/// here (`sinew render --show` turns them on).
#[must_use]
pub fn scene_look() -> DebugDrawOptions {
    // (The options are `#[non_exhaustive]`: set fields on the default.)
    let mut draw = DebugDrawOptions::default();
    draw.contacts = false;
    draw.joint_limits = false;
    draw.sleeping = false;
    draw
}

/// The caption of a picture at simulated `time`: the title and the time.
fn caption(opts: &RenderOptions, time: f64) -> Option<String> {
    opts.title.as_ref().map(|t| format!("{t} · {time:.1} s"))
}

/// The scene's name for a caption: the file name without `.json`.
#[must_use]
pub fn title_of(path: &Path) -> String {
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    name.strip_suffix(".json").map_or(name.clone(), str::to_string)
}

/// The current state of `sim` as drawn by the world.
fn capture(sim: &dyn Simulation, opts: &RenderOptions) -> Frame {
    let mut frame = Frame::new(opts.draw.tension_scale);
    sim.debug_draw(&mut frame, &opts.draw);
    frame
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
    if u64::from(width) * u64::from(height) > opts.max_pixels {
        return Err(format!(
            "image size {width}x{height}: {} pixels exceed the limit of {} (RenderOptions::max_pixels)",
            u64::from(width) * u64::from(height),
            opts.max_pixels
        ));
    }
    let mut pixmap = Pixmap::new(width, height).ok_or_else(|| format!("image size {width}x{height} is too large"))?;
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("cannot create directory {}: {e}", parent.display()))?;
    }
    let first = capture(sim, opts);
    let mut trails = opts.trail.then(|| Trails::new(first.bodies().count()));
    if let Some(t) = &mut trails {
        t.record(&first);
    }
    let hint = sim.view().cloned();

    match format {
        Format::Png => {
            for _ in 0..opts.frames {
                step(sim)?;
                if let Some(t) = &mut trails {
                    t.record(&capture(sim, opts));
                }
            }
            let last = capture(sim, opts);
            let trail_pts: Vec<[f64; 3]> = trails.as_ref().map(|t| t.points().collect()).unwrap_or_default();
            let view = View::fit_frames(&[&first, &last], &trail_pts, hint.as_ref(), width, height);
            let caption = caption(opts, sim.time());
            raster::draw_scene(&last, &view, trails.as_ref(), caption.as_deref(), &mut pixmap);
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
            let result = animation::write_gif(sim, out, opts, &view, &first, trails.as_mut(), &mut pixmap);
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

#[cfg(test)]
mod tests;
