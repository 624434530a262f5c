//! The scene's brachiating character: building it from `"brachiator"`, its frame output
//! and its drawing (handholds, branches, the planned arc, the rigs).

use crate::SceneError;
use crate::build::err;
use crate::spec::BrachiatorSpec;
use sinew::brachiation::course::Branch;
use sinew::brachiation::lod::{self, RIG14_BONES, RigDims};
use sinew::brachiation::{Brachiator, BrachiatorDef, Course, CourseDef, Mode};
use sinew::debug_draw::{DebugDraw, DrawKind, Rgba, Style};
use sinew::{Real, Vector2};
use std::fmt::Write as _;

fn finite(path: &str, v: f64) -> Result<f64, SceneError> {
    if v.is_finite() { Ok(v) } else { Err(err(path, "must be a finite number")) }
}

fn point<R: Real>(path: &str, v: &[f64]) -> Result<Vector2<R>, SceneError> {
    if v.len() != 2 {
        return Err(err(path, format!("must be [x, y], got {} numbers", v.len())));
    }
    Ok(Vector2::new(
        R::from_f64(finite(&format!("{path}[0]"), v[0])?),
        R::from_f64(finite(&format!("{path}[1]"), v[1])?),
    ))
}

/// Builds the character from the scene's `"brachiator"` (frames of `dt` seconds).
pub(crate) fn build<R: Real>(spec: &BrachiatorSpec, dt: f64) -> Result<Brachiator<R>, SceneError> {
    let c = &spec.course;
    let course = match (&c.branches, c.length) {
        (Some(_), Some(_)) | (Some(_), None) if c.seed.is_some() => {
            return Err(err("brachiator.course", "give either \"seed\" and \"length\" or \"branches\", not both"));
        }
        (Some(branches), None) => {
            if branches.is_empty() || branches.len() > 10_000 {
                return Err(err("brachiator.course.branches", "must hold 1 to 10000 branches"));
            }
            let mut list = Vec::with_capacity(branches.len());
            for (i, b) in branches.iter().enumerate() {
                let a = point::<R>(&format!("brachiator.course.branches[{i}].from"), &b.from)?;
                let bb = point::<R>(&format!("brachiator.course.branches[{i}].to"), &b.to)?;
                list.push(Branch { a, b: bb });
            }
            let spacing = finite("brachiator.course.spacing", c.spacing.unwrap_or(1.0))?;
            Course::from_branches(&list, R::from_f64(spacing), R::ZERO)
                .map_err(|e| err("brachiator.course", e.to_string()))?
        }
        (None, Some(length)) => {
            let length = finite("brachiator.course.length", length)?;
            if !(length > 0.0 && length <= 10_000.0) {
                return Err(err("brachiator.course.length", "must be in (0, 10000] m"));
            }
            if c.spacing.is_some() {
                return Err(err("brachiator.course.spacing", "applies to explicit branches only"));
            }
            Course::generate(&CourseDef::new(c.seed.unwrap_or(1), R::from_f64(length)))
                .map_err(|e| err("brachiator.course", e.to_string()))?
        }
        (Some(_), Some(_)) => return Err(err("brachiator.course", "give either \"length\" or \"branches\", not both")),
        (None, None) => return Err(err("brachiator.course", "needs \"seed\" and \"length\", or \"branches\"")),
    };
    let mut def = BrachiatorDef::<R>::new(spec.seed.unwrap_or(1));
    def.frame = R::from_f64(dt);
    if let Some(s) = &spec.speed {
        if s.len() != 2 {
            return Err(err("brachiator.speed", "must be [min, max]"));
        }
        let (lo, hi) = (finite("brachiator.speed[0]", s[0])?, finite("brachiator.speed[1]", s[1])?);
        if !(lo > 0.0 && hi > lo && hi <= 50.0) {
            return Err(err("brachiator.speed", "must be 0 < min < max <= 50 m/s"));
        }
        def.planner.speed = [R::from_f64(lo), R::from_f64(hi)];
        def.start_speed = R::from_f64(lo.max(hi.min(3.0)));
    }
    if let Some(a) = spec.arm {
        let a = finite("brachiator.arm", a)?;
        if !(0.2..=3.0).contains(&a) {
            return Err(err("brachiator.arm", "must be in [0.2, 3] m"));
        }
        def.planner.arm = R::from_f64(a);
    }
    def.mode = match spec.planner.as_deref() {
        None | Some("ballistic") => Mode::Ballistic,
        Some("sine") => Mode::Sine,
        Some(other) => {
            return Err(err("brachiator.planner", format!("unknown planner {other:?}: \"ballistic\" or \"sine\"")));
        }
    };
    Brachiator::new(course, def).map_err(|e| err("brachiator", e.to_string()))
}

fn num<R: Real>(out: &mut String, v: R, path: &str) -> Result<(), SceneError> {
    let x = v.to_f64();
    if !x.is_finite() {
        return Err(err(path, "is not finite in the output"));
    }
    let _ = write!(out, "{x}");
    Ok(())
}

