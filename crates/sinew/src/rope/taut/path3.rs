//! The taut path in 3D: contacts that slide along their edges, arcs on round shapes.
//!
//! The path runs from the start through its contacts to the end. Each contact sits at a
//! point `c = a + t(b − a)` of its feature's segment (`taut/solid.rs`):
//!
//! - **Sliding.** With its neighbours fixed at `P` (where the path arrives from) and `Q`
//!   (where it goes), the `t` that makes `|P − c| + |c − Q|` shortest follows by unfolding
//!   the two spans into one plane about the segment's line: with `αP, αQ` the positions of
//!   the feet of `P` and `Q` along the line and `hP, hQ` their distances from it,
//!
//!   ```text
//!   α* = αP + (αQ − αP)·hP / (hP + hQ)
//!   ```
//!
//!   which is where the spans make equal angles with the edge (the law of reflection of a
//!   taut string over an edge). `t` is clamped to the segment: a contact pushed past an
//!   edge's end sits on its corner until the path leaves the shape or wraps the next edge.
//! - **Round shapes.** On a ball (or a capsule, at its point `c`) of radius `ρ` the path
//!   is shortest in the plane through `P`, `c` and `Q`: the tangents from `P` and `Q`
//!   and the great-circle arc between their touching points. With `φ` the angle `PcQ`,
//!   the arc turns `θ = φ − acos(ρ/|P − c|) − acos(ρ/|Q − c|)`; `θ < 0` means the straight
//!   span `PQ` clears the ball and the contact unwraps. On a capsule the arc at `c` is the
//!   exact geodesic when the rope crosses the axis at right angles (a rope over a pole) and
//!   a close approximation otherwise (the true geodesic is a helix).
//!
//! Every contact depends on its neighbours, so the path is relaxed contact by contact
//! (Gauss–Seidel on a convex function of the `t`s) until no contact moves more than 1 µm.
//! It starts from where a remembered path through the same contacts settled, its
//! touching points included (`taut/wrap3.rs`, `warm_start`): started instead from the
//! contacts' segment points, where a round contact's touching points are not, it spent
//! about nine sweeps a path placing them again.

use super::geometry::Path;
use super::solid::{Feature3, cross3};
use crate::math::{Real, Vector};

/// Relaxation sweeps over the contacts per path computation (a path warm-started from the
/// last substep moves little; the sweeps stop once no contact moves more than 1 µm).
const SWEEPS: usize = 16;

/// Where a contact sits between `p` and `q` on the line `a–b`: the `t` of the shortest
/// `|p − c| + |c − q|` (see the module docs), clamped to `[0, 1]`.
#[must_use]
pub(crate) fn slide<R: Real, V: Vector<R>>(p: V, q: V, a: V, b: V) -> R {
    let (u, len) = (b - a).normalize_and_length();
    if !(len > R::GEOMETRIC_EPSILON) {
        return R::ZERO;
    }
    let (ap, aq) = ((p - a).dot(u), (q - a).dot(u));
    let hp = (p - a - u * ap).length();
    let hq = (q - a - u * aq).length();
    let s = if hp + hq > R::GEOMETRIC_EPSILON { ap + (aq - ap) * (hp / (hp + hq)) } else { (ap + aq) * R::HALF };
    (s / len).clamp(R::ZERO, R::ONE)
}

/// The path round a ball `(c, ρ)` from `p` to `q` in their plane: the touching points of
/// the two tangents, the arc's turn (negative: the rope has come off the ball) and the
/// plane's normal, oriented so that the rope turns positively about it. `normal` is the
/// last one (zero for a new contact, which takes the shorter way round): the rope stays
/// on its side of the ball, and turns more than a half turn round it when its ends swing
/// past the far side (the 3D form of a lap), with the plane kept when `p`, `c` and `q`
/// line up.
#[must_use]
pub(crate) fn round<R: Real, V: Vector<R>>(p: V, q: V, c: V, rho: R, normal: V) -> (V, V, R, V) {
    let (x, y) = (p - c, q - c);
    let (e1, lx) = x.normalize_and_length();
    let ly = y.length();
    let cr = cross3(x, y);
    let tiny = R::GEOMETRIC_EPSILON * lx * ly;
    let mut n = if cr.length_squared() > tiny * tiny { cr.normalize_or_zero() } else { V::ZERO };
    if n == V::ZERO {
        n = (normal - e1 * normal.dot(e1)).normalize_or_zero();
        if n == V::ZERO {
            n = e1.any_orthogonal().normalize_or_zero();
        }
    } else if normal.dot(n) < R::ZERO {
        n = -n;
    }
    let e2 = cross3(n, e1);
    let mut phi = y.dot(e2).atan2(y.dot(e1));
    if phi < R::ZERO {
        phi += R::PI * R::TWO;
    }
    let alpha = if lx > rho { (rho / lx).acos_clamped() } else { R::ZERO };
    let beta = if ly > rho { (rho / ly).acos_clamped() } else { R::ZERO };
    let at = |a: R| c + (e1 * a.cos() + e2 * a.sin()) * rho;
    let theta = phi - alpha - beta;
    if theta > R::ZERO {
        (at(alpha), at(phi - beta), theta, n)
    } else {
        // No wrap: both touching points where the straight span passes nearest.
        let mid = at((alpha + phi - beta) * R::HALF);
        (mid, mid, theta, n)
    }
}

