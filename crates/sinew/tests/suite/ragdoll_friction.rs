//! Friction on a landing ragdoll: a `humanoid16` dropped lying flat onto a rough floor
//! (restitution 0) from 3–7 m, at 4 and 8 substeps, friction 0.3 and 0.6, in `f32`, `f64`
//! and fixed point.
//!
//! The floor can give the body sideways momentum only through friction, so Coulomb's law
//! bounds what it gains: `|J_t| ≤ μ J_n` over the landing, with `J_n` the floor's normal
//! impulse (`ΔP_y + M g t`). Both tests here are ignored because both fail: a known
//! defect (README, known limits). In the solve after contacts (`constraint::tree`) a
//! particle held by static friction is heavy in every direction, so the floor supplies
//! whatever sideways pull the limbs swinging down about it need, with no bound; the body
//! leaves its landing with more sideways impulse than `μ J_n` and slides up to metres
//! from a straight drop. Run them with
//! `cargo test --release -p sinew --test suite ragdoll_friction -- --ignored --nocapture`.

use sinew::prelude::*;
use sinew::ragdoll::{Ragdoll, SpawnDef, presets};
use sinew::{Rot2, World};

const DT: f64 = 1.0 / 60.0;

/// One flat drop: the largest `|J_t| / J_n` over the 30 frames from the first touch,
/// and the farthest the centre of mass went sideways over 150 frames.
fn flat_drop<R: Real>(h: f64, substeps: u32, mu: f64) -> (f64, f64) {
    let rig = presets::humanoid16::<R>();
    let def = WorldDef::default().substeps(substeps).friction(R::from_f64(mu)).restitution(R::ZERO);
    let mut w = World::<Space2<R>>::new(def).unwrap();
    let up = Vector2::<R>::from_f64(0.0, 1.0);
    w.add_collider(&ColliderDef::new(Shape::half_space(up, R::ZERO).unwrap())).unwrap();
    let turn = Rot2::from_angle(R::from_f64(core::f64::consts::FRAC_PI_2));
    let s = SpawnDef::from_rig(&rig, Vector2::from_f64(0.0, h), turn, R::ONE, Vector2::ZERO);
    let rd = Ragdoll::spawn_with(&mut w, &rig, &s).unwrap();
    let mass: f64 = rd.nodes().iter().map(|&n| w.particles().mass(n).unwrap().to_f64()).sum();
    let momentum = |w: &World<Space2<R>>| {
        rd.nodes().iter().fold((0.0, 0.0), |p, &n| {
            let (m, v) = (w.particles().mass(n).unwrap().to_f64(), w.particles().velocity(n).unwrap());
            (p.0 + m * v.x.to_f64(), p.1 + m * v.y.to_f64())
        })
    };
    let x0 = rd.center_of_mass(&w).unwrap().x.to_f64();
    let (mut touch, mut ratio, mut slide) = (None, 0.0f64, 0.0f64);
    for f in 0..150 {
        let before = momentum(&w);
        w.step(R::from_f64(DT)).unwrap();
        let after = momentum(&w);
        // The first frame in which the floor pushed: the momentum rose more than gravity
        // took (by half a frame's worth).
        if touch.is_none() && after.1 - before.1 > -0.5 * mass * 9.81 * DT {
            touch = Some((before, f));
        }
        if let Some((p0, f0)) = touch.filter(|t| f < t.1 + 30) {
            let t = (f + 1 - f0) as f64 * DT;
            let jn = after.1 - p0.1 + mass * 9.81 * t;
            if jn > 0.0 {
                ratio = ratio.max((after.0 - p0.0).abs() / jn);
            }
        }
        let c = rd.center_of_mass(&w).unwrap();
        assert!(c.is_finite(), "h {h}, {substeps} substeps, μ {mu}: NaN");
        slide = slide.max((c.x.to_f64() - x0).abs());
    }
    (ratio, slide)
}

const HEIGHTS: [f64; 6] = [3.0, 4.0, 4.013, 5.0, 6.0, 7.0];

fn each_drop(mut check: impl FnMut(&str, f64, u32, f64, (f64, f64))) {
    for substeps in [4, 8] {
        for mu in [0.3, 0.6] {
            for h in HEIGHTS {
                check("f32", h, substeps, mu, flat_drop::<f32>(h, substeps, mu));
                check("f64", h, substeps, mu, flat_drop::<f64>(h, substeps, mu));
            }
        }
    }
    for h in [4.0, 5.0] {
        check("fixed", h, 8, 0.3, flat_drop::<Fx>(h, 8, 0.3));
    }
}

/// Coulomb's law on the body as a whole: over its landing the floor gives it no more
/// sideways impulse than `μ` times the normal impulse.
#[test]
#[ignore = "known defect: a landing ragdoll gets up to 2.0 μ J_n sideways (README, known limits)"]
fn a_ragdoll_landing_flat_gets_no_more_sideways_impulse_than_coulomb_allows() {
    let mut worst = (0.0, String::new());
    each_drop(|what, h, substeps, mu, (ratio, _)| {
        assert!(ratio > 0.0, "{what}, h {h} m: no landing measured");
        if ratio / mu > worst.0 {
            worst = (ratio / mu, format!("{what}, h {h} m, {substeps} substeps, μ {mu}"));
        }
    });
    println!("worst sideways impulse: {:.2} μ J_n ({})", worst.0, worst.1);
    assert!(worst.0 <= 1.0, "|J_t| = {:.2} μ J_n ({})", worst.0, worst.1);
}

/// The slide itself: a body dropped flat should come to rest about where it landed
/// (within 10 cm; the same drops with the bones projected instead of tree-solved,
/// `WorldDef::tree_solve(false)`, move 1–28 cm).
#[test]
#[ignore = "known defect: a flat-dropped ragdoll slides up to 7.3 m (README, known limits)"]
fn a_ragdoll_landing_flat_on_a_rough_floor_does_not_slide_away() {
    let mut worst = (0.0, String::new());
    each_drop(|what, h, substeps, mu, (_, slide)| {
        if slide > 0.10 {
            println!("{what}, h {h} m, {substeps} substeps, μ {mu}: slid {slide:.3} m");
        }
        if slide > worst.0 {
            worst = (slide, format!("{what}, h {h} m, {substeps} substeps, μ {mu}"));
        }
    });
    println!("worst slide: {:.3} m ({})", worst.0, worst.1);
    assert!(worst.0 <= 0.10, "slid {:.3} m ({})", worst.0, worst.1);
}
