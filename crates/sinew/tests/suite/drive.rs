//! Pose drives and hit reactions (`sinew::ragdoll::drive`, issue 22): the head spring's
//! step response against `I·θ̈ = −q·θ − p·θ̇`, hits that turn the head and let it return,
//! limp at strength 0, stable at 10⁶ N·m/rad, momentum kept by internal drives, knock-out
//! and get-up, and bit-exact rollback in fixed point.

use sinew::prelude::*;
use sinew::ragdoll::drive_parts::{humanoid3d_parts, humanoid16_parts};
use sinew::ragdoll::{
    DriveGains, DrivePartDef, DrivePhase, HitReactionDef, NodeDef, PoseDrive, PoseDriveDef, PoseDriveHandle, Ragdoll,
    RigDef, presets,
};
use sinew::{Fx, Quat, Rot2, World};

use crate::rng::Rng;

/// A head on a fixed neck, in 2D: the base `b0`–`pivot` is pinned, the head is `h1`
/// (4 kg, 15 cm above the pivot) and `h2` (1 kg), a rigid triangle with the pivot.
fn head_on_a_fixed_neck(gains: DriveGains<f64>, substeps: u32) -> (World2d, PoseDriveHandle<Space2<f64>>, f64) {
    let mut world = World2d::new(WorldDef::default().gravity(Vector2::ZERO).substeps(substeps)).unwrap();
    let spots = [("b0", -0.1, 0.0, 1.0, true), ("pivot", 0.0, 0.0, 1.0, true), ("h1", 0.0, 0.15, 4.0, false), ("h2", 0.05, 0.1, 1.0, false)];
    let mut rig = RigDef::new("head");
    let mut nodes = Vec::new();
    let mut inertia = 0.0;
    for (name, x, y, m, pinned) in spots {
        rig.add_node(NodeDef::new(name, Vector2::new(x, y)).mass(m));
        let mut d = ParticleDef::at(Vector2::new(x, y)).mass(m);
        if pinned {
            d = d.pinned();
        } else {
            inertia += m * (x * x + y * y);
        }
        nodes.push(world.add_particle(&d).unwrap());
    }
    for (a, b) in [(1, 2), (1, 3), (2, 3)] {
        world.add_distance(&DistanceDef::new(nodes[a], nodes[b])).unwrap();
    }
    let parts = [
        DrivePartDef::new("base", &["b0", "pivot"]),
        DrivePartDef::new("head", &["pivot", "h1", "h2"]).parent("base").gains(gains),
    ];
    let h = PoseDrive::add(&mut world, &rig, &nodes, &parts, &PoseDriveDef::default()).unwrap();
    (world, h, inertia)
}

/// Steps the head after a 0.2 rad step of its target; returns `(overshoot, damped period)`
/// measured from the angle every 1/240 s for 4 s (period from the first two upward
/// crossings of the target, interpolated linearly).
fn step_response(world: &mut World2d, h: PoseDriveHandle<Space2<f64>>) -> (f64, Option<f64>) {
    let step = 0.2;
    world.controller_mut(h).unwrap().set_target(1, Rot2::from_angle(step)).unwrap();
    let dt = 1.0 / 240.0;
    let (mut peak, mut prev, mut ups) = (0.0f64, 0.0f64, Vec::new());
    for k in 1..=960 {
        world.step(dt).unwrap();
        let th = world.controller(h).unwrap().relative_orientation(world.particles(), 1).unwrap().angle();
        peak = peak.max(th);
        let (e0, e1) = (prev - step, th - step);
        if e0 < 0.0 && e1 >= 0.0 && k > 1 {
            ups.push(dt * (k as f64 - 1.0 + e0 / (e0 - e1)));
        }
        prev = th;
    }
    let period = (ups.len() >= 2).then(|| ups[1] - ups[0]);
    ((peak - step) / step, period)
}

#[test]
fn head_spring_step_response_matches_the_damped_oscillator() {
    // 1 Hz undamped; 16 substeps at 240 Hz (h = 1/3840 s): the implicit integration's own
    // damping is ζ ≈ ω₀h/2 ≈ 8·10⁻⁴.
    for zeta in [0.3, 0.7, 1.0] {
        let (_, _, inertia) = head_on_a_fixed_neck(DriveGains::default(), 16);
        let w0 = 2.0 * std::f64::consts::PI;
        let q = inertia * w0 * w0;
        let p = 2.0 * zeta * (q * inertia).sqrt();
        let (mut world, h, _) = head_on_a_fixed_neck(DriveGains::Physical { stiffness: q, damping: p }, 16);
        let (overshoot, period) = step_response(&mut world, h);
        if zeta < 1.0 {
            let want = (-zeta * std::f64::consts::PI / (1.0 - zeta * zeta).sqrt()).exp();
            let want_t = 2.0 * std::f64::consts::PI / (w0 * (1.0 - zeta * zeta).sqrt());
            let t = period.expect("two crossings");
            println!("ζ = {zeta}: overshoot {overshoot:.5} (want {want:.5}), period {t:.5} s (want {want_t:.5})");
            assert!(((overshoot - want) / want).abs() < 0.02, "ζ = {zeta}: overshoot {overshoot} vs {want}");
            assert!(((t - want_t) / want_t).abs() < 0.02, "ζ = {zeta}: period {t} vs {want_t}");
        } else {
            println!("ζ = 1: overshoot {overshoot:.2e}");
            assert!(overshoot < 1e-4, "critically damped overshoot {overshoot}");
        }
    }
}

#[test]
fn frequency_gains_are_the_physical_gains_of_the_parts_inertia() {
    let (world, h, inertia) = head_on_a_fixed_neck(
        DriveGains::Frequency { frequency: 1.5, damping_ratio: 0.4 },
        8,
    );
    let (q, p) = world.controller(h).unwrap().gains(1).unwrap();
    let w0 = 3.0 * std::f64::consts::PI;
    assert!((q - inertia * w0 * w0).abs() < 1e-9 * q, "{q}");
    assert!((p - 0.8 * inertia * w0).abs() < 1e-9 * p, "{p}");
}
