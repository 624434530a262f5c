//! Unit tests of the tree solve: exactness against the linear system and a dense solve,
//! momentum, Newton convergence, loops, pins and the fallback.

#![allow(clippy::needless_range_loop)] // dense reference algebra reads best indexed

use super::*;
use crate::dim::{Space2, Space3};
use crate::particle::ParticleDef;

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random tree of `n` particles (each attached to a random earlier one) with `loops`
/// extra links closing triangles, masses spread over `ratio`, its particles then moved
/// up to `strain` × 0.2 m along each axis off where the links have their lengths (so the
/// lengths are consistent, even round a loop); particle 0 pinned if `pin`.
fn random_group<S: Space<Real = f64>>(
    rng: &mut Rng,
    n: usize,
    loops: usize,
    (ratio, strain): (f64, f64),
    pin: bool,
) -> (ParticleSet<S>, Arena<Distance<f64>>) {
    let mut ps = ParticleSet::<S>::default();
    let mut parent = vec![0usize; n];
    let mut pos: Vec<[f64; 3]> = Vec::new();
    for i in 0..n {
        let base = if i == 0 {
            [0.0; 3]
        } else {
            parent[i] = rng.below(i);
            pos[parent[i]]
        };
        let dir = [rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5];
        let p = [base[0] + 0.2 + 0.3 * dir[0], base[1] + 0.3 * dir[1], base[2] + 0.3 * dir[2]];
        pos.push(p);
        let mass = ratio.powf(rng.unit());
        let def = ParticleDef::at(VecOf::<S>::from_f64_slice(&p)).mass(mass);
        ps.insert(&if pin && i == 0 { def.pinned() } else { def });
    }
    let mut d = Arena::default();
    let mut link = |a: usize, b: usize| {
        let len = (ps.pos[a] - ps.pos[b]).length();
        d.insert(Distance::new(a, b, len, 0.0, 0.0, false));
    };
    for i in 1..n {
        link(i, parent[i]);
    }
    // Triangles that share no link (each its own block).
    let (mut added, mut used) = (0, vec![false; n]);
    for i in 1..n {
        if added == loops {
            break;
        }
        if parent[i] != 0 && !used[i] && !used[parent[i]] && rng.below(3) == 0 {
            (used[i], used[parent[i]]) = (true, true);
            link(i, parent[parent[i]]);
            added += 1;
        }
    }
    for p in &mut ps.pos {
        let j = [rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5].map(|c| 0.4 * strain * c);
        *p += VecOf::<S>::from_f64_slice(&j);
    }
    (ps, d)
}

/// One linear step of every piece (no Newton loop, positions unchanged): per row `Δλ`,
/// per particle slot `Δx`.
fn linear_step<S: Space<Real = f64>>(t: &mut TreeSolver<S>, ps: &ParticleSet<S>) -> (Vec<f64>, Vec<VecOf<S>>) {
    t.prepare(ps);
    let mut dx = vec![VecOf::<S>::ZERO; ps.pos.len()];
    for i in 0..t.pieces.len() {
        let piece = t.pieces[i];
        t.linearise(ps, piece.rows, 0.0);
        t.eliminate(piece, 0.0);
        t.substitute(piece);
        for n in piece.nodes.0..piece.nodes.1 {
            dx[t.node_slot[n as usize] as usize] = t.dx[n as usize];
        }
    }
    (t.lambda.clone(), dx)
}

/// Dense `J W Jᵀ Δλ = −C` by Gaussian elimination with partial pivoting.
fn dense_solve<S: Space<Real = f64>>(t: &TreeSolver<S>, ps: &ParticleSet<S>) -> Vec<f64> {
    let m = t.rows.len();
    let grad = |r: usize, k: u32| {
        let row = &t.rows[r];
        if row.pa == k {
            t.n[r]
        } else if row.pb == k {
            -t.n[r]
        } else {
            VecOf::<S>::ZERO
        }
    };
    let mut a = vec![vec![0.0; m + 1]; m];
    for i in 0..m {
        for j in 0..m {
            let mut v = 0.0;
            for k in [t.rows[i].pa, t.rows[i].pb] {
                v += ps.inv_mass[k as usize] * grad(i, k).dot(grad(j, k));
            }
            a[i][j] = v;
        }
        a[i][m] = -t.c[i];
    }
    for col in 0..m {
        let piv = (col..m).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs())).unwrap();
        a.swap(col, piv);
        for r in col + 1..m {
            let f = a[r][col] / a[col][col];
            for c in col..=m {
                a[r][c] -= f * a[col][c];
            }
        }
    }
    let mut x = vec![0.0; m];
    for i in (0..m).rev() {
        let s: f64 = (i + 1..m).map(|j| a[i][j] * x[j]).sum();
        x[i] = (a[i][m] - s) / a[i][i];
    }
    x
}

