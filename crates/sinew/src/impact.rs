//! Impact passes: extra work for the groups of constraints a contact struck
//! ([`crate::WorldDef::impact_passes`]; a stage of the world's step, its internals — these
//! docs describe the method).
//!
//! Constraints are projected before contacts, once per substep (Gauss–Seidel). When a
//! ragdoll hits a wall at speed, the contacts stop the particles that touch it after the
//! bones were projected, and the bones only learn of it next substep: for that substep
//! they are compressed by about the distance the body moves in it (`v·h`: 2 cm at
//! 10 m/s and 8 substeps), 7 % worst strain on a humanoid thrown into a wall. More
//! iterations fix it everywhere at their full price, and converge slowly: the error travels
//! one bone per pass and the contacts and limits undo part of each (a humanoid dropped
//! 5 m still strains 3.6 % at 8 substeps × 4 iterations). The impact passes act only
//! where an impact happened: a contact that pushed a particle which came at the surface
//! faster than `max(8|g|h, 0.1 m/s)` — eight times the approach gravity gives a resting
//! particle in a substep — marks the particle's *group* (the distances and joint limits
//! connected to it through shared particles: one ragdoll). A resting contact's approach
//! is that `|g|h` whatever weight it carries; its push `dn` grows with the load, and a
//! first version that compared the push with `8|g|h²` fired every substep on a chain of 20
//! links resting across two boxes (as it would on anything riding a lift).
//!
//! Each pass projects a marked group's one-sided links and joint limits, then its
//! particles' contacts, and then — where the group's joint limits give rows for it
//! (`JointLimitSolver::DIRECT_ROWS`: the 2D angle limit) — *solves* the group at once: its
//! links, the limits now beyond their range and the contacts its particles touch, one
//! Newton step of the linearised system (`constraint::group_solve`, a dense `LDLᵀ` with an
//! active set for contacts and limits, which only push), again from the new positions
//! while something is left beyond 0.5 % strain, 0.25° or 10 µm of depth (at most six
//! times). A particle the solve pushes into a collider it was clear of gets a contact then
//! and there. In 2D a ragdoll (a group with joint limits) is also marked when the
//! substep's projections left a rigid bone strained beyond 0.5 % or a joint 0.25° beyond
//! its limit: the strain of a body tumbling after an impact, or of a limb caught between
//! the ground and the body falling onto it, comes in substeps where no contact struck
//! anything. Measured (`examples/ragdoll_impact.rs`, its sweep tables) over 15 throws into
//! a wall (6–14 m/s, 3 s each) and 6 drops (3–7 m) of `humanoid16` at 8 substeps: mean
//! worst bone strain 11.0 % / 11.8 % without, 0.45 % / 0.47 % with one pass (largest
//! 0.50 %), mean joint-limit overshoot 0.1° (2.2° without); at 4 substeps 0.49 % / 0.49 %
//! (the single throw and drop then still move at 0.4 m/s after 5 s). Over those 21
//! scenes run for 5 s in `f64`, `f32` and fixed point (`examples/ragdoll_settle.rs`), one
//! pass at 8 substeps left 1 of 63 runs moving after 5 s (the plain projections 15 of 63,
//! 96 substeps 4 of 63). The strain tolerance is 0.5 %: with 0.25 % a ragdoll lying on
//! the ground, whose projections leave about 0.2 %, crossed it now and then, and each
//! solve that snapped it back kicked it (3 runs of 63 still moving, up to 1.0 m/s). The
//! re-projection alone (the passes before the direct solve) gave 7.2 % / 9.7 %.
//!
//! What the solve leaves out, and why it is off by default:
//! - Friction: the solve moves contact particles along their surfaces. A chain of 20 bare
//!   links resting across two boxes, 1.9 % long after the projections, slid off its
//!   supports when the strain marked it and the solve shortened it (measured at up to
//!   6 m/s; rows that held the sticking contacts in place made ragdolls tremble instead).
//!   So groups without joint limits are solved only in a substep a contact strikes them.
//! - 3D: with swing–twist limits' rows the solve left a resting `humanoid3d` trembling at
//!   about 1 m/s (with or without the limit rows, contacts or twist rows, at 8 and 16
//!   substeps), and without the strain marking a struck-only solve could blow up. 3D
//!   groups keep the re-projection: 24.4 % → 20.9 % mean worst strain over 15 wall throws
//!   at 8 substeps, 13.2 % → 9.8 % at 16.
//! - Cost: at least 3 µs per solved ragdoll per substep (a crowd's extra time over its
//!   ragdolls and substeps, as if every one were solved each substep). In a crowd (1000 ragdolls raining
//!   onto platforms at 4 substeps) most ragdolls stay strained, and one pass takes a frame
//!   from ~2 ms to ~14 ms. A few fighting-game ragdolls that must keep their bones through
//!   hits want 1.
//!
//! Only distances, joint limits and contacts take part: tethers, bending, attachments (a
//! grabbed ragdoll's pin), rope chains, span contacts and `step_with`'s custom
//! constraints (muscles) wait for the next substep, as before.

