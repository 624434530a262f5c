//! Whole-body restitution: a tree-solved body (a ragdoll) leaves an impact with its centre
//! of mass at `e` times the speed it came in with.
//!
//! # Why
//! Restitution at each contact (Newton's law `v_n⁺ = −e·v_n⁻`, with the body's bones as
//! rigid links between its contacts: "Restitution" in [`crate::contact`]) is exact for a
//! rigid body that lands on one contact at a time. A ragdoll is not rigid: dropped flat,
//! it lands part by part over a few substeps — a hand, the hips, the head — and folds at
//! its joints in between, whose limits are inelastic projections. Each early contact's
//! bounce is spent lifting the rest of a still-falling body, and the fold takes the rest:
//! a `humanoid16` dropped flat from 4 m rose 0.32 m at e = 0.5 and 0.70 m at e = 0.8,
//! against `e²h` = 0.98 m and 2.5 m. The restitution setting did not read as bounce.
//!
//! # The method
//! An *impact* of a body is the run of substeps from its first contact that approaches
//! faster than resting contact (the per-contact bounce's threshold, `2|g|h`) until its
//! centre of mass stops approaching the surfaces it touches. Over the impact the body's
//! contacts give its direction,
//!
//! ```text
//! n̂ = N / |N|,     N = Σ_substeps Σ_contacts m_k·Δn_k·n_k
//! ```
//!
//! (each contact's normal weighted by the momentum it takes out of the approach and its
//! push, `w = m·(max(−v̄_n, 0) + Δn/h)`). With `v⁻` the body's centre-of-mass velocity
//! before the impact's first substep's solve (the prediction's, `Σ m v / M` before the
//! solve, relative to the surface's velocity), the impact ends — in the first substep
//! whose centre-of-mass velocity `V` after the velocity pass has `V·n̂ ≥ 0` (to 1 % of
//! the approach speed or resting contact's speed) — with Newton's law for the whole body,
//!
//! ```text
//! V·n̂  ←  max(V·n̂, −e·v⁻·n̂)
//! ```
//!
//! by one velocity `Δ·n̂` added to every free particle of the body: a uniform change,
//! which leaves every bone's and limit's velocity rows as they were (a rigid translation
//! satisfies them all) and adds momentum `M·Δ` along `n̂` only. `e` is the largest
//! restitution among the impact's approaching contacts. The contacts of such a body are
//! inelastic in the velocity pass: the body's bounce is all of it (a contact's own bounce
//! would be spent lifting the still-falling rest of the body, as above).
//!
//! **Energy.** `Δ` is capped so that the body's kinetic energy after it is at most its
//! kinetic energy before the impact: the bounce never adds energy, whatever the body did
//! in between (a body that turned its fall into spin keeps the spin and gets only what
//! energy is left for its centre of mass).
//!
//! **What is exact and what is not.** A body that lands flat (every contact's normal the
//! same, no spin) leaves at `e·|v⁻|` up to the gravity of the impact's few substeps: its
//! centre of mass rises to `e²h`, whatever its shape and however it folds. A tumbling body
//! hitting with one end gets the same law for its centre of mass, which a rigid body does
//! not obey (a rigid rod struck at one end leaves slower and spinning); here the
//! per-contact bounce already gives the rigid answer and the top-up adds centre-of-mass
//! speed up to `e·|v⁻|` as far as the energy cap allows — a livelier bounce than a rigid
//! body's, the one a game's restitution slider is for. An impact that lasts more than
//! [`MAX_IMPACT_TIME`] (a body pressed into a surface, crumpling, or sliding down a
//! slope) ends without a bounce. A body that grazed a surface (a foot touching the ground
//! in flight) and falls on takes the fastest approach seen as `v⁻`; an approaching contact
//! whose normal is more than ~45° from the impact's starts a new impact (a wall after a
//! graze of the ground). Contacts between bodies (`crate::contact::bodies`)
//! take no part: only particle–collider contacts.
//!
//! An impact spans substeps and steps, so it is part of the world's saved state (the
//! snapshot, the state hash; hashed only while an impact is in progress, so a world
//! without one hashes as before). A body is named by its lowest particle slot; when its
//! bones are torn or its pins change, an impact in progress is dropped.