/// Checks one linear step on a random group: `J Δx = −C` (relative residual), `Δx = W Jᵀ
/// Δλ`, momentum, and (small groups) the dense solve's `Δλ`.
fn check_exact<S: Space<Real = f64>>(seed: u64, n: usize, loops: usize, pin: bool) {
    let mut rng = Rng(seed);
    let (ps, d) = random_group::<S>(&mut rng, n, loops, (1e4, 0.1), pin);
    let mut t = TreeSolver::<S>::default();
    t.build(&d, &ps, (true, None));
    assert!(d.iter().all(|(h, _)| t.in_tree[h.index as usize]), "n = {n}: every link tree-solved");
    let (dl, dx) = linear_step(&mut t, &ps);
    // Δx = W Jᵀ Δλ and J Δx = −C.
    let mut impulse = vec![VecOf::<S>::ZERO; ps.pos.len()];
    let (mut res, mut scale) = (0.0f64, 0.0f64);
    for (r, row) in t.rows.iter().enumerate() {
        impulse[row.pa as usize] += t.n[r] * dl[r];
        impulse[row.pb as usize] -= t.n[r] * dl[r];
        let jdx = t.n[r].dot(dx[row.pa as usize] - dx[row.pb as usize]);
        res = res.max((jdx + t.c[r]).abs());
        scale = scale.max(t.c[r].abs());
    }
    assert!(res <= 1e-9 * scale, "n = {n}, seed {seed}: residual {res:e} of {scale:e}");
    let mut momentum = VecOf::<S>::ZERO;
    let mut mscale = 0.0f64;
    for k in 0..ps.pos.len() {
        let w = ps.inv_mass[k];
        let want = impulse[k] * w;
        assert!((dx[k] - want).length() <= 1e-9 * (1.0 + want.length()), "Δx = W Jᵀ Δλ at {k}");
        if w > 0.0 {
            momentum += dx[k] * (1.0 / w);
            mscale = mscale.max((dx[k] * (1.0 / w)).length());
        }
    }
    if !pin {
        assert!(momentum.length() <= 1e-9 * mscale, "n = {n}: momentum {:e} of {mscale:e}", momentum.length());
    }
    if n <= 200 {
        let dense = dense_solve(&t, &ps);
        let norm = dense.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        let diff = dense.iter().zip(&dl).fold(0.0f64, |s, (a, b)| s.max((a - b).abs()));
        assert!(diff <= 1e-6 * norm, "n = {n}, seed {seed}: tree vs dense {diff:e} of {norm:e}");
    }
}

#[test]
fn one_step_solves_random_trees_exactly_in_2d_and_3d() {
    // 1 to 1000 particles, masses over 10⁴ : 1; some with a pinned root.
    for (i, n) in [1usize, 2, 3, 5, 8, 17, 40, 100, 200, 500, 1000].into_iter().enumerate() {
        let seed = 0x9E37_79B9_7F4A_7C15 ^ (i as u64 * 7919 + 1);
        check_exact::<Space2<f64>>(seed, n, 0, false);
        check_exact::<Space3<f64>>(seed + 1, n, 0, false);
        check_exact::<Space2<f64>>(seed + 2, n, 0, n > 1);
        check_exact::<Space3<f64>>(seed + 3, n, 0, n > 1);
    }
}

#[test]
fn one_step_solves_random_trees_with_small_loops_exactly() {
    // Triangles closed on random trees: each a dense block of the elimination.
    for (i, n) in [4usize, 12, 60, 200, 1000].into_iter().enumerate() {
        let seed = 0xD1B5_4A32_D192_ED03 ^ (i as u64 + 11);
        check_exact::<Space2<f64>>(seed, n, n / 8, false);
        check_exact::<Space3<f64>>(seed + 1, n, n / 8, true);
    }
}