fn vec2<R: Real>(out: &mut String, v: Vector2<R>, path: &str) -> Result<(), SceneError> {
    out.push('[');
    num(out, v.x, path)?;
    out.push(',');
    num(out, v.y, path)?;
    out.push(']');
    Ok(())
}

/// Appends `,"brachiator":{...},"grabs":[...]` (the grabs made in the last step).
pub(crate) fn write_json<R: Real>(b: &Brachiator<R>, grabs_before: usize, out: &mut String) -> Result<(), SceneError> {
    out.push_str(",\"brachiator\":{\"com\":");
    vec2(out, b.com(), "brachiator.com")?;
    out.push_str(",\"hands\":[");
    let hands = b.hands();
    vec2(out, hands[0], "brachiator.hands[0]")?;
    out.push(',');
    vec2(out, hands[1], "brachiator.hands[1]")?;
    out.push_str("],\"holding\":[");
    for (k, h) in b.holding().iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        match h {
            Some(i) => {
                let _ = write!(out, "{i}");
            }
            None => out.push_str("null"),
        }
    }
    let _ = write!(out, "],\"phase\":\"{:?}\",\"rig14\":[", b.phase);
    let (_, r14) = lod::chain(b.com(), hands, b.holding().map(|h| h.is_some()), b.com_velocity(), &RigDims::new());
    for (k, p) in r14.points.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        vec2(out, *p, "brachiator.rig14")?;
    }
    out.push_str("]},\"grabs\":[");
    for (k, g) in b.grabs.iter().skip(grabs_before).enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str("{\"time\":");
        num(out, g.time, "grabs.time")?;
        out.push_str(",\"handhold\":");
        vec2(out, g.handhold, "grabs.handhold")?;
        out.push_str(",\"hand\":");
        vec2(out, g.hand, "grabs.hand")?;
        out.push_str(",\"energy_kept\":");
        num(out, g.energy_kept, "grabs.energy_kept")?;
        out.push_str(",\"com_velocity_jump\":");
        num(out, g.com_velocity_jump, "grabs.com_velocity_jump")?;
        out.push('}');
    }
    out.push(']');
    Ok(())
}

fn p3<R: Real>(v: Vector2<R>) -> [f64; 3] {
    [v.x.to_f64(), v.y.to_f64(), 0.0]
}

/// Draws the course near the character, the planned arc and the rigs.
pub(crate) fn draw<R: Real>(b: &Brachiator<R>, out: &mut dyn DebugDraw) {
    let c = b.com();
    let near = |x: R| (x - c.x).abs().to_f64() < 12.0;
    let branch = Style::new(DrawKind::Collider, Rgba::new(110, 80, 50, 255));
    for br in b.course.branches.iter().filter(|br| near(br.a.x) || near(br.b.x)) {
        out.segment(p3(br.a), p3(br.b), &branch);
    }
    let hold = Style::new(DrawKind::PinnedParticle, Rgba::new(40, 120, 40, 255));
    let vine = Style::new(DrawKind::Tether, Rgba::new(60, 140, 60, 255));
    for (i, h) in b.course.handholds.iter().enumerate().filter(|(_, h)| near(h.position.x)) {
        // A vine is a rope of the character's world: drawn through its particles.
        let rope = b.vines.get(i).copied().flatten().and_then(|r| b.rig.world.rope(r).ok());
        if let Some(rope) = rope {
            let ps = b.rig.world.particles();
            let pts: Vec<_> = rope.particles().iter().filter_map(|&p| ps.position(p)).collect();
            for w in pts.windows(2) {
                out.segment(p3(w[0]), p3(w[1]), &vine);
            }
        } else if h.top != h.position {
            out.segment(p3(h.top), p3(h.position), &vine);
        }
        out.circle(p3(b.handhold_position(i)), 0.04, &hold);
    }
    let arc = Style::new(DrawKind::Tether, Rgba::new(40, 90, 200, 255));
    let pts = b.planned_arc(24);
    for w in pts.windows(2) {
        out.segment(p3(w[0]), p3(w[1]), &arc);
    }
    let hands = b.hands();
    let (r5, r14) = lod::chain(c, hands, b.holding().map(|h| h.is_some()), b.com_velocity(), &RigDims::new());
    let bone = Style::new(DrawKind::Distance, Rgba::new(60, 45, 35, 255));
    for (i, j) in RIG14_BONES {
        out.segment(p3(r14.points[i]), p3(r14.points[j]), &bone);
    }
    out.circle(p3(r14.points[0]), 0.07, &bone);
    let five = Style::new(DrawKind::Distance, Rgba::new(200, 60, 60, 160));
    for k in 0..2 {
        out.segment(p3(r5.body), p3(r5.shoulders[k]), &five);
    }
    let com = Style::new(DrawKind::Particle, Rgba::new(200, 40, 40, 255)).with_fill(Rgba::new(200, 40, 40, 255));
    out.circle(p3(c), 0.05, &com);
}
