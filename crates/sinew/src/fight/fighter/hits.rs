//! A strike's touch on the opponent after the step, and the tables it reads: which drive
//! part each bone belongs to, and which bones make up each limb.
//!
//! The striking effector's sphere is swept along its motion of the frame (from where it
//! was before the step to where it is after) against the opponent's forearms, head and
//! torso capsules and, when the bodies collide, every bone (the strike stopped at the
//! first one it met, `fight/stop.rs`); the first touch is the hit, and the
//! [impact model](mod@crate::fight::impact) gives its impulse (see the parent module).

use crate::SinewError;
use crate::math::{Real, Vector};
use crate::particle::ParticleHandle;
use crate::ragdoll::PoseDriveHandle;
use crate::space::{RealOf, VecOf};
use crate::world::World;

use super::super::FightSpace;
use super::super::impact::impact;
use super::super::moves::TargetZone;
use super::super::stop::Bone;
use super::super::strike::{SweepHit, sweep_capsule};
use super::{Bout, HitEvent, LimbNodes, bad, limb_of, opponent, release, strike_goal};

/// A capsule of the opponent: drive part, segment ends, radius, whether it blocks.
type Capsule<S> = (u32, VecOf<S>, VecOf<S>, RealOf<S>, bool);

/// The first touch: where, the part, whether blocked.
type FirstTouch<S> = (SweepHit<RealOf<S>, VecOf<S>>, u32, bool);

/// The drive part of each bone and whether it is an arm's; the colliding bones of each
/// limb (those of its upper and lower parts, `upper_arm_*`/`forearm_*` or
/// `thigh_*`/`shin_*`; without such parts, the bones among its three joints).
#[allow(clippy::type_complexity)]
pub(super) fn bone_tables<S: FightSpace>(
    world: &World<S>,
    drive: PoseDriveHandle<S>,
    nodes: &[ParticleHandle],
    bones: &[Bone<RealOf<S>>],
    limbs: &[LimbNodes<RealOf<S>>; 4],
) -> Result<(Vec<(u32, bool)>, [Vec<Bone<RealOf<S>>>; 4]), SinewError> {
    let d = world.controller(drive)?;
    let handle = |k: u32| nodes[k as usize];
    let count = (0..).take_while(|&k| d.part_name(k).is_some()).count();
    let mut parts = Vec::with_capacity(bones.len());
    for &([a, b], _) in bones {
        let (ha, hb) = (handle(a), handle(b));
        let mut found = (u32::MAX, false);
        for k in 0..count {
            let ns = d.part_nodes(k)?;
            if ns.contains(&ha) && ns.contains(&hb) {
                let name = d.part_name(k).unwrap_or("");
                let arm = name.starts_with("forearm_") || name.starts_with("upper_arm_");
                found = (u32::try_from(k).map_err(|_| bad("drive", "too many parts"))?, arm);
                break;
            }
        }
        parts.push(found);
    }
    let mut chains: [Vec<Bone<RealOf<S>>>; 4] = Default::default();
    for (i, limb) in limbs.iter().enumerate() {
        let side = if i % 2 == 0 { "l" } else { "r" };
        let names = if i < 2 { ["upper_arm_", "forearm_"] } else { ["thigh_", "shin_"] };
        let mut set: Vec<ParticleHandle> = Vec::new();
        for n in names {
            if let Some(k) = d.part_index(&format!("{n}{side}")) {
                set.extend_from_slice(d.part_nodes(k)?);
            }
        }
        if set.is_empty() {
            set = [limb.root, limb.mid, limb.end].iter().map(|&k| handle(k)).collect();
        }
        chains[i] = bones
            .iter()
            .copied()
            .filter(|([a, b], _)| set.contains(&handle(*a)) && set.contains(&handle(*b)))
            .collect();
    }
    Ok((parts, chains))
}