/// Newton steps take a strained random tree (links up to 2 % off, more than a substep
/// strains a ragdoll) to its lengths within the solve's tolerance in a few steps,
/// conserving momentum.
#[test]
fn newton_steps_converge_and_conserve_momentum() {
    for (i, n) in [2usize, 16, 300].into_iter().enumerate() {
        let mut rng = Rng(77 + i as u64);
        let (mut ps, d) = random_group::<Space3<f64>>(&mut rng, n, n / 10, (1e4, 0.02), false);
        let p0 = ps.pos.iter().zip(&ps.mass).fold(VecOf::<Space3<f64>>::ZERO, |s, (x, &m)| s + *x * m);
        let mut t = TreeSolver::<Space3<f64>>::default();
        t.build(&d, &ps, (true, None));
        t.prepare(&ps);
        t.solve(&mut ps, true);
        let worst = d.values().fold(0.0f64, |s, c| {
            let (a, b) = c.indices();
            s.max(((ps.pos[a] - ps.pos[b]).length() - c.rest).abs() / c.rest)
        });
        assert!(worst <= 1e-4, "n = {n}: worst strain {worst:e}");
        assert!(t.newton_steps <= 4, "n = {n}: {} Newton steps", t.newton_steps);
        let p1 = ps.pos.iter().zip(&ps.mass).fold(VecOf::<Space3<f64>>::ZERO, |s, (x, &m)| s + *x * m);
        assert!((p1 - p0).length() <= 1e-9 * ps.mass.iter().sum::<f64>(), "momentum");
    }
}

/// A tetrahedron of five particles (ten links, one more than a rigid body needs) solves
/// without NaN: the dependent row is dropped.
#[test]
fn an_overdetermined_loop_gives_no_nan() {
    let mut ps = ParticleSet::<Space3<f64>>::default();
    let pts = [[0.0, 0.0, 0.0], [0.3, 0.0, 0.0], [0.0, 0.3, 0.0], [0.0, 0.0, 0.3], [0.2, 0.2, 0.2]];
    for p in pts {
        ps.insert(&ParticleDef::at(VecOf::<Space3<f64>>::from_f64_slice(&p)).mass(1.0));
    }
    let mut d = Arena::default();
    for a in 0..5 {
        for b in a + 1..5 {
            let len = (ps.pos[a] - ps.pos[b]).length();
            d.insert(Distance::new(a, b, len, 0.0, 0.0, false));
        }
    }
    // Strain it: move one particle.
    ps.pos[4] += VecOf::<Space3<f64>>::from_f64_slice(&[0.02, -0.01, 0.015]);
    let mut t = TreeSolver::<Space3<f64>>::default();
    t.build(&d, &ps, (true, None));
    t.prepare(&ps);
    t.solve(&mut ps, true);
    assert!(ps.pos.iter().all(|p| p.is_finite()));
    for c in d.values() {
        let (a, b) = c.indices();
        let s = ((ps.pos[a] - ps.pos[b]).length() - c.rest).abs() / c.rest;
        assert!(s <= 1e-4, "strain {s:e}");
    }
}

/// A chain between two pins closes a loop through the ground: short, it is one dense
/// block and solved; long (more than `MAX_BLOCK_ROWS` links), it is left to the
/// projections. Links between two pinned particles are left out.
#[test]
fn pins_root_the_tree_and_long_loops_fall_back() {
    for (links, solved) in [(6usize, true), (MAX_BLOCK_ROWS + 4, false)] {
        let mut ps = ParticleSet::<Space2<f64>>::default();
        for i in 0..=links {
            let def = ParticleDef::at(Vector2Like::new(0.1 * i as f64, 0.01 * (i % 2) as f64)).mass(1.0);
            ps.insert(&if i == 0 || i == links { def.pinned() } else { def });
        }
        let mut d = Arena::default();
        for i in 0..links {
            d.insert(Distance::new(i, i + 1, 0.1, 0.0, 0.0, false));
        }
        let mut t = TreeSolver::<Space2<f64>>::default();
        t.build(&d, &ps, (true, None));
        assert_eq!(t.in_tree.iter().all(|&x| x), solved, "{links} links");
        if solved {
            t.prepare(&ps);
            t.solve(&mut ps, true);
            for i in 0..links {
                let s = ((ps.pos[i] - ps.pos[i + 1]).length() - 0.1).abs() / 0.1;
                assert!(s <= 1e-4, "link {i}: strain {s:e}");
            }
            assert_eq!(ps.pos[0].to_f64_array(), [0.0; 3], "the pin stays");
        }
        // Pinning a middle particle changes the plan.
        ps.pin_slot_for_test(links / 2);
        assert!(t.pins_changed(&ps));
    }
}

type Vector2Like = crate::math::Vector2<f64>;

impl<S: Space> ParticleSet<S> {
    fn pin_slot_for_test(&mut self, k: usize) {
        self.inv_mass[k] = RealOf::<S>::ZERO;
    }
}
