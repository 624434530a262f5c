//! The library half of the `sinew` command: drawing scenes to images ([`render`]) and the
//! showcase renders ([`showcase`]), shared by the command and by the playground's headless
//! fallback (`crates/sinew-playground`).

pub mod render;

use sinew_scene::Simulation;
use std::path::{Path, PathBuf};

/// Loads a scene file; the error names the file and the path of the offending value.
pub fn load(path: &Path) -> Result<Box<dyn Simulation>, String> {
    sinew_scene::load_file(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The showcase scenes (`scenes/showcase_2d.json`, `scenes/showcase_3d.json`) rendered to
/// `out_dir` as an animated GIF and a PNG of the last frame each. Returns each file written
/// with what [`render::render`] says about it.
pub fn showcase(out_dir: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let mut written = Vec::new();
    for name in ["showcase_2d.json", "showcase_3d.json"] {
        let path = root.join(name);
        let stem = name.trim_end_matches(".json");
        for ext in ["gif", "png"] {
            let out: PathBuf = out_dir.join(format!("{stem}.{ext}"));
            let opts =
                render::RenderOptions { frames: 240, every: 2, title: Some(stem.to_string()), ..Default::default() };
            let mut sim = load(&path)?;
            let msg = render::render(sim.as_mut(), &out, &opts)?;
            written.push((out, msg));
        }
    }
    Ok(written)
}
