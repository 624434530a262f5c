//! Text on the rendered pictures (the title and the scale bar's label), rasterised by
//! ab_glyph from the Ubuntu Light typeface that `epaint_default_fonts` embeds (Ubuntu Font
//! Licence 1.0; the same font the playground's egui text uses), so a picture and the
//! playground's window read alike.
//!
//! Glyph coverage is blended straight into the pixmap: the renderer fills the background
//! opaque first, so its premultiplied pixels equal their plain colours.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use std::sync::OnceLock;
use tiny_skia::Pixmap;

fn font() -> Option<&'static FontRef<'static>> {
    static FONT: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(epaint_default_fonts::UBUNTU_LIGHT).ok()).as_ref()
}

/// Width in pixels of `text` at `size` pixels (0 if the font cannot be read).
#[must_use]
pub fn width(text: &str, size: f32) -> f32 {
    let Some(font) = font() else { return 0.0 };
    let f = font.as_scaled(PxScale::from(size));
    let mut w = 0.0;
    let mut prev = None;
    for c in text.chars() {
        let id = f.glyph_id(c);
        if let Some(p) = prev {
            w += f.kern(p, id);
        }
        w += f.h_advance(id);
        prev = Some(id);
    }
    w
}

/// Draws `text` with its baseline's left end at `(x, y)`, `size` pixels high, in `rgb`.
/// Pixels outside the pixmap are skipped; non-finite positions draw nothing.
pub fn draw(pixmap: &mut Pixmap, text: &str, x: f32, y: f32, size: f32, rgb: [u8; 3]) {
    let Some(font) = font() else { return };
    if !(x.is_finite() && y.is_finite() && size.is_finite() && size > 0.0) {
        return;
    }
    let f = font.as_scaled(PxScale::from(size));
    let (w, h) = (pixmap.width() as i64, pixmap.height() as i64);
    let data = pixmap.data_mut();
    let mut caret = x;
    let mut prev = None;
    for c in text.chars() {
        let id = f.glyph_id(c);
        if let Some(p) = prev {
            caret += f.kern(p, id);
        }
        prev = Some(id);
        let glyph = id.with_scale_and_position(PxScale::from(size), point(caret, y));
        caret += f.h_advance(id);
        let Some(outlined) = font.outline_glyph(glyph) else { continue };
        let b = outlined.px_bounds();
        outlined.draw(|gx, gy, coverage| {
            let (px, py) = (b.min.x as i64 + i64::from(gx), b.min.y as i64 + i64::from(gy));
            if px < 0 || py < 0 || px >= w || py >= h {
                return;
            }
            let a = coverage.clamp(0.0, 1.0);
            let i = 4 * (py * w + px) as usize;
            for (k, &c) in rgb.iter().enumerate() {
                let old = f32::from(data[i + k]);
                data[i + k] = (old + (f32::from(c) - old) * a).round() as u8;
            }
        });
    }
}

/// Ascent (pixels above the baseline) of the font at `size`.
#[must_use]
pub fn ascent(size: f32) -> f32 {
    font().map_or(size * 0.8, |f| f.as_scaled(PxScale::from(size)).ascent())
}
