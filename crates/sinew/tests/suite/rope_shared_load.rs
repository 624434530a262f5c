//! Two or three ropes ending at one particle (`RopeDef::attach_end` on the same load): the
//! ropes and the load are solved together, exactly, so a heavy load hung in a V or from a
//! tripod neither stretches its ropes nor makes their tension read-outs ring.
//!
//! The statics the tensions are checked against: at rest, the load's weight is carried by
//! the ropes' last segments, `Σ_k T_k u_k = −m g` with `u_k` the unit direction of rope
//! `k`'s last segment from the load (measured), solved for `T` in least squares.

use crate::measure::rope_stretch as stretch;
use sinew::prelude::*;
use sinew::{RealOf, RopeHandle, VecOf, World};

const G: f64 = 9.81;
const DT: f64 = 1.0 / 60.0;
const LOAD: f64 = 20.0;
const ROPE_MASS: f64 = 0.2;
const ROPE_LENGTH: f64 = 2.0;

fn at<S: Space>(x: f64, y: f64, z: f64) -> VecOf<S> {
    VecOf::<S>::from_f64_slice(&[x, y, z])
}

fn f64s<S: Space>(v: VecOf<S>) -> [f64; 3] {
    v.to_array3().map(Real::to_f64)
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

/// A rope from `anchor` to the load's position `load_at`, `ROPE_LENGTH` long: straight if
/// the chord is that long, else bent down at its middle so that it is.
fn rope_points(anchor: [f64; 3], load_at: [f64; 3]) -> Vec<[f64; 3]> {
    let chord = norm(sub(load_at, anchor));
    if chord >= ROPE_LENGTH - 1e-9 {
        return vec![anchor, load_at];
    }
    let mid = [(anchor[0] + load_at[0]) * 0.5, (anchor[1] + load_at[1]) * 0.5, (anchor[2] + load_at[2]) * 0.5];
    // Lower the middle point until the polyline is ROPE_LENGTH long (bisection).
    let (mut lo, mut hi) = (0.0, ROPE_LENGTH);
    for _ in 0..100 {
        let d = 0.5 * (lo + hi);
        let m = [mid[0], mid[1] - d, mid[2]];
        if norm(sub(m, anchor)) + norm(sub(load_at, m)) > ROPE_LENGTH {
            hi = d;
        } else {
            lo = d;
        }
    }
    vec![anchor, [mid[0], mid[1] - lo, mid[2]], load_at]
}

/// A load of `LOAD` kg at `load_at` hung by one rope from each of `anchors` (pinned).
fn build<S: Space>(
    anchors: &[[f64; 3]],
    load_at: [f64; 3],
    segments: usize,
    tear: Option<f64>,
) -> (World<S>, ParticleHandle, Vec<ParticleHandle>, Vec<RopeHandle>) {
    build_in(WorldDef::default(), anchors, load_at, segments, tear)
}

fn build_in<S: Space>(
    def: WorldDef<S>,
    anchors: &[[f64; 3]],
    load_at: [f64; 3],
    segments: usize,
    tear: Option<f64>,
) -> (World<S>, ParticleHandle, Vec<ParticleHandle>, Vec<RopeHandle>) {
    let mut w = World::<S>::new(def).unwrap();
    let load = w
        .add_particle(&ParticleDef::at(at::<S>(load_at[0], load_at[1], load_at[2])).mass(RealOf::<S>::from_f64(LOAD)))
        .unwrap();
    let mut pins = Vec::new();
    let mut ropes = Vec::new();
    for &a in anchors {
        let pts = rope_points(a, load_at).into_iter().map(|p| at::<S>(p[0], p[1], p[2])).collect();
        let mut def =
            RopeDef::along(pts).segments(segments).mass(RealOf::<S>::from_f64(ROPE_MASS)).pin_start().attach_end(load);
        if let Some(t) = tear {
            def = def.tear_tension(RealOf::<S>::from_f64(t));
        }
        let h = w.add_rope(&def).unwrap();
        pins.push(w.rope(h).unwrap().start());
        ropes.push(h);
    }
    (w, load, pins, ropes)
}

#[allow(clippy::needless_range_loop)]
/// The ropes' statics at the load: the tension of each rope's last segment that balances
/// the load's weight along the measured directions (least squares), and the read-outs.
fn statics<S: Space>(w: &World<S>, load: ParticleHandle, ropes: &[RopeHandle]) -> (Vec<f64>, Vec<f64>) {
    let ps = w.particles();
    let x = f64s::<S>(ps.position(load).unwrap());
    let dirs: Vec<[f64; 3]> = ropes
        .iter()
        .map(|&h| {
            let r = w.rope(h).unwrap();
            let p = r.particles();
            let d = sub(f64s::<S>(ps.position(p[p.len() - 2]).unwrap()), x);
            let n = norm(d);
            [d[0] / n, d[1] / n, d[2] / n]
        })
        .collect();
    let k = dirs.len();
    // Normal equations (UᵀU) T = Uᵀ (m g ŷ), solved by Gaussian elimination (k ≤ 3).
    let mut a = vec![vec![0.0; k + 1]; k];
    for i in 0..k {
        for j in 0..k {
            a[i][j] = (0..3).map(|c| dirs[i][c] * dirs[j][c]).sum();
        }
        a[i][k] = dirs[i][1] * LOAD * G;
    }
    for c in 0..k {
        for r in c + 1..k {
            let f = a[r][c] / a[c][c];
            for j in c..=k {
                a[r][j] -= f * a[c][j];
            }
        }
    }
    let mut t = vec![0.0; k];
    for c in (0..k).rev() {
        let s: f64 = (c + 1..k).map(|j| a[c][j] * t[j]).sum();
        t[c] = (a[c][k] - s) / a[c][c];
    }
    let read = ropes
        .iter()
        .map(|&h| {
            let n = w.rope(h).unwrap().segment_count();
            w.rope_tension(h, n - 1).unwrap().to_f64()
        })
        .collect();
    (t, read)
}

/// What a shared-load run measured.
#[derive(Debug, Default)]
struct Measured {
    /// Worst stretch of any rope over the measured frames.
    stretch: f64,
    /// Worst read-out against statics (relative).
    off_statics: f64,
    /// Worst frame-to-frame change of a read-out, relative to statics.
    jitter: f64,
    /// Worst speed of the load over the measured frames (m/s).
    speed: f64,
}

/// Steps `frames` frames and measures the frames from `from` on.
fn run<S: Space>(w: &mut World<S>, load: ParticleHandle, ropes: &[RopeHandle], frames: usize, from: usize) -> Measured {
    let mut m = Measured::default();
    let mut last: Option<Vec<f64>> = None;
    for f in 0..frames {
        w.step(RealOf::<S>::from_f64(DT)).unwrap();
        for &h in ropes {
            let s = stretch(w, h);
            assert!(s.is_finite(), "frame {f}: stretch not finite");
        }
        if f < from {
            continue;
        }
        for &h in ropes {
            m.stretch = m.stretch.max(stretch(w, h));
        }
        let (want, read) = statics(w, load, ropes);
        for (t, r) in want.iter().zip(&read) {
            m.off_statics = m.off_statics.max((r - t).abs() / t);
        }
        if let Some(prev) = &last {
            for ((t, r), p) in want.iter().zip(&read).zip(prev) {
                m.jitter = m.jitter.max((r - p).abs() / t);
            }
        }
        last = Some(read);
        m.speed = m.speed.max(norm(f64s::<S>(w.particles().velocity(load).unwrap())));
    }
    m
}

/// (a) The V at rest: anchors 2.4 m apart, the load where two straight 2 m ropes meet
/// (1.6 m below), `segments` per rope; 4 s, the last 2 measured.
fn v_at_rest<S: Space>(segments: usize) -> Measured {
    let anchors = [[-1.2, 0.0, 0.0], [1.2, 0.0, 0.0]];
    let (mut w, load, _, ropes) = build::<S>(&anchors, [0.0, -1.6, 0.0], segments, None);
    run(&mut w, load, &ropes, 240, 120)
}

/// Read-out bounds at rest: (segments, against statics, frame to frame). With 20 segments
/// (10 g particles) every number type reads the statics within 0.3 % (before the joint
/// solve: 3.8 % off and 7 % from frame to frame). With 40 (5 g particles under 120 N) the
/// load keeps a millimetre-per-second ringing that world damping does not remove, and the
/// read-outs move with it (measured 2026-12-06: f64 0.2 %, fixed 0.3 %, f32 6 % / 8 %
/// a frame; the tripod in f64 9 % / 16 %); the bounds below hold that, not a target.
const AT_REST: [(usize, f64, f64); 2] = [(20, 0.005, 0.005), (40, 0.07, 0.10)];

fn check_v_at_rest<S: Space>(name: &str) {
    for (segments, off, jitter) in AT_REST {
        let m = v_at_rest::<S>(segments);
        eprintln!("V at rest, {name}, {segments} segments: {m:?}");
        assert!(m.stretch < 1e-4, "{name}, {segments}: stretch {:.4} %", m.stretch * 100.0);
        assert!(m.off_statics < off, "{name}, {segments}: tension {:.2} % off statics", m.off_statics * 100.0);
        assert!(m.jitter < jitter, "{name}, {segments}: tension changes {:.2} % a frame", m.jitter * 100.0);
    }
}

#[test]
fn a_load_hung_in_a_v_by_two_ropes_reads_its_statics_2d_f64() {
    check_v_at_rest::<Space2<f64>>("2D f64");
}

#[test]
fn a_load_hung_in_a_v_by_two_ropes_reads_its_statics_2d_f32() {
    check_v_at_rest::<Space2<f32>>("2D f32");
}

#[test]
fn a_load_hung_in_a_v_by_two_ropes_reads_its_statics_2d_fixed() {
    check_v_at_rest::<Space2<Fx>>("2D fixed");
}

#[test]
fn a_load_hung_in_a_v_by_two_ropes_reads_its_statics_3d() {
    check_v_at_rest::<Space3<f64>>("3D f64");
    check_v_at_rest::<Space3<f32>>("3D f32");
    check_v_at_rest::<Space3<Fx>>("3D fixed");
}

/// (b) The load dropped `drop` m into the slack V (its ropes bent down at their middles),
/// 4 s; returns the worst stretch over the whole run and the last second's measures.
fn v_drop<S: Space>(segments: usize, drop: f64) -> (f64, Measured) {
    let anchors = [[-1.2, 0.0, 0.0], [1.2, 0.0, 0.0]];
    let (mut w, load, _, ropes) = build::<S>(&anchors, [0.0, -1.6 + drop, 0.0], segments, None);
    let caught = run(&mut w, load, &ropes, 180, 0);
    let rest = run(&mut w, load, &ropes, 60, 0);
    (caught.stretch.max(rest.stretch), rest)
}

/// Not asserted: the read-outs after the catch. At 20 segments they are within 0.15 % of
/// statics; at 40 within 4–5 % in f64 and fixed point, but in `f32` the 40-segment V
/// caught from 1 m reads ~100× its statics a second later while its load still moves at
/// 0.4 m/s (measured 2026-12-06; an open defect, see the README's known limits).
fn check_v_drop<S: Space>(name: &str) {
    for (segments, drop) in [(20, 0.5), (40, 1.0)] {
        let (s, m) = v_drop::<S>(segments, drop);
        eprintln!("V drop, {name}, {segments} segments, {drop} m: stretch {s:.2e}, then {m:?}");
        assert!(s < 5e-3, "{name}, {segments}: stretch {:.3} % while caught", s * 100.0);
        assert!(m.stretch < 1e-3, "{name}, {segments}: stretch {:.4} % after", m.stretch * 100.0);
        assert!(m.speed < 0.5, "{name}, {segments}: load still at {:.3} m/s", m.speed);
    }
}

#[test]
fn a_load_dropped_into_a_v_of_two_ropes_is_caught() {
    check_v_drop::<Space2<f64>>("2D f64");
    check_v_drop::<Space2<f32>>("2D f32");
    check_v_drop::<Space2<Fx>>("2D fixed");
    check_v_drop::<Space3<f64>>("3D f64");
}

/// (c) The V's anchors made kinematic and pulled apart at 5 m/s each until 2.5 m from the
/// middle (0.5 m beyond the ropes' reach), then held there 1 s. Returns (worst load
/// speed, whether any rope tore, worst stretch).
fn v_pulled_apart<S: Space>(segments: usize, tear: Option<f64>) -> (f64, bool, f64) {
    let anchors = [[-1.2, 0.0, 0.0], [1.2, 0.0, 0.0]];
    let (mut w, load, pins, ropes) = build::<S>(&anchors, [0.0, -1.6, 0.0], segments, tear);
    let count = w.ropes().count();
    let mut x = 1.2;
    let (mut speed, mut worst): (f64, f64) = (0.0, 0.0);
    for f in 0..150 {
        if f >= 30 {
            x = (x + 5.0 * DT).min(2.5);
        }
        w.particles_mut().set_kinematic_target(pins[0], at::<S>(-x, 0.0, 0.0)).unwrap();
        w.particles_mut().set_kinematic_target(pins[1], at::<S>(x, 0.0, 0.0)).unwrap();
        w.step(RealOf::<S>::from_f64(DT)).unwrap();
        for p in w.particles().positions() {
            assert!(f64s::<S>(*p).iter().all(|c| c.is_finite() && c.abs() < 100.0), "frame {f}: a particle at {p:?}");
        }
        speed = speed.max(norm(f64s::<S>(w.particles().velocity(load).unwrap())));
        if tear.is_none() {
            for &h in &ropes {
                worst = worst.max(stretch(&w, h));
            }
        }
    }
    let tore = w.ropes().count() != count || ropes.iter().any(|&h| w.rope(h).map_or(true, |r| r.end() != load));
    (speed, tore, worst)
}

#[test]
fn a_v_pulled_apart_beyond_its_length_holds_or_tears_without_blowing_up() {
    fn check<S: Space>(name: &str) {
        for segments in [20, 40] {
            let (speed, tore, s) = v_pulled_apart::<S>(segments, None);
            eprintln!("V pulled apart, {name}, {segments}: load speed {speed:.2} m/s, stretch {s:.3e}");
            assert!(!tore, "{name}: no tear tension, no tear");
            assert!(speed < 50.0, "{name}, {segments}: load flung at {speed:.1} m/s");
            // 5 m between the hooks against 2 × 2 m of rope: laid straight, 25 % stretched,
            // and no more.
            assert!(s < 0.2501, "{name}, {segments}: stretch {:.1} %", s * 100.0);
            let (speed, tore, _) = v_pulled_apart::<S>(segments, Some(2000.0));
            eprintln!("V pulled apart with a tear tension, {name}, {segments}: load speed {speed:.2} m/s, tore {tore}");
            assert!(tore, "{name}, {segments}: a 2 kN tear tension should tear once the hooks pass the reach");
            assert!(speed < 50.0, "{name}, {segments}: load flung at {speed:.1} m/s");
        }
    }
    check::<Space2<f64>>("2D f64");
    check::<Space2<f32>>("2D f32");
    check::<Space2<Fx>>("2D fixed");
    check::<Space3<f64>>("3D f64");
}

/// (d) A tripod: three ropes from anchors 1.2 m from the middle at 120°, the load 1.6 m
/// below; 4 s, the last 2 measured.
fn tripod<S: Space>(segments: usize) -> Measured {
    let anchors: Vec<[f64; 3]> = (0..3)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / 3.0;
            [1.2 * a.cos(), 0.0, 1.2 * a.sin()]
        })
        .collect();
    let (mut w, load, _, ropes) = build::<S>(&anchors, [0.0, -1.6, 0.0], segments, None);
    run(&mut w, load, &ropes, 240, 120)
}

