//! The ballistic planner: from the current swing, choose the release angle, the next
//! handhold and the grab angle so that the flight of the centre of mass ends at arm's
//! length from the handhold with its velocity perpendicular to the arm.
//!
//! # The flight condition
//!
//! Released at angle `θ` of a swing on handhold `h₀` (arm `L`), the centre of mass
//! leaves `c₀ = h₀ + L (sin θ, −cos θ)` along the tangent `(cos θ, sin θ)` with speed
//! `s`. To be caught by the arm on `h₁` at angle `β`, the parabola must pass through
//! `q = h₁ + L (sin β, −cos β)` travelling along `(cos β, sin β)`. A parabola
//! `y = y₀ + x tan θ − g x² / (2 s² cos² θ)` between two points `X, Y` apart has end
//! slopes whose mean is the chord's slope: `tan θ + tan β_arrival = 2 Y / X`. So
//!
//! ```text
//! F(θ) = tan θ + tan β − 2 Y(θ) / X(θ) = 0,     X = q_x − c₀_x(θ),  Y = q_y − c₀_y(θ)
//! F'(θ) = 1 / cos² θ − 2 L (Y cos θ − X sin θ) / X²
//! s² = g X² / (2 cos θ (X sin θ − Y cos θ)),    T = X / (s cos θ)
//! ```
//!
//! Newton's method on `F` from the chord's own estimate `θ₀ = atan(2Y/X − tan β)` (taken
//! at the middle of the release window) converges in a few steps because `c₀` moves
//! little with `θ` against the flight's length. The residual is reported in metres as
//! `L |sin φ|`, with `φ` the angle between the arrival velocity and the perpendicular to
//! the grab arm (the first-order distance by which the parabola cuts the arm's circle
//! instead of touching it). A parabola tangent to the circle below its centre stays
//! outside it (it is concave and the circle lies on the other side of the shared
//! tangent), so the arm never has to be shorter than `L` during the flight.
//!
//! # Sampling and scoring
//!
//! For each handhold ahead (up to `lookahead`, within `reach`), grab angles `β` are drawn
//! stratified over `grab_angle` with the seeded integer RNG; each gives one release
//! angle by Newton, and so one launch speed, one average speed and one effort. A
//! candidate is kept when the release lies ahead on the forward swing and below
//! `max_release`, the launch is possible (`X sin θ > Y cos θ`), every speed over the swing
//! and the flight lies in `[min, max]` and the effort — the specific energy added or
//! removed over the swing, `½ s² − ½ s_nat(θ)²` with `s_nat` the pendulum's own speed at
//! `θ` — stays within `max_effort`. The score adds the arc's height over the higher end,
//! the momentum change over the swing (`|v_release − v_grab|`), the effort, the distance
//! of the average speed from the middle of the range and of `β` from the preferred grab
//! angle, minus a reward for progress. With no candidate kept the planner returns
//! [`NoPlan`] and the caller keeps swinging: a plan is never invented.

use super::rng::BrachRng;
use crate::math::{Real, Vector, Vector2};

/// Planner parameters (SI units, angles in radians).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlannerDef<R: Real> {
    /// Arm length `L`: handhold to centre of mass (m).
    pub arm: R,
    /// Gravity's magnitude (m/s²).
    pub gravity: R,
    /// Speed range `[min, max]` the centre of mass must stay in (m/s).
    pub speed: [R; 2],
    /// Largest specific energy the character adds or removes in one swing (J/kg).
    pub max_effort: R,
    /// Grab angles sampled per handhold.
    pub samples: u32,
    /// Newton iterations at most.
    pub iterations: u32,
    /// Range of grab angles `β` (arm from straight down, positive forward).
    pub grab_angle: [R; 2],
    /// Preferred grab angle.
    pub preferred_grab: R,
    /// Latest release angle.
    pub max_release: R,
    /// Handholds ahead considered.
    pub lookahead: usize,
    /// Largest horizontal distance to a handhold considered (m).
    pub reach: R,
    /// Residual under which a plan counts as converged (m).
    pub tolerance: R,
}

