//! Pose drives: spring-dampers that turn the parts of a particle ragdoll toward an animated
//! pose, in 2D and 3D, stable at any gain, deterministic in fixed point.
//!
//! # The spring (seed 001)
//!
//! A struck head turns with the blow and springs back to the animated orientation through
//! a torsional spring-damper per axis,
//!
//! ```text
//! T = q·r·a₁ + p·w·a₂
//! ```
//!
//! with `q` the stiffness (N·m/rad), `r` the angle from the part to its goal, `p` the
//! damping (N·m·s/rad) and `w` the angular-velocity error to the goal's. On a part of
//! moment of inertia `I` about its pivot that is `I·θ̈ = −q·θ − p·θ̇`: natural frequency
//! `ω₀ = √(q/I)`, damping ratio `ζ = p / (2√(qI))`, overshoot of a step
//! `exp(−ζπ/√(1−ζ²))`, period `2π/(ω₀√(1−ζ²))`. Gains are given in those physical units
//! or as a frequency and a damping ratio ([`DriveGains::Frequency`], default 2 Hz and
//! `ζ = 1` like Jolt's motors), turned into `q = I ω₀²`, `p = 2ζ I ω₀` with the part's
//! inertia at build time (2D and 3D bones: `Σ mᵢ|rᵢ|²` about its centre; 3D triangle
//! parts: `⅔ Σ mᵢ|rᵢ|²`, the mean of the three axial moments).
//!
//! # The implicit form (XPBD)
//!
//! An explicit torque blows up once `q·h²/I` passes about 2. The drive is instead an XPBD
//! angular constraint per axis `a` (Macklin et al. 2016): `C = θ − θ_goal` along `a`
//! (`θ_goal − θ = r·a`), compliance `α = 1/q`, damping `p` (XPBD's `γ = α·p/h`), and the
//! correction of one iteration, multiplied through by `q·h²` so that `q = 0` (a pure
//! damper) and `q → ∞` are both finite:
//!
//! ```text
//!        −q h² C − λ − p h ΔC                 ΔC = (Δθ_part − Δθ_parent − ω_goal h)·a
//! Δλ = ───────────────────────────,           w  = 1/I_part(a) + 1/I_parent(a)
//!        (q h² + p h)·w + 1
//! ```
//!
//! (`Δθ` the rotation of a part over the substep, measured from the particles'
//! positions at its start; `λ` the accumulated angular impulse × `h`, reset every
//! substep; `w = aᵀI⁻¹a` per part, as for a rigid body in Müller et al. 2020). The part
//! then turns by the rotation vector `I_part⁻¹a·Δλ` and the parent by `−I_parent⁻¹a·Δλ`:
//! equal and opposite angular impulses `±a·Δλ`, so a drive between two parts is internal
//! and keeps the angular momentum as well. `I = Σ mᵢ(|rᵢ|²1 − rᵢrᵢᵀ)` (2D: `Σ mᵢ|rᵢ|²`)
//! over the part's free particles about its **centre**, which is its
//! centre of mass — a rotation about it moves no mass on average, so **linear momentum
//! is unchanged** — or, when one of its particles is pinned (infinite mass), that
//! particle (a head on a fixed neck turns about the neck, and `I` is then the moment
//! about the pivot). A part with two or more pinned particles is immovable (`1/I = 0`).
//! The particles are turned *exactly* (by the rotation `exp(Δθ·a)`), not along the
//! tangent, so no corrections stretch the part. As `q → ∞` the step tends to
//! `Δλ = −C/w`, a projection onto the goal: stable at any gain.
//!
//! # High gains
//!
//! A part shares particles with its parent (a neck, an elbow hinge), so turning it
//! about its centre moves the joint and the bones must pull it back. A drive that
//! projects its whole error each iteration (`q → ∞`) and the bones' one Gauss–Seidel pass
//! then undo each other every substep: measured on `humanoid3d` at 10⁶ N·m/rad and
//! 8 substeps without the tree solve, bones chattered at 5–8 % strain and 12–23 m/s,
//! bounded but never at rest. So the correction per iteration is capped at a fraction
//! `κ` of the error ([`PoseDriveDef::max_correction`], default ½): where
//! `(q h² + p h)·w > κ/(1 − κ)` both gains are scaled down to that bound, which leaves an
//! ordinary drive untouched (a 2 Hz head: `q h² w ≈ 10⁻⁴`) and makes a stiff one halve
//! its error every iteration — at 8 substeps 1/256 of it left per frame. With ½ the same
//! body settles (strain 10⁻⁸, every particle at the body's own drift speed).
//!
//! With one iteration per substep this is implicit Euler on the spring, whose own damping
//! is `ζ_num ≈ ω₀h/2`; it vanishes with small substeps (the head-spring test uses 64
//! substeps at 60 Hz and 1 Hz: `ζ_num ≈ 4·10⁻⁴`).
//!
//! # Parts, parents, axes
//!
//! A part ([`DrivePartDef`]) is a set of rig nodes that move together (a head and its
//! neck, a pelvis triangle, a forearm) with two or three **frame nodes** that orient it
//! ([`frame`](super::frame)). A part with a parent is driven **relative** to the parent's
//! orientation (the goal is `q_parent · q_target`) and pushes back on it; a part without
//! one is driven relative to the **world** (a root that keeps a character upright: an
//! external torque). In 3D the error is split into rows by [`DriveAxes`]: the seed's
//! per-axis form on the parent's axes, or swing–twist; a 3D bone (two frame nodes) gets
//! two swing rows. A part's rows are computed once per iteration and their turns added
//! into one rotation. In 3D a parent must have a full (triangle) frame.
//!
//! # Strength and the whole-body pose
//!
//! Each part has a strength `s ∈ [0, 1]` (0 = limp, 1 = fully driven) multiplying `q` and
//! `p`; the [hit reaction](super::reaction) multiplies all of them by a global strength.
//! [`PoseDrive::set_targets_from_pose`] drives the whole body to an animated [`Pose`]
//! (each part's goal is its orientation relative to its parent in that pose) and
//! [`PoseDrive::set_weights`] sets per-part strengths (blending animation and physics).
//! Strength 0 skips the part entirely, so a drive at strength 0 is the passive ragdoll
//! bit for bit.
//!
//! # Stabilisation (after Jolt's `Ragdoll::Stabilize`)
//!
//! Jolt raises the masses and inertias of light parts so that no child is much lighter
//! than its parent, because a solver that turns a tiny part against a heavy one converges
//! slowly. Here the masses are the world's and are not changed; instead, with
//! [`PoseDriveDef::inertia_ratio`] `ρ > 0` the drive *sees* each inertia as at least
//! `1/ρ` of the other's, `I' = max(I, I_other/ρ)`, when it shares a correction between a
//! part and its parent. The light part then takes a smaller share of each correction
//! (slower, softer response, no chatter against a heavy parent); the two turns stay equal
//! and opposite angular impulses in `I'`, not in `I` (off by default).
//!
//! # Drive rate
//!
//! [`PoseDriveDef::substep_interval`] `k` cuts the step's substeps into runs of `k` (the
//! last run may be shorter) and solves the drive once per run, on its middle substep
//! (`⌊(m − 1)/2⌋` into a run of `m`: the first of the two middle ones when `m` is even, so
//! that the step's last kick is followed by a substep in which contacts can answer it),
//! standing for the whole run: the spring and damper terms
//! `q h²`, `p h` become `m q h²`, `m p h` — an angular impulse `T·m h` once instead of
//! `T·h` on each of `m` substeps (`ΔC`, the rate, is still measured over the one
//! substep). Over a step the impulse is that of a drive solved on every substep, delivered
//! as kicks at `1/(m h)`, in the middle of the runs (the drift–kick–drift order of a
//! leapfrog splitting of a slow force from fast ones). The implicit form keeps every kick
//! finite at any gain, but its damper is implicit Euler at the kick interval, which damps
//! less than the oscillator as `ζ ω₀ m h` grows: on a 1 Hz head at 16 substeps and 240 Hz
//! the step response stays within 2 % of the oscillator's for `k = 4` (test
//! `a_drive_solved_on_fewer_substeps_keeps_the_damped_oscillator`), while at `k = 16`
//! (once per step) the `ζ = 0.7` overshoot is 4.8 % high. `k = 1` is the drive solved on
//! every substep, bit for bit; `k` at least the world's substeps solves it once per step.
//! A drive stiff enough to meet the correction cap ("High gains") would correct only `κ`
//! of its error per run instead of `1 − (1 − κ)^m` over the `m` substeps, so the cap is
//! carried over the run: a solve standing for `m` substeps may correct that fraction.
//! Such a kick turns a stiff part by up to `1 − (1 − κ)^m` of its error at once, and the
//! substeps after it carry that turn on as velocity (a limb at tens of m/s into whatever
//! it meets); [`PoseDriveDef::max_kick_speed`] `ω_max` bounds it: a solve standing for
//! more than one substep scales its `Δλ` down so that neither the part's nor the parent's
//! turn exceeds `ω_max·h`.
//! The fighters (`sinew::fight`) solve theirs twice a step (`k` the substeps over 2,
//! rounded up) with `ω_max` = 20 rad/s (`FIGHTER_DRIVE_SOLVES` says what other rates did
//! to them).
//!
//! # One solve
//!
//! A solve visits the parts in order (Gauss–Seidel); each part's orientations, centre and
//! inertia are measured from its particles, and what one solve can reuse (a parent's
//! orientation carried through the turns its children gave it, its inertia from its own
//! solve) is measured once per solve, not once per child (`drive_solve.rs`).
//!
//! # Rollback
//!
//! A drive is a [`Controller`]: it lives in the world's state, so snapshots save it and
//! the state hash covers every field (targets, gains, strengths, multipliers, the
//! reaction's phase and frame, the hits not yet taken).

