//! Fighters: driven ragdolls that play moves, aim strikes at each other, block, take
//! hits, get knocked out and get up.
//!
//! # Structure
//!
//! [`Bout::add`] spawns each fighter's rig (turned to face its opponent,
//! [`FightSpace::face_rig`]), a [`PoseDrive`] over it, and a soft **hold** on its pelvis
//! (an attachment to the standing point, compliance 2·10⁻⁵ m/N: the balance a game's
//! animation gives a character, as PuppetMaster pins its puppet). The fighters' state — the
//! move playing and its frame, the aim, the strike's phase, damage, the generator — lives in
//! the [`Bout`], a [`Controller`] with no physics of its own: it is in the world's state, so
//! snapshots, restore and the state hash cover it. [`BoutHandle::step`] runs one frame:
//!
//! 1. **state machine** per fighter, from its drive's reaction phase: `Driven` →
//!    [`FighterState::Fighting`], `Recovering` (after a heavy hit) → `Hit`,
//!    `KnockedOut` → `KnockedOut` (hold removed: the passive ragdoll falls), `GettingUp`
//!    → `GettingUp` (the hold comes back at the pelvis and walks to the standing point);
//! 2. **moves**: when a move ends the next comes from the fighter's script (cycled) or is
//!    drawn by its [`FightRng`]; each part's target is the move's sagittal angle at the
//!    move's time ([`moves`](super::moves)); the hold's target moves forward by the lunge;
//! 3. **strikes**: in the strike window (while `Driven`, or `Recovering` once the hit
//!    reaction has played: a staggered fighter still hits back), once the aim (drawn at
//!    the move's start, [`strike`](super::strike)) is within the limb's reach, the
//!    effector is driven by two-bone IK as a kinematic target at the strike's speed, its
//!    follow-through ending at the limb's full length (further, the kinematic effector
//!    would drag the body after it). When the bodies collide ([`BoutDef::collide`]) the
//!    target stops 5 mm into the first bone of the opponent the effector's sphere meets on
//!    its way, and the step is shortened so that no bone of the striking limb — upper arm
//!    and elbow included, which the effector drags along — is predicted more than 5 mm into
//!    the opponent; once every fighter has aimed, each strike is checked again against the
//!    others' targets (`fight/stop.rs`). The bout drives only an effector that nobody else
//!    holds, and releases only the one it pinned: a fist pinned or grabbed by the game
//!    skips its strikes, and one grabbed during a strike is handed over (the bout frees it
//!    on the first frame its holder no longer drives it);
//! 4. the world steps;
//! 5. **hits**: each striking effector's sphere is swept along its motion of the frame
//!    against the opponent's forearms (a guard in the way blocks), head and torso
//!    capsules, and, when the bodies collide, every bone of the opponent (the strike
//!    stopped at the first one; a touch on an arm is a block); the first touch is a hit:
//!    the [impact model](mod@super::impact) gives its impulse `J` and force,
//!    [`PoseDriveHandle::hit`] applies `−n̂·J` at the point, the effector is released,
//!    and the hit is reported ([`HitEvent`]). Unblocked hits add `J` to the target's
//!    damage (blocked ones `J/4`); at `ko_threshold` it is knocked out (damage resets
//!    when it is up again).

use crate::SinewError;
use crate::constraint::{AttachmentDef, AttachmentHandle};
use crate::controller::{Controller, ControllerHandle};
use crate::math::{Real, Vector};
use crate::particle::ParticleHandle;
use crate::ragdoll::{
    DriveGains, DrivePartDef, DrivePhase, HitReactionDef, PoseDrive, PoseDriveDef, PoseDriveHandle, Ragdoll, RigDef,
};
use crate::space::{RealOf, VecOf};
use crate::state::{SavedState, StateHasher, saved_state};
use crate::world::World;

use super::FightSpace;
use super::impact::ImpactDef;
use super::moves::{Effector, MoveDef, TargetZone, default_moves};
use super::stop::{Bone, Chain, chain_tolerance, colliding_bones, stop_at_body, stop_chain};
use super::strike::{AimDef, AimPoint, FightRng, HeadFrame, aim_ik, approach};

mod hits;
use hits::bone_tables;

/// Solves per step of a fighter's pose drive: its [`PoseDriveDef::substep_interval`] is
/// the world's substeps over this, rounded up, when the fighters are added (8 substeps:
/// every fourth; 10: every fifth; 1: every substep), each kick limited to
/// [`FIGHTER_KICK_SPEED`]. Solved on every substep the drive was half of a fighter's
/// frame. Measured before the limit: once a step the fighters'
/// stiff drives, at their correction cap, left them standing 5–17 cm lower; every other
/// substep a drive's kick (¾ of its error at once) let a seeded bout sink 22–26 mm into
/// the other fighter, past the 2 cm bound. With the kick on the run's first middle
/// substep and its speed limited, every other substep kept 800 seeded bouts within 5 mm,
/// and twice a step (8 substeps) within 12 mm, with the stance held (docs/BENCHMARKS.md,
/// "Two 3D fighters: the drives twice a step").
pub const FIGHTER_DRIVE_SOLVES: u32 = 2;