impl<R: Real> PlannerDef<R> {
    /// Defaults for a gibbon-sized character: arm 0.7 m, speeds 1.5–9 m/s, effort up to
    /// 3 J/kg a swing, 12 grab angles in −70°..20°, release by 80°, 10 Newton steps, 1 mm.
    #[must_use]
    pub fn new() -> Self {
        let f = R::from_f64;
        Self {
            arm: f(0.7),
            gravity: f(9.81),
            speed: [f(1.5), f(9.0)],
            max_effort: f(8.0),
            samples: 16,
            iterations: 10,
            grab_angle: [f(-75.0f64.to_radians()), f(45.0f64.to_radians())],
            preferred_grab: f(-30.0f64.to_radians()),
            max_release: f(80.0f64.to_radians()),
            lookahead: 3,
            reach: f(4.0),
            tolerance: f(1e-3),
        }
    }
}

impl<R: Real> Default for PlannerDef<R> {
    fn default() -> Self {
        Self::new()
    }
}

/// The swing a plan starts from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwingState<R: Real> {
    /// The held handhold.
    pub handhold: Vector2<R>,
    /// The arm's angle from straight down, positive forward (rad).
    pub angle: R,
    /// Tangential speed, positive forward (m/s).
    pub speed: R,
    /// The swing's radius: pivot to centre of mass (m); the arm `L` on a branch, the vine
    /// plus the arm on a vine (see [`super::vine`]).
    pub radius: R,
}

impl<R: Real> SwingState<R> {
    /// A swing on a branch handhold (radius: the arm).
    #[must_use]
    pub fn on_branch(handhold: Vector2<R>, angle: R, speed: R, def: &PlannerDef<R>) -> Self {
        Self { handhold, angle, speed, radius: def.arm }
    }
}

/// A handhold as the planner sees it: the pivot the next swing turns about, the radius of
/// that swing, and for a vine the one grab angle that keeps the vine and the arm in line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target<R: Real> {
    /// Branch: the handhold. Vine: where the vine hangs from.
    pub pivot: Vector2<R>,
    /// Pivot to centre of mass at the grab (m): the arm, or the vine plus the arm.
    pub radius: R,
    /// The only grab angle allowed (a vine hanging at rest: 0, straight below it).
    pub grab_angle: Option<R>,
}

impl<R: Real> Target<R> {
    /// A branch handhold at `p` for an arm of `def.arm`.
    #[must_use]
    pub fn branch(p: Vector2<R>, def: &PlannerDef<R>) -> Self {
        Self { pivot: p, radius: def.arm, grab_angle: None }
    }
}

/// A planned swing, release, flight and grab.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan<R: Real> {
    /// Index of the handhold to grab (into the candidates' list given).
    pub target: usize,
    /// Its pivot (the handhold, or a vine's top).
    pub handhold: Vector2<R>,
    /// Radius of the swing released from (m).
    pub swing_radius: R,
    /// Radius of the swing after the grab, pivot to centre of mass (m).
    pub grab_radius: R,
    /// Release angle `θ` (rad).
    pub release_angle: R,
    /// Launch speed `s` (m/s).
    pub release_speed: R,
    /// Grab angle `β` (rad).
    pub grab_angle: R,
    /// Centre of mass at the grab, `h₁ + L (sin β, −cos β)`.
    pub grab_point: Vector2<R>,
    /// Speed at the grab (m/s).
    pub grab_speed: R,
    /// Flight time (s).
    pub flight_time: R,
    /// Specific energy the character adds over the swing (J/kg; negative: removes).
    pub effort: R,
    /// `L |sin φ|` at the end (m), see the module docs.
    pub residual: R,
    /// Newton iterations until the residual fell under the tolerance (or all of them).
    pub iterations: u32,
    /// Lowest and highest speed over the swing and the flight (m/s).
    pub speed_range: [R; 2],
    /// Apex of the flight above the higher of its ends (m).
    pub arc_height: R,
    /// The score (lower is better).
    pub score: R,
}

/// Why no plan exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoPlan {
    /// No handhold ahead within reach.
    NoHandholdAhead,
    /// Handholds ahead, but no release on this swing reaches one (too far, too high,
    /// behind the swing).
    Unreachable,
    /// Flights exist but each needs a speed outside `[min, max]` or more effort than
    /// allowed.
    OutOfBounds,
}