use crate::arena::Arena;
use crate::collider::Collider;
use crate::constraint::group_solve::{GroupSolver, RowOf};
use crate::constraint::groups::ConstraintGroups;
use crate::constraint::{Distance, JointLimit, JointLimitSolver, LinkRows, SubstepContext};
use crate::contact::narrow::{ContactTest, closest};
use crate::contact::solve::solve_contacts_of;
use crate::contact::{Contact, ContactParams, ContactScratch};
use crate::math::{Real, Rotation, Vector};
use crate::particle::ParticleSet;
use crate::space::{RealOf, Space, VecOf};

/// With the direct solve, a group left with a rigid link strained by more than this
/// (0.5 %) after a substep's projections gets the impact passes (see the module docs).
const IMPACT_STRAIN: (i32, i32) = (1, 200);
/// ... or with a joint beyond its limit by more than this (rad; 0.25°).
const IMPACT_OVERSHOOT: (i32, i32) = (1, 229);
/// Newton steps of an impact pass's direct solve of a group, at most (see
/// [`Impacts::solve_struck_groups`]).
const GROUP_SOLVE_ROUNDS: usize = 6;
/// Contacts with a particle deeper than minus this (m; 10 µm: touching, within rounding)
/// are rows of a direct solve (one-sided: dropped if they would pull), and one left deeper
/// than this is solved again.
const GROUP_SOLVE_SLOP: (i32, i32) = (1, 100_000);

/// What the impact passes read and write.
pub(crate) struct Impacts<'a, S: Space> {
    /// Passes per substep (`WorldDef::impact_passes`).
    pub passes: u32,
    pub params: &'a ContactParams<RealOf<S>>,
    pub particles: &'a mut ParticleSet<S>,
    pub distances: &'a mut Arena<Distance<RealOf<S>>>,
    pub limits: &'a mut Arena<S::JointLimit>,
    pub colliders: &'a Arena<Collider<S>>,
    pub groups: &'a mut ConstraintGroups,
    pub group_solver: &'a mut GroupSolver<S>,
    pub link_rows: &'a LinkRows<RealOf<S>>,
    /// Every distance is rigid this step (the link rows hold their multipliers).
    pub distances_rigid: bool,
    pub contacts: &'a mut Vec<Contact<S>>,
    /// The particles' gathering (their pairs, for the contacts a direct solve makes).
    pub contact: &'a ContactScratch<S>,
}

