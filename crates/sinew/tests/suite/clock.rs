//! The world's clock counts the steps taken: 100,000 frames at 1/60 s read 1666.67 s in
//! every number type (a plain `f32` sum read 1668.66 s).

use sinew::World;
use sinew::prelude::*;

fn time_after<R: Real>(frames: u32) -> f64 {
    let mut w = World::<Space2<R>>::new(WorldDef::default()).unwrap();
    w.add_particle(&ParticleDef::at(Vector2::<R>::from_f64(0.0, 0.0)).mass(R::ZERO)).unwrap();
    let dt = R::from_ratio(1, 60);
    for _ in 0..frames {
        w.step(dt).unwrap();
    }
    assert_eq!(w.step_count(), u64::from(frames));
    w.time().to_f64()
}

#[test]
fn a_hundred_thousand_frames_at_1_60_s_read_1666_67_s() {
    let exact = 100_000.0 / 60.0;
    // f32: within two of its roundings at 1666 s (1.2e-4 s each).
    let t = time_after::<f32>(100_000);
    assert!((t - exact).abs() <= 2.5e-4, "f32: {t} s");
    let t = time_after::<f64>(100_000);
    assert!((t - exact).abs() <= 1e-9, "f64: {t} s");
    // Fixed point sums exactly the step it is given, 1/60 rounded to 2⁻³² s.
    let t = time_after::<Fx>(100_000);
    assert!((t - exact).abs() <= 100_000.0 * 2f64.powi(-33), "fixed: {t} s");
    assert_eq!(format!("{:.2}", time_after::<f32>(100_000)), "1666.67");
}
