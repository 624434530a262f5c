//! A rope over a round post holding two weights: how far the friction of the post holds
//! a load against the capstan law `T_load / T_hold ≤ e^{μθ}` (θ = π here).
//!
//! A 1.9 m rope of 20 g (radius 1 cm, 2 cm segments) hangs over a frictional post of
//! radius 20 cm; its left end carries 1 kg, its right end `ratio` kg. The table gives how
//! far the right end has moved after 3 s (negative: down) for a range of ratios, friction
//! coefficients and solver iterations (8 substeps). An ideal rope holds every ratio up to
//! `e^{μπ}` and slides beyond it.
//!
//! ```sh
//! cargo run --release -p sinew --example rope_capstan
//! ```

use sinew::DVec2;
use sinew::prelude::*;
use sinew::rope::RopeDef;

/// Displacement of the heavier end after 3 s (m).
fn drop_after_3s(mu: f64, ratio: f64, iterations: u32) -> f64 {
    let (post, r) = (0.2, 0.01);
    let def = WorldDef::default().friction(mu).iterations(iterations);
    let mut w = World2d::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::ball(post).unwrap())).unwrap();
    // Down the left side, over the top, down the right side, touching the post.
    let around = post + r;
    let mut points = vec![DVec2::new(-around, -1.0)];
    for i in 0..=32 {
        let a = std::f64::consts::PI * (1.0 - f64::from(i) / 32.0);
        points.push(DVec2::new(around * a.cos(), around * a.sin()));
    }
    points.push(DVec2::new(around, -1.0));
    let rope = w.add_rope(&RopeDef::along(points).segment_length(0.02).mass(0.02).radius(r).friction(mu)).unwrap();
    let ends = w.rope(rope).unwrap().particles().to_vec();
    let (hold, load) = (ends[0], ends[ends.len() - 1]);
    w.particles_mut().set_mass(hold, 1.0).unwrap();
    w.particles_mut().set_mass(load, ratio).unwrap();
    let start = w.particles().position(load).unwrap().y;
    for _ in 0..180 {
        w.step(1.0 / 60.0).unwrap();
    }
    w.particles().position(load).unwrap().y - start
}

fn main() {
    let ratios = [1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0];
    for iterations in [1, 2, 4, 8] {
        println!("iterations {iterations}: right end's displacement after 3 s (m) by load ratio");
        print!("{:>18}", "μ (e^μπ)");
        for q in ratios {
            print!("{q:>9.2}");
        }
        println!();
        for mu in [0.1, 0.3, 0.5] {
            print!("{:>18}", format!("{mu} ({:.2})", (mu * std::f64::consts::PI).exp()));
            for q in ratios {
                print!("{:>9.3}", drop_after_3s(mu, q, iterations));
            }
            println!();
        }
    }
}