/// A launch from a given point and direction to a handhold (the release's re-solve).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Launch<R: Real> {
    /// Launch velocity of the exact parabola.
    pub velocity: Vector2<R>,
    /// Grab angle `β`.
    pub grab_angle: R,
    /// Centre of mass at the grab.
    pub grab_point: Vector2<R>,
    /// Flight time.
    pub flight_time: R,
    /// Newton iterations used.
    pub iterations: u32,
    /// Residual (m).
    pub residual: R,
}

fn dir<R: Real>(a: R) -> Vector2<R> {
    Vector2::new(a.cos(), a.sin())
}

fn down<R: Real>(a: R) -> Vector2<R> {
    Vector2::new(a.sin(), -a.cos())
}

/// `L |sin φ|` for arrival slope `m` against the wanted direction at angle `beta`.
fn residual_of<R: Real>(m: R, beta: R, arm: R) -> R {
    // Arrival direction (1, m) against (cos β, sin β): sin φ = cross / |(1, m)|.
    let cross = beta.sin() - m * beta.cos();
    let n = (R::ONE + m * m).sqrt();
    arm * cross.abs() / n
}

/// Launch speed and flight time from `c0` along angle `theta` through `q`, or `None`
/// when no parabola does it.
fn speed_time<R: Real>(c0: Vector2<R>, theta: R, q: Vector2<R>, g: R) -> Option<(R, R)> {
    let (x, y) = (q.x - c0.x, q.y - c0.y);
    let (s, c) = (theta.sin(), theta.cos());
    let den = R::TWO * c * (x * s - y * c);
    if !(x > R::from_f64(1e-3)) || !(c > R::from_f64(1e-3)) || !(den > R::from_f64(1e-6)) {
        return None;
    }
    let speed = (g * x * x / den).sqrt();
    let t = x / (speed * c);
    (speed.is_finite() && t.is_finite()).then_some((speed, t))
}

/// Newton on the release angle for grab angle `beta` (see the module docs):
/// `(θ, iterations to tolerance, residual)`.
#[allow(clippy::too_many_arguments)]
fn solve_release<R: Real>(
    (h0, l): (Vector2<R>, R),
    (h1, r1): (Vector2<R>, R),
    beta: R,
    def: &PlannerDef<R>,
    lo: R,
    hi: R,
) -> Option<(R, u32, R)> {
    let q = h1 + down(beta) * r1;
    let tb = beta.sin() / beta.cos();
    let eval = |th: R| {
        let (s, c) = (th.sin(), th.cos());
        let x = q.x - h0.x - l * s;
        let y = q.y - h0.y + l * c;
        (s, c, x, y)
    };
    // Chord estimate at the middle of the window.
    let mid = (lo + hi) * R::HALF;
    let (_, _, x, y) = eval(mid);
    if !(x > R::from_f64(1e-3)) {
        return None;
    }
    let m0 = R::TWO * y / x - tb;
    let mut th = m0.atan2(R::ONE).clamp(lo, hi);
    let mut reached = None;
    let mut res = R::MAX;
    for k in 0..def.iterations.max(1) {
        let (s, c, x, y) = eval(th);
        if !(x > R::from_f64(1e-3)) || !(c > R::from_f64(1e-3)) {
            return None;
        }
        let m = R::TWO * y / x - s / c; // arrival slope
        res = residual_of(m, beta, r1);
        if res < def.tolerance && reached.is_none() {
            reached = Some(k);
        }
        if res < R::from_f64(1e-7) {
            break;
        }
        let f = s / c + tb - R::TWO * y / x;
        let df = R::ONE / (c * c) - R::TWO * l * (y * c - x * s) / (x * x);
        if !(df.abs() > R::from_f64(1e-9)) {
            break;
        }
        th = (th - f / df).clamp(lo, hi);
    }
    let (s, c, x, y) = eval(th);
    if !(x > R::from_f64(1e-3)) || !(c > R::from_f64(1e-3)) {
        return None;
    }
    let final_res = residual_of(R::TWO * y / x - s / c, beta, r1);
    if final_res < res {
        res = final_res;
    }
    let iters = reached.map_or(def.iterations, |k| k);
    (res < def.tolerance).then_some((th, iters.max(1), res))
}

