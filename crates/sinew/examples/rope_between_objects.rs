//! A rope tied between two moving objects in 3D, over a box and a sphere: one end rides a
//! turning crane arm (a circle), the other a cart on a rail (a line). Both ends are
//! kinematic particles driven every step with `set_kinematic_target`. The rope is paid out
//! to 6 m, lies slack over the box and the sphere, then is reeled in to 4.4 m with
//! `set_rope_length` while everything moves, which lifts it off them; when the objects
//! stop, the two ends carry its weight. Every second it prints the end-to-end distance,
//! the rope's length and its highest tension.
//!
//! ```sh
//! cargo run --release -p sinew --example rope_between_objects
//! ```

use sinew::prelude::*;

const DT: f32 = 1.0 / 60.0;
const G: f32 = 9.81;

/// The objects' clock: they move until 5 s, slow down smoothly and stop at 6 s.
fn clock(t: f32) -> f32 {
    let u = (t - 5.0).clamp(0.0, 1.0);
    t.min(5.0) + u - u * u / 2.0
}
/// The crane arm's tip: a circle of 25 cm at 2.5 m, once every 2 s.
fn crane(t: f32) -> Vector3<f32> {
    let a = std::f32::consts::PI * clock(t);
    Vector3::new(-1.8 + 0.25 * a.cos(), 2.5, 0.25 * a.sin())
}
/// The cart: back and forth along a rail across the rope's line.
fn cart(t: f32) -> Vector3<f32> {
    Vector3::new(2.0, 2.5, 0.4 * (1.7 * clock(t)).sin())
}
/// The rope's length: 5.25 m as laid, paid out to 6 m in the first second, reeled in to
/// 4.4 m from 2 s to 5 s.
fn length(t: f32) -> f32 {
    if t < 2.0 { 5.25 + 0.75 * t.min(1.0) } else { 6.0 - 1.6 * ((t - 2.0) / 3.0).min(1.0) }
}

fn main() -> Result<(), SinewError> {
    let mut world = World3::new(WorldDef::default().friction(0.4).damping(1.0))?;
    let block = Shape::cuboid(Vector3::new(0.3, 0.4, 0.6))?; // half extents
    let block = world.add_collider(&ColliderDef::new(block).position(Vector3::new(-0.7, 0.4, 0.0)))?;
    let ball = world.add_collider(&ColliderDef::new(Shape::ball(0.35)?).position(Vector3::new(0.8, 0.65, 0.0)))?;

    // A 0.5 kg rope laid from the crane over the box and the sphere to the cart, its two
    // end particles pinned: they are the objects' attachment points.
    let over = vec![crane(0.0), Vector3::new(-0.7, 0.85, 0.0), Vector3::new(0.8, 1.05, 0.0), cart(0.0)];
    let rope = world.add_rope(&RopeDef::along(over).mass(0.5).pin_start().pin_end())?;
    let (a, b) = (world.rope(rope)?.start(), world.rope(rope)?.end());

    let mut tensions = Vec::new();
    let (mut max_tension, mut touching, mut touched_while_slack) = (0.0f32, false, false);
    for frame in 1..=(10 * 60) {
        // Before each step: where the objects will be at its end, and the rope's length.
        let t = world.time() + DT;
        world.particles_mut().set_kinematic_target(a, crane(t))?;
        world.particles_mut().set_kinematic_target(b, cart(t))?;
        world.set_rope_length(rope, RopeEnd::End, length(t))?;
        world.step(DT)?;

        world.rope_tensions_into(rope, &mut tensions)?; // N, per segment, no allocation
        max_tension = tensions.iter().fold(max_tension, |m, &x| m.max(x));
        let (ps, r) = (world.particles(), world.rope(rope)?);
        let at = |p| ps.position(p).expect("a live particle");
        touching = false;
        for &p in r.particles() {
            for c in [block, ball] {
                let d = world.collider(c)?.closest_world(at(p)).distance;
                assert!(d > r.radius() - 1e-3, "a rope particle {d} m from a collider's surface: inside it");
                touching |= d < r.radius() + 2e-3;
            }
        }
        touched_while_slack |= touching && t < 2.5;
        let ends = at(a).distance(at(b));
        assert!(ends < r.rest_length(), "the ends are never farther apart than the rope is long");
        if frame % 60 == 0 {
            println!(
                "t = {:.0} s: ends {ends:.2} m apart, rope {:.2} m ({} particles), max tension {max_tension:5.2} N{}",
                world.time(),
                r.rest_length(),
                r.particles().len(),
                if touching { ", lying on the box or sphere" } else { "" }
            );
            max_tension = 0.0;
        }
    }
    assert!(touched_while_slack && !touching, "the slack rope lay on the objects; reeled in, it is off them");

    // Stopped, and off the colliders: the two end segments hold up the rope's free
    // particles (the pinned ends carry their own weight themselves).
    let r = world.rope(rope)?;
    let (ps, n) = (r.particles(), r.particles().len());
    let pos = |i: usize| world.particles().position(ps[i]).expect("a live particle");
    let up = |from: usize, to: usize, tension: f32| tension * (pos(to) - pos(from)).normalize_or_zero().y;
    let (lift_a, lift_b) = (up(1, 0, tensions[0]), up(n - 2, n - 1, tensions[n - 2]));
    let weight = G * ps[1..n - 1].iter().filter_map(|&p| world.particles().mass(p)).sum::<f32>();
    println!(
        "held up by the crane {lift_a:.3} N + the cart {lift_b:.3} N = {:.3} N; the rope weighs {weight:.3} N",
        lift_a + lift_b
    );
    assert!((lift_a + lift_b - weight).abs() < 0.02 * weight, "the ends carry the rope's weight");
    Ok(())
}
