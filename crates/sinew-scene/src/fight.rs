//! The `fighters` and `fight_moves` keys: fighters as [`sinew::fight::Bout`]s (see
//! `docs/SCENE_FORMAT.md`).

use crate::build::{err, finite, non_negative, positive, sinew_err, vector};
use crate::spec::{MoveSpec, MovesSpec, SceneSpec};
use crate::{SceneError, SceneSpace};
use sinew::fight::moves::Keyframe;
use sinew::fight::{Bout, BoutDef, BoutHandle, Effector, FighterDef, MoveDef, MoveList, TargetZone};
use sinew::{ParticleHandle, Real, RealOf, World};

/// At most this many fighters and library moves in one scene.
pub(crate) const MAX_FIGHTERS: usize = 16;
/// Moves a scene may add.
pub(crate) const MAX_MOVES: usize = 256;
/// Keyframes per move and parts per keyframe.
pub(crate) const MAX_KEYS: usize = 256;

/// A move of the file as core data.
fn move_def<R: Real>(path: &str, m: &MoveSpec) -> Result<MoveDef<R>, SceneError> {
    let mut d = MoveDef::<R>::new(m.name.clone());
    if m.keys.len() > MAX_KEYS {
        return Err(err(format!("{path}.keys"), format!("has more than {MAX_KEYS} keyframes")));
    }
    for (i, k) in m.keys.iter().enumerate() {
        let kp = format!("{path}.keys[{i}]");
        if k.targets.len() > MAX_KEYS {
            return Err(err(format!("{kp}.targets"), format!("has more than {MAX_KEYS} parts")));
        }
        let mut parts = Vec::with_capacity(k.targets.len());
        let mut angles = Vec::with_capacity(k.targets.len());
        for (name, a) in &k.targets {
            parts.push(name.clone());
            angles.push(R::from_f64(finite(&format!("{kp}.targets.{name}"), *a)?.to_radians()));
        }
        d.keys.push(Keyframe { time: R::from_f64(non_negative(&format!("{kp}.t"), k.t)?), parts, angles });
    }
    if let Some(s) = &m.strike {
        let sp = format!("{path}.strike");
        let effector = Effector::from_name(&s.effector)
            .ok_or_else(|| err(format!("{sp}.effector"), "must be \"hand_l\", \"hand_r\", \"foot_l\" or \"foot_r\""))?;
        if s.window.len() != 2 {
            return Err(err(format!("{sp}.window"), "must be [from, to] in seconds"));
        }
        let from = non_negative(&format!("{sp}.window[0]"), s.window[0])?;
        let to = positive(&format!("{sp}.window[1]"), s.window[1])?;
        let zone = match s.zone.as_deref().unwrap_or("head") {
            "head" => TargetZone::Head,
            "torso" => TargetZone::Torso,
            _ => return Err(err(format!("{sp}.zone"), "must be \"head\" or \"torso\"")),
        };
        let speed = positive(&format!("{sp}.speed"), s.speed)?;
        let area = positive(&format!("{sp}.area"), s.area.unwrap_or(0.005))?;
        d = d.strike(effector, R::from_f64(from), R::from_f64(to), R::from_f64(speed), zone, R::from_f64(area));
        if let Some(j) = s.impulse {
            d = d.authored_impulse(R::from_f64(non_negative(&format!("{sp}.impulse"), j)?));
        }
    }
    if m.blocking == Some(true) {
        d = d.blocking();
    }
    if let Some(l) = m.lunge {
        d = d.lunge(R::from_f64(finite(&format!("{path}.lunge"), l)?));
    }
    d.validate().map_err(|e| sinew_err(path, e))?;
    Ok(d)
}

/// A built bout and each fighter's particles.
pub(crate) type Fighters<S> = (BoutHandle<S>, Vec<Vec<ParticleHandle>>);

/// Builds the file's fighters (if any) into `world`; returns the bout and each fighter's
/// particles (rig order), which the caller numbers after the ragdolls'.
pub(crate) fn add_fighters<S: SceneSpace>(
    spec: &SceneSpec,
    world: &mut World<S>,
) -> Result<Option<Fighters<S>>, SceneError> {
    if spec.fighters.is_empty() {
        if !spec.fight_moves.is_empty() {
            return Err(err("fight_moves", "given without fighters"));
        }
        return Ok(None);
    }
    if spec.fighters.len() < 2 {
        return Err(err("fighters", "a bout needs at least two fighters"));
    }
    if spec.fighters.len() > MAX_FIGHTERS {
        return Err(err("fighters", format!("more than {MAX_FIGHTERS} fighters")));
    }
    if spec.fight_moves.len() > MAX_MOVES {
        return Err(err("fight_moves", format!("more than {MAX_MOVES} moves")));
    }
    let mut def = BoutDef::<RealOf<S>>::default();
    for (i, m) in spec.fight_moves.iter().enumerate() {
        let d = move_def::<RealOf<S>>(&format!("fight_moves[{i}]"), m)?;
        match def.moves.iter_mut().find(|o| o.name == d.name) {
            Some(o) => *o = d,
            None => def.moves.push(d),
        }
    }
    let mut defs = Vec::with_capacity(spec.fighters.len());
    for (k, f) in spec.fighters.iter().enumerate() {
        let path = format!("fighters[{k}]");
        let (rig, parts) = S::fighter_rig(&format!("{path}.rig"), &f.rig)?;
        let origin = vector::<S>(&format!("{path}.origin"), &f.origin)?;
        let facing = vector::<S>(&format!("{path}.facing"), &f.facing)?;
        let mut d = FighterDef::new(rig, parts, origin, facing);
        d.moves = match &f.moves {
            None => MoveList::Random(k as u64 + 1),
            Some(MovesSpec::Random(r)) => MoveList::Random(r.random),
            Some(MovesSpec::Script(names)) => {
                for (i, n) in names.iter().enumerate() {
                    if !def.moves.iter().any(|m| &m.name == n) {
                        let known: Vec<&str> = def.moves.iter().map(|m| m.name.as_str()).collect();
                        return Err(err(
                            format!("{path}.moves[{i}]"),
                            format!("unknown move {n:?} (known: {})", known.join(", ")),
                        ));
                    }
                }
                if names.is_empty() {
                    return Err(err(format!("{path}.moves"), "is empty"));
                }
                MoveList::Scripted(names.clone())
            }
        };
        if let Some(j) = f.ko_threshold {
            d.ko_threshold = RealOf::<S>::from_f64(positive(&format!("{path}.ko_threshold"), j)?);
        }
        defs.push(d);
    }
    def.collide = spec.fight_collide;
    let h = Bout::add(world, &defs, def, spec.fight_seed.unwrap_or(1)).map_err(|e| sinew_err("fighters", e))?;
    let b = world.controller(h).map_err(|e| sinew_err("fighters", e))?;
    let mut nodes = Vec::with_capacity(defs.len());
    for k in 0..b.fighter_count() {
        nodes.push(b.nodes(k).map_err(|e| sinew_err("fighters", e))?.to_vec());
    }
    Ok(Some((h, nodes)))
}