/// Fighter `i`'s strike touching the opponent in the frame's step (its effector was at
/// `from` before it): the hit, its impulse and the target's reaction (see the module docs).
pub(super) fn detect<S: FightSpace>(
    world: &mut World<S>,
    bout: &mut Bout<S>,
    i: usize,
    from: VecOf<S>,
    dt: RealOf<S>,
) -> Result<(), SinewError> {
    let f = &bout.fighters[i];
    if !f.striking || f.struck {
        return Ok(());
    }
    let Some(m) = bout.def.moves.get(f.current as usize) else { return Ok(()) };
    let Some(s) = m.strike else { return Ok(()) };
    let o = opponent(world, &bout.fighters, i);
    let limb = f.limbs[limb_of(s.effector)];
    let ps = world.particles();
    let eh = f.nodes[limb.end as usize];
    let to = ps.pos[eh.index()];
    let fo = &bout.fighters[o];
    let q = |k: u32| ps.pos[fo.nodes[k as usize].index()];
    let od = world.controller(fo.drive)?;
    let name = |n: &str| od.part_index(n).and_then(|k| u32::try_from(k).ok());
    // Capsules: forearms (blocks), head, torso.
    let mut caps: Vec<Capsule<S>> = Vec::new();
    for (k, part) in [(0usize, "forearm_l"), (1, "forearm_r")] {
        let l = fo.limbs[k];
        if let Some(pi) = name(part) {
            caps.push((pi, q(l.mid), q(l.end), l.radius, true));
        }
    }
    if let Some(pi) = name("head") {
        caps.push((pi, q(fo.head[1]), q(fo.head[0]), fo.head_radius, false));
    }
    if let Some(pi) = name("chest") {
        caps.push((pi, q(fo.head[2]), q(fo.head[1]), fo.torso_radius, false));
    }
    if bout.def.collide == Some(true) {
        // Colliding bodies: the strike stops at the first bone it meets (`stop.rs`), so
        // every bone is a target (an arm's blocks), at the radius the stop uses.
        for (&([a, b], [ra, rb]), &(pi, block)) in fo.bones.iter().zip(&fo.bone_parts) {
            if pi != u32::MAX {
                caps.push((pi, q(a), q(b), ra.min(rb), block));
            }
        }
    }
    let mut first: Option<FirstTouch<S>> = None;
    for (pi, a, b, r, block) in caps {
        if let Some(h) = sweep_capsule(from, to, limb.radius, a, b, r) {
            if first.as_ref().is_none_or(|(g, _, _)| h.t < g.t) {
                first = Some((h, pi, block));
            }
        }
    }
    let v = (to - from) / dt;
    let Some((hit, part, blocked)) = first else {
        bout.fighters[i].prev_vel = v;
        return Ok(());
    };
    // Impact.
    let nodes = od.part_nodes(part as usize)?.to_vec();
    let mass = |hs: &[ParticleHandle]| hs.iter().fold(RealOf::<S>::ZERO, |acc, h| acc + ps.mass[h.index()]);
    let mut vt = VecOf::<S>::ZERO;
    for h in &nodes {
        vt += ps.vel[h.index()];
    }
    vt = vt / RealOf::<S>::from_i32(i32::try_from(nodes.len().max(1)).unwrap_or(1));
    let fd = world.controller(f.drive)?;
    let lower = if s.effector.is_hand() { "forearm_" } else { "shin_" };
    let lower = format!("{lower}{}", s.effector.side());
    let striker = fd.part_index(&lower).and_then(|k| fd.part_nodes(k).ok()).map_or(RealOf::<S>::ONE, mass);
    let struck = mass(&nodes);
    let n = hit.normal;
    let speed = -(v - vt).dot(n);
    let accel = -((v - f.prev_vel) / dt).dot(n);
    let imp = impact(&bout.def.impact, striker, struck, speed, accel, s.area, s.impulse)?;
    if !(imp.impulse > RealOf::<S>::ZERO) {
        // A touch without approach (the target moving away as fast): no blow.
        bout.fighters[i].prev_vel = v;
        return Ok(());
    }
    let (mut aim, mut along, mut miss) = (f.aim.along, RealOf::<S>::ZERO, RealOf::<S>::ZERO);
    if s.zone == TargetZone::Head && !blocked {
        if let Some((_, _, Some(hf))) = strike_goal(world, &bout.def, f, fo, s.zone, &limb, dt) {
            let p = hf.point(f.aim);
            along = hf.along(hit.point);
            miss = (hit.point - p).length();
        }
    } else {
        aim = RealOf::<S>::ZERO;
    }
    let target_drive = fo.drive;
    target_drive.hit(world, part as usize, hit.point, n * (-imp.impulse))?;
    bout.hits.push(HitEvent {
        attacker: u32::try_from(i).unwrap_or(u32::MAX),
        target: u32::try_from(o).unwrap_or(u32::MAX),
        part,
        zone: s.zone,
        blocked,
        point: hit.point,
        impulse: imp.impulse,
        force: imp.force,
        speed,
        aim,
        along,
        miss,
    });
    let f = &mut bout.fighters[i];
    f.struck = true;
    f.prev_vel = v;
    release(world, f)?;
    let fo = &mut bout.fighters[o];
    fo.damage += if blocked { imp.impulse * RealOf::<S>::from_ratio(1, 4) } else { imp.impulse };
    if fo.damage >= fo.ko_threshold {
        fo.drive.knock_out(world)?;
    } else if !blocked {
        if let Some(k) = bout.def.moves.iter().position(|m| m.name == "hit_react") {
            let fo = &mut bout.fighters[o];
            release(world, fo)?;
            fo.current = u32::try_from(k).unwrap_or(0);
            fo.frame = 0;
            fo.striking = false;
            fo.struck = false;
        }
    }
    Ok(())
}
