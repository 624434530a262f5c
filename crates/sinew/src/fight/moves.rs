//! Moves as data: authored pose tracks (there is no motion capture here).
//!
//! A [`MoveDef`] is a list of keyframes, each a time (s from the move's start) and
//! sagittal target angles (rad, relative to the part's parent, see [the module
//! docs](super)) for named drive parts. At time `t` a part's target is the linear
//! interpolation between the keyframes around `t` (a part a keyframe leaves out is 0
//! there: its build pose); after the last keyframe the move is over. A strike names its
//! **effector** (the fist or foot that hits), its **strike window** `[t₀, t₁]` (the time
//! in which it switches to IK once the aim is within reach, see
//! [`strike`](super::strike)), the effector's speed, the zone it aims at, the contact area
//! and optionally an authored impulse; it may also step forward (`lunge`, m, a triangle
//! over the move's duration). A block carries `blocking`: a guard that puts the forearms
//! between the opponent's fist and the head, where the sweep of the fist meets them first.
//!
//! [`default_moves`] is a library for both preset humanoids (parts of
//! [`humanoid16_parts`](crate::ragdoll::drive_parts::humanoid16_parts) and
//! [`humanoid3d_parts`](crate::ragdoll::drive_parts::humanoid3d_parts) share their names):
//! `stance`, `guard`, `jab`, `cross`, `hook`, `kick`, `block`, `hit_react`. The
//! `sinew-scene` crate reads the same structure from JSON.

use crate::SinewError;
use crate::math::Real;
use crate::state::{SavedState, StateHasher, saved_state};

/// The limb that lands a strike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effector {
    /// Left fist (shoulder → elbow → hand).
    LeftHand,
    /// Right fist.
    RightHand,
    /// Left foot (hip → knee → foot).
    LeftFoot,
    /// Right foot.
    RightFoot,
}

impl SavedState for Effector {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(*self as u64);
    }
}

impl Effector {
    /// `"hand_l"` … : the name used in files.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::LeftHand => "hand_l",
            Self::RightHand => "hand_r",
            Self::LeftFoot => "foot_l",
            Self::RightFoot => "foot_r",
        }
    }

    /// The effector of a name ([`Effector::name`]).
    #[must_use]
    pub fn from_name(s: &str) -> Option<Self> {
        [Self::LeftHand, Self::RightHand, Self::LeftFoot, Self::RightFoot].into_iter().find(|e| e.name() == s)
    }

    /// Whether it is a hand.
    #[must_use]
    pub fn is_hand(self) -> bool {
        matches!(self, Self::LeftHand | Self::RightHand)
    }

    /// The side suffix (`"l"` or `"r"`).
    #[must_use]
    pub fn side(self) -> &'static str {
        match self {
            Self::LeftHand | Self::LeftFoot => "l",
            Self::RightHand | Self::RightFoot => "r",
        }
    }
}

/// Where a strike aims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetZone {
    /// The head, between temple and chin.
    Head,
    /// The torso (the middle of the chest).
    Torso,
}

impl SavedState for TargetZone {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(*self as u64);
    }
}

impl TargetZone {
    /// `"head"` or `"torso"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Head => "head",
            Self::Torso => "torso",
        }
    }
}

/// One keyframe: a time and target angles of named parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Keyframe<R> {
    /// Time from the move's start (s).
    pub time: R,
    /// Part names.
    pub parts: Vec<String>,
    /// Sagittal angles (rad), one per part.
    pub angles: Vec<R>,
}

saved_state!(impl[R: Real] Keyframe<R> { time, parts, angles });

impl<R: Real> Keyframe<R> {
    /// The angle of `part` here (0 if not listed).
    #[must_use]
    pub fn angle(&self, part: &str) -> R {
        self.parts.iter().position(|p| p == part).map_or(R::ZERO, |i| self.angles[i])
    }
}

/// The strike of a move (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrikeDef<R> {
    /// The limb that lands it.
    pub effector: Effector,
    /// The window's start (s).
    pub from: R,
    /// The window's end (s).
    pub to: R,
    /// The effector's speed in the IK phase (m/s).
    pub speed: R,
    /// Where it aims.
    pub zone: TargetZone,
    /// Contact area (m²).
    pub area: R,
    /// An authored impulse (N·s) replacing the impact model's.
    pub impulse: Option<R>,
}

saved_state!(impl[R: Real] StrikeDef<R> { effector, from, to, speed, zone, area, impulse });

/// A move: a pose track, optionally a strike (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct MoveDef<R> {
    /// Unique name.
    pub name: String,
    /// Keyframes in increasing time (the first at 0).
    pub keys: Vec<Keyframe<R>>,
    /// The strike, if it is one.
    pub strike: Option<StrikeDef<R>>,
    /// Whether it is a block.
    pub blocking: bool,
    /// The forward step at mid-move (m).
    pub lunge: R,
}