/// Plans the next swing from `state` to one of `handholds` (positions ahead, in course
/// order; the plan's `target` indexes this slice), drawing grab angles from `rng`.
///
/// # Errors
/// [`NoPlan`] when no candidate passes (see the module docs).
pub fn plan<R: Real>(
    state: &SwingState<R>,
    handholds: &[Vector2<R>],
    def: &PlannerDef<R>,
    rng: &mut BrachRng,
) -> Result<Plan<R>, NoPlan> {
    let targets: Vec<Target<R>> = handholds.iter().map(|&p| Target::branch(p, def)).collect();
    plan_depth(state, &targets, def, rng, true)
}

/// [`plan`] to targets of any kind (branch handholds and vines).
///
/// # Errors
/// [`NoPlan`] when no candidate passes (see the module docs).
pub fn plan_to<R: Real>(
    state: &SwingState<R>,
    targets: &[Target<R>],
    def: &PlannerDef<R>,
    rng: &mut BrachRng,
) -> Result<Plan<R>, NoPlan> {
    plan_depth(state, targets, def, rng, true)
}

fn plan_depth<R: Real>(
    state: &SwingState<R>,
    handholds: &[Target<R>],
    def: &PlannerDef<R>,
    rng: &mut BrachRng,
    look: bool,
) -> Result<Plan<R>, NoPlan> {
    let g = def.gravity;
    let l = state.radius;
    let h0 = state.handhold;
    let margin = R::from_f64(0.02);
    let lo = state.angle + margin;
    let hi = def.max_release;
    let mut best: Option<Plan<R>> = None;
    let mut any_ahead = false;
    let mut any_flight = false;
    let e0 = state.speed * state.speed * R::HALF - g * l * state.angle.cos();
    let v_grab = dir(state.angle) * state.speed;
    let n = def.samples.max(1);
    for (i, tg) in handholds.iter().enumerate().take(def.lookahead.max(1)) {
        let (h1, r1) = (tg.pivot, tg.radius);
        let dx = h1.x - h0.x;
        if !(dx > R::from_f64(0.2)) || dx > def.reach {
            continue;
        }
        any_ahead = true;
        if !(lo < hi) {
            continue;
        }
        let n = if tg.grab_angle.is_some() { 1 } else { n };
        for k in 0..n {
            let u = rng.unit::<R>();
            let t = (R::from_i32(k as i32) + u) / R::from_i32(n as i32);
            let beta = tg.grab_angle.unwrap_or(def.grab_angle[0] + (def.grab_angle[1] - def.grab_angle[0]) * t);
            let Some((th, iters, res)) = solve_release((h0, l), (h1, r1), beta, def, lo, hi) else { continue };
            if !(th > lo - R::from_f64(1e-9)) || th > hi {
                continue;
            }
            let c0 = h0 + down(th) * l;
            let q = h1 + down(beta) * r1;
            let Some((s, t_f)) = speed_time(c0, th, q, g) else { continue };
            any_flight = true;
            // Effort: launch energy against the pendulum's own at θ.
            let e_nat = e0 + g * l * th.cos(); // ½ s_nat²
            let effort = s * s * R::HALF - e_nat;
            if effort.abs() > def.max_effort {
                continue;
            }
            // Speeds over the swing (energy ramped linearly in angle) and the flight.
            let mut smin = R::MAX;
            let mut smax = R::ZERO;
            let span = th - state.angle;
            for j in 0..=8 {
                let a = state.angle + span * R::from_i32(j) / R::from_i32(8);
                let frac = R::from_i32(j) / R::from_i32(8);
                let e = e0 + effort * frac + g * l * a.cos();
                let sp = (e * R::TWO).max(R::ZERO).sqrt();
                smin = smin.min(sp);
                smax = smax.max(sp);
            }
            if state.angle < R::ZERO && th > R::ZERO {
                let frac = -state.angle / span;
                let e = e0 + effort * frac + g * l;
                smax = smax.max((e * R::TWO).max(R::ZERO).sqrt());
            }
            let (x, y) = (q.x - c0.x, q.y - c0.y);
            let s_arr = (s * s - R::TWO * g * y).max(R::ZERO).sqrt();
            let vy0 = s * th.sin();
            let mut arc = R::ZERO;
            smin = smin.min(s_arr);
            smax = smax.max(s_arr).max(s);
            if vy0 > R::ZERO && vy0 / g < t_f {
                smin = smin.min(s * th.cos());
                let apex = c0.y + vy0 * vy0 / (R::TWO * g);
                arc = apex - c0.y.max(q.y);
            }
            if smin < def.speed[0] || smax > def.speed[1] {
                continue;
            }
            let v_rel = dir(th) * s;
            let momentum = (v_rel - v_grab).length();
            // One swing ahead: can the next handhold be planned from this grab?
            let mut next_cost = R::ZERO;
            if look {
                if let Some(&h2) = handholds.get(i + 1) {
                    let after = SwingState { handhold: h1, angle: beta, speed: s_arr, radius: r1 };
                    let inner = PlannerDef { samples: (def.samples / 2).max(4), ..*def };
                    next_cost = match plan_depth(&after, &[h2], &inner, rng, false) {
                        Ok(p2) => p2.effort.abs() * R::from_f64(0.3),
                        Err(_) => R::from_i32(100),
                    };
                }
            }
            let mean = (x * x + y * y).sqrt() / t_f;
            let pref = (def.speed[0] + def.speed[1]) * R::HALF;
            let score = arc.max(R::ZERO)
                + momentum * R::from_f64(0.1)
                + effort.abs() * R::from_f64(0.3)
                + (mean - pref).abs() * R::from_f64(0.1)
                + (beta - def.preferred_grab).abs()
                - dx * R::from_f64(0.05)
                + next_cost;
            let candidate = Plan {
                target: i,
                handhold: h1,
                swing_radius: l,
                grab_radius: r1,
                release_angle: th,
                release_speed: s,
                grab_angle: beta,
                grab_point: q,
                grab_speed: s_arr,
                flight_time: t_f,
                effort,
                residual: res,
                iterations: iters,
                speed_range: [smin, smax],
                arc_height: arc,
                score,
            };
            if best.is_none_or(|b| candidate.score < b.score) {
                best = Some(candidate);
            }
        }
    }
    match best {
        Some(p) => Ok(p),
        None if !any_ahead => Err(NoPlan::NoHandholdAhead),
        None if !any_flight => Err(NoPlan::Unreachable),
        None => Err(NoPlan::OutOfBounds),
    }
}

