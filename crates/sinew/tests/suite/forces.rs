//! Strong and fast driving stays stable, in f32, f64 and fixed point: wind drag is
//! applied every substep and implicitly, so no particle is ever pushed past the wind at
//! any drag; a rope whipped by a driven hand far faster than its chain solve converges in
//! one go is solved in pieces and keeps its length.

use sinew::prelude::*;
use sinew::{RopeHandle, World};

const DT: f64 = 1.0 / 60.0;
const WIND: f64 = 5.0;

/// A 1 m, 20-segment rope (pinned at its start or free) lying across a 5 m/s wind in
/// zero gravity, with drag `ratio · m / dt` (m: an inner particle's mass). Returns the
/// highest particle speed over 4 s, the rope's speed over the last frame (from the
/// positions a frame apart; relative to the wind when free), and how far along the wind
/// the tip ends relative to the start (m).
fn windswept<R: Real>(ratio: f64, pinned: bool) -> (f64, f64, f64) {
    let mut w = World::<Space2<R>>::new(WorldDef::default().gravity(Vector2::from_f64(0.0, 0.0))).unwrap();
    let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
    let mass = 0.2;
    let def = RopeDef::between(v(0.0, 0.0), v(1.0, 0.0)).segments(20).mass(R::from_f64(mass));
    let h: RopeHandle = w.add_rope(&if pinned { def.pin_start() } else { def }).unwrap();
    let drag = ratio * (mass / 20.0) / DT;
    w.set_rope_wind(h, v(0.0, WIND), R::from_f64(drag)).unwrap();
    let ps: Vec<_> = w.rope(h).unwrap().particles().to_vec();
    let pos = |w: &World<Space2<R>>| -> Vec<[f64; 3]> {
        ps.iter().map(|&p| w.particles().position(p).unwrap().to_f64_array()).collect()
    };
    let mut top = 0.0f64;
    let mut before = pos(&w);
    for _ in 0..240 {
        before = pos(&w);
        w.step(R::from_f64(DT)).unwrap();
        let speed = |p| w.particles().velocity(p).unwrap().to_f64_array();
        top = top.max(ps.iter().map(|&p| speed(p)[0].hypot(speed(p)[1])).fold(0.0, f64::max));
    }
    let after = pos(&w);
    let drift = if pinned { 0.0 } else { WIND * DT };
    let last =
        before.iter().zip(&after).map(|(a, b)| (b[0] - a[0]).hypot(b[1] - a[1] - drift) / DT).fold(0.0, f64::max);
    (top, last, after[after.len() - 1][1] - after[0][1])
}

fn check<R: Real>() {
    for ratio in [0.1, 1.0, 10.0, 100.0, 1000.0] {
        // A free rope: every particle's speed stays within the wind's (1 % for the
        // chain's redistribution between its half-mass ends and inner particles), never
        // the 180 m/s flip of the explicit force; it ends moving with the wind.
        let (top, last, _) = windswept::<R>(ratio, false);
        assert!(top <= WIND * 1.01, "{} free, drag·dt/m = {ratio}: {top} m/s", R::NAME);
        assert!(last < 0.05, "{} free, drag·dt/m = {ratio}: {last} m/s off the wind", R::NAME);
        // Pinned, the rope swings round into the wind like a pendulum the wind pumps:
        // its tip may pass the wind speed on the way (1.31× at the weakest drag), but the
        // swing dies out and the rope settles along the wind. (Held straight by drag this
        // strong, its particles keep a velocity of up to 2 m/s that the substeps undo —
        // still from frame to frame; the same rope under the equivalent 245 g of gravity
        // does the same: the chain solve's, not the drag's.)
        let (top, last, tip) = windswept::<R>(ratio, true);
        assert!(top <= WIND * 1.5, "{} pinned, drag·dt/m = {ratio}: {top} m/s", R::NAME);
        assert!(last < 0.05, "{} pinned, drag·dt/m = {ratio}: still moving at {last} m/s", R::NAME);
        assert!(tip > 0.95, "{} pinned, drag·dt/m = {ratio}: tip at {tip} m along the wind", R::NAME);
    }
}

#[test]
fn drag_from_0_1_to_1000_times_m_over_dt_never_pushes_past_the_wind_f32() {
    check::<f32>();
}

#[test]
fn drag_from_0_1_to_1000_times_m_over_dt_never_pushes_past_the_wind_f64() {
    check::<f64>();
}

#[test]
fn drag_from_0_1_to_1000_times_m_over_dt_never_pushes_past_the_wind_fixed() {
    check::<Fx>();
}

/// Worst stretch and compression of a rope's segments, as fractions of their rest lengths.
fn strain<S: Space>(w: &World<S>, h: RopeHandle) -> f64 {
    let rope = w.rope(h).unwrap();
    let ps = w.particles();
    rope.particles()
        .windows(2)
        .zip(rope.rest_lengths())
        .map(|(p, &rest)| {
            let d = (ps.position(p[0]).unwrap() - ps.position(p[1]).unwrap()).length().to_f64();
            (d / rest.to_f64() - 1.0).abs()
        })
        .fold(0.0, f64::max)
}

/// A 10 m rope of 2000 segments hanging from a hand that is whipped sideways at 50 m/s:
/// 1 m out in 20 ms and back, five times. Returns the worst strain at the end of a step.
fn whip<R: Real>(segments: usize) -> f64 {
    let mut w = World::<Space2<R>>::new(WorldDef::default()).unwrap();
    let v = |x: f64, y: f64| Vector2::<R>::from_f64(x, y);
    let h = w.add_rope(&RopeDef::between(v(0.0, 0.0), v(0.0, -10.0)).segments(segments).mass(R::ONE)).unwrap();
    let hand = w.rope(h).unwrap().particles()[0];
    let mut keys = vec![(R::ZERO, v(0.0, 0.0))];
    for i in 0..5 {
        let t = 0.2 + 0.04 * f64::from(i);
        keys.push((R::from_f64(t + 0.02), v(1.0, 0.0)));
        keys.push((R::from_f64(t + 0.04), v(0.0, 0.0)));
    }
    w.add_driver(&DriverDef::new(hand, keys)).unwrap();
    let mut worst = 0.0f64;
    for _ in 0..60 {
        w.step(R::from_f64(DT)).unwrap();
        worst = worst.max(strain(&w, h));
    }
    worst
}

/// The issue asks for every segment within 5 %; the chain solve's aim is 0.1 % and it
/// gets there (before the fallback that replays an unconverged substep in pieces, the
/// 2000-segment rope stretched to 6–13 times its length).
fn check_whip<R: Real>() {
    let worst = whip::<R>(2000);
    assert!(worst < 0.002, "{}: a segment {:.1} % off its rest length", R::NAME, worst * 100.0);
}

#[test]
fn a_2000_segment_rope_whipped_at_50_m_s_keeps_every_segment_within_0_2_percent_f32() {
    check_whip::<f32>();
}

#[test]
fn a_2000_segment_rope_whipped_at_50_m_s_keeps_every_segment_within_0_2_percent_f64() {
    check_whip::<f64>();
}

#[test]
fn a_2000_segment_rope_whipped_at_50_m_s_keeps_every_segment_within_0_2_percent_fixed() {
    check_whip::<Fx>();
}
