//! The force of a blow: impulse, contact time and force from the contact area, the
//! relative velocity and the acceleration of the strike, or an authored value.
//!
//! # The model
//!
//! Two bodies meet along the contact normal `n̂` with approach speed `v = −v_rel·n̂ ≥ 0`: the
//! striking limb (mass `m₁`, the nodes of its lower part: forearm or shin with the fist or
//! foot) and the struck part (mass `m₂`, its nodes). Over the short contact they act as
//! two point masses, so the blow sees the **effective mass**
//!
//! ```text
//! m_eff = m₁ m₂ / (m₁ + m₂)
//! ```
//!
//! The contact is a linear spring: a flat circular punch of area `A` (radius
//! `a = √(A/π)`) pressed into an elastic half-space of contact modulus `E*` has stiffness
//! `k = 2 E* a` (Johnson, *Contact Mechanics*, §5.2), so a larger glove or a kick's foot is
//! stiffer and shorter. The spring–mass system `m_eff`, `k` stays in contact for half a
//! period,
//!
//! ```text
//! τ = π √(m_eff / k)
//! ```
//!
//! independent of the speed. The exchanged impulse is the velocity change of a collision
//! with restitution `e` plus what the strike's drive adds while in contact — the limb
//! accelerating at `a_s` along `−n̂` pushes with `m₁ a_s`, of which the share `m₂/(m₁+m₂)`
//! reaches the struck part over `τ`:
//!
//! ```text
//! J = m_eff · ((1 + e)·v + a_s·τ),      F̄ = J / τ,      F̂ = π J / (2τ)  (half-sine peak)
//! ```
//!
//! `J` is linear in `v` at a given area and acceleration (doubling the speed of a
//! coasting strike doubles the impulse). An attack may instead carry an **authored**
//! impulse, which replaces `J` (the contact time stays the model's). All of it is
//! `+ − × ÷ √`, so fixed point gives the same bits everywhere.

use crate::SinewError;
use crate::math::Real;
use crate::state::saved_state;

/// The impact model's constants (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpactDef<R> {
    /// Restitution `e ∈ [0, 1]`. Default 0.2 (a glove on a head barely bounces).
    pub restitution: R,
    /// Contact modulus `E*` (Pa), > 0. Default 8·10⁵ Pa (soft tissue over bone with a
    /// glove: a contact time of ~17 ms for a fist on a head, within the 10–30 ms measured
    /// for punches).
    pub modulus: R,
}

saved_state!(impl[R: Real] ImpactDef<R> { restitution, modulus });

impl<R: Real> Default for ImpactDef<R> {
    fn default() -> Self {
        Self { restitution: R::from_ratio(1, 5), modulus: R::from_i32(800_000) }
    }
}

impl<R: Real> ImpactDef<R> {
    /// Checks the constants.
    pub fn validate(&self) -> Result<(), SinewError> {
        if !self.restitution.is_finite() || !self.modulus.is_finite() {
            return Err(SinewError::NonFinite { what: "impact" });
        }
        if self.restitution < R::ZERO || self.restitution > R::ONE {
            return Err(SinewError::InvalidParameter {
                what: "impact restitution",
                reason: "must be in [0, 1]",
                value: Some(self.restitution.to_f64()),
            });
        }
        if self.modulus <= R::ZERO {
            return Err(SinewError::InvalidParameter {
                what: "impact modulus",
                reason: "must be > 0",
                value: Some(self.modulus.to_f64()),
            });
        }
        Ok(())
    }
}

/// What a blow exchanged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impact<R> {
    /// Effective mass `m_eff` (kg).
    pub effective_mass: R,
    /// Contact stiffness `k` (N/m).
    pub stiffness: R,
    /// Contact time `τ` (s).
    pub contact_time: R,
    /// Impulse `J` (N·s).
    pub impulse: R,
    /// Mean force `J/τ` (N).
    pub force: R,
    /// Peak force `πJ/(2τ)` (N).
    pub peak_force: R,
}

/// The blow of a limb of mass `striker` on a part of mass `struck` approaching at `speed`
/// (m/s, along the normal; negative = separating, no collision term) while accelerating
/// at `accel` (m/s², along the approach; negative counts as 0) over contact area `area`
/// (m²); `authored` replaces the impulse (see the module docs).
pub fn impact<R: Real>(
    def: &ImpactDef<R>,
    striker: R,
    struck: R,
    speed: R,
    accel: R,
    area: R,
    authored: Option<R>,
) -> Result<Impact<R>, SinewError> {
    def.validate()?;
    for (what, v) in [("striker mass", striker), ("struck mass", struck), ("contact area", area)] {
        if !v.is_finite() {
            return Err(SinewError::NonFinite { what });
        }
        if v <= R::ZERO {
            return Err(SinewError::InvalidParameter { what, reason: "must be > 0", value: Some(v.to_f64()) });
        }
    }
    if !speed.is_finite() || !accel.is_finite() {
        return Err(SinewError::NonFinite { what: "strike velocity" });
    }
    let m = striker * struck / (striker + struck);
    let a = (area / R::PI).sqrt();
    let k = R::TWO * def.modulus * a;
    let tau = R::PI * (m / k).sqrt();
    let j = match authored {
        Some(j) if j.is_finite() && j >= R::ZERO => j,
        Some(_) => {
            return Err(SinewError::InvalidParameter {
                what: "authored impulse", reason: "must be ≥ 0", value: None
            });
        }
        None => m * ((R::ONE + def.restitution) * speed.max(R::ZERO) + accel.max(R::ZERO) * tau),
    };
    let force = j.safe_div(tau, R::ZERO);
    Ok(Impact {
        effective_mass: m,
        stiffness: k,
        contact_time: tau,
        impulse: j,
        force,
        peak_force: force * R::PI * R::HALF,
    })
}
