//! A direct solve of one constraint group (a ragdoll) — its links, the joint limits it
//! has pushed beyond their range and its contacts, all at once — for the impact passes.
//!
//! # Why
//! One Gauss–Seidel pass projects a ragdoll's bones, then its joint limits, then its
//! contacts, and each undoes part of what came before. When a node is stopped by a wall
//! the rest of the body still moves at the impact speed: the contact pushes the node back
//! out and leaves its bones compressed by about the distance the body moved in the
//! substep (`v·h`: 2 cm at 10 m/s and 8 substeps, 7 % of a 30 cm bone). More passes
//! converge slowly (a humanoid at 8 substeps and four iterations still strains 3.6 % on
//! a 5 m drop): the error travels one bone per pass, and the contacts and limits undo part
//! of every pass.
//!
//! # The method
//! One Newton step on all of the group's constraints at once, as the rope's chain solve
//! does for its links ("Direct Position-Based Solver for Stiff Rods", Deul et al. 2018).
//! Each row `i` is a constraint `C_i(x) = 0` with gradient `J_i`:
//!
//! | row | `C` | `J` |
//! |---|---|---|
//! | link | `\|x_a − x_b\| − L` | `n` at `a`, `−n` at `b` |
//! | contact | `n·x_p − d` | `n` at `p` (the collider does not move) |
//! | joint limit | angle beyond its range | the limit's own gradients ([`super::LimitRow`]) |
//!
//! and the step solves
//!
//! ```text
//! (J W Jᵀ + α̃) Δλ = −C,    Δx = W Jᵀ Δλ
//! ```
//!
//! exactly (`W` the inverse masses, `α̃ = α/h²` a row's compliance) by an `LDLᵀ`
//! factorisation of the small dense matrix (a humanoid: 19 links, a few limits and
//! contacts). Contacts and limits are one-sided: a contact may only push out (`Δλ ≥ 0`), a
//! limit only back into its range (`Δλ` of the sign of `−C`). A row whose `Δλ` comes out
//! on the wrong side leaves the active set and the system is solved again without it, at
//! most [`ACTIVE_SET_ROUNDS`] times. Rows are linearised at the current positions, so a
//! link ends within the square of its correction of its rest length, as in the chain
//! solve. `J W Jᵀ` is positive semi-definite; a pivot below [`PIVOT`] of its row's
//! diagonal (a row with no freedom, or one that depends on earlier rows: two copies of a
//! link, two contacts of one particle on one plane) gives its row no correction instead of
//! a division by nothing. A step linearised far from where it ends (a joint bent far past
//! its limit) is scaled down so that no row moves a particle more than [`MAX_STEP`] times
//! the group's shortest link; the world solves again from where it lands.

use super::LimitRow;
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::math::{Real, Vector};
use crate::particle::ParticleSet;

/// Rounds of the active set (each drops the one-sided rows that came out on the wrong
/// side).
const ACTIVE_SET_ROUNDS: usize = 4;

/// A pivot below this fraction of its row's diagonal marks a row that depends on earlier
/// ones (two contacts of one particle on the same plane): the row gets no correction.
const PIVOT: (i32, i32) = (1, 10_000);

/// The largest move one row of a solve may give a particle, as a fraction of the group's
/// shortest link: a step linearised far from where it ends (a joint far beyond its limit)
/// is scaled down to it rather than flinging the body.
const MAX_STEP: (i32, i32) = (1, 2);

/// Groups with more rows than this are not solved ([`GroupSolver::solve`] says so, and the
/// world projects their links instead): the dense solve costs `n³/6` multiplications (a
/// humanoid's ~30 rows: ~4500).
pub(crate) const MAX_ROWS: usize = 160;

/// What a row stands for, with its place among the rows of its kind (in the order they
/// were added): what [`GroupSolver::solve`] reports each row's `Δλ` with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowOf {
    /// The `i`-th link added.
    Link(u32),
    /// The `i`-th joint-limit row added.
    Limit(u32),
    /// A contact.
    Contact,
}

