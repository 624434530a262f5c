//! The settings of a [pose drive](super::drive): the gains of a part's spring-damper, a
//! part's definition and the drive's definition, with their validation.

use crate::SinewError;
use crate::math::Real;

use super::frame::DriveAxes;
use super::reaction::HitReactionDef;
use super::rig::NodeRef;

/// Gains of a part's spring-damper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DriveGains<R> {
    /// Stiffness `q` (N·m/rad) and damping `p` (N·m·s/rad), both ≥ 0.
    Physical {
        /// `q` (N·m/rad).
        stiffness: R,
        /// `p` (N·m·s/rad).
        damping: R,
    },
    /// Natural frequency (Hz) and damping ratio `ζ`, both ≥ 0, converted with the part's
    /// inertia (see the module docs).
    Frequency {
        /// Hz.
        frequency: R,
        /// `ζ` (1 = critically damped).
        damping_ratio: R,
    },
}

impl<R: Real> Default for DriveGains<R> {
    /// Jolt's motor default: 2 Hz, critically damped.
    fn default() -> Self {
        Self::Frequency { frequency: R::TWO, damping_ratio: R::ONE }
    }
}

/// One driven part (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct DrivePartDef<R> {
    /// Unique name (`"head"`, `"forearm_l"`).
    pub name: String,
    /// The nodes that turn with the part (at least two).
    pub nodes: Vec<NodeRef>,
    /// Frame nodes (2 in 2D; 3 in 3D, or 2 for a bone), all among `nodes`; empty = the
    /// first two (2D) or three (3D; two if the part has two) of `nodes`.
    pub frame: Vec<NodeRef>,
    /// The parent part's name; `None` = driven relative to the world.
    pub parent: Option<String>,
    /// Gains.
    pub gains: DriveGains<R>,
    /// Strength in `[0, 1]`. Default 1.
    pub strength: R,
    /// Gain multiplier of the twist row ([`DriveAxes::SwingTwist`]), ≥ 0. Default 1.
    pub twist_scale: R,
}

impl<R: Real> DrivePartDef<R> {
    /// A part of `nodes`, relative to the world, default gains, strength 1.
    #[must_use]
    pub fn new(name: impl Into<String>, nodes: &[&str]) -> Self {
        Self {
            name: name.into(),
            nodes: nodes.iter().map(|&n| n.into()).collect(),
            frame: Vec::new(),
            parent: None,
            gains: DriveGains::default(),
            strength: R::ONE,
            twist_scale: R::ONE,
        }
    }
    /// Sets the parent part.
    #[must_use]
    pub fn parent(mut self, parent: &str) -> Self {
        self.parent = Some(parent.to_owned());
        self
    }
    /// Sets the frame nodes.
    #[must_use]
    pub fn frame(mut self, frame: &[&str]) -> Self {
        self.frame = frame.iter().map(|&n| n.into()).collect();
        self
    }
    /// Sets the gains.
    #[must_use]
    pub fn gains(mut self, gains: DriveGains<R>) -> Self {
        self.gains = gains;
        self
    }
}

/// Settings of a whole drive.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct PoseDriveDef<R> {
    /// How 3D errors are split into rows. Default per axis.
    pub axes: DriveAxes,
    /// Inertia ratio limit `ρ` of the stabilisation (0 = off, the default; else ≥ 1).
    pub inertia_ratio: R,
    /// Hit reactions.
    pub reaction: HitReactionDef<R>,
    /// Largest fraction `κ ∈ (0, 1]` of a row's error corrected in one iteration
    /// (1 = no cap). Default ½. See the module docs, "High gains".
    pub max_correction: R,
    /// Solve the drive on every `k`-th substep only (`k ≥ 1`; default 1, every substep;
    /// `k` ≥ the world's substeps, e.g. `u32::MAX`: once per step), each solve carrying
    /// the impulse of the substeps it stands for: about `1/k` of the drive's cost, for a
    /// slower response to what happens between solves. See the [drive's module
    /// docs](super::drive), "Drive rate".
    pub substep_interval: u32,
    /// Largest angular speed (rad/s) a solve standing for several substeps
    /// (`substep_interval` > 1) may give a part or its parent: its turn is at most this
    /// times the substep. `None` (the default): no limit. See the [drive's module
    /// docs](super::drive), "Drive rate".
    pub max_kick_speed: Option<R>,
}

impl<R: Real> Default for PoseDriveDef<R> {
    fn default() -> Self {
        Self {
            axes: DriveAxes::PerAxis,
            inertia_ratio: R::ZERO,
            reaction: HitReactionDef::default(),
            max_correction: R::HALF,
            substep_interval: 1,
            max_kick_speed: None,
        }
    }
}

impl<R: Real> PoseDriveDef<R> {
    /// Sets the axes.
    #[must_use]
    pub fn axes(mut self, axes: DriveAxes) -> Self {
        self.axes = axes;
        self
    }
    /// Sets the inertia ratio limit (0 = off).
    #[must_use]
    pub fn inertia_ratio(mut self, rho: R) -> Self {
        self.inertia_ratio = rho;
        self
    }
    /// Sets the correction cap `κ ∈ (0, 1]` (1 = none).
    #[must_use]
    pub fn max_correction(mut self, kappa: R) -> Self {
        self.max_correction = kappa;
        self
    }
    /// Sets the drive's substep interval `k ≥ 1` (1 = every substep).
    #[must_use]
    pub fn substep_interval(mut self, k: u32) -> Self {
        self.substep_interval = k;
        self
    }
    /// Sets the kicks' speed limit (rad/s; `None`: none).
    #[must_use]
    pub fn max_kick_speed(mut self, w: Option<R>) -> Self {
        self.max_kick_speed = w;
        self
    }
    /// Sets the hit reactions.
    #[must_use]
    pub fn reaction(mut self, reaction: HitReactionDef<R>) -> Self {
        self.reaction = reaction;
        self
    }
}

pub(super) fn bad(what: &'static str, reason: &'static str) -> SinewError {
    SinewError::InvalidParameter { what, reason, value: None }
}

pub(super) fn check_unit<R: Real>(what: &'static str, v: R) -> Result<(), SinewError> {
    if !v.is_finite() {
        return Err(SinewError::NonFinite { what });
    }
    if v < R::ZERO || v > R::ONE {
        return Err(SinewError::InvalidParameter { what, reason: "must be in [0, 1]", value: Some(v.to_f64()) });
    }
    Ok(())
}

pub(super) fn check_gain<R: Real>(what: &'static str, v: R) -> Result<(), SinewError> {
    if !v.is_finite() {
        return Err(SinewError::NonFinite { what });
    }
    if v < R::ZERO {
        return Err(SinewError::InvalidParameter { what, reason: "must be ≥ 0", value: Some(v.to_f64()) });
    }
    Ok(())
}