use super::Contact;
use crate::constraint::tree::Trees;
use crate::math::{Real, Vector};
use crate::particle::ParticleSet;
use crate::space::{RealOf, Space, VecOf};
use crate::state::{SavedState, StateHasher, saved_state};

/// The longest impact that ends in a bounce (s).
pub const MAX_IMPACT_TIME: f64 = 0.2;

/// An impact in progress on one body (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BodyImpact<S: Space> {
    /// The body's lowest particle slot.
    pub key: u32,
    /// Centre-of-mass velocity before the impact, relative to the struck surface.
    pub v_in: VecOf<S>,
    /// The struck surfaces' velocity (mass-weighted over the first substep's contacts).
    pub v_surface: VecOf<S>,
    /// `Σ w·n` over the impact's contacts (`w = m·(max(−v̄_n, 0) + Δn/h)`): its direction
    /// is the impact's normal.
    pub normal: VecOf<S>,
    /// Restitution: the largest among the impact's approaching contacts.
    pub e: RealOf<S>,
    /// Kinetic energy per unit mass before the impact (`Σ m v² / 2M`).
    pub energy: RealOf<S>,
    /// Substeps so far.
    pub age: u32,
}

saved_state!(impl[S: Space] BodyImpact<S> { key, v_in, v_surface, normal, e, energy, age });

/// The impacts in progress, in the order they began (saved state; hashed only when any).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct BodyImpacts<S: Space>(pub Vec<BodyImpact<S>>);

impl<S: Space> SavedState for BodyImpacts<S> {
    fn hash_state(&self, h: &mut StateHasher) {
        if !self.0.is_empty() {
            h.write_u64(0xB0_0B_CE);
            self.0.hash_state(h);
        }
    }
    fn heap_bytes(&self) -> usize {
        self.0.heap_bytes()
    }
    fn copy_from(&mut self, o: &Self) {
        self.0.copy_from(&o.0);
    }
}

/// One body's contacts and momentum in the current substep.
#[derive(Clone, Copy, Debug)]
struct Touch<S: Space> {
    body: (u32, u32),
    /// `Σ w·n` of this substep's contacts (`w = m·(max(−v̄_n, 0) + Δn/h)`).
    normal: VecOf<S>,
    /// `Σ w·v_surface` of this substep's contacts (divided by `Σ w` when used).
    surface: VecOf<S>,
    weight: RealOf<S>,
    /// The largest restitution of an approaching contact (0: none).
    e: RealOf<S>,
    /// Mass, centre-of-mass velocity and kinetic energy per unit mass before the solve.
    mass: RealOf<S>,
    v_pre: VecOf<S>,
    energy: RealOf<S>,
}

impl<S: Space> Touch<S> {
    /// Body `body` with no contact yet.
    fn empty(body: (u32, u32)) -> Self {
        let (zero, z) = (RealOf::<S>::ZERO, VecOf::<S>::ZERO);
        Self { body, normal: z, surface: z, weight: zero, e: zero, mass: zero, v_pre: z, energy: zero }
    }

    /// The impact this substep's approaching contacts start on body `key` (needs
    /// `weight > 0`, which an approaching contact gives).
    fn start(&self, key: u32) -> BodyImpact<S> {
        let v_surface = self.surface / self.weight;
        BodyImpact {
            key,
            v_in: self.v_pre - v_surface,
            v_surface,
            normal: self.normal,
            e: self.e,
            energy: self.energy,
            age: 0,
        }
    }
}

/// Working memory of the whole-body bounce (rebuilt every substep).
#[derive(Clone, Debug, Default)]
pub(crate) struct BounceScratch<S: Space> {
    touched: Vec<Touch<S>>,
}