/// One row of the group's system.
#[derive(Clone, Copy, Debug)]
struct Row<S: Space> {
    p: [u32; 5],
    g: [VecOf<S>; 5],
    np: usize,
    /// `C(x)`.
    c: RealOf<S>,
    /// `α̃` on the diagonal.
    alpha: RealOf<S>,
    /// The multiplier accumulated so far this substep (XPBD's `−α̃λ` on the right-hand
    /// side of a compliant row).
    lambda: RealOf<S>,
    /// The side `Δλ` must keep: 0 for a link (either), 1 (`≥ 0`) or −1 (`≤ 0`).
    sign: i8,
    /// A link's rest length (0 for other rows).
    rest: RealOf<S>,
    of: RowOf,
    /// Still in the active set.
    active: bool,
}

/// The rows of one group and the scratch to solve them, reused across groups and steps.
#[derive(Clone, Debug, Default)]
pub(crate) struct GroupSolver<S: Space> {
    rows: Vec<Row<S>>,
    /// Row-major `m × m` matrix of the active rows, then its `LDLᵀ` factors in place.
    a: Vec<RealOf<S>>,
    /// Right-hand side, then `Δλ` of the active rows.
    x: Vec<RealOf<S>>,
    /// The active rows.
    act: Vec<usize>,
    /// Scratch for the limits' rows.
    pub(crate) limit_rows: Vec<LimitRow<S>>,
    links: u32,
    limits: u32,
}

impl<S: Space> GroupSolver<S> {
    /// Starts a group.
    pub(crate) fn clear(&mut self) {
        self.rows.clear();
        (self.links, self.limits) = (0, 0);
    }

    /// Adds a link `|x_a − x_b| = rest` with compliance `alpha` (already `α/h²`) and the
    /// multiplier `lambda` it has accumulated this substep; returns `false` (and adds
    /// nothing) for a link with no direction.
    pub(crate) fn link(
        &mut self,
        ps: &ParticleSet<S>,
        (a, b): (u32, u32),
        rest: RealOf<S>,
        (alpha, lambda): (RealOf<S>, RealOf<S>),
    ) -> bool {
        let d = ps.pos[a as usize] - ps.pos[b as usize];
        let l2 = d.length_squared();
        if l2 <= RealOf::<S>::GEOMETRIC_EPSILON * RealOf::<S>::GEOMETRIC_EPSILON {
            return false;
        }
        let (len, inv) = l2.sqrt_recip();
        let n = d * inv;
        let z = VecOf::<S>::ZERO;
        let (p, g) = ([a, b, 0, 0, 0], [n, -n, z, z, z]);
        let of = RowOf::Link(self.links);
        self.links += 1;
        self.rows.push(Row { p, g, np: 2, c: len - rest, alpha, lambda, sign: 0, rest, of, active: true });
        true
    }

    /// The largest `|length − rest| / rest` over the rigid links added.
    pub(crate) fn max_rigid_strain(&self) -> RealOf<S> {
        let zero = RealOf::<S>::ZERO;
        self.rows
            .iter()
            .filter(|r| r.sign == 0 && r.alpha == zero && r.rest > zero)
            .fold(zero, |m, r| m.max(r.c.abs() / r.rest))
    }

    /// Adds a contact `n·x_k ≥ d`.
    pub(crate) fn contact(&mut self, ps: &ParticleSet<S>, k: u32, n: VecOf<S>, d: RealOf<S>) {
        let c = n.dot(ps.pos[k as usize]) - d;
        let z = VecOf::<S>::ZERO;
        let zero = RealOf::<S>::ZERO;
        let (p, g) = ([k, 0, 0, 0, 0], [n, z, z, z, z]);
        let of = RowOf::Contact;
        self.rows.push(Row { p, g, np: 1, c, alpha: zero, lambda: zero, sign: 1, rest: zero, of, active: true });
    }

    /// Adds the rows in `limit_rows` (filled by [`super::JointLimit::violated_rows`]);
    /// `inv_h2` turns their compliance into `α̃`.
    pub(crate) fn add_limit_rows(&mut self, inv_h2: RealOf<S>) {
        for r in &self.limit_rows {
            let sign = if r.c < RealOf::<S>::ZERO { 1 } else { -1 };
            let (np, alpha, rest) = (r.len.min(5), r.compliance * inv_h2, RealOf::<S>::ZERO);
            let of = RowOf::Limit(self.limits);
            self.limits += 1;
            let (p, g, c, lambda) = (r.particles, r.gradients, r.c, r.lambda);
            self.rows.push(Row { p, g, np, c, alpha, lambda, sign, rest, of, active: true });
        }
        self.limit_rows.clear();
    }

