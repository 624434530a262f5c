//! `sinew-playground [SCENE.json]`: the interactive playground (the workspace's default
//! `cargo run`). Without a display (no `DISPLAY` or `WAYLAND_DISPLAY`), or when the window
//! cannot start, it renders the showcase scenes to `out/` headless instead and says so in
//! one line.

use sinew_playground::auto::{self, Auto};
use sinew_playground::{App, SceneKind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn has_display() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// Today's headless renders, announced in one line.
fn headless(reason: &str) -> ExitCode {
    let out = Path::new("out");
    match sinew_cli::showcase(out) {
        Ok(written) => {
            let files: Vec<String> = written.iter().map(|(path, _)| path.display().to_string()).collect();
            println!(
                "sinew-playground: {reason}, so no window: rendered the showcase scenes headless instead, to {}.",
                files.join(", ")
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("sinew-playground: {reason}, and the headless renders failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("usage: sinew-playground [SCENE.json]   (env {}: a script, see the auto module)", auto::ENV);
        return ExitCode::SUCCESS;
    }
    let file = args.first().map(PathBuf::from);
    let app = match &file {
        Some(p) => App::with_file(p),
        None => App::new(SceneKind::Rope),
    };
    let mut app = match app {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if !has_display() {
        return headless("no display (DISPLAY and WAYLAND_DISPLAY are unset)");
    }
    if let Ok(script) = std::env::var(auto::ENV) {
        match Auto::parse(&script) {
            Ok(a) => app.auto = Some(a),
            Err(e) => {
                eprintln!("error: {}: {e}", auto::ENV);
                return ExitCode::FAILURE;
            }
        }
    }
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default().with_inner_size([1280.0, 800.0]).with_title("Sinew playground"),
        vsync: false,
        ..Default::default()
    };
    let created = Box::new(|cc: &eframe::CreationContext<'_>| {
        cc.egui_ctx.set_visuals(egui::Visuals::light());
        Ok(Box::new(app) as Box<dyn eframe::App>)
    });
    match eframe::run_native("Sinew playground", options, created) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => headless(&format!("the window could not start ({e})")),
    }
}