/// The speed limit (rad/s) of a fighter's drive kicks ([`PoseDriveDef::max_kick_speed`]).
pub const FIGHTER_KICK_SPEED: f64 = 20.0;

/// Where a fighter's moves come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveList {
    /// These moves by name, in a loop.
    Scripted(Vec<String>),
    /// Drawn uniformly from the library (except `hit_react`) by a generator of this seed.
    Random(u64),
}

/// One fighter of a [`Bout`].
#[derive(Clone, Debug)]
pub struct FighterDef<S: FightSpace> {
    /// The rig, built facing `+x` (a preset humanoid).
    pub rig: RigDef<S>,
    /// Its drive parts (e.g. [`humanoid16_parts`](crate::ragdoll::drive_parts::humanoid16_parts)).
    pub parts: Vec<DrivePartDef<RealOf<S>>>,
    /// Where the rig's origin goes (m).
    pub origin: VecOf<S>,
    /// The direction it faces (horizontal part used).
    pub facing: VecOf<S>,
    /// Its moves.
    pub moves: MoveList,
    /// Damage (sum of hit impulses, N·s) that knocks it out.
    pub ko_threshold: RealOf<S>,
    /// The drive's gains for every part. Default 6 Hz, `ζ = 1`.
    pub gains: DriveGains<RealOf<S>>,
}

impl<S: FightSpace> FighterDef<S> {
    /// A fighter from a rig and its parts at `origin` facing `facing`, random moves of seed
    /// `seed`, knocked out at 120 N·s of damage.
    pub fn new(rig: RigDef<S>, parts: Vec<DrivePartDef<RealOf<S>>>, origin: VecOf<S>, facing: VecOf<S>) -> Self {
        Self {
            rig,
            parts,
            origin,
            facing,
            moves: MoveList::Random(1),
            ko_threshold: RealOf::<S>::from_i32(120),
            gains: DriveGains::Frequency { frequency: RealOf::<S>::from_i32(6), damping_ratio: RealOf::<S>::ONE },
        }
    }

    /// Sets the moves.
    #[must_use]
    pub fn moves(mut self, moves: MoveList) -> Self {
        self.moves = moves;
        self
    }

    /// Sets the knock-out damage (N·s).
    #[must_use]
    pub fn ko_threshold(mut self, j: RealOf<S>) -> Self {
        self.ko_threshold = j;
        self
    }
}

/// Settings shared by a bout's fighters.
#[derive(Clone, Debug, PartialEq)]
pub struct BoutDef<R> {
    /// The move library. Default [`default_moves`].
    pub moves: Vec<MoveDef<R>>,
    /// Where strikes aim on heads.
    pub aim: AimDef<R>,
    /// The impact model.
    pub impact: ImpactDef<R>,
    /// The pelvis hold's compliance (m/N). Default 2·10⁻⁵.
    pub hold_compliance: R,
    /// The pelvis hold's damping (N·s/m). Default 400.
    pub hold_damping: R,
    /// Extra reach (m) beyond `l₁ + l₂` at which a strike switches to IK. Default 0.05.
    pub reach_margin: R,
    /// Whether the fighters' bodies collide with each other (fist on head, arm on arm,
    /// fighter on fighter); [`Bout::add`] then turns the world's body contacts on
    /// ([`crate::WorldDef::body_contacts`]). With `false` the bodies pass through each other
    /// and only the bout's swept strikes touch. Default `None`: on in 3D, off in 2D — in a
    /// plane both fighters' arms and legs share one layer, so every guard would meet every
    /// strike and the drives would press limbs into limbs (measured: 5–14 cm overlaps, bouts
    /// where one side never lands); side-view fighting games likewise draw the two
    /// characters' limbs in layers instead of colliding them.
    pub collide: Option<bool>,
}

impl<R: Real> Default for BoutDef<R> {
    fn default() -> Self {
        Self {
            moves: default_moves(),
            aim: AimDef::default(),
            impact: ImpactDef::default(),
            hold_compliance: R::from_ratio(2, 100_000),
            hold_damping: R::from_i32(400),
            reach_margin: R::from_ratio(5, 100),
            collide: None,
        }
    }
}

saved_state!(impl[R: Real] BoutDef<R> { moves, aim, impact, hold_compliance, hold_damping, reach_margin, collide });