    /// Solves the rows (see the module docs) and moves the particles; `on_dl` receives
    /// each link's and limit row's `Δλ` (0 for a row left out). Returns `false`, doing
    /// nothing, for a group of more than [`MAX_ROWS`] rows.
    pub(crate) fn solve(&mut self, ps: &mut ParticleSet<S>, mut on_dl: impl FnMut(RowOf, RealOf<S>)) -> bool {
        let zero = RealOf::<S>::ZERO;
        let n = self.rows.len();
        if n > MAX_ROWS {
            return false;
        }
        if n == 0 {
            return true;
        }
        for round in 0..ACTIVE_SET_ROUNDS {
            self.act.clear();
            self.act.extend((0..n).filter(|&i| self.rows[i].active));
            if self.act.is_empty() {
                return true;
            }
            self.factor_and_solve(ps);
            // One-sided rows on the wrong side leave the active set; solve again.
            let mut dropped = false;
            for (r, &i) in self.act.iter().enumerate() {
                let row = &mut self.rows[i];
                let wrong = (row.sign > 0 && self.x[r] < zero) || (row.sign < 0 && self.x[r] > zero);
                if wrong {
                    row.active = false;
                    dropped = true;
                }
            }
            if !dropped || round + 1 == ACTIVE_SET_ROUNDS {
                break;
            }
        }
        // The step, scaled down if a row would move a particle farther than `MAX_STEP` of
        // the shortest link (of those with a length: a link of rest length 0 holds two
        // particles together). Each row's own move is bounded, not their sum at a
        // particle: measured over 21 throws and drops in three number types, bounding the
        // sums left more ragdolls moving after 5 s (4 to 11 of 63 against 1).
        let usable = |row: &Row<S>, dl: RealOf<S>| row.active && (row.sign == 0 || (row.sign > 0) == (dl > zero));
        let mut shortest = RealOf::<S>::MAX;
        let mut reach = zero;
        for (r, &i) in self.act.iter().enumerate() {
            let row = &self.rows[i];
            if row.sign == 0 && row.rest > zero {
                shortest = shortest.min(row.rest);
            }
            if !usable(row, self.x[r]) {
                continue;
            }
            for e in 0..row.np {
                let step = row.g[e].length() * (ps.inv_mass[row.p[e] as usize] * self.x[r].abs());
                reach = reach.max(step);
            }
        }
        let bound = shortest * RealOf::<S>::from_ratio(MAX_STEP.0, MAX_STEP.1);
        if shortest < RealOf::<S>::MAX && reach > bound {
            let scale = bound / reach;
            self.x.iter_mut().for_each(|v| *v *= scale);
        }
        // Apply (rows still on the wrong side after the last round are left out).
        let mut at = self.act.iter().copied().enumerate().peekable();
        for i in 0..n {
            let row = self.rows[i];
            let dl = match at.peek() {
                Some(&(r, j)) if j == i => {
                    at.next();
                    self.x[r]
                }
                _ => zero,
            };
            let dl = if usable(&row, dl) { dl } else { zero };
            if row.of != RowOf::Contact {
                on_dl(row.of, dl);
            }
            if dl == zero {
                continue;
            }
            for e in 0..row.np {
                let k = row.p[e] as usize;
                let w = ps.inv_mass[k];
                ps.pos[k] += row.g[e] * (w * dl);
            }
        }
        true
    }

