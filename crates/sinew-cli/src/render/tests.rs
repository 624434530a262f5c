//! Rendering scenes to PNG and GIF, and the recording back end.

use super::frame::{self, TENSION_LEVELS, tension_level, tension_level_color};
use super::raster::{BACKGROUND, COLLIDER_FILL, PLANE_FILL, draw_frame};
use super::*;
use sinew_scene::spec::ViewSpec;
use std::path::{Path, PathBuf};
use tiny_skia::Pixmap;

const SCENE_2D: &str = r#"{
    "dim": 2,
    "particles": [{"pos": [0, 0], "mass": 0}, {"pos": [0.5, 0]}, {"pos": [1, 0]}],
    "distances": [{"a": 0, "b": 1}, {"a": 1, "b": 2}],
    "colliders": [
        {"plane": {"normal": [0, 1], "offset": -2}},
        {"circle": {"center": [1, -1], "radius": 0.3}},
        {"box": {"center": [0, -1.5], "half_extents": [0.5, 0.1], "angle": 0.2}}
    ]
}"#;

const SCENE_3D: &str = r#"{
    "dim": 3,
    "particles": [{"pos": [0, 0, 0], "mass": 0}, {"pos": [0.5, 0, 0]}, {"pos": [1, 0, 0.2]}],
    "distances": [{"a": 0, "b": 1}, {"a": 1, "b": 2}],
    "colliders": [
        {"plane": {"normal": [0, 1, 0], "offset": -2}},
        {"sphere": {"center": [1, -1, 0], "radius": 0.3}},
        {"box": {"center": [0, -1.5, 0], "half_extents": [0.5, 0.1, 0.3], "rotation": [0, 0, 0.0998, 0.995]}}
    ]
}"#;

fn temp_dir(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    std::env::temp_dir().join(format!("sinew-render-{name}-{}-{nanos}", std::process::id()))
}

fn small() -> RenderOptions {
    RenderOptions { width: 160, height: 120, frames: 12, every: 3, ..RenderOptions::default() }
}

fn is_background(px: tiny_skia::PremultipliedColorU8) -> bool {
    [px.red(), px.green(), px.blue()] == BACKGROUND
}

/// Pixels within `r` of `(x, y)` that are not background.
fn inked_near(pixmap: &Pixmap, x: f32, y: f32, r: i64) -> usize {
    let (cx, cy) = (x.round() as i64, y.round() as i64);
    let mut count = 0;
    for py in cy - r..=cy + r {
        for px in cx - r..=cx + r {
            if px < 0 || py < 0 {
                continue;
            }
            if let Some(c) = pixmap.pixel(px as u32, py as u32) {
                count += usize::from(!is_background(c));
            }
        }
    }
    count
}

fn check_png(path: &Path, w: u32, h: u32) {
    let bytes = std::fs::read(path).expect("png written");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "PNG signature");
    let img = Pixmap::decode_png(&bytes).expect("png decodes");
    assert_eq!((img.width(), img.height()), (w, h));
    assert!(img.pixels().iter().any(|&p| !is_background(p)), "something drawn");
}

fn check_gif(path: &Path, w: u16, h: u16, images: usize) {
    let bytes = std::fs::read(path).expect("gif written");
    assert!(bytes.starts_with(b"GIF89a"), "GIF signature");
    let mut decoder = gif::DecodeOptions::new().read_info(bytes.as_slice()).expect("gif decodes");
    assert_eq!((decoder.width(), decoder.height()), (w, h));
    let mut n = 0;
    while let Some(frame) = decoder.read_next_frame().expect("frame decodes") {
        assert_eq!((frame.width, frame.height), (w, h));
        assert!(frame.delay >= 2);
        n += 1;
    }
    assert_eq!(n, images);
}