use crate::SinewError;
use crate::controller::{Controller, ControllerHandle, StepContext, SubstepSolver};
use crate::math::{Real, Rotation, Vector};
use crate::particle::{ParticleHandle, ParticleSet};
use crate::space::{RealOf, RotOf, VecOf};
use crate::state::{SavedState, StateHasher, saved_state};
use crate::world::World;

pub use super::drive_def::{DriveGains, DrivePartDef, PoseDriveDef};

use super::drive_def::{bad, check_gain, check_unit};
use super::drive_math::centre;
use super::frame::{DriveAxes, DriveSpace};
use super::pose::Pose;
use super::reaction::{DrivePhase, HitRecord, Reaction};
use super::rig::{NodeRef, RigDef};

#[path = "drive_solve.rs"]
mod solve;

/// A driven part in the world.
#[derive(Clone, Debug, PartialEq)]
struct Part<S: DriveSpace> {
    nodes: Vec<ParticleHandle>,
    /// Frame particles (world handles) and their rig node indices.
    frame: Vec<ParticleHandle>,
    frame_rig: Vec<u32>,
    /// Inverse of the frame at build time.
    rest_inv: RotOf<S>,
    /// Unit direction from the first frame node to the second at build time.
    rest_dir: VecOf<S>,
    full: bool,
    parent: Option<u32>,
    stiffness: RealOf<S>,
    damping: RealOf<S>,
    strength: RealOf<S>,
    twist_scale: RealOf<S>,
    target: RotOf<S>,
    target_velocity: S::Angular,
    /// Get-up blend start (relative to the parent).
    from: RotOf<S>,
    lambda: [RealOf<S>; 3],
    alive: bool,
    /// The other parts (bit `k`: part `k`, for the first [`solve::CACHED`]) whose frame
    /// holds one of this part's nodes: what a turn of this part moves non-rigidly (the
    /// solve's caches, `drive_solve.rs`). Derived from the rig at build.
    moves_frames: u32,
}

