//! What a collider moving far from a rope costs it: the 14 m rope scene with a 20 cm ball
//! 40 m away, standing still or swaying by ±1 m (moved with `set_collider_pose` before
//! every step), timed over the scene's 300 frames (best of five runs) with the particles
//! that took a fresh contact anchor per frame ([`sinew::StepReport::regathered`]).
//!
//! ```sh
//! cargo run --release -p sinew-scene --example moving_collider [scene]
//! ```

use sinew::{ColliderDef, Real, RealOf, RotOf, Rotation, Shape, Space2, Space3, VecOf, Vector};
use sinew_scene::SceneSpace;
use std::time::Instant;

fn run<S: SceneSpace>(spec: &sinew_scene::spec::SceneSpec, moving: bool) -> (f64, f64) {
    let mut best = f64::MAX;
    let mut regathered = 0u64;
    let at = |x: f64| VecOf::<S>::from_f64_slice(&[x, 1.0, 0.0]);
    let dt = RealOf::<S>::from_f64(1.0 / 60.0);
    for _ in 0..5 {
        let mut scene = sinew_scene::build_typed::<S>(spec).expect("scene");
        let ball = Shape::ball(RealOf::<S>::from_f64(0.2)).expect("ball");
        let h = scene.world.add_collider(&ColliderDef::new(ball).position(at(40.0))).expect("ball");
        regathered = 0;
        let start = Instant::now();
        for f in 0..300 {
            if moving {
                let pose = at(40.0 + (f as f64 * 0.05).sin());
                scene.world.set_collider_pose(h, pose, RotOf::<S>::IDENTITY).expect("pose");
            }
            regathered += u64::from(scene.world.step(dt).expect("step").regathered);
        }
        best = best.min(start.elapsed().as_secs_f64() / 300.0);
    }
    (best * 1e6, regathered as f64 / 300.0)
}

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| "scenes/rope_14m_2d.json".into());
    let text = std::fs::read_to_string(&path).expect("scene file");
    let spec = sinew_scene::parse(&text).expect("scene");
    for moving in [false, true] {
        let (us, fresh) =
            if spec.dim == 3 { run::<Space3<f32>>(&spec, moving) } else { run::<Space2<f32>>(&spec, moving) };
        let what = if moving { "moving" } else { "still " };
        println!("{path}: ball 40 m away {what}: {us:.2} µs/frame, {fresh:.1} fresh anchors/frame");
    }
}
