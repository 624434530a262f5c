//! Drawing a scene: the world's debug drawing plus what lives outside the world.
//!
//! A muscle ragdoll's edges (its bones) are solved by the ragdoll in the world's step
//! hook, not stored as the world's distance constraints, so `World::debug_draw` does not
//! know them; the scene does (its [`SceneRagdoll::bones`]). [`WithEdges`] is a pass-through
//! back end that adds them as [`DrawKind::Distance`] segments where the world draws its
//! own distances: after them, before the first rope, particle or contact — so that a 2D
//! painter draws them under the particles, as it does the world's bones.

use crate::{SceneRagdoll, SceneSpace};
use sinew::debug_draw::{DebugDraw, DebugDrawOptions, DrawKind, FrameInfo, HullMesh, RopeStrand, Style};
use sinew::{MuscleRagdoll, ParticleHandle, Vector, World};

type P3 = [f64; 3];

/// The edges of the scene's muscle ragdolls, as end points in the world now.
pub(crate) fn muscle_edges<S: SceneSpace>(
    world: &World<S>,
    particles: &[ParticleHandle],
    ragdolls: &[SceneRagdoll],
    muscles: &[MuscleRagdoll<S>],
) -> Vec<[P3; 2]> {
    let ps = world.particles();
    let mut out = Vec::new();
    for m in muscles {
        // The scene ragdoll whose first node is the muscle ragdoll's.
        let Some(r) = ragdolls.iter().find(|r| particles.get(r.first_index) == m.nodes().first()) else { continue };
        for &(a, b) in &r.bones {
            let at = |i: usize| m.nodes().get(i).and_then(|&h| ps.position(h)).map(|p| p.to_f64_array());
            if let (Some(x), Some(y)) = (at(a), at(b)) {
                out.push([x, y]);
            }
        }
    }
    out
}

/// Forwards every primitive to `out`, adding `edges` after the world's distances.
pub(crate) struct WithEdges<'a> {
    pub out: &'a mut dyn DebugDraw,
    pub edges: Vec<[P3; 2]>,
}

impl WithEdges<'_> {
    /// Emits the edges once, before the first primitive drawn over distances.
    fn before(&mut self, style: &Style) {
        let over = matches!(
            style.kind,
            DrawKind::Rope | DrawKind::Particle | DrawKind::PinnedParticle | DrawKind::Contact | DrawKind::RopeContact
        );
        if over {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let style = Style::of(DrawKind::Distance);
        for [a, b] in std::mem::take(&mut self.edges) {
            // Non-finite positions are left out, as the world leaves out its own.
            if a.iter().chain(&b).all(|c| c.is_finite()) {
                self.out.segment(a, b, &style);
            }
        }
    }
}

impl DebugDraw for WithEdges<'_> {
    fn begin(&mut self, frame: &FrameInfo) {
        self.out.begin(frame);
    }
    fn end(&mut self) {
        self.flush();
        self.out.end();
    }
    fn segment(&mut self, a: P3, b: P3, style: &Style) {
        self.before(style);
        self.out.segment(a, b, style);
    }
    fn polyline(&mut self, points: &[P3], closed: bool, style: &Style) {
        self.before(style);
        self.out.polyline(points, closed, style);
    }
    fn point(&mut self, p: P3, style: &Style) {
        self.before(style);
        self.out.point(p, style);
    }
    fn arrow(&mut self, from: P3, to: P3, style: &Style) {
        self.before(style);
        self.out.arrow(from, to, style);
    }
    fn circle(&mut self, center: P3, radius: f64, style: &Style) {
        self.before(style);
        self.out.circle(center, radius, style);
    }
    fn stadium(&mut self, a: P3, b: P3, radius: f64, style: &Style) {
        self.before(style);
        self.out.stadium(a, b, radius, style);
    }
    fn polygon(&mut self, points: &[P3], style: &Style) {
        self.before(style);
        self.out.polygon(points, style);
    }
    fn half_plane(&mut self, point: P3, normal: P3, extent: f64, style: &Style) {
        self.before(style);
        self.out.half_plane(point, normal, extent, style);
    }
    fn arc(&mut self, center: P3, axis: P3, start: P3, sweep: f64, style: &Style) {
        self.before(style);
        self.out.arc(center, axis, start, sweep, style);
    }
    fn sphere(&mut self, center: P3, radius: f64, style: &Style) {
        self.before(style);
        self.out.sphere(center, radius, style);
    }
    fn capsule(&mut self, a: P3, b: P3, radius: f64, style: &Style) {
        self.before(style);
        self.out.capsule(a, b, radius, style);
    }
    fn cuboid(&mut self, center: P3, half_extents: P3, axes: [P3; 3], style: &Style) {
        self.before(style);
        self.out.cuboid(center, half_extents, axes, style);
    }
    fn hull(&mut self, hull: &HullMesh<'_>, style: &Style) {
        self.before(style);
        self.out.hull(hull, style);
    }
    fn half_space(&mut self, point: P3, normal: P3, extent: f64, style: &Style) {
        self.before(style);
        self.out.half_space(point, normal, extent, style);
    }
    fn rope(&mut self, rope: &RopeStrand<'_>, style: &Style) {
        self.before(style);
        self.out.rope(rope, style);
    }
}

/// Draws a built scene's world, with its muscle ragdolls' edges when distances are drawn.
pub(crate) fn draw<S: SceneSpace>(scene: &crate::BuiltScene<S>, out: &mut dyn DebugDraw, opts: &DebugDrawOptions) {
    if scene.muscles.is_empty() || !opts.distances {
        scene.world.debug_draw(out, opts);
        return;
    }
    let edges = muscle_edges(&scene.world, &scene.particles, &scene.ragdolls, &scene.muscles);
    scene.world.debug_draw(&mut WithEdges { out, edges }, opts);
}

#[cfg(test)]
mod tests {
    use super::*;
    use sinew::Space2;

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
        let edges = scene.muscles[0].edge_count();
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
