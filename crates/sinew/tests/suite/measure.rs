//! Measurements shared by the test files (read from a world, returned in `f64`).

use sinew::prelude::*;
use sinew::{RopeHandle, World};

/// A rope's relative stretch: the length of its particle path over its rest length,
/// minus one. The segment lengths are summed in `f64`, whatever the world's number type.
pub fn rope_stretch<S: Space>(w: &World<S>, h: RopeHandle) -> f64 {
    let rope = w.rope(h).unwrap();
    let ps = w.particles();
    let at = |p| ps.position(p).unwrap().to_array3().map(Real::to_f64);
    let len: f64 = rope
        .particles()
        .windows(2)
        .map(|p| {
            let (a, b) = (at(p[0]), at(p[1]));
            ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
        })
        .sum();
    len / rope.rest_length().to_f64() - 1.0
}