/// Before the velocities are taken from the positions (the particles' `vel` still holds
/// the prediction's velocities): finds the bodies this substep's contacts pushed and
/// those with an impact in progress, and their momentum before the solve. Returns
/// whether [`finish`] has anything to do.
pub(crate) fn begin<S: Space>(
    scratch: &mut BounceScratch<S>,
    trees: &Trees<S>,
    ps: &ParticleSet<S>,
    contacts: &[Contact<S>],
    impacts: &mut BodyImpacts<S>,
    rest_speed: RealOf<S>,
    inv_h: RealOf<S>,
) -> bool {
    let zero = RealOf::<S>::ZERO;
    let touched = &mut scratch.touched;
    touched.clear();
    // An impact whose body no longer exists as it was (torn bones, changed pins) is dropped.
    impacts.0.retain(|i| trees.body_of(i.key as usize).is_some_and(|b| body_key(trees.body_slots(b)) == i.key));
    let any_impact = !impacts.0.is_empty();
    for c in contacts {
        // Only contacts that could start an impact or belong to one in progress.
        if c.dn <= zero || (c.restitution == zero && !any_impact) {
            continue;
        }
        let k = c.particle as usize;
        let Some(body) = trees.body_of(k) else { continue };
        // The contact's weight: the momentum it takes out of the approach and its push
        // (a contact that just touches, with no push yet, still counts).
        let w = ps.mass[k] * ((-c.vn_pre).max(zero) + c.dn * inv_h);
        let e = if -c.vn_pre > rest_speed { c.restitution } else { zero };
        let t = Touch { normal: c.normal * w, surface: c.v_col * w, weight: w, e, ..Touch::empty(body) };
        // Contacts come in particle order, so a body's are mostly together.
        match touched.last_mut() {
            Some(last) if last.body == body => merge(last, &t),
            _ => touched.push(t),
        }
    }
    if !touched.is_sorted_by_key(|t| t.body) {
        touched.sort_by_key(|t| t.body);
        touched.dedup_by(|b, a| {
            if a.body == b.body {
                merge(a, b);
                true
            } else {
                false
            }
        });
    }
    // A body with no approaching contact and no impact in progress has nothing to do.
    let keys: &[BodyImpact<S>] = &impacts.0;
    let has_impact =
        |trees: &Trees<S>, body: (u32, u32)| keys.iter().any(|i| trees.body_of(i.key as usize) == Some(body));
    touched.retain(|t| t.e > zero || (any_impact && has_impact(trees, t.body)));
    // Bodies whose impact is in progress but which touch nothing this substep.
    for i in keys {
        if let Some(body) = trees.body_of(i.key as usize)
            && !touched.iter().any(|t| t.body == body)
        {
            touched.push(Touch::empty(body));
        }
    }
    for t in touched.iter_mut() {
        let slots = trees.body_slots(t.body);
        let (mass, v, energy) = momentum(ps, slots);
        (t.mass, t.v_pre, t.energy) = (mass, v, energy);
    }
    !touched.is_empty()
}