/// A round contact between `p` and `q`: touching points, turn, wrap normal, arc length
/// and the contact's position `t` on its segment. On a capsule's side the rope follows
/// the cylinder's geodesic, a helix: unrolled, the path is straight, so it is the circle
/// wrap of the ends' projections across the axis with the position along the axis
/// interpolated by the projected length. Where that helix would leave the cylinder (the
/// rope goes over a cap), and on a ball, it is the great-circle wrap of the ball at the
/// segment's point nearest the unfolded path.
fn wrap_round<R: Real, V: Vector<R>>(p: V, q: V, f: &Feature3<V, R>, normal: V) -> (V, V, R, V, R, R) {
    let (u, len) = (f.b - f.a).normalize_and_length();
    if len > R::GEOMETRIC_EPSILON {
        let (zp, zq) = ((p - f.a).dot(u), (q - f.a).dot(u));
        let side = normal.dot(u);
        let hint = if side > R::ZERO {
            u
        } else if side < R::ZERO {
            -u
        } else {
            V::ZERO
        };
        let (ti, to, theta, n) = round(p - u * zp, q - u * zq, f.a, f.radius, hint);
        let (l1, l2) = (((p - u * zp) - ti).length(), (to - (q - u * zq)).length());
        let arc = f.radius * theta.max(R::ZERO);
        let s = l1 + arc + l2;
        if s > R::GEOMETRIC_EPSILON {
            let dz = zq - zp;
            let (zi, zo) = (zp + dz * (l1 / s), zp + dz * ((l1 + arc) / s));
            if zi >= R::ZERO && zi <= len && zo >= R::ZERO && zo <= len {
                let pitch = dz / s;
                let arc_len = arc * (R::ONE + pitch * pitch).sqrt();
                let t = (zi + zo) * R::HALF / len;
                return (ti + u * zi, to + u * zo, theta, n, arc_len, t);
            }
        }
    }
    let t = if len > R::GEOMETRIC_EPSILON { slide(p, q, f.a, f.b) } else { R::ZERO };
    let (ti, to, theta, n) = round(p, q, f.at(t), f.radius, normal);
    (ti, to, theta, n, f.radius * theta.max(R::ZERO), t)
}

/// Computes the 3D path from `start` through the contacts on `feats` (at `ats`, updated
/// as they slide) to `end` into `path` (spans, turns, length; see [`Path`]). `normals`
/// are the round contacts' wrap planes (see [`round`]), updated.
pub(crate) fn compute3<R: Real, V: Vector<R>>(
    path: &mut Path<V, R>,
    (start, end): (V, V),
    feats: &[Feature3<V, R>],
    ats: &mut [R],
    normals: &mut [V],
    warm: bool,
) {
    let m = feats.len();
    // Touching points: in[i] = ends[i].1, out[i] = ends[i + 1].0; kept when `warm` (the
    // caller put a settled path's there), else placed at the contacts' segment points.
    let warm = warm && path.ends.len() == m + 1;
    if !warm {
        path.ends.clear();
        path.ends.push((start, feats.first().map_or(end, |f| f.at(ats[0]))));
        for i in 0..m {
            let c = feats[i].at(ats[i]);
            let next = feats.get(i + 1).map_or(end, |f| f.at(ats[i + 1]));
            path.ends.push((c, next));
        }
    }
    // Settled when no contact moves more than a micrometre (or the type's rounding).
    path.arcs.clear();
    path.arcs.resize(m, (R::ZERO, R::ZERO));
    let tol = R::from_ratio(1, 1_000_000).max(R::GEOMETRIC_EPSILON * R::from_i32(4));
    for sweep in 0..SWEEPS {
        let mut moved = R::ZERO;
        for i in 0..m {
            let f = feats[i];
            let p = path.ends[i].0;
            let q = path.ends[i + 1].1;
            let (tin, tout, t) = if f.radius > R::ZERO {
                let (a, b, turn, n, arc, t) = wrap_round(p, q, &f, normals[i]);
                normals[i] = n;
                path.arcs[i] = (turn, arc);
                (a, b, t)
            } else if f.a != f.b {
                let t = slide(p, q, f.a, f.b);
                let c = f.at(t);
                (c, c, t)
            } else {
                (f.a, f.a, ats[i])
            };
            moved = moved.max(((t - ats[i]) * (f.b - f.a).length()).abs());
            ats[i] = t;
            // (Started cold, the first sweep places the touching points from the segments'
            // points: that is not motion.)
            if sweep > 0 || warm {
                moved = moved.max((tin - path.ends[i].1).length()).max((tout - path.ends[i + 1].0).length());
            }
            path.ends[i].1 = tin;
            path.ends[i + 1].0 = tout;
        }
        if !(moved > tol) {
            break;
        }
    }
    path.dirs.clear();
    path.lengths.clear();
    path.turns.clear();
    let mut length = R::ZERO;
    for &(p, q) in &path.ends {
        let (d, len) = (q - p).normalize_and_length();
        path.dirs.push(d);
        path.lengths.push(len);
        length += len;
    }
    for (i, f) in feats.iter().enumerate() {
        let (turn, arc) = if f.radius > R::ZERO {
            // As the last sweep left it (it moved less than the tolerance since).
            path.arcs[i]
        } else {
            let (din, dout) = (path.dirs[i], path.dirs[i + 1]);
            (cross3(din, dout).length().atan2(din.dot(dout)), R::ZERO)
        };
        path.turns.push(turn);
        length += arc;
    }
    path.length = length;
}

