//! Drawing a scene: the world's debug drawing (muscle ragdolls' bones included: they are
//! controllers of the world, which draws their links).

use crate::SceneSpace;
use sinew::debug_draw::{DebugDraw, DebugDrawOptions};

/// Draws a built scene's world.
pub(crate) fn draw<S: SceneSpace>(scene: &crate::BuiltScene<S>, out: &mut dyn DebugDraw, opts: &DebugDrawOptions) {
    scene.world.debug_draw(out, opts);
    if let Some(b) = &scene.brachiator {
        crate::brachiator::draw(b, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sinew::Space2;
    use sinew::debug_draw::{DrawKind, Style};

    type P3 = [f64; 3];

    /// Kinds in the order drawn.
    #[derive(Default)]
    struct Kinds(Vec<DrawKind>);

    impl DebugDraw for Kinds {
        fn segment(&mut self, _: P3, _: P3, style: &Style) {
            self.0.push(style.kind);
        }
        fn circle(&mut self, _: P3, _: f64, style: &Style) {
            self.0.push(style.kind);
        }
    }

    #[test]
    fn muscle_ragdoll_edges_are_drawn_with_the_world_s_distances() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/ragdolls_2d.json");
        let spec = crate::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let scene = crate::build_typed::<Space2<f32>>(&spec).unwrap();
        assert_eq!(scene.muscles.len(), 1, "the scene has a muscle ragdoll");
        let edges = scene.world.controller(scene.muscles[0]).unwrap().edge_count();
        let mut kinds = Kinds::default();
        draw(&scene, &mut kinds, &DebugDrawOptions::default());
        let links = kinds.0.iter().filter(|&&k| k == DrawKind::Distance).count();
        assert_eq!(links, scene.world.distances().count() + edges);
        // All under the particles.
        let last_link = kinds.0.iter().rposition(|&k| k == DrawKind::Distance).unwrap();
        let first_particle = kinds.0.iter().position(|&k| k == DrawKind::Particle).unwrap();
        assert!(last_link < first_particle);

        let mut no_links = DebugDrawOptions::default();
        no_links.distances = false;
        let mut kinds = Kinds::default();
        draw(&scene, &mut kinds, &no_links);
        assert!(!kinds.0.contains(&DrawKind::Distance));
    }
}