/// Re-solves the grab angle for a launch from the actual release point `c0` along angle
/// `theta` (the pendulum's tangent there) to the pivot `h1` with grab radius `L`, starting
/// from `beta0`: Newton on `G(β) = tan β + tan θ − 2 Y(β) / X(β)` with
/// `q(β) = h₁ + L (sin β, −cos β)`.
#[must_use]
pub fn launch_from<R: Real>(
    c0: Vector2<R>,
    theta: R,
    (h1, l): (Vector2<R>, R),
    beta0: R,
    def: &PlannerDef<R>,
) -> Option<Launch<R>> {
    let tt = theta.sin() / theta.cos();
    let lim = R::from_f64(1.45);
    let mut beta = beta0;
    let mut iters = def.iterations;
    for k in 0..def.iterations.max(1) {
        let (s, c) = (beta.sin(), beta.cos());
        let x = h1.x + l * s - c0.x;
        let y = h1.y - l * c - c0.y;
        if !(x > R::from_f64(1e-3)) {
            return None;
        }
        let gval = s / c + tt - R::TWO * y / x;
        let res = residual_of(R::TWO * y / x - tt, beta, l);
        if res < R::from_f64(1e-7) {
            iters = k;
            break;
        }
        let dg = R::ONE / (c * c) - R::TWO * l * (s * x - y * c) / (x * x);
        if !(dg.abs() > R::from_f64(1e-9)) {
            break;
        }
        beta = (beta - gval / dg).clamp(-lim, lim);
    }
    let q = h1 + down(beta) * l;
    let (x, y) = (q.x - c0.x, q.y - c0.y);
    if !(x > R::from_f64(1e-3)) {
        return None;
    }
    let residual = residual_of(R::TWO * y / x - tt, beta, l);
    let (speed, t) = speed_time(c0, theta, q, def.gravity)?;
    Some(Launch {
        velocity: dir(theta) * speed,
        grab_angle: beta,
        grab_point: q,
        flight_time: t,
        iterations: iters,
        residual,
    })
}