    /// `A = J W Jᵀ + α̃` over the active rows, its `LDLᵀ` factors and `Δλ = A⁻¹(−C)`
    /// (in `x`).
    fn factor_and_solve(&mut self, ps: &ParticleSet<S>) {
        let zero = RealOf::<S>::ZERO;
        let m = self.act.len();
        self.a.clear();
        self.a.resize(m * m, zero);
        self.x.clear();
        // Lower triangle: rows couple through the particles they share.
        for (r, &i) in self.act.iter().enumerate() {
            let ri = &self.rows[i];
            self.x.push(-ri.c - ri.alpha * ri.lambda);
            for (s, &j) in self.act[..=r].iter().enumerate() {
                let rj = &self.rows[j];
                let mut v = if r == s { ri.alpha } else { zero };
                for ei in 0..ri.np {
                    for ej in 0..rj.np {
                        if ri.p[ei] == rj.p[ej] {
                            v += ps.inv_mass[ri.p[ei] as usize] * ri.g[ei].dot(rj.g[ej]);
                        }
                    }
                }
                self.a[r * m + s] = v;
            }
        }
        // `LDLᵀ` in place: `D` on the diagonal, `L` below it. A pivot below `PIVOT` of
        // its row's diagonal is a row (nearly) dependent on earlier ones: dropped. (Relative
        // only: the diagonal is an inverse mass, which for heavy particles is far below any
        // fixed epsilon.)
        let rel = RealOf::<S>::from_ratio(PIVOT.0, PIVOT.1);
        for j in 0..m {
            let mut d = self.a[j * m + j];
            let floor = d * rel;
            for k in 0..j {
                let l = self.a[j * m + k];
                d -= l * l * self.a[k * m + k];
            }
            let d = if d > floor { d } else { zero };
            self.a[j * m + j] = d;
            let inv = if d > zero { RealOf::<S>::ONE / d } else { zero };
            for i in j + 1..m {
                let mut v = self.a[i * m + j];
                for k in 0..j {
                    v -= self.a[i * m + k] * self.a[j * m + k] * self.a[k * m + k];
                }
                self.a[i * m + j] = v * inv;
            }
        }
        // `L y = −C`, `D z = y`, `Lᵀ Δλ = z`.
        for i in 0..m {
            let mut v = self.x[i];
            for k in 0..i {
                v -= self.a[i * m + k] * self.x[k];
            }
            self.x[i] = v;
        }
        for i in 0..m {
            let d = self.a[i * m + i];
            self.x[i] = if d > zero { self.x[i] / d } else { zero };
        }
        for i in (0..m).rev() {
            let mut v = self.x[i];
            for k in i + 1..m {
                v -= self.a[k * m + i] * self.x[k];
            }
            self.x[i] = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::{AngleLimit, AngleLimitDef, JointLimit, JointLimitSolver};
    use crate::dim::Space2;
    use crate::math::Vector2;
    use crate::particle::ParticleDef;

    type S = Space2<f64>;
    type V = Vector2<f64>;

    fn particles(points: &[(f64, f64, f64)]) -> ParticleSet<S> {
        let mut p = ParticleSet::<S>::default();
        for &(x, y, m) in points {
            p.insert(&ParticleDef::at(V::new(x, y)).mass(m));
        }
        p
    }

    fn len(p: &ParticleSet<S>, a: usize, b: usize) -> f64 {
        (p.pos[a] - p.pos[b]).length()
    }

    fn momentum(p: &ParticleSet<S>) -> V {
        p.pos.iter().zip(&p.inv_mass).fold(V::new(0.0, 0.0), |s, (x, &w)| s + *x * (1.0 / w))
    }

    /// A bent chain of five links, up to 15 % off their rest lengths, converges
    /// quadratically (each solve within the square of the strain before), and the links'
    /// pushes and pulls leave the mass-weighted sum of the positions (the momentum they
    /// add) unchanged.
    #[test]
    fn one_solve_takes_a_strained_chain_to_its_rest_lengths_and_conserves_momentum() {
        let mut p = particles(&[
            (0.0, 0.0, 1.0),
            (0.3, 0.1, 2.0),
            (0.6, 0.0, 1.5),
            (0.85, 0.2, 3.0),
            (1.2, 0.1, 1.0),
            (1.5, 0.3, 0.5),
        ]);
        let rest = [0.3, 0.32, 0.3, 0.33, 0.3];
        let before = momentum(&p);
        let mut sv = GroupSolver::<S>::default();
        let mut dls = Vec::new();
        let mut last = 0.15f64;
        for round in 0..2 {
            sv.clear();
            for (i, &r) in rest.iter().enumerate() {
                assert!(sv.link(&p, (i as u32, i as u32 + 1), r, (0.0, 0.0)));
            }
            dls.clear();
            assert!(sv.solve(&mut p, |of, dl| dls.push((of, dl))));
            let worst = (0..5).map(|i| (len(&p, i, i + 1) - rest[i]).abs() / rest[i]).fold(0.0, f64::max);
            // Quadratic convergence: within the square of the strain before (15 % at first;
            // measured 0.65 %, then 1e-5).
            assert!(worst < last * last, "round {round}: worst strain {worst}, {last} before");
            last = worst;
        }
        assert_eq!(dls.iter().map(|&(of, _)| of).collect::<Vec<_>>(), (0..5).map(RowOf::Link).collect::<Vec<_>>());
        assert!((momentum(&p) - before).length() < 1e-12, "{:?} → {:?}", before, momentum(&p));
    }

    /// Contacts push only: a particle below its plane ends on it, and one that a link pulls
    /// away from its plane is let go (the contact row leaves the active set) instead of
    /// being held down.
    #[test]
    fn contacts_push_particles_out_and_let_go_of_those_pulled_away() {
        // Particle 0 is 2 cm into the ground y ≥ 0; particle 1 rests on it, linked to a
        // heavy particle 2 above that is 10 cm too far: the link pulls particle 1 up.
        let mut p = particles(&[(0.0, -0.02, 1.0), (1.0, 0.0, 1.0), (1.0, 0.6, 100.0)]);
        let mut sv = GroupSolver::<S>::default();
        sv.link(&p, (1, 2), 0.5, (0.0, 0.0));
        sv.contact(&p, 0, V::new(0.0, 1.0), 0.0);
        sv.contact(&p, 1, V::new(0.0, 1.0), 0.0);
        assert!(sv.solve(&mut p, |_, _| {}));
        assert!(p.pos[0].y.abs() < 1e-12, "pushed onto the plane: {:?}", p.pos[0]);
        assert!(p.pos[1].y > 0.09, "let go and pulled up: {:?}", p.pos[1]);
        assert!((len(&p, 1, 2) - 0.5).abs() < 1e-9);
    }

    /// A 2D joint bent 20° beyond its limit comes back to it in two solves, the bones
    /// keeping their lengths.
    #[test]
    fn a_joint_beyond_its_limit_comes_back_with_its_bones_rigid() {
        let bend = (45.0f64 + 20.0).to_radians();
        let mut p = particles(&[(-0.3, 0.0, 1.0), (0.0, 0.0, 1.0), (0.3 * bend.cos(), 0.3 * bend.sin(), 1.0)]);
        let handle = |i: usize| p.handle_at(i).unwrap();
        let def = AngleLimitDef {
            a: handle(0),
            b: handle(1),
            c: handle(2),
            min: -0.1,
            max: 45f64.to_radians(),
            compliance: 0.0,
        };
        let limit = AngleLimit::from_def(&def, &p).unwrap();
        let mut sv = GroupSolver::<S>::default();
        for _ in 0..2 {
            sv.clear();
            sv.link(&p, (0, 1), 0.3, (0.0, 0.0));
            sv.link(&p, (1, 2), 0.3, (0.0, 0.0));
            limit.violated_rows(&p, &mut sv.limit_rows);
            sv.add_limit_rows(0.0);
            assert!(sv.solve(&mut p, |_, _| {}));
        }
        // (Two linearised steps from 20° (0.35 rad) off: measured 0 and 3.4e-5 m.)
        assert!(limit.violation(&p) < 1e-6, "still {}° beyond", limit.violation(&p).to_degrees());
        assert!((len(&p, 0, 1) - 0.3).abs() < 1e-4 && (len(&p, 1, 2) - 0.3).abs() < 1e-4);
    }

    /// Degenerate input gives no correction instead of NaN: two copies of one link (a
    /// dependent row), a link between two pinned particles, a link of zero length (not
    /// added), and two contacts of one particle on the same plane.
    #[test]
    fn dependent_rows_and_pinned_particles_give_no_nan() {
        let mut p = particles(&[(0.0, 0.0, 0.0), (0.5, 0.0, 0.0), (0.5, 0.0, 1.0), (1.0, -0.1, 1.0)]);
        let mut sv = GroupSolver::<S>::default();
        sv.link(&p, (0, 1), 0.4, (0.0, 0.0)); // both pinned
        assert!(!sv.link(&p, (1, 2), 0.1, (0.0, 0.0))); // no direction
        sv.link(&p, (2, 3), 0.45, (0.0, 0.0));
        sv.link(&p, (2, 3), 0.45, (0.0, 0.0)); // the same again
        sv.contact(&p, 3, V::new(0.0, 1.0), 0.0);
        sv.contact(&p, 3, V::new(0.0, 1.0), 0.0);
        assert!(sv.solve(&mut p, |_, dl| assert!(dl.is_finite())));
        assert!(p.pos.iter().all(|x| x.is_finite()));
        assert_eq!((p.pos[0], p.pos[1]), (V::new(0.0, 0.0), V::new(0.5, 0.0)), "pinned particles moved");
        // (One linearised step: the link 13 % long before, 2.2 % after.)
        assert!((len(&p, 2, 3) - 0.45).abs() < 0.025 && p.pos[3].y > -1e-9, "{:?}", p.pos);
    }

    /// A link of rest length 0 (two particles held together) does not switch the step clamp
    /// off, a compliant link at its XPBD balance (`C = −α̃λ`) is left there, and a group
    /// larger than the dense solve takes is reported, untouched.
    #[test]
    fn zero_rest_links_compliant_balance_and_oversized_groups() {
        let mut p = particles(&[(0.0, 0.0, 1.0), (0.33, 0.0, 1.0), (0.66, 0.0, 1.0), (0.661, 0.0, 1.0)]);
        let mut sv = GroupSolver::<S>::default();
        sv.link(&p, (0, 1), 0.3, (0.0, 0.0));
        sv.link(&p, (1, 2), 0.3, (0.0, 0.0));
        sv.link(&p, (2, 3), 0.0, (0.0, 0.0));
        assert!(sv.solve(&mut p, |_, _| {}));
        assert!((len(&p, 0, 1) - 0.3).abs() < 1e-3 && (len(&p, 1, 2) - 0.3).abs() < 1e-3, "{:?}", p.pos);
        // XPBD balance: C = 0.1, α̃ = 1, λ = −0.1 gives Δλ = (−C − α̃λ)/(w + α̃) = 0.
        let mut p = particles(&[(0.0, 0.0, 1.0), (0.4, 0.0, 1.0)]);
        sv.clear();
        sv.link(&p, (0, 1), 0.3, (1.0, -0.1));
        let mut dls = Vec::new();
        assert!(sv.solve(&mut p, |_, dl| dls.push(dl)));
        assert!(dls.len() == 1 && dls[0].abs() < 1e-15, "{dls:?}");
        assert!((len(&p, 0, 1) - 0.4).abs() < 1e-12);
        // Too many rows: nothing done, and said so.
        let many: Vec<(f64, f64, f64)> = (0..=MAX_ROWS + 1).map(|i| (0.1 * i as f64, 0.05, 1.0)).collect();
        let mut p = particles(&many);
        let before = p.pos.clone();
        sv.clear();
        for i in 0..=MAX_ROWS as u32 {
            sv.link(&p, (i, i + 1), 0.09, (0.0, 0.0));
        }
        assert!(!sv.solve(&mut p, |_, _| panic!("no row is solved")));
        assert_eq!(p.pos, before);
    }

    /// In fixed point, rows of heavy particles (10 t: inverse masses far below any length
    /// epsilon) are solved like light ones.
    #[test]
    fn heavy_particles_are_solved_in_fixed_point() {
        use crate::math::Fx;
        type SF = Space2<Fx>;
        let f = Fx::from_f64;
        let mut p = ParticleSet::<SF>::default();
        for (x, y) in [(0.0, 0.0), (0.33, 0.0), (1.0, -0.01)] {
            p.insert(&ParticleDef::at(Vector2::new(f(x), f(y))).mass(f(10_000.0)));
        }
        let mut sv = GroupSolver::<SF>::default();
        sv.link(&p, (0, 1), f(0.3), (Fx::ZERO, Fx::ZERO));
        sv.contact(&p, 2, Vector2::new(Fx::ZERO, Fx::ONE), Fx::ZERO);
        assert!(sv.solve(&mut p, |_, _| {}));
        let l = (p.pos[0] - p.pos[1]).length().to_f64();
        assert!((l - 0.3).abs() < 1e-3, "link at {l}");
        assert!(p.pos[2].y.to_f64() > -1e-4, "still {} deep", -p.pos[2].y.to_f64());
    }
}
