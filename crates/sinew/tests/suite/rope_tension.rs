//! Rope tension as the force the rope carries: read against a rigid pendulum's, frame by
//! frame, and tearing decided on it.

use sinew::prelude::*;
use sinew::{RopeDef, RopeHandle, World};

const G: f64 = 9.81;
const DT: f64 = 1.0 / 60.0;

/// A 5 kg weight (the last particle of a 2 m, 200 g, 40-segment rope pinned at the top)
/// released from 37°. Each frame: (tension of the last segment, the tension a rigid
/// pendulum of the weight's measured angle, speed and distance from the pivot has).
fn weight_pendulum<R: Real>(
    substeps: u32,
    frames: usize,
    tear: Option<f64>,
) -> (Vec<(f64, f64)>, World<Space2<R>>, RopeHandle) {
    let def = WorldDef::default().substeps(substeps);
    let mut w = World::<Space2<R>>::new(def).unwrap();
    let a = 37f64.to_radians();
    let (l, m) = (2.0, 5.0);
    let end = Vector2::<R>::from_f64(l * a.sin(), -l * a.cos());
    let mut rd = RopeDef::between(Vector2::<R>::ZERO, end).segments(40).mass(R::from_f64(0.2)).pin_start();
    if let Some(t) = tear {
        rd = rd.tear_tension(R::from_f64(t));
    }
    let h = w.add_rope(&rd).unwrap();
    let weight = w.rope(h).unwrap().end();
    w.particles_mut().set_mass(weight, R::from_f64(m)).unwrap();
    let mut out = Vec::new();
    for _ in 0..frames {
        w.step(R::from_f64(DT)).unwrap();
        let Ok(rope) = w.rope(h) else { break };
        if rope.end() != weight {
            break; // torn
        }
        let p = w.particles().position(weight).unwrap();
        let v = w.particles().velocity(weight).unwrap();
        let (px, py, vx, vy) = (p.x.to_f64(), p.y.to_f64(), v.x.to_f64(), v.y.to_f64());
        let r = (px * px + py * py).sqrt();
        // Radial balance of the weight: T − m g cos θ = m v⊥² / r.
        let cos = -py / r;
        let vt2 = vx * vx + vy * vy - ((vx * px + vy * py) / r).powi(2);
        let rigid = m * (G * cos + vt2 / r);
        let t = w.rope_tensions(h).unwrap().last().unwrap().to_f64();
        out.push((t, rigid));
    }
    (out, w, h)
}

fn worst_error(series: &[(f64, f64)]) -> (f64, usize) {
    series
        .iter()
        .enumerate()
        .map(|(i, &(t, rigid))| ((t - rigid).abs() / rigid, i))
        .fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a })
}

fn check_pendulum<R: Real>(name: &str) {
    for substeps in [4, 8, 16] {
        let (series, _, _) = weight_pendulum::<R>(substeps, 180, None);
        assert_eq!(series.len(), 180);
        let (err, frame) = worst_error(&series);
        let (t, rigid) = series[frame];
        assert!(
            err < 0.05,
            "{name}, {substeps} substeps: frame {frame}: tension {t:.2} N vs rigid pendulum {rigid:.2} N ({:.1} %)",
            err * 100.0
        );
    }
}

#[test]
fn weight_on_a_40_segment_rope_reads_the_rigid_pendulum_tension_every_frame_f32() {
    check_pendulum::<f32>("f32");
}

#[test]
fn weight_on_a_40_segment_rope_reads_the_rigid_pendulum_tension_every_frame_f64() {
    check_pendulum::<f64>("f64");
}

#[test]
fn weight_on_a_40_segment_rope_reads_the_rigid_pendulum_tension_every_frame_fixed() {
    check_pendulum::<Fx>("fixed");
}

/// The highest tension the top segment reads over the 3 s run (one period and a bit).
fn top_peak<R: Real>(substeps: u32) -> f64 {
    let (_, mut w, h) = weight_pendulum::<R>(substeps, 0, None);
    let mut peak = 0f64;
    for _ in 0..180 {
        w.step(R::from_f64(DT)).unwrap();
        peak = peak.max(w.rope_tension(h, 0).unwrap().to_f64());
    }
    peak
}

/// Frames until the rope tears with `tear_tension = factor × peak`, and the rope's
/// particle count after it (1: torn at the top segment; a rope left with only its pivot is
/// removed, which reads as 1 too), or `None` if it holds 3 s.
fn tear_at<R: Real>(substeps: u32, factor: f64) -> Option<(usize, usize)> {
    let peak = top_peak::<R>(substeps);
    let (series, w, h) = weight_pendulum::<R>(substeps, 180, Some(factor * peak));
    (series.len() < 180).then(|| (series.len() + 1, w.rope(h).map_or(1, |r| r.particles().len())))
}

fn check_tearing<R: Real>(name: &str) {
    for substeps in [4, 8, 16] {
        assert_eq!(tear_at::<R>(substeps, 1.5), None, "{name}, {substeps} substeps: tore at 1.5x the peak");
        // The weight passes the bottom (the peak) at a quarter period, 0.72 s = 43 frames;
        // one swing is half a period, 85 frames.
        let (frame, left) =
            tear_at::<R>(substeps, 0.8).unwrap_or_else(|| panic!("{name}, {substeps} substeps: held at 0.8x"));
        assert!(frame <= 85, "{name}, {substeps} substeps: tore at frame {frame}, after the first swing");
        assert_eq!(left, 1, "{name}, {substeps} substeps: tore below the top ({left} particles left on the pivot)");
    }
}

#[test]
fn tear_tension_above_the_peak_holds_and_below_it_tears_at_the_top_within_a_swing_f32() {
    check_tearing::<f32>("f32");
}

#[test]
fn tear_tension_above_the_peak_holds_and_below_it_tears_at_the_top_within_a_swing_f64() {
    check_tearing::<f64>("f64");
}

#[test]
fn tear_tension_above_the_peak_holds_and_below_it_tears_at_the_top_within_a_swing_fixed() {
    check_tearing::<Fx>("fixed");
}