/// A fighter's state, for games and the frame output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FighterState {
    /// Playing its moves.
    Fighting,
    /// Reeling from a heavy hit (strength on the envelope).
    Hit,
    /// Limp on the ground.
    KnockedOut,
    /// Blending back to its pose.
    GettingUp,
}

impl SavedState for FighterState {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(*self as u64);
    }
}

impl FighterState {
    /// `"fighting"`, `"hit"`, `"knocked_out"`, `"getting_up"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Fighting => "fighting",
            Self::Hit => "hit",
            Self::KnockedOut => "knocked_out",
            Self::GettingUp => "getting_up",
        }
    }
}

/// A hit of a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HitEvent<R, V> {
    /// The striking fighter (index in the bout).
    pub attacker: u32,
    /// The fighter struck.
    pub target: u32,
    /// The drive part struck (index in the target's drive).
    pub part: u32,
    /// The zone the strike aimed at.
    pub zone: TargetZone,
    /// Whether a forearm took it.
    pub blocked: bool,
    /// The contact point (m).
    pub point: V,
    /// Impulse `J` (N·s).
    pub impulse: R,
    /// Mean force `J/τ` (N).
    pub force: R,
    /// Approach speed (m/s).
    pub speed: R,
    /// The aim's fraction chin → temple (head strikes).
    pub aim: R,
    /// Where the contact point projects on chin → temple (head hits; unclamped).
    pub along: R,
    /// Distance (m) from the contact point to the aim point at contact (head hits).
    pub miss: R,
}

saved_state!(impl[R: Real, V: SavedState] HitEvent<R, V> {
    attacker, target, part, zone, blocked, point, impulse, force, speed, aim, along, miss,
});

/// Node indices (into the fighter's nodes) of one limb.
#[derive(Clone, Copy, Debug, PartialEq)]
struct LimbNodes<R> {
    root: u32,
    mid: u32,
    end: u32,
    l1: R,
    l2: R,
    radius: R,
}

saved_state!(impl[R: Real] LimbNodes<R> { root, mid, end, l1, l2, radius });

/// One fighter's state (see the module docs).
#[derive(Clone, Debug, PartialEq)]
struct Fighter<S: FightSpace> {
    nodes: Vec<ParticleHandle>,
    drive: PoseDriveHandle<S>,
    facing: VecOf<S>,
    home: VecOf<S>,
    hold: Option<AttachmentHandle>,
    hold_at: VecOf<S>,
    script: Vec<u32>,
    script_pos: u32,
    random: bool,
    rng: FightRng,
    current: u32,
    frame: u32,
    aim: AimPoint<RealOf<S>>,
    striking: bool,
    struck: bool,
    prev_end: VecOf<S>,
    prev_vel: VecOf<S>,
    damage: RealOf<S>,
    ko_threshold: RealOf<S>,
    state: FighterState,
    /// hands l, r; feet l, r.
    limbs: [LimbNodes<RealOf<S>>; 4],
    /// head, neck, pelvis.
    head: [u32; 3],
    head_radius: RealOf<S>,
    torso_radius: RealOf<S>,
    /// The rig's colliding bones (node indices) with their end radii: what a strike's
    /// effector stops against (see `fight/stop.rs`).
    bones: Vec<Bone<RealOf<S>>>,
    /// Per bone of `bones`: the drive part it belongs to (`u32::MAX`: none) and whether
    /// it is an arm's (a touch there is a block).
    bone_parts: Vec<(u32, bool)>,
    /// Per limb (as `limbs`): its colliding bones, what [`stop_chain`] keeps out of the
    /// opponent.
    chains: [Vec<Bone<RealOf<S>>>; 4],
    /// The limb whose end the bout made kinematic for a strike (`None`: none). Only that
    /// particle is released when the strike ends: one pinned or grabbed by someone else
    /// is left alone.
    pinned: Option<u32>,
    /// The limb whose end the bout had pinned and someone took over during the strike
    /// (gave it a target): the bout lets it go on the first frame the holder does not
    /// drive it (released or no longer moved), since the holder's grab saw it pinned.
    lent: Option<u32>,
}

saved_state!(impl[S: FightSpace] Fighter<S> {
    nodes, drive, facing, home, hold, hold_at, script, script_pos, random, rng, current, frame, aim, striking,
    struck, prev_end, prev_vel, damage, ko_threshold, state, limbs, head, head_radius, torso_radius, bones,
    bone_parts, chains, pinned, lent,
});

/// The fighters of a bout and their shared settings: a [`Controller`] (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Bout<S: FightSpace> {
    def: BoutDef<RealOf<S>>,
    fighters: Vec<Fighter<S>>,
    aim_rng: FightRng,
    frame: u64,
    hits: Vec<HitEvent<RealOf<S>, VecOf<S>>>,
}

saved_state!(impl[S: FightSpace] Bout<S> { def, fighters, aim_rng, frame, hits });