/// Points of a computed 3D path (see [`Path::polyline`]): spans' ends, arcs on round
/// contacts sampled so that no chord lies more than `max_sag` inside its arc.
pub(crate) fn polyline3<R: Real, V: Vector<R>>(
    path: &Path<V, R>,
    feats: &[Feature3<V, R>],
    (ats, normals): (&[R], &[V]),
    max_sag: R,
    out: &mut Vec<V>,
) {
    out.clear();
    for (j, &(p, q)) in path.ends.iter().enumerate() {
        if j > 0 {
            let (f, turn) = (feats[j - 1], path.turns[j - 1]);
            let r = f.radius;
            if r > R::GEOMETRIC_EPSILON && turn > R::ZERO {
                let (tin, n) = (path.ends[j - 1].1, normals[j - 1]);
                let max_angle = (max_sag * R::from_i32(8) / r).sqrt().min(R::from_ratio(1, 8));
                let k = (turn / max_angle).to_f64().ceil().clamp(1.0, 256.0) as i32;
                // Round the axis through the arc's centre (`n`), moving along it from the
                // touching point's height to the leaving one's (a helix on a capsule's
                // side; a circle on a ball, where the two heights agree).
                let u = n.normalize_or_zero();
                let centre = f.at(ats[j - 1]);
                let c = centre + u * (tin - centre).dot(u);
                let rise = (p - c).dot(u);
                let e1 = (tin - c).normalize_or_zero();
                let e2 = cross3(u, e1);
                for s in 1..k {
                    let frac = R::from_i32(s) / R::from_i32(k);
                    let a = turn * frac;
                    out.push(c + u * (rise * frac) + (e1 * a.cos() + e2 * a.sin()) * r);
                }
            }
        }
        if out.last() != Some(&p) {
            out.push(p);
        }
        out.push(q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::RawHandle;
    use crate::math::Vector3;

    type V = Vector3<f64>;

    fn edge(a: V, b: V) -> Feature3<V, f64> {
        let out = V::ZERO;
        Feature3 { a, b, radius: 0.0, out, collider: RawHandle { index: 0, generation: 0 }, index: 0 }
    }

    #[test]
    fn a_contact_slides_to_equal_angles_with_its_edge() {
        let (p, q) = (V::new(-2.0, 1.0, -1.0), V::new(3.0, 0.5, 2.0));
        let (a, b) = (V::new(0.0, 2.0, -5.0), V::new(0.0, 2.0, 5.0));
        let t = slide(p, q, a, b);
        let c = a + (b - a) * t;
        let u = (b - a).normalize_or_zero();
        let (din, dout) = ((c - p).normalize_or_zero(), (q - c).normalize_or_zero());
        assert!((din.dot(u) - dout.dot(u)).abs() < 1e-12, "{} {}", din.dot(u), dout.dot(u));
        // And it is the shortest: nearby points on the edge are longer.
        let len = |t: f64| (a + (b - a) * t - p).length() + (q - a - (b - a) * t).length();
        assert!(len(t) < len(t + 1e-4) && len(t) < len(t - 1e-4));
    }

    #[test]
    fn a_path_over_a_ball_is_two_tangents_and_a_great_circle_arc() {
        // From (−2, 0, 0) over a unit ball to (2, 0, 0), in the plane z = 0, over the top.
        let (p, q, c) = (V::new(-2.0, 0.0, 0.0), V::new(2.0, 0.0, 0.0), V::ZERO);
        let (tin, tout, theta, _) = round(p, q, c, 1.0, V::new(0.0, 0.0, -1.0));
        assert!((theta - core::f64::consts::PI / 3.0).abs() < 1e-12, "{theta}");
        assert!(((tin - c).length() - 1.0).abs() < 1e-12);
        assert!((tin - p).dot(tin - c).abs() < 1e-12, "tangent at the touching point");
        assert!((tout - q).dot(tout - c).abs() < 1e-12);
        assert!(tin.y > 0.0 && tout.y > 0.0, "over the side the normal turns it");
        // Ends not in line: a new contact (no normal yet) takes the shorter way, an
        // oriented one keeps its side and goes the long way round.
        let q = V::new(2.0, 0.5, 0.0);
        let (alpha, beta) = ((1.0f64 / 2.0).acos(), (1.0 / q.length()).acos());
        let phi = (p.dot(q) / (p.length() * q.length())).acos();
        let (tin, _, short, n) = round(p, q, c, 1.0, V::ZERO);
        assert!((short - (phi - alpha - beta)).abs() < 1e-12, "{short}");
        assert!(tin.y > 0.0 && n.z < 0.0, "{tin:?} {n:?}");
        let (tin, _, long, _) = round(p, q, c, 1.0, V::new(0.0, 0.0, 1.0));
        let expect = 2.0 * core::f64::consts::PI - phi - alpha - beta;
        assert!((long - expect).abs() < 1e-12, "{long} vs {expect}");
        assert!(tin.y < 0.0, "under the ball");
    }

    #[test]
    fn a_path_over_two_edges_is_shortest_by_unfolding() {
        // Over the top of a 1 m box between x = ±0.5, y = 0.5, from (−2, −1, −1) to
        // (2, −1, 2): unfolded, one straight line.
        let feats = [
            edge(V::new(-0.5, 0.5, -5.0), V::new(-0.5, 0.5, 5.0)),
            edge(V::new(0.5, 0.5, -5.0), V::new(0.5, 0.5, 5.0)),
        ];
        let mut ats = [0.5, 0.5];
        let mut path = Path::default();
        let (s, e) = (V::new(-2.0, -1.0, -1.0), V::new(2.0, -1.0, 2.0));
        compute3(&mut path, (s, e), &feats, &mut ats, &mut [V::ZERO; 2], false);
        // Unfolded length: the path's run across the edges is 1.5·√2 + 1 + 1.5·√2 (to
        // each edge's line and across the top); its z travel is 3. From a cold start
        // (both contacts mid-edge) the relaxation's sweeps settle it to 1e-10.
        let run = 1.5 * 2f64.sqrt() * 2.0 + 1.0;
        let expect = (run * run + 9.0).sqrt();
        assert!((path.length - expect).abs() < 1e-10, "{} vs {expect}", path.length);
        for i in 0..2 {
            let u = V::new(0.0, 0.0, 1.0);
            assert!((path.dirs[i].dot(u) - path.dirs[i + 1].dot(u)).abs() < 1e-5, "equal angles at {i}");
        }
    }

    #[test]
    fn an_arc_is_drawn_on_the_ball() {
        let feats = [Feature3 {
            a: V::ZERO,
            b: V::ZERO,
            radius: 1.0,
            out: V::ZERO,
            collider: RawHandle { index: 0, generation: 0 },
            index: 0,
        }];
        let (mut ats, mut normals) = ([0.0], [V::ZERO]);
        let mut path = Path::default();
        compute3(&mut path, (V::new(-2.0, 0.1, 0.3), V::new(2.0, 0.1, -0.2)), &feats, &mut ats, &mut normals, false);
        let mut pts = Vec::new();
        polyline3(&path, &feats, (&ats, &normals), 1e-4, &mut pts);
        assert!(pts.len() > 8, "{}", pts.len());
        assert!(pts.iter().all(|p| p.length() >= 1.0 - 1e-9), "nothing inside the ball");
        let arc: Vec<_> = pts[1..pts.len() - 1].to_vec();
        assert!(arc.iter().all(|p| (p.length() - 1.0).abs() < 1e-9), "the arc lies on the ball");
        let poly: f64 = pts.windows(2).map(|w| (w[1] - w[0]).length()).sum();
        assert!((poly - path.length).abs() < 1e-3, "{poly} vs {}", path.length);
    }
}
