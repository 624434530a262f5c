//! The scenes of the menu: each is a scene file under `scenes/`, so the `sinew` command
//! runs it too, plus what the playground adds to it (which panels and buttons it shows).

use std::path::{Path, PathBuf};

/// A scene of the menu.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SceneKind {
    /// The 14 m rope on posts and boxes: pick it up anywhere.
    Rope,
    /// The 14 m rope in 3D (orbit camera, shaded colliders).
    Rope3d,
    /// A rope between two objects: drag both ends, rebuild with sliders.
    RopeBetween,
    /// The taut rope: a 70 kg character on a grappling hook, wrapping round posts.
    GrapplingHook,
    /// The taut rope in 3D: round two posts and over a box's edges, a load on its end.
    TautRope3d,
    /// A humanoid16 ragdoll: drag and throw, Drop, sliders, stats.
    Ragdoll,
    /// The 3D humanoid thrown into a wall.
    Ragdoll3d,
    /// A muscle ragdoll: punch it and watch it recover.
    Muscle,
    /// Two 3D fighters on pose drives: aimed strikes, blocks, hit reactions, knock-outs.
    Fighters,
    /// The brachiating gibbon: planned swings along a seeded course of branches.
    Brachiation,
    /// The same scene in `f32` and fixed point side by side, with hashes and rollback.
    Determinism,
    /// Hundreds of ropes and ragdolls.
    Stress,
}

impl SceneKind {
    /// Every scene, in menu order.
    pub const ALL: [SceneKind; 12] = [
        SceneKind::Rope,
        SceneKind::Rope3d,
        SceneKind::RopeBetween,
        SceneKind::GrapplingHook,
        SceneKind::TautRope3d,
        SceneKind::Ragdoll,
        SceneKind::Ragdoll3d,
        SceneKind::Muscle,
        SceneKind::Fighters,
        SceneKind::Brachiation,
        SceneKind::Determinism,
        SceneKind::Stress,
    ];

    /// Name in the menu.
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            SceneKind::Rope => "Rope",
            SceneKind::Rope3d => "Rope 3D",
            SceneKind::RopeBetween => "Rope between two objects",
            SceneKind::GrapplingHook => "Grappling hook (taut rope)",
            SceneKind::TautRope3d => "Taut rope 3D",
            SceneKind::Ragdoll => "Ragdoll 2D",
            SceneKind::Ragdoll3d => "Ragdoll 3D",
            SceneKind::Muscle => "Muscle ragdoll",
            SceneKind::Fighters => "Fighters 3D",
            SceneKind::Brachiation => "Brachiation",
            SceneKind::Determinism => "Determinism",
            SceneKind::Stress => "Stress",
        }
    }

    /// Its file under `scenes/`.
    #[must_use]
    pub fn file_name(self) -> &'static str {
        match self {
            SceneKind::Rope => "playground_rope_2d.json",
            SceneKind::Rope3d => "playground_rope_3d.json",
            SceneKind::RopeBetween => "playground_rope_between_2d.json",
            SceneKind::GrapplingHook => "rope_grappling_hook_2d.json",
            SceneKind::TautRope3d => "rope_taut_3d.json",
            SceneKind::Ragdoll => "playground_ragdoll_2d.json",
            SceneKind::Ragdoll3d => "ragdoll_3d.json",
            SceneKind::Muscle => "playground_muscle_2d.json",
            SceneKind::Fighters => "fighters_3d.json",
            SceneKind::Brachiation => "brachiation_2d.json",
            SceneKind::Determinism => "golden_fixed_2d.json",
            SceneKind::Stress => "playground_stress_2d.json",
        }
    }

    /// One line on what to do in it.
    #[must_use]
    pub fn hint(self) -> &'static str {
        match self {
            SceneKind::Rope | SceneKind::Rope3d => "Drag anywhere on the rope to pick it up; let go to throw it.",
            SceneKind::RopeBetween => "Drag either end (its block) or the load; the sliders rebuild the rope.",
            SceneKind::GrapplingHook => {
                "Drag the character round the posts: the rope wraps and unwraps, its length held."
            }
            SceneKind::TautRope3d => {
                "Drag the load: the rope's contacts slide along the box's edges and climb the posts; right-drag orbits."
            }
            SceneKind::Ragdoll => "Drag and throw any body part; Drop resets the figure.",
            SceneKind::Ragdoll3d => "Drag any node; right-drag orbits the camera.",
            SceneKind::Muscle => "Click the body (or Punch) to hit it; watch the muscles recover.",
            SceneKind::Fighters => {
                "Two fighters trade aimed strikes; drag a limb to interfere; right-drag orbits the camera."
            }
            SceneKind::Brachiation => {
                "The gibbon plans each swing and release along the branches; pause to study a flight."
            }
            SceneKind::Determinism => "f32 (left) and fixed point (right): same scene, their hashes, rollback.",
            SceneKind::Stress => "Hundreds of ropes and ragdolls: watch the frame time.",
        }
    }
}

/// The repository's `scenes/` folder.
#[must_use]
pub fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes")
}

/// The text of a menu scene's file.
pub fn scene_text(kind: SceneKind) -> Result<String, String> {
    let path = scenes_dir().join(kind.file_name());
    std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}