saved_state!(impl[S: DriveSpace] Part<S> {
    nodes, frame, frame_rig, rest_inv, rest_dir, full, parent, stiffness, damping, strength, twist_scale,
    target, target_velocity, from, lambda, alive, moves_frames,
});

/// A pose drive with hit reactions (see the module docs): a [`Controller`] over the
/// particles of a spawned ragdoll. [`PoseDrive::add`] builds one and adds it to a world.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseDrive<S: DriveSpace> {
    names: Vec<String>,
    parts: Vec<Part<S>>,
    axes: DriveAxes,
    inertia_ratio: RealOf<S>,
    max_correction: RealOf<S>,
    /// Solved on every `substep_interval`-th substep ([`PoseDriveDef::substep_interval`]).
    substep_interval: u32,
    /// [`PoseDriveDef::max_kick_speed`].
    max_kick_speed: Option<RealOf<S>>,
    reaction: Reaction<RealOf<S>>,
    hits: Vec<HitRecord<RealOf<S>, VecOf<S>>>,
}

saved_state!(impl[S: DriveSpace] PoseDrive<S> {
    names, parts, axes, inertia_ratio, max_correction, substep_interval, max_kick_speed, reaction, hits,
});

/// A pose drive in a world.
pub type PoseDriveHandle<S> = ControllerHandle<PoseDrive<S>>;