impl<S: FightSpace> Controller<S> for Bout<S> {
    fn hash_state(&self, h: &mut StateHasher) {
        SavedState::hash_state(self, h);
    }
    fn heap_bytes(&self) -> usize {
        SavedState::heap_bytes(self)
    }
}

/// A bout in a world.
pub type BoutHandle<S> = ControllerHandle<Bout<S>>;

fn bad(what: &'static str, reason: &'static str) -> SinewError {
    SinewError::InvalidParameter { what, reason, value: None }
}

fn idx(rig_nodes: &[String], names: &[&str]) -> Result<u32, SinewError> {
    for n in names {
        if let Some(i) = rig_nodes.iter().position(|m| m == n) {
            return u32::try_from(i).map_err(|_| bad("rig", "too many nodes"));
        }
    }
    Err(bad("fighter rig", "lacks a node a fighter needs (head, neck, pelvis, shoulder/elbow/hand, hip/knee/foot)"))
}

impl<S: FightSpace> Bout<S> {
    /// Spawns the fighters and adds the bout to the world (see the module docs). Errors
    /// name what is wrong (a move, a rig without the nodes a fighter needs, a script
    /// naming an unknown move); on error the world may hold the fighters spawned so far.
    pub fn add(
        world: &mut World<S>,
        fighters: &[FighterDef<S>],
        def: BoutDef<RealOf<S>>,
        seed: u64,
    ) -> Result<BoutHandle<S>, SinewError> {
        def.aim.validate()?;
        def.impact.validate()?;
        if def.moves.is_empty() {
            return Err(bad("bout moves", "the library is empty"));
        }
        for m in &def.moves {
            m.validate()?;
        }
        for (k, m) in def.moves.iter().enumerate() {
            if def.moves[..k].iter().any(|o| o.name == m.name) {
                return Err(bad("bout moves", "two moves share a name"));
            }
        }
        let one = RealOf::<S>::ONE;
        if !(def.hold_compliance >= RealOf::<S>::ZERO) || !(def.hold_damping >= RealOf::<S>::ZERO) {
            return Err(bad("bout hold", "compliance and damping must be ≥ 0"));
        }
        if fighters.len() < 2 {
            return Err(bad("fighters", "a bout needs at least two"));
        }
        let mut def = def;
        def.collide = Some(def.collide.unwrap_or(S::DIM == 3));
        if def.collide == Some(true) && !world.def().body_contacts {
            let on = (*world.def()).body_contacts(true);
            world.set_def(on)?;
        }
        let mut out = Vec::with_capacity(fighters.len());
        for f in fighters {
            if !(f.ko_threshold > RealOf::<S>::ZERO) || !f.ko_threshold.is_finite() {
                return Err(bad("ko_threshold", "must be > 0"));
            }
            let facing = S::horizontal(f.facing).ok_or(bad("facing", "needs a horizontal direction"))?;
            let rig = S::face_rig(&f.rig, facing);
            let names: Vec<String> = rig.nodes.iter().map(|n| n.name.clone()).collect();
            let parts: Vec<DrivePartDef<RealOf<S>>> = f.parts.iter().cloned().map(|p| p.gains(f.gains)).collect();
            let doll = Ragdoll::spawn(world, &rig, f.origin, one, VecOf::<S>::ZERO)?;
            let reaction = HitReactionDef::default().knockout_impulse(None);
            // The drive's rate and kick limit (`FIGHTER_DRIVE_SOLVES`).
            let interval = world.def().substeps.div_ceil(FIGHTER_DRIVE_SOLVES).max(1);
            let drive_def = PoseDriveDef::default()
                .reaction(reaction)
                .substep_interval(interval)
                .max_kick_speed(Some(RealOf::<S>::from_f64(FIGHTER_KICK_SPEED)));
            let drive = PoseDrive::add(world, &rig, doll.nodes(), &parts, &drive_def)?;
            let limb = |root: &[&str], mid: &[&str], end: &[&str]| -> Result<LimbNodes<RealOf<S>>, SinewError> {
                let (r, m, e) = (idx(&names, root)?, idx(&names, mid)?, idx(&names, end)?);
                let p = |i: u32| rig.nodes[i as usize].position;
                Ok(LimbNodes {
                    root: r,
                    mid: m,
                    end: e,
                    l1: (p(m) - p(r)).length(),
                    l2: (p(e) - p(m)).length(),
                    radius: rig.nodes[e as usize].radius,
                })
            };
            let limbs = [
                limb(&["shoulder_l"], &["elbow_l", "elbow_in_l"], &["hand_l"])?,
                limb(&["shoulder_r"], &["elbow_r", "elbow_in_r"], &["hand_r"])?,
                limb(&["hip_l"], &["knee_l", "knee_in_l"], &["foot_l"])?,
                limb(&["hip_r"], &["knee_r", "knee_in_r"], &["foot_r"])?,
            ];
            let head = [idx(&names, &["head"])?, idx(&names, &["neck"])?, idx(&names, &["pelvis"])?];
            let chest = idx(&names, &["chest"])?;
            let script = match &f.moves {
                MoveList::Scripted(s) => {
                    if s.is_empty() {
                        return Err(bad("fighter moves", "the script is empty"));
                    }
                    let mut v = Vec::with_capacity(s.len());
                    for n in s {
                        let i = def
                            .moves
                            .iter()
                            .position(|m| &m.name == n)
                            .ok_or(bad("fighter moves", "names a move the library lacks"))?;
                        v.push(u32::try_from(i).map_err(|_| bad("moves", "too many"))?);
                    }
                    v
                }
                MoveList::Random(_) => Vec::new(),
            };
            let seed = match &f.moves {
                MoveList::Random(s) => *s,
                MoveList::Scripted(_) => 0,
            };
            let pelvis = doll.nodes()[head[2] as usize];
            let home = world.particles().position(pelvis).ok_or(bad("fighter", "lost its pelvis"))?;
            let hold = world.add_attachment(
                &AttachmentDef::new(pelvis, home).compliance(def.hold_compliance).damping(def.hold_damping),
            )?;
            let hand = doll.nodes()[limbs[0].end as usize];
            let at = world.particles().position(hand).unwrap_or(home);
            let bones = colliding_bones(&rig)?;
            let (bone_parts, chains) = bone_tables(world, drive, doll.nodes(), &bones, &limbs)?;
            out.push(Fighter {
                nodes: doll.nodes().to_vec(),
                drive,
                facing,
                home,
                hold: Some(hold),
                hold_at: home,
                script,
                script_pos: 0,
                random: matches!(f.moves, MoveList::Random(_)),
                rng: FightRng::new(seed),
                current: u32::MAX,
                frame: 0,
                aim: AimPoint::default(),
                striking: false,
                struck: false,
                prev_end: at,
                prev_vel: VecOf::<S>::ZERO,
                damage: RealOf::<S>::ZERO,
                ko_threshold: f.ko_threshold,
                state: FighterState::Fighting,
                limbs,
                head,
                head_radius: rig.nodes[head[0] as usize].radius,
                torso_radius: rig.nodes[chest as usize].radius + RealOf::<S>::from_ratio(3, 100),
                bones,
                bone_parts,
                chains,
                pinned: None,
                lent: None,
            });
        }
        Ok(world.add_controller(Bout { def, fighters: out, aim_rng: FightRng::new(seed), frame: 0, hits: Vec::new() }))
    }