#[test]
fn a_load_hung_from_a_tripod_of_three_ropes_reads_its_statics() {
    fn check<S: Space>(name: &str) {
        // (40 segments: see `AT_REST`; the tripod rings more than the V — f64 9 % / 16 %,
        // f32 12 % / 20 % — and in `f32` already at 20 segments: 5.4 % / 10.5 %.)
        let first = if name == "f32" { (20, 0.07, 0.13) } else { (20, 0.005, 0.005) };
        for (segments, off, jitter) in [first, (40, 0.15, 0.25)] {
            let m = tripod::<S>(segments);
            eprintln!("tripod, {name}, {segments} segments: {m:?}");
            assert!(m.stretch < 1e-4, "{name}, {segments}: stretch {:.4} %", m.stretch * 100.0);
            assert!(m.off_statics < off, "{name}, {segments}: tension {:.2} % off statics", m.off_statics * 100.0);
            assert!(m.jitter < jitter, "{name}, {segments}: tension changes {:.2} % a frame", m.jitter * 100.0);
        }
    }
    check::<Space3<f64>>("f64");
    check::<Space3<f32>>("f32");
    check::<Space3<Fx>>("fixed");
}

/// The 40-segment ringing of `AT_REST` is the substep's resolution of 5 g particles under
/// 120 N, not the coupling: at 16 substeps the tripod and the V read their statics within
/// 0.5 %, and change by under 1 % a frame, in f64 (fixed point: 2 %, 2.5 %). Measured,
/// the f64 tripod: 0.11 % off statics at 16 substeps; 20 % at 4, 9 % at 8, 0.4 % at 32.
#[test]
fn forty_segment_ropes_on_a_shared_load_read_their_statics_at_16_substeps() {
    fn check<S: Space>(name: &str, (off, jitter): (f64, f64)) {
        let tripod: Vec<[f64; 3]> = (0..3)
            .map(|k| {
                let a = std::f64::consts::TAU * k as f64 / 3.0;
                [1.2 * a.cos(), 0.0, 1.2 * a.sin()]
            })
            .collect();
        let v = [[-1.2, 0.0, 0.0], [1.2, 0.0, 0.0]];
        for (what, anchors) in [("V", &v[..]), ("tripod", &tripod[..])] {
            let def = WorldDef::default().substeps(16);
            let (mut w, load, _, ropes) = build_in::<S>(def, anchors, [0.0, -1.6, 0.0], 40, None);
            let m = run(&mut w, load, &ropes, 240, 120);
            eprintln!("{what}, {name}, 40 segments, 16 substeps: {m:?}");
            assert!(m.off_statics < off, "{what}, {name}: {:.2} % off statics", m.off_statics * 100.0);
            assert!(m.jitter < jitter, "{what}, {name}: {:.2} % a frame", m.jitter * 100.0);
        }
    }
    check::<Space3<f64>>("f64", (0.005, 0.01));
    // (The fixed-point tripod: measured 1.3 % off statics, 1.8 % a frame.)
    check::<Space3<Fx>>("fixed", (0.02, 0.025));
    // Not `f32`: its 40-segment V reads 12 % off statics and 17 % a frame at 16
    // substeps (worse than at 8): the links' rounding (~1 µm) over `h²` (see
    // `rope/tension.rs`). Open.
}
