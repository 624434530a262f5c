//! The Sinew playground: an interactive app for every part of Sinew, on eframe/egui (the
//! glow back end, so it runs on software OpenGL), opened by `cargo run --release` at the
//! repository root.
//!
//! - [`sim`]: a running scene with grabbing, live settings, statistics and snapshots, over
//!   any dimension and number type;
//! - [`session`]: the app's state without a window (scene, clock, hand, settings, history),
//!   what the tests drive; the rope-between page's rope, load and pull in its `between`
//!   part;
//! - [`catalog`]: the menu's scenes, each a file under `scenes/`;
//! - [`painter`]: the egui back end of `sinew::debug_draw` (2D shapes; 3D shaded, sorted
//!   faces), through a [`camera`];
//! - [`view`], [`panels`], [`app`]: the canvas with its mouse handling, the side panel and
//!   plots, and the app that lays them out;
//! - [`auto`]: scripted runs of the real window (screenshots, smoke test, frame times);
//! - [`browser`]: the file browser that opens any scene file from disk;
//! - [`history`]: the plots' last seconds.

#![warn(missing_docs)]

pub mod app;
pub mod auto;
pub mod browser;
pub mod camera;
pub mod catalog;
pub mod history;
pub mod painter;
pub mod panels;
pub mod session;
pub mod sim;
pub mod view;

pub use app::App;
pub use catalog::SceneKind;
pub use session::Session;
