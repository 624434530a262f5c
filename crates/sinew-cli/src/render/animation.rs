//! Writing a run as a looping animated GIF with one fixed colour table.

use super::frame::{Frame, TENSION_LEVELS, tension_level_color};
use super::raster::{
    ASLEEP, BACKGROUND, COLLIDER_EDGE, COLLIDER_FILL, GRID, LINK, PARTICLE, PINNED, PLANE_EDGE, PLANE_FILL, SCALE_BAR,
    TRAIL, draw_scene, fade,
};
use super::trails::Trails;
use super::view::View;
use super::{RenderOptions, caption, capture, step};
use sinew_scene::Simulation;
use std::io::Write as _;
use std::path::Path;
use tiny_skia::Pixmap;

/// The fixed GIF colour table: every drawing colour exactly, its anti-aliasing blends with the
/// background, the rope tension levels, a grey ramp and a colour cube for everything else. One
/// table for the whole animation keeps colours steady between frames (small red pins never
/// turn orange).
pub struct Palette {
    /// `[r, g, b, ...]`, 256 entries.
    pub rgb: Vec<u8>,
    /// Nearest entry of colours seen so far.
    cache: std::collections::HashMap<[u8; 3], u8>,
    last: ([u8; 3], u8),
}

impl Palette {
    /// Colours wanted, in priority order (the table keeps the first 256 distinct ones).
    pub fn wanted() -> Vec<[u8; 3]> {
        let style = [
            BACKGROUND,
            PLANE_FILL,
            PLANE_EDGE,
            GRID,
            COLLIDER_FILL,
            COLLIDER_EDGE,
            LINK,
            PARTICLE,
            PINNED,
            TRAIL,
            PARTICLE.map(|c| c / 2),
            PINNED.map(|c| c / 2),
        ];
        let mut colors: Vec<[u8; 3]> = Vec::with_capacity(300);
        for c in style {
            colors.extend([c, fade(c, 0.25), fade(c, 0.5), fade(c, 0.75)]);
        }
        colors.extend([SCALE_BAR, ASLEEP]);
        // Rope tension levels, as drawn near and (3D) far.
        for k in 0..TENSION_LEVELS {
            colors.extend([tension_level_color(k), fade(tension_level_color(k), 0.3)]);
        }
        for k in 1..15u8 {
            colors.push([k * 17; 3]);
        }
        for r in 0..5u16 {
            for g in 0..7u16 {
                for b in 0..5u16 {
                    colors.push([(r * 255 / 4) as u8, (g * 255 / 6) as u8, (b * 255 / 4) as u8]);
                }
            }
        }
        let mut seen = std::collections::HashSet::new();
        colors.retain(|c| seen.insert(*c));
        colors
    }

    pub fn new() -> Self {
        let mut colors = Self::wanted();
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
pub fn write_gif(
    sim: &mut dyn Simulation,
    out: &Path,
    opts: &RenderOptions,
    view: &View,
    first: &Frame,
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
    let mut emit = |frame: &Frame, trails: Option<&Trails>, time: f64, pixmap: &mut Pixmap| -> Result<(), String> {
        draw_scene(frame, view, trails, caption(opts, time).as_deref(), pixmap);
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
    emit(first, trails.as_deref(), sim.time(), pixmap)?;
    for k in 1..=opts.frames {
        step(sim)?;
        let keep = k % every == 0;
        if trails.is_none() && !keep {
            continue;
        }
        let frame = capture(sim, opts);
        if let Some(t) = trails.as_deref_mut() {
            t.record(&frame);
        }
        if keep {
            emit(&frame, trails.as_deref(), sim.time(), pixmap)?;
        }
    }
    encoder.into_inner().map_err(gif_err)?.flush().map_err(io_err)?;
    Ok(images)
}