    /// The number of fighters.
    #[must_use]
    pub fn fighter_count(&self) -> usize {
        self.fighters.len()
    }

    /// Fighter `i`'s particles (rig order).
    pub fn nodes(&self, i: usize) -> Result<&[ParticleHandle], SinewError> {
        Ok(&self.fighter(i)?.nodes)
    }

    /// Fighter `i`'s pose drive.
    pub fn drive(&self, i: usize) -> Result<PoseDriveHandle<S>, SinewError> {
        Ok(self.fighter(i)?.drive)
    }

    /// Fighter `i`'s state.
    pub fn state(&self, i: usize) -> Result<FighterState, SinewError> {
        Ok(self.fighter(i)?.state)
    }

    /// Fighter `i`'s damage since it last got up (N·s).
    pub fn damage(&self, i: usize) -> Result<RealOf<S>, SinewError> {
        Ok(self.fighter(i)?.damage)
    }

    /// The name of the move fighter `i` plays (`None` before the first frame).
    pub fn current_move(&self, i: usize) -> Result<Option<&str>, SinewError> {
        let f = self.fighter(i)?;
        Ok(self.def.moves.get(f.current as usize).map(|m| m.name.as_str()))
    }

    /// The hits of the last frame.
    #[must_use]
    pub fn hits(&self) -> &[HitEvent<RealOf<S>, VecOf<S>>] {
        &self.hits
    }

    /// The settings.
    #[must_use]
    pub fn def(&self) -> &BoutDef<RealOf<S>> {
        &self.def
    }

    fn fighter(&self, i: usize) -> Result<&Fighter<S>, SinewError> {
        self.fighters.get(i).ok_or(SinewError::InvalidHandle { what: "fighter", handle: None })
    }
}

/// The opponent of fighter `i`: the nearest other (by pelvis), lowest index on ties.
fn opponent<S: FightSpace>(world: &World<S>, fs: &[Fighter<S>], i: usize) -> usize {
    let ps = world.particles();
    let at = |k: usize| ps.pos[fs[k].nodes[fs[k].head[2] as usize].index()];
    let me = at(i);
    // Starting from the first other fighter, not from "none": a distance that saturates
    // (fixed point, fighters thrown kilometres apart) still names an opponent.
    let mut best = (usize::from(i == 0), RealOf::<S>::MAX);
    for k in 0..fs.len() {
        if k != i {
            let d = (at(k) - me).length_squared();
            if d < best.1 {
                best = (k, d);
            }
        }
    }
    best.0
}