impl<S: Space> Impacts<'_, S> {
    /// The impact passes (see "Impacts" in the module docs): the groups of constraints a
    /// contact struck this substep (in 2D also the ragdolls left strained) are projected
    /// again, then their contacts, then (2D) each is solved at once.
    #[inline(never)] // a stage of the step (see the note in `World::step_with`)
    pub(crate) fn run(&mut self, ctx: &SubstepContext<RealOf<S>>, h: RealOf<S>) {
        // An impact: the contact pushed a particle that came at the surface faster than
        // gravity brings a resting particle in eight substeps (a resting particle's
        // approach is gravity's `|g|h`, whatever weight its contact carries), and at
        // least 0.1 m/s (zero gravity).
        let struck = (self.params.rest_speed * RealOf::<S>::from_i32(4)).max(RealOf::<S>::from_ratio(1, 10));
        let direct = <S::JointLimit as JointLimitSolver<S>>::DIRECT_ROWS;
        let gs = &mut self.groups;
        gs.stamp = gs.stamp.wrapping_add(1);
        if gs.stamp == 0 {
            gs.mark.iter_mut().for_each(|m| *m = 0);
            gs.stamp = 1;
        }
        gs.hit.clear();
        for c in self.contacts.iter() {
            if c.dn > RealOf::<S>::ZERO
                && c.vn_pre < -struck
                && let Some(&g) = gs.of.get(c.particle as usize)
                && g != u32::MAX
                && gs.mark[g as usize] != gs.stamp
            {
                gs.mark[g as usize] = gs.stamp;
                gs.hit.push(g);
            }
        }
        if direct {
            // With the direct solve, so is a ragdoll (a group with joint limits) that this
            // substep's projections left with a rigid link strained or a joint beyond its
            // limit: a body tumbling after an impact, or a limb between the ground and the
            // body falling onto it (its contact struck nothing: the particle on the ground
            // was at rest). Not a chain of bare links: friction is not part of the solve,
            // and a chain resting across two boxes, its links 1.9 % long after the
            // projections, slid off them when the solve shortened it (measured; see
            // `group_solve`).
            let strain = RealOf::<S>::from_ratio(IMPACT_STRAIN.0, IMPACT_STRAIN.1);
            let overshoot = RealOf::<S>::from_ratio(IMPACT_OVERSHOOT.0, IMPACT_OVERSHOOT.1);
            let ps = &self.particles;
            for g in 0..gs.mark.len() {
                if gs.mark[g] == gs.stamp || gs.lim_at[g] == gs.lim_at[g + 1] {
                    continue;
                }
                let strained = gs.dist[gs.dist_at[g] as usize..gs.dist_at[g + 1] as usize].iter().any(|&slot| {
                    self.distances.values[slot as usize].as_ref().is_some_and(|c| {
                        let (a, b) = c.indices();
                        c.is_rigid() && ((ps.pos[a] - ps.pos[b]).length() - c.rest).abs() > strain * c.rest
                    })
                });
                let bent = || {
                    gs.lim[gs.lim_at[g] as usize..gs.lim_at[g + 1] as usize].iter().any(|&slot| {
                        self.limits.values[slot as usize].as_ref().is_some_and(|l| l.violation(ps) > overshoot)
                    })
                };
                if strained || bent() {
                    gs.mark[g] = gs.stamp;
                    gs.hit.push(g as u32);
                }
            }
        }
        if gs.hit.is_empty() {
            return;
        }
        if self.distances_rigid {
            // The struck groups' links as the rows left them: their multipliers (the
            // projections below continue from them) and their denominators (the rows
            // compute those without preparing the links).
            for &g in &self.groups.hit {
                let g = g as usize;
                let slots = &self.groups.dist[self.groups.dist_at[g] as usize..self.groups.dist_at[g + 1] as usize];
                self.link_rows.store_lambdas_of(slots, self.distances);
                for &slot in slots {
                    if let Some(c) = self.distances.values[slot as usize].as_mut() {
                        c.prepare(self.particles, ctx);
                    }
                }
            }
        }
        if direct {
            // The struck groups' contacts, by group (`of_hit`: a group's place in `hit`).
            let gs = &mut self.groups;
            gs.of_hit.resize(gs.mark.len(), u32::MAX);
            for (i, &g) in gs.hit.iter().enumerate() {
                gs.of_hit[g as usize] = i as u32;
            }
            gs.hit_contacts.iter_mut().for_each(Vec::clear);
            gs.hit_contacts.resize_with(gs.hit.len().max(gs.hit_contacts.len()), Vec::new);
            for (i, c) in self.contacts.iter().enumerate() {
                if let Some(&g) = gs.of.get(c.particle as usize)
                    && g != u32::MAX
                    && gs.mark[g as usize] == gs.stamp
                {
                    gs.hit_contacts[gs.of_hit[g as usize] as usize].push(i as u32);
                }
            }
        }
        for _ in 0..self.passes {
            // The groups' links (only the one-sided ones with the direct solve) and joint
            // limits, then their contacts (with friction), projected; then, with the
            // direct solve, each group solved at once.
            let ps = &mut self.particles;
            for &g in &self.groups.hit {
                let g = g as usize;
                let (d0, d1) = (self.groups.dist_at[g] as usize, self.groups.dist_at[g + 1] as usize);
                for &slot in &self.groups.dist[d0..d1] {
                    if let Some(c) = self.distances.values[slot as usize].as_mut()
                        && (c.unilateral || !direct)
                    {
                        c.solve(ps, ctx);
                    }
                }
                let (l0, l1) = (self.groups.lim_at[g] as usize, self.groups.lim_at[g + 1] as usize);
                for &slot in &self.groups.lim[l0..l1] {
                    if let Some(c) = self.limits.values[slot as usize].as_mut() {
                        c.solve(ps, ctx);
                    }
                }
            }
            let gs = &self.groups;
            let struck = |k: usize| gs.of.get(k).is_some_and(|&g| g != u32::MAX && gs.mark[g as usize] == gs.stamp);
            solve_contacts_of(self.particles, self.contacts, h, struck);
            if direct {
                self.solve_struck_groups(ctx, h);
            }
        }
    }

    /// Each struck group's bilateral links, the joint limits now beyond their range and
    /// its particles' contacts now violated, solved together (see
    /// [`crate::constraint::group_solve`]); again from the new positions while a solve
    /// left a rigid link strained beyond [`IMPACT_STRAIN`], a limit beyond
    /// [`IMPACT_OVERSHOOT`] or a contact deeper than [`GROUP_SOLVE_SLOP`] (the solve
    /// linearises at the positions it starts from, and can bend a joint it did not hold
    /// or push a particle into a collider), at most [`GROUP_SOLVE_ROUNDS`] times.
    fn solve_struck_groups(&mut self, ctx: &SubstepContext<RealOf<S>>, h: RealOf<S>) {
        let strain = RealOf::<S>::from_ratio(IMPACT_STRAIN.0, IMPACT_STRAIN.1);
        let overshoot = RealOf::<S>::from_ratio(IMPACT_OVERSHOOT.0, IMPACT_OVERSHOOT.1);
        let slop = RealOf::<S>::from_ratio(GROUP_SOLVE_SLOP.0, GROUP_SOLVE_SLOP.1);
        let (mut direct, mut dist, mut lims, mut lim_rows) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let hit = core::mem::take(&mut self.groups.hit);
        for (hi, &g) in hit.iter().enumerate() {
            let (g, gs) = (g as usize, &self.groups);
            dist.clear();
            dist.extend_from_slice(&gs.dist[gs.dist_at[g] as usize..gs.dist_at[g + 1] as usize]);
            lims.clear();
            lims.extend_from_slice(&gs.lim[gs.lim_at[g] as usize..gs.lim_at[g + 1] as usize]);
            for round in 0..GROUP_SOLVE_ROUNDS {
                let sv = &mut self.group_solver;
                sv.clear();
                direct.clear();
                lim_rows.clear();
                for &slot in &dist {
                    if let Some(c) = self.distances.values[slot as usize].as_ref()
                        && !c.unilateral
                        && sv.link(self.particles, (c.a, c.b), c.rest, (c.compliance * ctx.inv_h2, c.lambda))
                    {
                        direct.push(slot);
                    }
                }
                let mut unsettled = sv.max_rigid_strain() > strain;
                for &slot in &lims {
                    if let Some(l) = self.limits.values[slot as usize].as_ref() {
                        let before = sv.limit_rows.len();
                        l.violated_rows(self.particles, &mut sv.limit_rows);
                        unsettled |= sv.limit_rows[before..].iter().any(|r| r.c.abs() > overshoot);
                        lim_rows.extend((0..sv.limit_rows.len() - before).map(|part| (slot, part)));
                    }
                }
                sv.add_limit_rows(ctx.inv_h2);
                for &i in &self.groups.hit_contacts[hi] {
                    let c = &self.contacts[i as usize];
                    // A contact the particle touches or nearly touches: one that is not
                    // in the system can be pushed in by the solve (the active set drops
                    // it again if it would pull).
                    let depth = c.d - c.normal.dot(self.particles.pos[c.particle as usize]);
                    if depth > -slop {
                        sv.contact(self.particles, c.particle, c.normal, c.d);
                        unsettled |= depth > slop;
                    }
                }
                // After the first round, only for what the last one left.
                if round > 0 && !unsettled {
                    break;
                }
                let (distances, limits) = (&mut self.distances, &mut self.limits);
                let solved = sv.solve(self.particles, |of, dl| match of {
                    RowOf::Link(i) => {
                        if let Some(c) = distances.values[direct[i as usize] as usize].as_mut() {
                            c.lambda += dl;
                        }
                    }
                    RowOf::Limit(i) => {
                        let (slot, part) = lim_rows[i as usize];
                        if let Some(l) = limits.values[slot as usize].as_mut() {
                            l.add_row_lambda(part, dl);
                        }
                    }
                    RowOf::Contact => {}
                });
                if !solved {
                    // Too large a group for the dense solve: its links projected once more
                    // instead (the pass skipped them).
                    for &slot in &direct {
                        if let Some(c) = self.distances.values[slot as usize].as_mut() {
                            c.solve(self.particles, ctx);
                        }
                    }
                    break;
                }
                self.contacts_made_by_solve(hi, &dist, h);
            }
        }
        self.groups.hit = hit;
    }

    /// A direct solve moves a group's particles by up to its bones' strain, after this
    /// substep's contacts were found: a particle it pushed into a collider its pairs list
    /// (one that was clear at detection) gets a contact now, which the next round of the
    /// solve and the passes after it hold. Like the solve's pushes, it adds nothing to a
    /// contact's push `dn`, which the velocity pass's friction and restitution act on:
    /// with the solve's pushes counted there, resting ragdolls shook (0.4–0.6 m/s after
    /// 5 s, measured), so the velocity pass sees only what the projections pushed.
    fn contacts_made_by_solve(&mut self, hi: usize, dist: &[u32], h: RealOf<S>) {
        let sc = &self.contact;
        let ps = &self.particles;
        let test = ContactTest {
            particles: ps,
            params: self.params,
            f0: RealOf::<S>::ONE,
            f1: RealOf::<S>::ONE,
            inv_h: RealOf::<S>::ONE / h,
            rest_move: self.params.rest_move(h),
        };
        let mut seen = [u32::MAX; 2];
        for &slot in dist {
            let Some(c) = self.distances.values[slot as usize].as_ref() else { continue };
            for k in [c.a, c.b] {
                // (Each link's ends: a particle shared by consecutive links is looked at once.)
                if seen.contains(&k) {
                    continue;
                }
                seen = [seen[1], k];
                let Ok(at) = sc.probes.binary_search_by_key(&k, |p| p.particle) else { continue };
                let lo = if at == 0 { 0 } else { sc.probes[at - 1].pairs_end as usize };
                let (x, r) = (ps.pos[k as usize], ps.radius[k as usize]);
                for pair in &sc.pairs[lo..sc.probes[at].pairs_end as usize] {
                    let Some(col) = self.colliders.values[pair.slot as usize].as_ref() else { continue };
                    let listed = self.groups.hit_contacts[hi].iter().any(|&i| {
                        self.contacts[i as usize].particle == k && self.contacts[i as usize].collider == pair.slot
                    });
                    if listed || col.is_moving() {
                        continue;
                    }
                    let lx = col.rotation.inverse_rotate(x - col.position);
                    let prox = closest(&col.shape, lx);
                    if prox.distance >= r || prox.normal == VecOf::<S>::ZERO {
                        continue;
                    }
                    let n = col.rotation.rotate(prox.normal);
                    let q = col.position + col.rotation.rotate(lx - prox.normal * (prox.distance - r));
                    self.groups.hit_contacts[hi].push(self.contacts.len() as u32);
                    self.contacts.push(test.contact(k as usize, pair.slot, col, n, n.dot(q), VecOf::<S>::ZERO));
                }
            }
        }
    }
}