/// After the velocity pass (and the bones' velocity solve): advances each touched body's
/// impact, and ends those whose centre of mass stopped approaching with the whole-body
/// bounce (module docs).
pub(crate) fn finish<S: Space>(
    scratch: &BounceScratch<S>,
    trees: &Trees<S>,
    ps: &mut ParticleSet<S>,
    impacts: &mut BodyImpacts<S>,
    h: RealOf<S>,
    rest_speed: RealOf<S>,
) {
    let zero = RealOf::<S>::ZERO;
    let max_age = (RealOf::<S>::from_f64(MAX_IMPACT_TIME) / h).to_f64() as u32;
    for t in &scratch.touched {
        if t.mass <= zero {
            continue;
        }
        let slots = trees.body_slots(t.body);
        let key = body_key(slots);
        let found = impacts.0.iter().position(|i| i.key == key);
        let idx = match found {
            Some(j) => {
                let i = &mut impacts.0[j];
                let now = i.normal.normalize_or_zero();
                if t.e > zero && t.normal.normalize_or_zero().dot(now) < RealOf::<S>::from_ratio(7, 10) {
                    // A new impact on another surface (a wall after a foot grazed the
                    // ground): it starts afresh.
                    *i = t.start(key);
                } else {
                    i.normal += t.normal;
                    i.e = i.e.max(t.e);
                    i.age += 1;
                    // Still speeding toward the surface (a body that grazed it first):
                    // the approach is the fastest seen.
                    if t.e > zero && (t.v_pre - i.v_surface).dot(now) < i.v_in.dot(now) {
                        i.v_in = t.v_pre - i.v_surface;
                        i.energy = i.energy.max(t.energy);
                    }
                }
                j
            }
            None if t.e > zero && t.weight > zero => {
                impacts.0.push(t.start(key));
                impacts.0.len() - 1
            }
            None => continue,
        };
        let i = impacts.0[idx];
        let (n, len) = i.normal.normalize_and_length();
        if len <= zero {
            impacts.0.remove(idx);
            continue;
        }
        let (_, v, energy) = momentum(ps, slots);
        let vn = (v - i.v_surface).dot(n);
        // Stopped, to 1 % of the approach speed or resting contact's speed: a body brought
        // to rest keeps a trace of approach from rounding and the push of its contacts.
        let approach = -i.v_in.dot(n);
        let slack = rest_speed.max(approach * RealOf::<S>::from_ratio(1, 100));
        if vn < -slack && i.age < max_age {
            continue;
        }
        impacts.0.remove(idx);
        if i.age >= max_age {
            continue;
        }
        let target = i.e * approach;
        if target <= vn {
            continue;
        }
        // The energy cap: ½|V + Δn|² + (internal) ≤ energy before, per unit mass:
        // energy_now + Δ·(V·n) + Δ²/2 ≤ energy_in.
        let room = (i.energy - energy).max(zero);
        let vw = v.dot(n);
        let cap = -vw + (vw * vw + room * RealOf::<S>::TWO).sqrt();
        let d = (target - vn).min(cap);
        if d > zero {
            for &k in slots {
                let k = k as usize;
                if k < ps.vel.len() && ps.inv_mass[k] > zero {
                    ps.vel[k] += n * d;
                }
            }
        }
    }
}

/// A body's free mass, centre-of-mass velocity and kinetic energy per unit mass.
fn momentum<S: Space>(ps: &ParticleSet<S>, slots: &[u32]) -> (RealOf<S>, VecOf<S>, RealOf<S>) {
    let zero = RealOf::<S>::ZERO;
    let mut mass = zero;
    for &k in slots {
        let k = k as usize;
        if k < ps.mass.len() && ps.inv_mass[k] > zero {
            mass += ps.mass[k];
        }
    }
    if mass <= zero {
        return (zero, VecOf::<S>::ZERO, zero);
    }
    // Weights `m/M ≤ 1`, so the sums stay of the size of a velocity (fixed point's range).
    let (mut v, mut e) = (VecOf::<S>::ZERO, zero);
    for &k in slots {
        let k = k as usize;
        if k < ps.mass.len() && ps.inv_mass[k] > zero {
            let w = ps.mass[k] / mass;
            let vk = ps.vel[k];
            v += vk * w;
            e += vk.length_squared() * w;
        }
    }
    (mass, v, e * RealOf::<S>::HALF)
}

/// The name of a body across steps: its lowest particle slot.
fn body_key(slots: &[u32]) -> u32 {
    slots.iter().copied().min().unwrap_or(u32::MAX)
}

fn merge<S: Space>(a: &mut Touch<S>, b: &Touch<S>) {
    a.normal += b.normal;
    a.surface += b.surface;
    a.weight += b.weight;
    a.e = a.e.max(b.e);
}