saved_state!(impl[R: Real] MoveDef<R> { name, keys, strike, blocking, lunge });

impl<R: Real> MoveDef<R> {
    /// An empty move.
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), keys: Vec::new(), strike: None, blocking: false, lunge: R::ZERO }
    }

    /// Adds a keyframe at `time` (s) with `(part, angle in degrees)` targets.
    #[must_use]
    pub fn key(mut self, time: R, targets: &[(&str, R)]) -> Self {
        let deg = R::PI / R::from_i32(180);
        self.keys.push(Keyframe {
            time,
            parts: targets.iter().map(|(p, _)| (*p).to_owned()).collect(),
            angles: targets.iter().map(|(_, a)| *a * deg).collect(),
        });
        self
    }

    /// Makes it a strike by `effector` with window `[from, to]` (s) at `speed` (m/s),
    /// aimed at `zone`, contact area `area` (m²).
    #[must_use]
    pub fn strike(mut self, effector: Effector, from: R, to: R, speed: R, zone: TargetZone, area: R) -> Self {
        self.strike = Some(StrikeDef { effector, from, to, speed, zone, area, impulse: None });
        self
    }

    /// Sets the strike's authored impulse (N·s).
    #[must_use]
    pub fn authored_impulse(mut self, j: R) -> Self {
        if let Some(s) = &mut self.strike {
            s.impulse = Some(j);
        }
        self
    }

    /// Marks it as a block.
    #[must_use]
    pub fn blocking(mut self) -> Self {
        self.blocking = true;
        self
    }

    /// Sets the forward step (m).
    #[must_use]
    pub fn lunge(mut self, m: R) -> Self {
        self.lunge = m;
        self
    }

    /// The time of the last keyframe (s).
    #[must_use]
    pub fn duration(&self) -> R {
        self.keys.last().map_or(R::ZERO, |k| k.time)
    }

    /// Checks the move: a name, keyframes from 0 in increasing time with finite angles and
    /// one per part, a strike window inside the move with positive speed and area.
    pub fn validate(&self) -> Result<(), SinewError> {
        if self.name.is_empty() {
            return Err(bad("move name", "is empty"));
        }
        let Some(first) = self.keys.first() else { return Err(bad("move keys", "a move needs a keyframe")) };
        if first.time != R::ZERO {
            return Err(bad("move keys", "the first keyframe must be at time 0"));
        }
        for w in self.keys.windows(2) {
            if w[1].time <= w[0].time {
                return Err(bad("move keys", "times must increase"));
            }
        }
        for k in &self.keys {
            if !k.time.is_finite() || k.angles.iter().any(|a| !a.is_finite()) || !self.lunge.is_finite() {
                return Err(SinewError::NonFinite { what: "move" });
            }
            if k.parts.len() != k.angles.len() {
                return Err(bad("move keys", "one angle per part"));
            }
        }
        if let Some(s) = &self.strike {
            if !(s.from >= R::ZERO && s.from < s.to && s.to <= self.duration()) {
                return Err(bad("strike window", "must be inside the move, from < to"));
            }
            if !(s.speed > R::ZERO) || !s.speed.is_finite() {
                return Err(bad("strike speed", "must be > 0"));
            }
            if !(s.area > R::ZERO) || !s.area.is_finite() {
                return Err(bad("strike area", "must be > 0"));
            }
            if let Some(j) = s.impulse {
                if !(j >= R::ZERO) || !j.is_finite() {
                    return Err(bad("strike impulse", "must be ≥ 0"));
                }
            }
        }
        Ok(())
    }

    /// Every part any keyframe names, in first-seen order.
    #[must_use]
    pub fn parts(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for k in &self.keys {
            for p in &k.parts {
                if !out.contains(&p.as_str()) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// The angle (rad) of `part` at time `t` (s), interpolated linearly; the last
    /// keyframe's after the end.
    #[must_use]
    pub fn angle_at(&self, part: &str, t: R) -> R {
        let Some(last) = self.keys.last() else { return R::ZERO };
        if t >= last.time {
            return last.angle(part);
        }
        for w in self.keys.windows(2) {
            if t < w[1].time {
                let f = ((t - w[0].time) / (w[1].time - w[0].time)).clamp(R::ZERO, R::ONE);
                let (a, b) = (w[0].angle(part), w[1].angle(part));
                return a + (b - a) * f;
            }
        }
        last.angle(part)
    }

    /// The forward step (m) at time `t`: a triangle peaking at mid-move.
    #[must_use]
    pub fn lunge_at(&self, t: R) -> R {
        let d = self.duration();
        if d <= R::ZERO || t <= R::ZERO || t >= d {
            return R::ZERO;
        }
        let half = d * R::HALF;
        let f = if t < half { t / half } else { (d - t) / half };
        self.lunge * f
    }
}

fn bad(what: &'static str, reason: &'static str) -> SinewError {
    SinewError::InvalidParameter { what, reason, value: None }
}

/// The default library (see the module docs): angles in degrees, times in seconds.
#[must_use]
pub fn default_moves<R: Real>() -> Vec<MoveDef<R>> {
    let f = |n: i32, d: i32| R::from_ratio(n, d);
    let i = |n: i32| R::from_i32(n);
    // The guard: upper arms forward-down, forearms up (fists by the chin), knees soft.
    let guard: [(&str, R); 8] = [
        ("upper_arm_l", i(35)),
        ("forearm_l", i(115)),
        ("upper_arm_r", i(25)),
        ("forearm_r", i(125)),
        ("thigh_l", i(15)),
        ("shin_l", i(-20)),
        ("thigh_r", i(-10)),
        ("shin_r", i(-15)),
    ];
    let with = |over: &[(&'static str, R)]| -> Vec<(&'static str, R)> {
        let mut out: Vec<(&str, R)> = guard.to_vec();
        for (p, a) in over {
            match out.iter_mut().find(|(q, _)| q == p) {
                Some(e) => e.1 = *a,
                None => out.push((*p, *a)),
            }
        }
        out
    };
    let fist = f(1, 200); // 0.005 m²: a fist's face, ~8 cm across
    let sole = f(1, 100);
    vec![
        MoveDef::new("stance").key(R::ZERO, &with(&[])).key(f(1, 2), &with(&[])),
        MoveDef::new("guard")
            .key(R::ZERO, &with(&[]))
            .key(f(1, 4), &with(&[("chest", i(8)), ("head", i(-5))]))
            .key(f(1, 2), &with(&[])),
        MoveDef::new("jab")
            .key(R::ZERO, &with(&[]))
            .key(f(15, 100), &with(&[("upper_arm_l", i(80)), ("forearm_l", i(20)), ("chest", i(-6))]))
            .key(f(45, 100), &with(&[]))
            .strike(Effector::LeftHand, f(5, 100), f(30, 100), i(7), TargetZone::Head, fist)
            .lunge(f(12, 100)),
        MoveDef::new("cross")
            .key(R::ZERO, &with(&[]))
            .key(f(20, 100), &with(&[("upper_arm_r", i(85)), ("forearm_r", i(10)), ("chest", i(-10))]))
            .key(f(55, 100), &with(&[]))
            .strike(Effector::RightHand, f(8, 100), f(35, 100), i(8), TargetZone::Head, fist)
            .lunge(f(15, 100)),
        MoveDef::new("hook")
            .key(R::ZERO, &with(&[]))
            .key(f(12, 100), &with(&[("upper_arm_l", i(60)), ("forearm_l", i(90))]))
            .key(f(25, 100), &with(&[("upper_arm_l", i(85)), ("forearm_l", i(70)), ("chest", i(-8))]))
            .key(f(55, 100), &with(&[]))
            .strike(Effector::LeftHand, f(12, 100), f(40, 100), i(6), TargetZone::Head, fist)
            .lunge(f(10, 100)),
        MoveDef::new("kick")
            .key(R::ZERO, &with(&[]))
            .key(f(20, 100), &with(&[("thigh_r", i(70)), ("shin_r", i(-60))]))
            .key(f(40, 100), &with(&[("thigh_r", i(80)), ("shin_r", i(-5)), ("torso", i(10))]))
            .key(f(75, 100), &with(&[]))
            .strike(Effector::RightFoot, f(15, 100), f(50, 100), i(7), TargetZone::Torso, sole)
            .lunge(f(5, 100)),
        MoveDef::new("block")
            .key(R::ZERO, &with(&[]))
            .key(
                f(10, 100),
                &with(&[("upper_arm_l", i(60)), ("forearm_l", i(110)), ("upper_arm_r", i(55)), ("forearm_r", i(115))]),
            )
            .key(
                f(60, 100),
                &with(&[("upper_arm_l", i(60)), ("forearm_l", i(110)), ("upper_arm_r", i(55)), ("forearm_r", i(115))]),
            )
            .key(f(70, 100), &with(&[]))
            .blocking(),
        MoveDef::new("hit_react")
            .key(R::ZERO, &with(&[]))
            .key(f(15, 100), &with(&[("head", i(25)), ("chest", i(15)), ("upper_arm_l", i(10)), ("upper_arm_r", i(5))]))
            .key(f(60, 100), &with(&[])),
    ]
}