impl<S: DriveSpace> PoseDrive<S> {
    /// Builds a drive over a ragdoll spawned from `rig` (`nodes`: its particles in rig
    /// order, e.g. [`Ragdoll::nodes`](super::Ragdoll::nodes)) and adds it to the world.
    /// Orientations are measured from the current positions: the drive holds the current
    /// pose until targets are set. On error nothing is added.
    pub fn add(
        world: &mut World<S>,
        rig: &RigDef<S>,
        nodes: &[ParticleHandle],
        parts: &[DrivePartDef<RealOf<S>>],
        def: &PoseDriveDef<RealOf<S>>,
    ) -> Result<PoseDriveHandle<S>, SinewError> {
        let d = Self::new(world.particles(), rig, nodes, parts, def)?;
        Ok(world.add_controller(d))
    }

    /// Builds a drive without adding it (see [`PoseDrive::add`]).
    pub fn new(
        ps: &ParticleSet<S>,
        rig: &RigDef<S>,
        nodes: &[ParticleHandle],
        parts: &[DrivePartDef<RealOf<S>>],
        def: &PoseDriveDef<RealOf<S>>,
    ) -> Result<Self, SinewError> {
        def.reaction.validate()?;
        check_gain("inertia_ratio", def.inertia_ratio)?;
        if def.inertia_ratio > RealOf::<S>::ZERO && def.inertia_ratio < RealOf::<S>::ONE {
            return Err(bad("inertia_ratio", "must be 0 (off) or ≥ 1"));
        }
        check_unit("max_correction", def.max_correction)?;
        if def.max_correction == RealOf::<S>::ZERO {
            return Err(bad("max_correction", "must be in (0, 1]"));
        }
        if def.substep_interval == 0 {
            return Err(bad("substep_interval", "must be ≥ 1"));
        }
        if let Some(w) = def.max_kick_speed {
            check_gain("max_kick_speed", w)?;
            if w == RealOf::<S>::ZERO {
                return Err(bad("max_kick_speed", "must be > 0 (None: no limit)"));
            }
        }
        if nodes.len() != rig.node_count() {
            return Err(bad("drive nodes", "one particle per rig node is needed"));
        }
        if nodes.iter().any(|&h| !ps.contains(h)) {
            return Err(SinewError::InvalidHandle { what: "drive node", handle: None });
        }
        let resolve = |r: &NodeRef| -> Result<usize, SinewError> {
            let i = match r {
                NodeRef::Name(n) => rig.node_index(n).ok_or(bad("drive part node", "no rig node has that name"))?,
                NodeRef::Index(i) => *i,
            };
            if i < nodes.len() { Ok(i) } else { Err(bad("drive part node", "index out of range")) }
        };
        let mut names: Vec<String> = Vec::with_capacity(parts.len());
        let mut out = Vec::with_capacity(parts.len());
        for p in parts {
            if p.name.is_empty() || names.contains(&p.name) {
                return Err(bad("drive part name", "must be non-empty and unique"));
            }
            names.push(p.name.clone());
        }
        for p in parts {
            check_unit("drive part strength", p.strength)?;
            check_gain("drive twist_scale", p.twist_scale)?;
            let idx: Vec<usize> = p.nodes.iter().map(resolve).collect::<Result<_, _>>()?;
            if idx.len() < 2 {
                return Err(bad("drive part", "needs at least two nodes"));
            }
            let mut fr: Vec<usize> = p.frame.iter().map(resolve).collect::<Result<_, _>>()?;
            if fr.is_empty() {
                fr = idx.iter().copied().take(S::FULL_FRAME).collect();
            }
            if fr.len() < 2 || fr.len() > S::FULL_FRAME || fr.iter().any(|i| !idx.contains(i)) {
                return Err(bad("drive part frame", "2 (2D) or 2–3 (3D) of the part's own nodes"));
            }
            let full = fr.len() == S::FULL_FRAME;
            let parent = match &p.parent {
                None => None,
                Some(n) => {
                    let j =
                        names.iter().position(|m| m == n).ok_or(bad("drive part parent", "no part has that name"))?;
                    if *n == p.name {
                        return Err(bad("drive part parent", "a part cannot be its own parent"));
                    }
                    let pf = parts[j].frame.len().max(parts[j].nodes.len().min(S::FULL_FRAME));
                    if pf < S::FULL_FRAME {
                        return Err(bad("drive part parent", "a parent needs a full frame (three nodes in 3D)"));
                    }
                    Some(j as u32)
                }
            };
            let handles: Vec<ParticleHandle> = idx.iter().map(|&i| nodes[i]).collect();
            let frame: Vec<ParticleHandle> = fr.iter().map(|&i| nodes[i]).collect();
            let fp: Vec<VecOf<S>> = frame.iter().map(|h| ps.pos[h.index()]).collect();
            let f = S::frame(&fp).ok_or(bad("drive part frame", "its nodes are coincident or collinear"))?;
            let c = centre(ps, &handles).unwrap_or(fp[0]);
            let mut r2 = RealOf::<S>::ZERO;
            for &h in &handles {
                if ps.inv_mass[h.index()] != RealOf::<S>::ZERO {
                    r2 += ps.mass[h.index()] * (ps.pos[h.index()] - c).length_squared();
                }
            }
            let i_ref = if full && S::FULL_FRAME == 3 { r2 * RealOf::<S>::from_ratio(2, 3) } else { r2 };
            let (stiffness, damping) = match p.gains {
                DriveGains::Physical { stiffness, damping } => {
                    check_gain("drive stiffness", stiffness)?;
                    check_gain("drive damping", damping)?;
                    (stiffness, damping)
                }
                DriveGains::Frequency { frequency, damping_ratio } => {
                    check_gain("drive frequency", frequency)?;
                    check_gain("drive damping ratio", damping_ratio)?;
                    let w = RealOf::<S>::TWO * RealOf::<S>::PI * frequency;
                    (i_ref * w * w, RealOf::<S>::TWO * damping_ratio * i_ref * w)
                }
            };
            out.push(Part {
                nodes: handles,
                frame,
                frame_rig: fr.iter().map(|&i| i as u32).collect(),
                rest_inv: S::inverse(f),
                rest_dir: (fp[1] - fp[0]).normalize_or_zero(),
                full,
                parent,
                stiffness,
                damping,
                strength: p.strength,
                twist_scale: p.twist_scale,
                target: RotOf::<S>::IDENTITY,
                target_velocity: S::angular_zero(),
                from: RotOf::<S>::IDENTITY,
                lambda: [RealOf::<S>::ZERO; 3],
                alive: true,
                moves_frames: 0,
            });
        }
        for i in 0..out.len() {
            let mut mask = 0u32;
            for (k, other) in out.iter().enumerate().take(solve::CACHED) {
                if k != i && other.frame.iter().any(|h| out[i].nodes.contains(h)) {
                    mask |= 1 << k;
                }
            }
            out[i].moves_frames = mask;
        }
        // Parents must not form a cycle.
        for start in 0..out.len() {
            let (mut k, mut n) = (out[start].parent, 0);
            while let Some(j) = k {
                n += 1;
                if n > out.len() {
                    return Err(bad("drive part parent", "parents form a cycle"));
                }
                k = out[j as usize].parent;
            }
        }
        Ok(Self {
            names,
            parts: out,
            axes: def.axes,
            inertia_ratio: def.inertia_ratio,
            max_correction: def.max_correction,
            substep_interval: def.substep_interval,
            max_kick_speed: def.max_kick_speed,
            reaction: Reaction::new(def.reaction),
            hits: Vec::new(),
        })
    }

