use super::{continuant_range, solve_tridiagonal};
use crate::math::{Fx, Real};

/// A chain-like system: `b_j = w_j + w_{j+1} + α`, `u_j = −w_{j+1} c_j` with
/// `|c_j| ≤ 1` (cosines between links), masses and angles from a fixed LCG.
fn chain_system(m: usize, scale: f64, seed: u64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut s = seed;
    let mut next = || {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let w: Vec<f64> = (0..=m).map(|_| scale * (0.5 + next())).collect();
    let diag = (0..m).map(|j| w[j] + w[j + 1] + scale * 1e-3 * next()).collect();
    let upper = (0..m.saturating_sub(1)).map(|j| -w[j + 1] * (2.0 * next() - 1.0)).collect();
    let rhs = (0..m).map(|_| 2.0 * next() - 1.0).collect();
    (diag, upper, rhs)
}

/// Solves in `R` and returns the largest residual `|A x − r|` relative to `max |r|`
/// (measured in f64), and whether every entry is finite.
fn residual<R: Real>(diag: &[f64], upper: &[f64], rhs: &[f64]) -> (f64, bool) {
    let m = diag.len();
    let conv = |v: &[f64]| v.iter().map(|&x| R::from_f64(x)).collect::<Vec<R>>();
    let (d, u, mut x) = (conv(diag), conv(upper), conv(rhs));
    let mut factor = vec![R::ZERO; m];
    let mut work = vec![R::ZERO; 2 * m];
    solve_tridiagonal(&d, &u, &mut x, &mut factor, &mut work);
    let x: Vec<f64> = x.iter().map(|v| v.to_f64()).collect();
    let mut worst = 0.0f64;
    for j in 0..m {
        let mut ax = diag[j] * x[j];
        if j > 0 {
            ax += upper[j - 1] * x[j - 1];
        }
        if j + 1 < m {
            ax += upper[j] * x[j + 1];
        }
        worst = worst.max((ax - rhs[j]).abs());
    }
    let big = rhs.iter().fold(0.0f64, |a, r| a.max(r.abs()));
    (worst / big, x.iter().all(|v| v.is_finite()))
}

#[test]
fn every_elimination_solves_chain_systems_of_every_length() {
    // Continuants in f64 and f32, Thomas in fixed point; odd and even lengths (the
    // top half then has one row more or the same).
    for (m, seed) in [(1, 1), (2, 2), (3, 3), (4, 4), (7, 5), (100, 6), (281, 7), (1000, 8)] {
        let (d, u, r) = chain_system(m, 100.0, seed);
        let (e64, ok64) = residual::<f64>(&d, &u, &r);
        let (e32, ok32) = residual::<f32>(&d, &u, &r);
        let (efx, okfx) = residual::<Fx>(&d, &u, &r);
        assert!(ok64 && ok32 && okfx, "m = {m}: non-finite");
        assert!(e64 < 1e-12, "m = {m}: f64 residual {e64}");
        assert!(e32 < 1e-4, "m = {m}: f32 residual {e32}");
        assert!(efx < 1e-6, "m = {m}: fixed residual {efx}");
    }
}

#[test]
fn continuants_rescale_instead_of_overflowing() {
    // Diagonals of ~4e5 (light particles) or ~8e-6, inside the continuants' range:
    // the minors over 300 rows would be ~1e1700 or ~1e-1500 — far outside f32 and f64
    // — without the rescaling.
    for scale in [2e5, 4e-6] {
        let (d, u, r) = chain_system(300, scale, 9);
        assert!(continuant_range(&d.iter().map(|&x| x as f32).collect::<Vec<_>>()), "scale {scale}");
        let (e64, ok64) = residual::<f64>(&d, &u, &r);
        let (e32, ok32) = residual::<f32>(&d, &u, &r);
        assert!(ok64 && ok32, "scale {scale}: non-finite");
        // Residual relative to |r| with x ~ r/b: scale it back by the diagonal.
        assert!(e64 < 1e-12 * scale.max(1.0), "scale {scale}: f64 residual {e64}");
        assert!(e32 < 1e-4 * scale.max(1.0), "scale {scale}: f32 residual {e32}");
    }
}

#[test]
fn diagonals_beyond_the_continuants_range_take_the_thomas_form() {
    // Absurd inverse masses or compliances (1e12 … 1e20, 1e-9 … 1e-30) would overflow
    // or underflow the continuants' products; the Thomas form solves them exactly.
    for scale in [1e12, 1e20, 1e-9, 1e-30] {
        let (d, u, r) = chain_system(300, scale, 11);
        assert!(!continuant_range(&d.iter().map(|&x| x as f32).collect::<Vec<_>>()), "scale {scale}");
        let (e64, ok64) = residual::<f64>(&d, &u, &r);
        let (e32, ok32) = residual::<f32>(&d, &u, &r);
        assert!(ok64 && ok32, "scale {scale}: non-finite");
        assert!(e64 < 1e-12 * scale.max(1.0), "scale {scale}: f64 residual {e64}");
        assert!(e32 < 1e-4 * scale.max(1.0), "scale {scale}: f32 residual {e32}");
    }
    assert!(!continuant_range(&[1.0f32, f32::NAN]));
}

#[test]
fn a_zero_pivot_gives_a_finite_solution() {
    // Row 0 is all zero (a link with no freedom and nothing to couple): its pivot is 0.
    // The guard drops the row; the rest is still solved exactly.
    let (mut d, mut u, mut r) = chain_system(9, 10.0, 10);
    (d[0], u[0], r[0]) = (0.0, 0.0, 0.0);
    let (e64, ok64) = residual::<f64>(&d, &u, &r);
    let (e32, ok32) = residual::<f32>(&d, &u, &r);
    let (_, okfx) = residual::<Fx>(&d, &u, &r);
    assert!(ok64 && ok32 && okfx);
    assert!(e64 < 1e-12 && e32 < 1e-4, "residuals {e64} {e32}");
}

#[test]
fn a_zero_minor_in_the_continuants_gives_a_finite_solution() {
    // Rows 0 and 1 form a singular leading block (`b₀b₁ − u₀² = 0`) with every diagonal
    // inside the continuants' range, so the floating-point path meets the zero minor
    // itself and restarts past it; the rest of the system is still solved.
    let (mut d, mut u, r) = chain_system(9, 10.0, 12);
    (d[0], d[1], u[0]) = (1.0, 1.0, 1.0);
    for (e, ok) in [residual::<f64>(&d, &u, &r), residual::<f32>(&d, &u, &r)] {
        assert!(ok, "non-finite");
        assert!(e.is_finite(), "residual {e}");
    }
    assert!(continuant_range(&d.iter().map(|&x| x as f32).collect::<Vec<_>>()));
}

/// The convergence shortcut (no particle moved more than `√(tol/4)·L`) never claims
/// a chain within the tolerance that measuring every link would reject: random rigid
/// 2D and 3D chains, a pinned start, links bent by up to ±0.6 rad and stretched or
/// compressed by up to ±20 %, so some steps take the shortcut and some do not.
#[test]
fn the_convergence_shortcut_agrees_with_measuring_every_link() {
    use super::{ChainRef, ChainScratch, solve_chain, within_tolerance};
    use crate::constraint::SubstepContext;
    use crate::math::Vector;
    use crate::particle::{ParticleDef, ParticleSet};
    use crate::space::{Space, Space2, Space3, VecOf};
    fn run<S: Space<Real = f64>>(seed: u64) -> (u32, u32) {
        let mut s = seed;
        let mut next = || {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut shortcut, mut measured) = (0, 0);
        for round in 0..200 {
            let m = 2 + round % 40;
            let spread = [0.0001, 0.003, 0.2][round % 3];
            let mut ps = ParticleSet::<S>::default();
            let (mut angle, mut at) = (0.0f64, [0.0f64; 3]);
            let mut idx = Vec::new();
            let mut rest = Vec::new();
            for i in 0..=m {
                let mut d = ParticleDef::<S>::at(VecOf::<S>::from_array3(at)).mass(0.1 + next());
                if i == 0 {
                    d = d.pinned();
                }
                idx.push(ps.insert(&d).index() as u32);
                let l = 0.05 + 0.1 * next();
                rest.push(l);
                angle += (next() - 0.5) * 1.2;
                let len = l * (1.0 + (next() - 0.5) * 2.0 * spread);
                at = [at[0] + len * angle.cos(), at[1] + len * angle.sin(), at[2] + len * 0.3 * (next() - 0.5)];
                if S::DIM == 2 {
                    at[2] = 0.0;
                }
            }
            rest.truncate(m);
            let mut lambda = vec![0.0; m];
            let ctx = SubstepContext::new(1.0 / 480.0);
            let mut sc = ChainScratch::<S>::default();
            let before: Vec<_> = idx.iter().map(|&p| ps.pos[p as usize]).collect();
            let chain = ChainRef { idx: &idx, rest: &rest, lambda: &mut lambda, compliance: 0.0, fresh: true };
            let claimed = solve_chain(chain, &mut ps, &ctx, &mut sc, (1e-3, 1e-3)).converged;
            // Measure every link on the particles' new positions.
            let comps: [Vec<f64>; 3] =
                core::array::from_fn(|c| idx.iter().map(|&p| ps.pos[p as usize].to_array3()[c]).collect());
            let w: Vec<f64> = idx.iter().map(|&p| ps.inv_mass[p as usize]).collect();
            let mut l2 = vec![0.0; m];
            let ok = within_tolerance(S::DIM == 3, [&comps[0], &comps[1], &comps[2]], &w, &rest, (1e-3, 1e-3), &mut l2)
                .converged;
            assert_eq!(claimed, ok, "seed {seed} round {round}: the step's answer differs from measuring");
            // Whether the shortcut's condition held (then `solve_chain` answered without
            // measuring).
            let still = idx.iter().zip(&before).enumerate().all(|(i, (&p, &x0))| {
                let moved = (ps.pos[p as usize] - x0).length_squared();
                let near = [i.checked_sub(1), (i < m).then_some(i)].into_iter().flatten();
                moved <= 0.25e-3 * near.map(|j| rest[j] * rest[j]).fold(f64::MAX, f64::min)
            });
            if still {
                shortcut += 1;
            } else {
                measured += 1;
            }
        }
        (shortcut, measured)
    }
    for seed in 1..4 {
        let (a, b) = run::<Space2<f64>>(seed);
        let (c, d) = run::<Space3<f64>>(seed);
        assert!(a > 0 && b > 0 && c > 0 && d > 0, "both outcomes should occur: {a} {b} {c} {d}");
    }
}

/// A straight chain pinned at both ends and stretched is a singular system (moving the
/// particles between cannot shorten the whole): the step leaves links unsolved, and
/// the shortcut must not call it converged — the answer equals measuring every link.
/// The stretch (0.2 % per link) is small enough that no particle moves past the
/// shortcut's bound, even with 8 links, so only the singularity rule decides.
#[test]
fn a_singular_chain_is_measured_not_assumed_converged() {
    use super::{ChainRef, ChainScratch, solve_chain, within_tolerance};
    use crate::constraint::SubstepContext;
    use crate::math::{Fx, Real, Vector};
    use crate::particle::{ParticleDef, ParticleSet};
    use crate::space::{Space2, VecOf};
    fn run<R: Real>(links: usize) -> (bool, bool) {
        let mut ps = ParticleSet::<Space2<R>>::default();
        let idx: Vec<u32> = (0..=links)
            .map(|i| {
                let at = VecOf::<Space2<R>>::from_array3([R::from_f64(0.501 * i as f64), R::ZERO, R::ZERO]);
                let mut d = ParticleDef::<Space2<R>>::at(at);
                if i == 0 || i == links {
                    d = d.pinned();
                }
                ps.insert(&d).index() as u32
            })
            .collect();
        let rest = vec![R::from_f64(0.5); links];
        let mut lambda = vec![R::ZERO; links];
        let ctx = SubstepContext::new(R::from_f64(1.0 / 480.0));
        let mut sc = ChainScratch::<Space2<R>>::default();
        let chain = ChainRef { idx: &idx, rest: &rest, lambda: &mut lambda, compliance: R::ZERO, fresh: true };
        let claimed = solve_chain(chain, &mut ps, &ctx, &mut sc, (R::from_f64(1e-3), R::from_f64(1e-3))).converged;
        let comps: [Vec<R>; 3] =
            core::array::from_fn(|c| idx.iter().map(|&p| ps.pos[p as usize].to_array3()[c]).collect());
        let w: Vec<R> = idx.iter().map(|&p| ps.inv_mass[p as usize]).collect();
        let mut l2 = vec![R::ZERO; links];
        let tol = R::from_f64(1e-3);
        (claimed, within_tolerance(false, [&comps[0], &comps[1], &comps[2]], &w, &rest, (tol, tol), &mut l2).converged)
    }
    for links in [2, 3, 8] {
        for (name, (claimed, measured)) in
            [("f64", run::<f64>(links)), ("f32", run::<f32>(links)), ("fixed", run::<Fx>(links))]
        {
            assert!(!measured, "{name}, {links} links: a 0.2 % stretch between two pins cannot be solved");
            assert_eq!(claimed, measured, "{name}, {links} links: claimed converged");
        }
    }
}

/// The AVX2 build of the chain solve (`math::wide`) gives the baseline's results bit
/// for bit: random 2D and 3D chains in f32, f64 and fixed point, rigid and compliant,
/// with a pinned start and mixed masses, stretched and bent, solved several Newton
/// steps on each build from the same state. (On a CPU without AVX2 there is only the
/// baseline; the test then checks nothing beyond running it.)
#[test]
fn the_avx2_chain_solve_matches_the_baseline_bit_for_bit() {
    use super::{ChainRef, ChainScratch, solve_chain_body};
    use crate::constraint::SubstepContext;
    use crate::math::{Fx, Real, Vector};
    use crate::particle::{ParticleDef, ParticleSet};
    use crate::space::{RealOf, Space, Space2, Space3, VecOf};
    fn run<S: Space>(seed: u64) -> usize {
        let mut s = seed;
        let mut next = || {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let r = |v: f64| RealOf::<S>::from_f64(v);
        let mut compared = 0;
        for round in 0..60 {
            let m = 1 + (round * 7) % 130;
            let mut ps = ParticleSet::<S>::default();
            let (mut angle, mut at) = (0.0f64, [0.0f64; 3]);
            let (mut idx, mut rest) = (Vec::new(), Vec::new());
            for i in 0..=m {
                let mut d = ParticleDef::<S>::at(VecOf::<S>::from_f64_slice(&at)).mass(r(0.01 + next()));
                if i == 0 && round % 2 == 0 {
                    d = d.pinned();
                }
                idx.push(ps.insert(&d).index() as u32);
                let l = 0.02 + 0.1 * next();
                rest.push(r(l));
                angle += (next() - 0.5) * 1.5;
                let len = l * (1.0 + (next() - 0.5) * 0.3);
                at = [at[0] + len * angle.cos(), at[1] + len * angle.sin(), at[2] + len * 0.4 * (next() - 0.5)];
            }
            rest.truncate(m);
            let compliance = if round % 3 == 0 { r(1e-6) } else { RealOf::<S>::ZERO };
            let ctx = SubstepContext::new(r(1.0 / 480.0));
            let solve = |ps: &mut ParticleSet<S>, wide: bool| {
                let (mut sc, mut lambda) = (ChainScratch::<S>::default(), vec![RealOf::<S>::ZERO; m]);
                let mut answers = Vec::new();
                for step in 0..3 {
                    let chain = ChainRef { idx: &idx, rest: &rest, lambda: &mut lambda, compliance, fresh: step == 0 };
                    let tol = (r(1e-5), r(1e-3));
                    #[cfg(target_arch = "x86_64")]
                    if wide {
                        // SAFETY: only called with `wide` on a CPU that has AVX2.
                        answers.push(unsafe { super::solve_chain_avx2(chain, ps, &ctx, &mut sc, tol) });
                        continue;
                    }
                    let _ = wide;
                    answers.push(solve_chain_body(chain, ps, &ctx, &mut sc, tol));
                }
                let bits: Vec<u64> = ps.pos.iter().flat_map(|p| p.to_array3()).map(|c| c.hash_bits()).collect();
                (answers, bits, lambda.iter().map(|l| l.hash_bits()).collect::<Vec<_>>())
            };
            let mut base = ps.clone();
            let expect = solve(&mut base, false);
            #[cfg(target_arch = "x86_64")]
            if crate::math::wide::avx2() {
                let mut wide = ps.clone();
                assert_eq!(solve(&mut wide, true), expect, "{} {}D round {round}", RealOf::<S>::NAME, S::DIM);
                compared += 1;
            }
        }
        compared
    }
    let n = run::<Space2<f32>>(1) + run::<Space3<f32>>(2) + run::<Space2<f64>>(3) + run::<Space3<f64>>(4);
    let n = n + run::<Space2<Fx>>(5) + run::<Space3<Fx>>(6);
    #[cfg(target_arch = "x86_64")]
    assert_eq!(n > 0, crate::math::wide::avx2());
    let _ = n;
}