/// A strike's goal (effector centre), the outward normal there, and the head frame when
/// aimed at a head.
type Goal<S> = (VecOf<S>, VecOf<S>, Option<HeadFrame<VecOf<S>>>);

/// A bout's hits of a frame.
pub type Hits<S> = Vec<HitEvent<RealOf<S>, VecOf<S>>>;

/// The goal of a strike of fighter `f` on fighter `o` (effector centre) and the head
/// frame when aimed at a head.
fn strike_goal<S: FightSpace>(
    world: &World<S>,
    def: &BoutDef<RealOf<S>>,
    f: &Fighter<S>,
    o: &Fighter<S>,
    zone: TargetZone,
    limb: &LimbNodes<RealOf<S>>,
    dt: RealOf<S>,
) -> Option<Goal<S>> {
    let ps = world.particles();
    let p = |x: &Fighter<S>, i: u32| ps.pos[x.nodes[i as usize].index()];
    let root = p(f, limb.root);
    match zone {
        TargetZone::Head => {
            let hf = HeadFrame::new(p(o, o.head[1]), p(o, o.head[0]), o.head_radius, root, &def.aim, S::lateral)?;
            let lead = ps.vel[o.nodes[o.head[0] as usize].index()] * dt;
            Some((hf.point(f.aim) + hf.out * limb.radius + lead, hf.out, Some(hf)))
        }
        TargetZone::Torso => {
            let (a, b) = (p(o, o.head[2]), p(o, o.head[1]));
            let c = a + (b - a) * RealOf::<S>::from_ratio(3, 5);
            let out = (root - c).normalize_or_zero();
            Some((c + out * (o.torso_radius + limb.radius), out, None))
        }
    }
}