    fn part(&self, i: usize) -> Result<&Part<S>, SinewError> {
        self.parts.get(i).ok_or(bad("drive part", "index out of range"))
    }

    fn part_mut(&mut self, i: usize) -> Result<&mut Part<S>, SinewError> {
        self.parts.get_mut(i).ok_or(bad("drive part", "index out of range"))
    }

    /// `κ/(1 − κ)` for [`PoseDriveDef::max_correction`] `κ < 1`, else `None`.
    fn correction_cap(&self) -> Option<RealOf<S>> {
        let one = RealOf::<S>::ONE;
        (self.max_correction < one).then(|| self.max_correction / (one - self.max_correction))
    }

    /// Number of parts.
    #[must_use]
    pub fn part_count(&self) -> usize {
        self.parts.len()
    }

    /// Index of the part called `name`.
    #[must_use]
    pub fn part_index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Name of part `i`.
    #[must_use]
    pub fn part_name(&self, i: usize) -> Option<&str> {
        self.names.get(i).map(String::as_str)
    }

    /// The particles of part `i`.
    pub fn part_nodes(&self, i: usize) -> Result<&[ParticleHandle], SinewError> {
        Ok(&self.part(i)?.nodes)
    }

    /// Stiffness (N·m/rad) and damping (N·m·s/rad) of part `i` at full strength.
    pub fn gains(&self, i: usize) -> Result<(RealOf<S>, RealOf<S>), SinewError> {
        let p = self.part(i)?;
        Ok((p.stiffness, p.damping))
    }

