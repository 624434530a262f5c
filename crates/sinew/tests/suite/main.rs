//! The core library's integration tests, as one test binary: each file here is a module
//! (so tests read `physics_core::pendulum_period_matches_small_angle_formula`,
//! `rope::...`, `contacts::...`), and the crate is compiled and linked once instead of once
//! per file, which is what made `cargo test --workspace` slow to build.
//!
//! A new test file goes here with a `mod` line below. (A file directly under `tests/`
//! still works, but becomes a binary of its own, compiled and linked separately, like
//! `tests/golden.rs`, which is on its own on purpose: see there.)

mod architecture;
mod body_contacts;
mod brachiation;
mod brachiation_vines;
mod clock;
mod constraints;
mod contacts;
mod drive;
mod fight;
mod fixed_point;
mod fixed_range;
mod forces;
mod ik;
mod lifetimes;
mod limits;
mod measure;
mod muscle3d;
mod physics_core;
mod prelude;
mod ragdoll;
mod ragdoll_bounce;
mod ragdoll_friction;
mod ragdoll_tree;
mod rng;
mod rollback;
mod rope;
mod rope_attach;
mod rope_on_post;
mod rope_shared_load;
mod rope_taut;
mod rope_taut_3d;
mod rope_tension;
mod soak;
mod swing_twist;
/// The golden 3D taut scene, built in code (shared with `tests/golden.rs`).
#[path = "../common/taut_posts_3d.rs"]
mod taut_posts_3d;
