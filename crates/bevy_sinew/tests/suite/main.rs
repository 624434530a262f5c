//! Headless tests of the plugin: an `App` with Bevy's time and transform plugins only (no
//! window, no renderer), its clock advanced by hand with `TimeUpdateStrategy`, and
//! `app.update()` as the frame.

mod common;
mod interpolation;
mod muscles;
mod ragdolls;
mod rollback;
mod ropes;
mod world;