    /// Sets part `i`'s gains in physical units (both ≥ 0, finite).
    pub fn set_gains(&mut self, i: usize, stiffness: RealOf<S>, damping: RealOf<S>) -> Result<(), SinewError> {
        check_gain("drive stiffness", stiffness)?;
        check_gain("drive damping", damping)?;
        let p = self.part_mut(i)?;
        (p.stiffness, p.damping) = (stiffness, damping);
        Ok(())
    }

    /// Sets part `i`'s strength (`[0, 1]`; 0 = limp).
    pub fn set_strength(&mut self, i: usize, s: RealOf<S>) -> Result<(), SinewError> {
        check_unit("drive part strength", s)?;
        self.part_mut(i)?.strength = s;
        Ok(())
    }

    /// Strength of part `i` (its own, not the reaction's).
    pub fn strength(&self, i: usize) -> Result<RealOf<S>, SinewError> {
        Ok(self.part(i)?.strength)
    }

    /// Sets every part's strength from per-part weights (one per part, each in `[0, 1]`).
    pub fn set_weights(&mut self, weights: &[RealOf<S>]) -> Result<(), SinewError> {
        if weights.len() != self.parts.len() {
            return Err(bad("drive weights", "one weight per part is needed"));
        }
        for &w in weights {
            check_unit("drive weight", w)?;
        }
        for (p, &w) in self.parts.iter_mut().zip(weights) {
            p.strength = w;
        }
        Ok(())
    }

    /// Sets part `i`'s target: its orientation relative to its parent (to the world for a
    /// root), measured from the pose the drive was built in.
    pub fn set_target(&mut self, i: usize, q: RotOf<S>) -> Result<(), SinewError> {
        if q.components().iter().any(|c| !c.is_finite()) {
            return Err(SinewError::NonFinite { what: "drive target" });
        }
        let q = q.renormalize();
        self.part_mut(i)?.target = q;
        Ok(())
    }

    /// Part `i`'s target (relative to its parent).
    pub fn target(&self, i: usize) -> Result<RotOf<S>, SinewError> {
        Ok(self.part(i)?.target)
    }

    /// Sets part `i`'s target angular velocity (rad/s, relative to its parent, in the
    /// parent's frame).
    pub fn set_target_velocity(&mut self, i: usize, w: S::Angular) -> Result<(), SinewError> {
        if !S::angular_is_finite(w) {
            return Err(SinewError::NonFinite { what: "drive target velocity" });
        }
        self.part_mut(i)?.target_velocity = w;
        Ok(())
    }

    /// Drives the whole body to an animated pose: every part's target becomes its
    /// orientation relative to its parent in `pose` (node positions in rig order).
    pub fn set_targets_from_pose(&mut self, pose: &Pose<S>) -> Result<(), SinewError> {
        let abs = self.orientations_in(pose)?;
        for (i, p) in self.parts.iter_mut().enumerate() {
            let parent = p.parent.map_or(RotOf::<S>::IDENTITY, |j| abs[j as usize]);
            p.target = S::inverse(parent).compose(abs[i]).renormalize();
        }
        Ok(())
    }

