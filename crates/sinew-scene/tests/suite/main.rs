//! The scene crate's integration tests, as one test binary (each file a module, so tests
//! read `determinism::golden_*`, `rope_report::...`); see `crates/sinew/tests/suite`.

mod determinism;
mod fighter_keys;
mod fuzz;
mod hostile;
mod limits;
mod meaning;
mod ragdoll_keys;
mod rope_report;