/// `t / dt` rounded to a whole frame: move timing compares frame counts, so a bout in
/// `f32`, `f64` and fixed point switches moves and strike windows on the same frames.
fn frames<R: Real>(t: R, dt: R) -> u32 {
    let k = (t / dt + R::HALF).max(R::ZERO).min(R::from_i32(1 << 30));
    // Whole part without a float cast: binary search over [0, 2^30].
    let (mut lo, mut hi) = (0u32, 1u32 << 30);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if R::from_i32(i32::try_from(mid).unwrap_or(i32::MAX)) <= k {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

fn limb_of(e: Effector) -> usize {
    match e {
        Effector::LeftHand => 0,
        Effector::RightHand => 1,
        Effector::LeftFoot => 2,
        Effector::RightFoot => 3,
    }
}

impl<S: FightSpace> BoutHandle<S> {
    /// One frame of the bout (see the module docs): plays moves, aims strikes, steps the
    /// world by `dt` and returns the frame's hits.
    pub fn step(self, world: &mut World<S>, dt: RealOf<S>) -> Result<Hits<S>, SinewError> {
        if !(dt > RealOf::<S>::ZERO) || !dt.is_finite() {
            return Err(bad("dt", "must be > 0"));
        }
        // The bout is worked on outside the world (the world is stepped meanwhile) and put
        // back at the end, so an error leaves the world's bout as it was. The move library
        // is only read during a frame: it is moved out and back rather than cloned (its
        // clone and drop were 4–5 % of a frame of two 3D fighters).
        let mut bout = {
            let b = world.controller_mut(self)?;
            let moves = core::mem::take(&mut b.def.moves);
            let mut c = b.clone();
            c.def.moves = moves;
            c
        };
        match self.play_frame(world, &mut bout, dt) {
            Ok(hits) => {
                *world.controller_mut(self)? = bout;
                Ok(hits)
            }
            Err(e) => {
                if let Ok(b) = world.controller_mut(self) {
                    b.def.moves = bout.def.moves;
                }
                Err(e)
            }
        }
    }

    fn play_frame(self, world: &mut World<S>, bout: &mut Bout<S>, dt: RealOf<S>) -> Result<Hits<S>, SinewError> {
        bout.hits.clear();
        for i in 0..bout.fighters.len() {
            self.act(world, bout, i, dt)?;
        }
        if bout.def.collide == Some(true) {
            for i in 0..bout.fighters.len() {
                settle(world, bout, i)?;
            }
        }
        let ends: Vec<VecOf<S>> = bout.fighters.iter().map(|f| f.prev_end).collect();
        world.step(dt)?;
        for (i, &from) in ends.iter().enumerate() {
            hits::detect(world, bout, i, from, dt)?;
        }
        bout.frame += 1;
        Ok(bout.hits.clone())
    }

    fn act(self, world: &mut World<S>, bout: &mut Bout<S>, i: usize, dt: RealOf<S>) -> Result<(), SinewError> {
        let zero = RealOf::<S>::ZERO;
        let o = opponent(world, &bout.fighters, i);
        let f = &mut bout.fighters[i];
        take_back(world, f)?;
        let phase = world.controller(f.drive)?.phase();
        let pelvis = f.nodes[f.head[2] as usize];
        f.state = match phase {
            DrivePhase::Driven => FighterState::Fighting,
            DrivePhase::Recovering => FighterState::Hit,
            DrivePhase::KnockedOut => FighterState::KnockedOut,
            DrivePhase::GettingUp => FighterState::GettingUp,
        };
        if matches!(phase, DrivePhase::KnockedOut) {
            if let Some(h) = f.hold.take() {
                world.remove_attachment(h)?;
            }
            release(world, f)?;
            f.damage = zero;
            return Ok(());
        }
        if f.hold.is_none() {
            let at = world.particles().position(pelvis).ok_or(bad("fighter", "lost its pelvis"))?;
            f.hold_at = at;
            f.hold = Some(world.add_attachment(
                &AttachmentDef::new(pelvis, at).compliance(bout.def.hold_compliance).damping(bout.def.hold_damping),
            )?);
        }
        // Next move.
        let done = bout.def.moves.get(f.current as usize).is_none_or(|m| f.frame >= frames(m.duration(), dt));
        if done {
            release(world, f)?;
            let n = u32::try_from(bout.def.moves.len()).unwrap_or(u32::MAX);
            f.current = if f.random {
                let pick = |r: &mut FightRng| r.below(n);
                let mut k = pick(&mut f.rng);
                if bout.def.moves.get(k as usize).is_some_and(|m| m.name == "hit_react") {
                    k = pick(&mut f.rng);
                }
                k
            } else {
                let k = f.script[f.script_pos as usize % f.script.len()];
                f.script_pos = (f.script_pos + 1) % u32::try_from(f.script.len()).unwrap_or(1);
                k
            };
            f.frame = 0;
            f.struck = false;
            f.striking = false;
            f.aim = bout.def.aim.sample(&mut bout.aim_rng);
        }
        let m = &bout.def.moves[f.current as usize];
        let t = RealOf::<S>::from_i32(i32::try_from(f.frame).unwrap_or(i32::MAX)) * dt;
        f.frame = f.frame.saturating_add(1);
        // Targets.
        let drive = world.controller_mut(f.drive)?;
        for part in m.parts() {
            if let Some(k) = drive.part_index(part) {
                drive.set_target(k, S::exp(S::sagittal(m.angle_at(part, t), f.facing)))?;
            }
        }
        // The hold: walks back home after a get-up, lunges with the move.
        let target = f.home + f.facing * m.lunge_at(t);
        f.hold_at = f.hold_at + (target - f.hold_at) * RealOf::<S>::from_ratio(1, 8);
        if let Some(h) = f.hold {
            world.set_attachment_target(h, f.hold_at)?;
        }
        // The strike.
        let end_h = f.nodes[f.limbs[0].end as usize];
        let Some(s) = m.strike else {
            f.prev_end = world.particles().position(end_h).unwrap_or(f.prev_end);
            return Ok(());
        };
        let limb = f.limbs[limb_of(s.effector)];
        let eh = f.nodes[limb.end as usize];
        f.prev_end = world.particles().position(eh).unwrap_or(f.prev_end);
        let (k0, k1) = (frames(s.from, dt), frames(s.to, dt));
        // A fighter reeling from a heavy hit (`Recovering`, strength on the envelope)
        // still strikes once its hit reaction has played: only a knock-out stops it.
        let driven = matches!(phase, DrivePhase::Driven | DrivePhase::Recovering);
        let active = driven && f.frame > k0 && f.frame <= k1 + 1 && !f.struck;
        if !active {
            if f.striking {
                release(world, f)?;
            }
            return Ok(());
        }
        let li = u32::try_from(limb_of(s.effector)).unwrap_or(0);
        let ps = world.particles();
        if f.pinned != Some(li) && ps.is_kinematic(eh) || f.pinned == Some(li) && ps.target[eh.index()].is_some() {
            // Someone else holds the effector (pinned or grabbed before the strike, or
            // given a target this frame): the strike gives it up and never releases it.
            if f.pinned == Some(li) {
                f.pinned = None;
                f.lent = Some(li);
            }
            f.striking = false;
            f.struck = true;
            return Ok(());
        }
        let fo = &bout.fighters[o];
        let f = &bout.fighters[i];
        let Some((goal, out, _)) = strike_goal(world, &bout.def, f, fo, s.zone, &limb, dt) else { return Ok(()) };
        let ps = world.particles();
        let p = |k: u32| ps.pos[f.nodes[k as usize].index()];
        let (root, mid, x) = (p(limb.root), p(limb.mid), p(limb.end));
        let f = &mut bout.fighters[i];
        if !f.striking && (goal - root).length() > limb.l1 + limb.l2 + bout.def.reach_margin {
            return Ok(());
        }
        let down = f.facing * RealOf::<S>::from_ratio(-1, 1);
        let via = approach(x, goal, out, RealOf::<S>::from_ratio(6, 100));
        let (_, end) = aim_ik(root, mid, via, limb.l1, limb.l2, down);
        let (dir, d) = (end - x).normalize_and_length();
        let step = if via == goal { s.speed * dt } else { (s.speed * dt).min(d) };
        let mut to = x + dir * step;
        // The follow-through ends at the limb's full length: a kinematic effector beyond it
        // would drag the fighter's shoulder (or hip) and body after it through the bones.
        let (reach_dir, reach) = (to - root).normalize_and_length();
        if reach > limb.l1 + limb.l2 {
            to = root + reach_dir * (limb.l1 + limb.l2);
        }
        if bout.def.collide == Some(true) {
            let (f, fo) = (&bout.fighters[i], &bout.fighters[o]);
            to = stop_at_body(world.particles(), &fo.nodes, &fo.bones, x, to, limb.radius);
            let chain = Chain {
                nodes: &f.nodes,
                joints: [limb.root, limb.mid, limb.end],
                lengths: [limb.l1, limb.l2],
                bones: &f.chains[li as usize],
                bend: down,
            };
            let (stop, now) = stop_chain(world.particles(), &chain, &fo.nodes, &fo.bones, x, to);
            if now > chain_tolerance::<RealOf<S>>() * RealOf::<S>::TWO {
                // The limb is already deep in the opponent (it moved into the limb): the
                // strike ends and the effector is let go, so the body contacts can part them.
                let f = &mut bout.fighters[i];
                f.struck = true;
                return release(world, f);
            }
            to = stop;
        }
        world.particles_mut().set_kinematic_target(eh, to)?;
        let f = &mut bout.fighters[i];
        f.striking = true;
        f.pinned = Some(li);
        Ok(())
    }
}

/// Checks fighter `i`'s strike of this frame again, now that every fighter has its target
/// (see `fight/stop.rs`): shortened if its limb would meet the opponent's striking limb.
fn settle<S: FightSpace>(world: &mut World<S>, bout: &Bout<S>, i: usize) -> Result<(), SinewError> {
    let f = &bout.fighters[i];
    let Some(li) = f.pinned else { return Ok(()) };
    let limb = f.limbs[li as usize];
    let eh = f.nodes[limb.end as usize];
    let ps = world.particles();
    let (Some(to), x) = (ps.target[eh.index()], ps.pos[eh.index()]) else { return Ok(()) };
    let fo = &bout.fighters[opponent(world, &bout.fighters, i)];
    let chain = Chain {
        nodes: &f.nodes,
        joints: [limb.root, limb.mid, limb.end],
        lengths: [limb.l1, limb.l2],
        bones: &f.chains[li as usize],
        bend: f.facing * RealOf::<S>::from_ratio(-1, 1),
    };
    let (stop, _) = stop_chain(ps, &chain, &fo.nodes, &fo.bones, x, to);
    if stop != to {
        world.particles_mut().set_kinematic_target(eh, stop)?;
    }
    Ok(())
}

/// Lets go of an effector the bout had lent (see `Fighter::lent`) once its holder no
/// longer drives it.
fn take_back<S: FightSpace>(world: &mut World<S>, f: &mut Fighter<S>) -> Result<(), SinewError> {
    let Some(l) = f.lent else { return Ok(()) };
    let h = f.nodes[f.limbs[l as usize].end as usize];
    let ps = world.particles();
    if !ps.is_kinematic(h) {
        f.lent = None;
    } else if ps.target[h.index()].is_none() {
        world.particles_mut().release(h, VecOf::<S>::ZERO, RealOf::<S>::ONE)?;
        f.lent = None;
    }
    Ok(())
}

/// Lets go of the effector the bout made kinematic for a strike (it keeps the body's
/// drift: at rest), and only that one: a particle someone else pinned or grabbed stays held.
fn release<S: FightSpace>(world: &mut World<S>, f: &mut Fighter<S>) -> Result<(), SinewError> {
    if let Some(l) = f.pinned.take() {
        let h = f.nodes[f.limbs[l as usize].end as usize];
        if world.particles().is_kinematic(h) {
            world.particles_mut().release(h, VecOf::<S>::ZERO, RealOf::<S>::ONE)?;
        }
    }
    f.striking = false;
    Ok(())
}