    /// The orientation (relative to rest) of every part in `pose`.
    fn orientations_in(&self, pose: &Pose<S>) -> Result<Vec<RotOf<S>>, SinewError> {
        let mut abs = Vec::with_capacity(self.parts.len());
        for p in &self.parts {
            let mut fp = [VecOf::<S>::ZERO; 3];
            for (k, &i) in p.frame_rig.iter().enumerate() {
                fp[k] = *pose.positions.get(i as usize).ok_or(bad("pose", "has fewer nodes than the rig"))?;
                if !fp[k].is_finite() {
                    return Err(SinewError::NonFinite { what: "pose" });
                }
            }
            let f = S::frame(&fp[..p.frame.len()]).ok_or(bad("pose", "a part's frame nodes are degenerate"))?;
            abs.push(f.compose(p.rest_inv));
        }
        Ok(abs)
    }

    /// Part `i`'s orientation relative to its rest (build-time) orientation, from
    /// positions `pos` (the world's, or `prev` for the start of a substep).
    fn orientation_from(&self, pos: &[VecOf<S>], i: usize) -> Option<RotOf<S>> {
        let p = &self.parts[i];
        let mut fp = [VecOf::<S>::ZERO; 3];
        for (k, h) in p.frame.iter().enumerate() {
            fp[k] = *pos.get(h.index())?;
        }
        S::frame(&fp[..p.frame.len()]).map(|f| f.compose(p.rest_inv))
    }

    /// Part `i`'s orientation in the world, relative to its rest orientation.
    pub fn orientation(&self, ps: &ParticleSet<S>, i: usize) -> Result<RotOf<S>, SinewError> {
        self.part(i)?;
        self.orientation_from(ps.positions(), i).ok_or(bad("drive part frame", "degenerate"))
    }

    /// Part `i`'s orientation relative to its parent's (to the world for a root).
    pub fn relative_orientation(&self, ps: &ParticleSet<S>, i: usize) -> Result<RotOf<S>, SinewError> {
        let q = self.orientation(ps, i)?;
        Ok(match self.parts[i].parent {
            Some(j) => S::inverse(self.orientation(ps, j as usize)?).compose(q),
            None => q,
        })
    }

    /// The angle (rad) from part `i`'s relative orientation to its target (for a 3D bone,
    /// between its direction and the target's).
    pub fn error_angle(&self, ps: &ParticleSet<S>, i: usize) -> Result<RealOf<S>, SinewError> {
        let q = self.relative_orientation(ps, i)?;
        let p = &self.parts[i];
        let (rows, n) = S::rows(q, p.target, RotOf::<S>::IDENTITY, p.rest_dir, p.full, self.axes, RealOf::<S>::ONE);
        let mut e2 = RealOf::<S>::ZERO;
        for r in &rows[..n] {
            e2 += r.error * r.error;
        }
        Ok(e2.sqrt())
    }

    /// Part `i`'s angular velocity (rad/s) from its particles' velocities about its
    /// centre of mass (see [`frame`](super::frame)).
    pub fn angular_velocity(&self, ps: &ParticleSet<S>, i: usize) -> Result<S::Angular, SinewError> {
        let p = self.part(i)?;
        let (mut m, mut mx, mut mv) = (RealOf::<S>::ZERO, VecOf::<S>::ZERO, VecOf::<S>::ZERO);
        for &h in &p.nodes {
            let k = h.index();
            m += ps.mass[k];
            mx += ps.pos[k] * ps.mass[k];
            mv += ps.vel[k] * ps.mass[k];
        }
        if m <= RealOf::<S>::ZERO {
            return Ok(S::angular_zero());
        }
        let (c, v0) = (mx / m, mv / m);
        let r: Vec<VecOf<S>> = p.nodes.iter().map(|h| ps.pos[h.index()] - c).collect();
        let v: Vec<VecOf<S>> = p.nodes.iter().map(|h| ps.vel[h.index()] - v0).collect();
        let ms: Vec<RealOf<S>> = p.nodes.iter().map(|h| ps.mass[h.index()]).collect();
        Ok(S::angular_velocity(&r, &v, &ms))
    }

    /// The reaction's phase.
    #[must_use]
    pub fn phase(&self) -> DrivePhase {
        self.reaction.phase
    }

    /// The reaction's global strength now (multiplies every part's).
    #[must_use]
    pub fn global_strength(&self) -> RealOf<S> {
        self.reaction.strength()
    }