#[test]
fn renders_2d_png_and_gif() {
    let dir = temp_dir("2d");
    let mut sim = sinew_scene::load_str(SCENE_2D).expect("scene loads");
    let png = dir.join("nested").join("rope.PNG");
    let msg = render(sim.as_mut(), &png, &small()).expect("png renders");
    assert!(msg.starts_with("wrote ") && msg.contains("160x120") && msg.contains("12 frames"), "{msg}");
    check_png(&png, 160, 120);

    let mut sim = sinew_scene::load_str(SCENE_2D).expect("scene loads");
    let gif = dir.join("rope.gif");
    let opts = RenderOptions { trail: true, ..small() };
    let msg = render(sim.as_mut(), &gif, &opts).expect("gif renders");
    assert!(msg.contains("5 images"), "{msg}");
    check_gif(&gif, 160, 120, 5);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn renders_3d_png_and_gif() {
    let dir = temp_dir("3d");
    let mut sim = sinew_scene::load_str(SCENE_3D).expect("scene loads");
    let png = dir.join("rope3.png");
    render(sim.as_mut(), &png, &RenderOptions { trail: true, ..small() }).expect("png renders");
    check_png(&png, 160, 120);

    let mut sim = sinew_scene::load_str(SCENE_3D).expect("scene loads");
    let gif = dir.join("rope3.gif");
    render(sim.as_mut(), &gif, &RenderOptions { every: 0, frames: 3, ..small() }).expect("gif renders");
    check_gif(&gif, 160, 120, 4);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn draw_frame_marks_particles() {
    for scene in [SCENE_2D, SCENE_3D] {
        let sim = sinew_scene::load_str(scene).expect("scene loads");
        let frame = capture(sim.as_ref(), &RenderOptions::default());
        let view = View::fit(&frame, sim.view(), 200, 150);
        let mut pixmap = Pixmap::new(200, 150).expect("pixmap");
        draw_frame(&frame, &view, &mut pixmap);
        assert_eq!(frame.particles.len(), 3);
        for p in &frame.particles {
            let q = view.project(p.pos);
            assert!((0.0..200.0).contains(&q[0]) && (0.0..150.0).contains(&q[1]), "{q:?} in view");
            assert!(inked_near(&pixmap, q[0], q[1], 1) > 0, "particle at {q:?} drawn");
        }
        // Pinned particle is red.
        let pin = frame.particles.iter().find(|p| p.pinned).expect("a pin");
        let q = view.project(pin.pos);
        let c = pixmap.pixel(q[0].round() as u32, q[1].round() as u32).expect("pixel");
        assert!(c.red() > 150 && c.green() < 100, "pinned particle red: {c:?}");
    }
}

#[test]
fn view_2d_keeps_y_up_and_fills_ground() {
    let sim = sinew_scene::load_str(SCENE_2D).expect("scene loads");
    let frame = capture(sim.as_ref(), &RenderOptions::default());
    let view = View::fit(&frame, None, 200, 150);
    let (top, bottom) = (view.project([0.0, 0.0, 0.0]), view.project([0.0, -1.0, 0.0]));
    assert!(bottom[1] > top[1], "y up in the world is up in the image");
    let ground = view.project([0.0, -2.0, 0.0]);
    assert!(ground[1] < 150.0, "ground plane in view: {ground:?}");
    let mut pixmap = Pixmap::new(200, 150).expect("pixmap");
    draw_frame(&frame, &view, &mut pixmap);
    // Below the ground line everything is the plane fill (away from the scale bar).
    let c = pixmap.pixel(190, 149).expect("pixel");
    assert_eq!([c.red(), c.green(), c.blue()], PLANE_FILL);
    // Inside the circle collider: collider fill.
    let q = view.project([1.0, -1.0, 0.0]);
    let c = pixmap.pixel(q[0] as u32, q[1] as u32).expect("pixel");
    assert_eq!([c.red(), c.green(), c.blue()], COLLIDER_FILL);
}

#[test]
fn view_hint_sets_the_window() {
    let spec = ViewSpec { min: Some(vec![-5.0, -5.0]), max: Some(vec![5.0, 5.0]), yaw_deg: None, pitch_deg: None };
    let sim = sinew_scene::load_str(SCENE_2D).expect("scene loads");
    let view = View::fit(&capture(sim.as_ref(), &RenderOptions::default()), Some(&spec), 200, 100);
    assert!((view.pixels_per_metre() - 10.0).abs() < 1e-9);
    let c = view.project([0.0, 0.0, 0.0]);
    assert!((c[0] - 100.0).abs() < 1e-3 && (c[1] - 50.0).abs() < 1e-3);
    let w = view.world_at(c[0], c[1]);
    assert!(w[0].abs() < 1e-6 && w[1].abs() < 1e-6);
}

#[test]
fn rejects_other_formats() {
    let mut sim = sinew_scene::load_str(SCENE_2D).expect("scene loads");
    let out = temp_dir("bmp").join("x.bmp");
    let err = render(sim.as_mut(), &out, &small()).expect_err("bmp rejected");
    assert!(err.contains("unsupported output format") && err.contains("use .png or .gif"), "{err}");
    assert!(!out.exists());
    let err = render(sim.as_mut(), Path::new("noext"), &small()).expect_err("no extension rejected");
    assert!(err.contains("unsupported output format"), "{err}");
    let err = render(sim.as_mut(), Path::new("x.png"), &RenderOptions { width: 0, ..small() })
        .expect_err("empty image rejected");
    assert!(err.contains("at least 1"), "{err}");
}

#[test]
fn step_errors_are_reported() {
    // A time step that is positive in the file but rounds to 0 in f32 fails at the first
    // step. (Should the loader start rejecting it, there is nothing left to test here.)
    let scene = r#"{"dim": 2, "dt": 1e-50, "particles": [{"pos": [0, 0]}]}"#;
    let Ok(mut sim) = sinew_scene::load_str(scene) else { return };
    let dir = temp_dir("fail");
    let err = render(sim.as_mut(), &dir.join("x.png"), &small()).expect_err("png fails");
    assert!(err.contains("frame 1") && err.contains("time step"), "{err}");
    let mut sim = sinew_scene::load_str(scene).expect("scene loads");
    let gif = dir.join("x.gif");
    let err = render(sim.as_mut(), &gif, &small()).expect_err("gif fails");
    assert!(err.contains("time step"), "{err}");
    assert!(!gif.exists(), "unfinished GIF removed");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn empty_scene_still_renders() {
    let sim = sinew_scene::load_str(r#"{"dim": 3}"#).expect("scene loads");
    let frame = capture(sim.as_ref(), &RenderOptions::default());
    let view = View::fit(&frame, None, 64, 48);
    assert!(view.pixels_per_metre().is_finite() && view.pixels_per_metre() > 0.0);
    let mut pixmap = Pixmap::new(64, 48).expect("pixmap");
    draw_frame(&frame, &view, &mut pixmap);
}

#[test]
fn the_frame_records_every_collider_shape() {
    let scene_2d = r#"{
        "dim": 2,
        "colliders": [
            {"plane": {"normal": [0, 1], "offset": -2}},
            {"circle": {"center": [1, -1], "radius": 0.3}},
            {"capsule": {"a": [-1, -1], "b": [0, -1], "radius": 0.1}},
            {"box": {"center": [0, -1.5], "half_extents": [0.5, 0.1], "angle": 0.2}},
            {"polygon": {"points": [[2, 0], [3, 0], [2.5, 1]]}}
        ]
    }"#;
    let frame = capture(sinew_scene::load_str(scene_2d).expect("scene loads").as_ref(), &RenderOptions::default());
    assert_eq!(frame.dim, 2);
    assert_eq!(frame.planes.len(), 1);
    let (n, off) = frame.planes[0];
    assert!((n[1] - 1.0).abs() < 1e-9 && (off + 2.0).abs() < 1e-9, "{n:?} {off}");
    // Circle, stadium, box, polygon: one filled outline each.
    assert_eq!(
        frame.outlines.iter().map(|o| (o.closed, o.points.len())).collect::<Vec<_>>(),
        [(true, 48), (true, 50), (true, 4), (true, 3)]
    );

    let scene_3d = r#"{
        "dim": 3,
        "colliders": [
            {"plane": {"normal": [0, 1, 0], "offset": 0}},
            {"sphere": {"center": [1, 1, 0], "radius": 0.3}},
            {"capsule": {"a": [-1, 1, 0], "b": [0, 1, 0], "radius": 0.1}},
            {"box": {"center": [0, 2, 0], "half_extents": [0.5, 0.1, 0.3]}},
            {"hull": {"points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]]}}
        ]
    }"#;
    let frame = capture(sinew_scene::load_str(scene_3d).expect("scene loads").as_ref(), &RenderOptions::default());
    assert_eq!(frame.planes.len(), 1);
    let rings = frame.outlines.iter().filter(|o| o.closed && o.points.len() == 40).count();
    let edges = frame.outlines.iter().filter(|o| !o.closed && o.points.len() == 2).count();
    // Sphere: 3 great circles; capsule: 2 end rings and 4 side lines; box and cube hull:
    // 12 edges each (the hull's face diagonals left out).
    assert_eq!((rings, edges), (3 + 2, 4 + 12 + 12));
}

#[test]
fn ropes_are_drawn_in_tension_levels() {
    // A rope pinned at its start, its far end weighted by a 5 kg particle on a link.
    let scene = r#"{
        "dim": 2,
        "ropes": [{"points": [[0, 0], [1, 0]], "segments": 10, "mass": 0.1, "pin": ["start"]}],
        "particles": [{"pos": [1.2, 0], "mass": 5}],
        "distances": [{"a": 11, "b": 0, "length": 0.2}]
    }"#;
    let mut sim = sinew_scene::load_str(scene).expect("scene loads");
    for _ in 0..60 {
        sim.step().expect("steps");
    }
    let opts = RenderOptions::default();
    let frame = capture(sim.as_ref(), &opts);
    assert_eq!(frame.ropes.len(), 1);
    let rope = &frame.ropes[0];
    assert_eq!((rope.points.len(), rope.colors.len(), rope.ids.len()), (11, 10, 11));
    // About 50 N along the rope: every segment at the level of its tension, and well up
    // the ramp.
    let levels: Vec<usize> = (0..TENSION_LEVELS).collect();
    let level_of = |c: [u8; 3]| levels.iter().position(|&k| tension_level_color(k) == c).expect("a level colour");
    assert!(rope.colors.iter().all(|&c| level_of(c) >= tension_level(&opts.draw.tension_scale, 20.0)));
    // The rope's free particles are its vertices, not dots; the pin and the weight are.
    assert_eq!(frame.particles.len(), 2);
}

#[test]
fn the_gif_palette_holds_every_drawing_colour() {
    let wanted = animation::Palette::wanted();
    assert!(wanted.len() <= 256, "{} colours", wanted.len());
    let palette = animation::Palette::new();
    let has = |c: [u8; 3]| palette.rgb.chunks_exact(3).any(|e| e == c);
    for k in 0..TENSION_LEVELS {
        assert!(has(tension_level_color(k)), "tension level {k}");
    }
    assert_eq!(&palette.rgb[..3], &BACKGROUND, "entry 0 is the background");
}

#[test]
fn debug_overlays_are_drawn_when_asked_for() {
    let scene = r#"{
        "dim": 2,
        "colliders": [{"plane": {"normal": [0, 1], "offset": 0}}],
        "ragdolls": [{"preset": "humanoid16", "origin": [0, 0.2]}]
    }"#;
    let mut sim = sinew_scene::load_str(scene).expect("scene loads");
    for _ in 0..30 {
        sim.step().expect("steps");
    }
    assert!(capture(sim.as_ref(), &RenderOptions::default()).marks.is_empty(), "no overlays by default");
    let mut opts = RenderOptions { width: 200, height: 150, ..RenderOptions::default() };
    opts.draw.contacts = true;
    opts.draw.joint_limits = true;
    let frame = capture(sim.as_ref(), &opts);
    let dots = frame.marks.iter().filter(|m| matches!(m, frame::Mark::Dot(..))).count();
    let arrows = frame.marks.iter().filter(|m| matches!(m, frame::Mark::Arrow(..))).count();
    let sectors = frame.marks.iter().filter(|m| matches!(m, frame::Mark::Path { closed: true, .. })).count();
    assert!(dots > 0 && dots == arrows, "contacts: {dots} points, {arrows} normals");
    assert!(sectors > 0, "joint limit sectors");
    let view = View::fit(&frame, None, 200, 150);
    let mut pixmap = Pixmap::new(200, 150).expect("pixmap");
    draw_frame(&frame, &view, &mut pixmap);
}

/// Dark pixels (text, lines) in `x0..x1 × y0..y1`.
fn dark_in(pixmap: &Pixmap, x0: u32, x1: u32, y0: u32, y1: u32) -> usize {
    let mut n = 0;
    for y in y0..y1 {
        for x in x0..x1 {
            let c = pixmap.pixel(x, y).expect("pixel");
            n += usize::from(c.red() < 120 && c.green() < 120 && c.blue() < 120);
        }
    }
    n
}

#[test]
fn a_caption_and_the_scale_bars_length_are_written_as_text() {
    let sim = sinew_scene::load_str(SCENE_2D).expect("scene loads");
    let frame = capture(sim.as_ref(), &RenderOptions::default());
    let view = View::fit(&frame, None, 400, 300);
    let mut with = Pixmap::new(400, 300).expect("pixmap");
    raster::draw_scene(&frame, &view, None, Some("scene_2d · 1.5 s"), &mut with);
    let mut without = Pixmap::new(400, 300).expect("pixmap");
    raster::draw_scene(&frame, &view, None, None, &mut without);
    // The caption: dark glyph pixels in the top-left corner, none there without it.
    let caption = dark_in(&with, 0, 200, 0, 40);
    assert!(caption > 60, "caption pixels: {caption}");
    assert_eq!(dark_in(&without, 0, 200, 0, 40), 0);
    // The label right of the bar's end (the bar is 1 m, 10 cm, ... long): glyph pixels
    // between the bar's end and the middle of the image, in the bar's rows.
    let metres = raster::scale_bar_metres(&view, 400.0).expect("a scale bar");
    let bar_end = 16 + (metres * view.scale as f32).ceil() as u32;
    let label = dark_in(&without, bar_end + 4, 200, 270, 300);
    assert!(label > 20, "label pixels right of the bar (ending at x = {bar_end}): {label}");
}

#[test]
fn scale_labels_and_text_width() {
    assert_eq!(raster::length_label(1.0), "1 m");
    assert_eq!(raster::length_label(100.0), "100 m");
    assert_eq!(raster::length_label(0.1), "10 cm");
    assert_eq!(raster::length_label(0.001), "1 mm");
    let (a, b) = (super::text::width("1 m", 16.0), super::text::width("100 m", 16.0));
    assert!(a > 10.0 && b > a + 10.0, "{a} {b}");
    assert!(title_of(Path::new("scenes/rope_14m_2d.json")) == "rope_14m_2d");
    // Text off the image or at a non-finite place draws nothing and does not panic.
    let mut p = Pixmap::new(20, 20).expect("pixmap");
    super::text::draw(&mut p, "far", 1e9, -1e9, 16.0, [0, 0, 0]);
    super::text::draw(&mut p, "nan", f32::NAN, 5.0, 16.0, [0, 0, 0]);
    super::text::draw(&mut p, "edge", -5.0, 10.0, 16.0, [0, 0, 0]);
}

/// A GIF's frames carry the caption too, in the colour table's colours: dark glyph pixels
/// in the top-left corner of the first and the last image, and none there without a title.
#[test]
fn gif_frames_carry_the_caption() {
    let dir = temp_dir("caption");
    let dark_top_left = |path: &Path| -> Vec<usize> {
        let bytes = std::fs::read(path).expect("gif written");
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(bytes.as_slice()).expect("gif decodes");
        let w = usize::from(decoder.width());
        let mut counts = Vec::new();
        while let Some(frame) = decoder.read_next_frame().expect("frame decodes") {
            let dark = (0..30usize)
                .flat_map(|y| (0..150usize).map(move |x| 4 * (y * w + x)))
                .filter(|&i| frame.buffer[i..i + 3].iter().all(|&c| c < 120))
                .count();
            counts.push(dark);
        }
        counts
    };
    let opts = RenderOptions { width: 320, height: 240, frames: 8, every: 4, ..Default::default() };
    let with = dir.join("with.gif");
    let mut sim = sinew_scene::load_str(SCENE_2D).expect("scene loads");
    render(sim.as_mut(), &with, &RenderOptions { title: Some("scene_2d".into()), ..opts.clone() }).expect("renders");
    let counts = dark_top_left(&with);
    assert_eq!(counts.len(), 3);
    assert!(counts.iter().all(|&n| n > 40), "caption pixels per image: {counts:?}");
    let without = dir.join("without.gif");
    let mut sim = sinew_scene::load_str(SCENE_2D).expect("scene loads");
    render(sim.as_mut(), &without, &opts).expect("renders");
    assert!(dark_top_left(&without).iter().all(|&n| n == 0));
    std::fs::remove_dir_all(&dir).ok();
}
