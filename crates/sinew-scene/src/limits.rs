//! Limits on what one scene file may ask for, checked before the world is built.
//!
//! Scene files are untrusted input (levels, mods, replays sent over the network): a 10 KB
//! file can ask for 200 ropes of 100,000 segments each, or reel a rope out to 10⁶ m. The
//! counts a file declares — particles, constraints, colliders, the segments of all its
//! ropes (at their longest reel length too) — are added up from the parsed file before
//! anything is allocated, and a file over a limit is rejected with the path of the value
//! that crossed it. What the file does not spell out (a ragdoll's nodes and bones) is
//! counted by the world itself as it is built, against the same limits
//! ([`SceneLimits::world_limits`] becomes the world's [`sinew::Limits`]), again before each
//! allocation; and a reel that runs past them while stepping is an error of that frame.
//!
//! With the defaults, no scene file can make the process use more than a few hundred MB
//! (`tests/suite/limits.rs` measures files under 1 MB).

use crate::SceneError;
use crate::build::err;
use crate::spec::SceneSpec;

/// What one scene may hold. Pass your own to [`crate::load_str_with`] /
/// [`crate::instantiate_with`]; [`crate::load_str`] uses the defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct SceneLimits {
    /// Particles: the file's, the ropes', the ragdolls' nodes. Default 200,000.
    pub particles: usize,
    /// Distances, tethers, bendings, attachments and joint limits, the ragdolls' included
    /// (a rope's own chain counts as rope segments). Default 800,000.
    pub constraints: usize,
    /// Colliders. Default 10,000.
    pub colliders: usize,
    /// Segments of all ropes together, each rope at the longest length its reel
    /// schedule reaches. Default 200,000.
    pub rope_segments: usize,
    /// Longest rest length (m) a reel schedule may ask for. Default 10,000 m.
    pub reel_length: f64,
    /// Largest scene file [`crate::load_file_with`] reads (bytes). Default 16 MiB.
    pub file_bytes: u64,
}

impl Default for SceneLimits {
    fn default() -> Self {
        Self {
            particles: 200_000,
            constraints: 800_000,
            colliders: 10_000,
            rope_segments: 200_000,
            reel_length: 1e4,
            file_bytes: 16 << 20,
        }
    }
}

impl SceneLimits {
    /// The world's limits for a scene under these.
    #[must_use]
    pub fn world_limits(&self) -> sinew::Limits {
        let mut l = sinew::Limits::default();
        l.particles = self.particles;
        l.constraints = self.constraints;
        l.colliders = self.colliders;
        l.rope_segments = self.rope_segments;
        l
    }
}

fn over(path: String, what: &str, count: usize, limit: usize, field: &str) -> SceneError {
    err(path, format!("{count} {what} in the scene exceed its limit of {limit} (SceneLimits::{field})"))
}

/// Segments a rope of the file will have at most: its `segments`, or its polyline's length
/// over `segment_length` (default 5 cm), and as many as its longest reel length needs.
/// Non-finite inputs count as one segment here (the builder rejects them, naming them).
fn planned_segments(r: &crate::spec::RopeSpec) -> f64 {
    let length: f64 =
        r.points.windows(2).map(|w| w[0].iter().zip(&w[1]).map(|(a, b)| (b - a) * (b - a)).sum::<f64>().sqrt()).sum();
    let n = match r.segments {
        Some(n) => n as f64,
        None => (length / r.segment_length.unwrap_or(0.05)).round(),
    };
    let n = if n.is_finite() { n.max(1.0) } else { 1.0 };
    let nominal = length / n;
    let longest = r.reel.iter().flatten().map(|&(_, l)| l).fold(0.0, f64::max);
    let reeled = (longest / nominal).ceil();
    if reeled.is_finite() && nominal > 0.0 { n.max(reeled) } else { n }
}

/// Checks the counts the file declares against `limits` (see the module docs).
pub(crate) fn check(spec: &SceneSpec, limits: &SceneLimits) -> Result<(), SceneError> {
    let n = spec.particles.len();
    if n > limits.particles {
        return Err(over("particles".into(), "particles", n, limits.particles, "particles"));
    }
    let constraints = [
        ("distances", spec.distances.len()),
        ("tethers", spec.tethers.len()),
        ("bendings", spec.bendings.len()),
        ("attachments", spec.attachments.len()),
        ("angle_limits", spec.angle_limits.len()),
        ("swing_twist_limits", spec.swing_twist_limits.len()),
    ];
    let mut total = 0usize;
    for (key, len) in constraints {
        total += len;
        if total > limits.constraints {
            return Err(over(key.into(), "constraints", total, limits.constraints, "constraints"));
        }
    }
    if spec.colliders.len() > limits.colliders {
        return Err(over("colliders".into(), "colliders", spec.colliders.len(), limits.colliders, "colliders"));
    }
    let (mut segments, mut particles) = (0f64, n as f64);
    for (i, r) in spec.ropes.iter().enumerate() {
        let path = format!("ropes[{i}]");
        for (k, &(_, l)) in r.reel.iter().flatten().enumerate() {
            if l > limits.reel_length {
                return Err(err(
                    format!("{path}.reel[{k}][1]"),
                    format!(
                        "reel length {l} m exceeds the limit of {} m (SceneLimits::reel_length)",
                        limits.reel_length
                    ),
                ));
            }
        }
        let s = planned_segments(r);
        segments += s;
        particles += s + 1.0;
        let key = if r.segments.is_some() { "segments" } else { "points" };
        if segments > limits.rope_segments as f64 {
            let what = "rope segments (all ropes, at their longest reel length)";
            return Err(over(format!("{path}.{key}"), what, segments as usize, limits.rope_segments, "rope_segments"));
        }
        if particles > limits.particles as f64 {
            let what = "particles (the file's and the ropes')";
            return Err(over(format!("{path}.{key}"), what, particles as usize, limits.particles, "particles"));
        }
    }
    Ok(())
}

/// The largest magnitude of any number in a fixed-point scene file, 2³⁰: Q32.32 holds up to
/// 2³¹, and a number beyond it would be clamped without a word.
pub(crate) const FIXED_NUMBER_RANGE: f64 = 1_073_741_824.0;

/// For a fixed-point scene: every number in the file within ±[`FIXED_NUMBER_RANGE`] (the
/// builder checks vectors against the tighter coordinate range), else an error naming it.
pub(crate) fn check_fixed_numbers(text: &str) -> Result<(), SceneError> {
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(text) else { return Ok(()) };
    fn walk(v: &serde_json::Value, path: &mut String) -> Result<(), SceneError> {
        match v {
            serde_json::Value::Number(n) => match n.as_f64() {
                Some(x) if x.abs() > FIXED_NUMBER_RANGE => Err(err(
                    path.clone(),
                    format!("{x} is outside ±2³⁰, what fixed point (Q32.32, ±2³¹) holds with margin"),
                )),
                _ => Ok(()),
            },
            serde_json::Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    walk(x, path)?;
                    path.truncate(len);
                }
                Ok(())
            }
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(k);
                    walk(x, path)?;
                    path.truncate(len);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
    walk(&doc, &mut String::new())
}