    /// Frames spent in the current phase.
    #[must_use]
    pub fn phase_frame(&self) -> u32 {
        self.reaction.frame
    }

    /// Hits recorded since the last call (for output), oldest first.
    pub fn take_hits(&mut self) -> Vec<HitRecord<RealOf<S>, VecOf<S>>> {
        core::mem::take(&mut self.hits)
    }

    /// Hits recorded and not yet taken.
    #[must_use]
    pub fn hits(&self) -> &[HitRecord<RealOf<S>, VecOf<S>>] {
        &self.hits
    }

    /// Captures every part's relative orientation as the get-up blend's start.
    fn capture_from(&mut self, ps: &ParticleSet<S>) {
        for i in 0..self.parts.len() {
            let q = self.relative_orientation(ps, i).unwrap_or(self.parts[i].target);
            self.parts[i].from = q;
        }
    }
}

impl<S: DriveSpace> Controller<S> for PoseDrive<S> {
    fn solve(&mut self, s: &mut SubstepSolver<'_, S>) {
        self.solve_all(s);
    }

    /// One frame of the reaction's schedule; a get-up that starts captures the pose.
    fn end_step(&mut self, step: &mut StepContext<'_, S>) {
        if self.reaction.advance() {
            self.capture_from(step.particles);
        }
    }

    /// A part that loses a particle stops acting (its children, driven relative to it,
    /// too).
    fn particle_removed(&mut self, h: ParticleHandle) {
        for p in &mut self.parts {
            if p.nodes.contains(&h) || p.frame.contains(&h) {
                p.alive = false;
            }
        }
    }

    fn links(&self, out: &mut Vec<[usize; 2]>) {
        for p in self.parts.iter().filter(|p| p.alive) {
            for w in p.frame.windows(2) {
                out.push([w[0].index(), w[1].index()]);
            }
        }
    }

    fn hash_state(&self, h: &mut StateHasher) {
        SavedState::hash_state(self, h);
    }

    fn heap_bytes(&self) -> usize {
        SavedState::heap_bytes(self)
    }
}

impl<S: DriveSpace> PoseDriveHandle<S> {
    /// A hit: impulse `impulse` (N·s) at world point `point` on part `part`, split over
    /// the part's pair of nodes whose segment passes nearest the point (the momentum
    /// changes by exactly `impulse`; the part turns with the blow). The reaction reacts
    /// to `|impulse|` ([`reaction`](super::reaction)) and the hit is recorded
    /// ([`PoseDrive::take_hits`]).
    pub fn hit(
        self,
        world: &mut World<S>,
        part: usize,
        point: VecOf<S>,
        impulse: VecOf<S>,
    ) -> Result<HitRecord<RealOf<S>, VecOf<S>>, SinewError> {
        let d = world.controller(self)?;
        let p = d.part(part)?;
        if !p.alive {
            return Err(bad("drive part", "lost a particle"));
        }
        let nodes = p.nodes.clone();
        let mut segs = Vec::new();
        for a in 0..nodes.len() {
            for b in a + 1..nodes.len() {
                segs.push((a as u32, b as u32));
            }
        }
        super::apply_impulse_at(world, &nodes, &segs, point, impulse)?;
        let j = impulse.length();
        let d = world.controller_mut(self)?;
        let (heavy, knocked_out) = d.reaction.on_hit(j);
        let rec = HitRecord { part, point, impulse, magnitude: j, heavy, knocked_out };
        d.hits.push(rec);
        Ok(rec)
    }

    /// Knocks the character out now (strength 0: the passive ragdoll).
    pub fn knock_out(self, world: &mut World<S>) -> Result<(), SinewError> {
        world.controller_mut(self)?.reaction.knock_out();
        Ok(())
    }

    /// Starts the get-up now: each part's goal blends from its current orientation to
    /// its target while the strength ramps up.
    pub fn get_up(self, world: &mut World<S>) -> Result<(), SinewError> {
        let (d, ps) = world.controller_and_particles_mut(self)?;
        d.reaction.start_get_up();
        d.capture_from(ps);
        Ok(())
    }

    /// Removes the drive from the world (the ragdoll stays, passive).
    pub fn remove(self, world: &mut World<S>) -> Result<PoseDrive<S>, SinewError> {
        world.remove_controller(self)
    }
}
