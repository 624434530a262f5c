//! The engines under test, each set up for the rope scenario of [`sinew_peers::scenario`].
//!
//! Shared by `benches/rope.rs` and `examples/stretch.rs` (included with `#[path]`, since the
//! engines are dev-dependencies and cannot live in the library target).
//!
//! # Sinew
//!
//! `World<Space3<f32>>` with `WorldDef::default()` (8 substeps × 1 iteration, no damping),
//! one `ParticleDef` per particle (the first pinned) and one rigid `DistanceDef` per segment,
//! created from the pin outwards:
//! - `sinew/distances`: plain distances, default `ConstraintOrder::Sequential`;
//! - `sinew/distances+tethers`: the same plus a `TetherDef` from every free particle to the
//!   pin, with its rest distance along the chain;
//! - `sinew/distances-coloured`: plain distances with `ConstraintOrder::Coloured`;
//! - `sinew/rope`: the dedicated rope type, `World::add_rope` with
//!   `RopeDef::between(start, end).segments(100).mass(1.0).radius(0.01).pin_start()` and its
//!   other defaults (exact O(n) chain solve each substep, tethers to the pin, no bending; span
//!   collisions on, but there are no colliders). Its mass is spread by the length each
//!   particle represents, so the two end particles weigh half as much as the others (the
//!   other variants give all 101 particles 1/101 kg).
//!
//! # Rapier 0.36
//!
//! Rapier 0.36 has particle soft bodies, and a rope generator for them:
//! `SoftBodyBuilder::rope(start, end, n)` (structural edges between neighbours, bending edges
//! between second neighbours). Both variants use it through `PhysicsWorld`, with the default
//! `IntegrationParameters` (dt 1/60 s, `num_solver_iterations` = 4 substeps,
//! `num_internal_pgs_iterations` = 1 plus the soft bodies' default
//! `additional_pgs_iterations` = 3, so 4 biased PGS passes per substep, and 1 stabilisation
//! pass), default gravity (−9.81 along y), `.mass(1.0)` (split evenly), particle 0 pinned,
//! `.particle_radius(0.01)`, and `.no_surface_collider()` (no colliders, as in the scenario):
//! - `rapier/rope-default`: the default `SoftBodyMaterial` (edges as 30 Hz, ζ = 1 springs,
//!   bending edges 10 Hz): Rapier's soft bodies are springs by design, not rigid links;
//! - `rapier/rope-stiff`: the structural and bending edges set to 1000 Hz, ζ = 1 (far above
//!   the 240 Hz substep rate, where Rapier's softness saturates: 10⁴ or 10⁶ Hz stretch the
//!   rope as much), Rapier's closest setting to an inextensible rope;
//! - `rapier/rope-stiff-nobend`: as `rope-stiff` without the bending edges, so exactly
//!   Sinew's constraint graph (100 links, nothing else) for a like-for-like step cost.

use rapier3d::prelude as rp;
use sinew::Vec3;
use sinew::prelude::*;
use sinew::{RopeDef, RopeHandle};
use sinew_peers::scenario::{self, DT, PARTICLE_MASS, PARTICLES, RADIUS, SEGMENT};

/// One engine configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Sinew, rigid distances, sequential order.
    SinewDistances,
    /// Sinew, rigid distances plus tethers to the pin.
    SinewTethers,
    /// Sinew, rigid distances, coloured order.
    SinewColoured,
    /// Sinew's rope type (`sinew::rope`).
    SinewRope,
    /// Rapier's soft-body rope, default material.
    RapierRopeDefault,
    /// Rapier's soft-body rope, edges at 1000 Hz.
    RapierRopeStiff,
    /// Rapier's soft-body rope, edges at 1000 Hz, no bending edges.
    RapierRopeStiffNoBend,
}

impl Variant {
    /// Every variant, in report order.
    pub const ALL: [Variant; 7] = [
        Variant::SinewDistances,
        Variant::SinewTethers,
        Variant::SinewColoured,
        Variant::SinewRope,
        Variant::RapierRopeDefault,
        Variant::RapierRopeStiff,
        Variant::RapierRopeStiffNoBend,
    ];

    /// Name used in the bench ids and the printed table.
    pub fn name(self) -> &'static str {
        match self {
            Variant::SinewDistances => "sinew/distances",
            Variant::SinewTethers => "sinew/distances+tethers",
            Variant::SinewColoured => "sinew/distances-coloured",
            Variant::SinewRope => "sinew/rope",
            Variant::RapierRopeDefault => "rapier/rope-default",
            Variant::RapierRopeStiff => "rapier/rope-stiff",
            Variant::RapierRopeStiffNoBend => "rapier/rope-stiff-nobend",
        }
    }
}

/// A built rope world of one engine.
pub enum Sim {
    /// Sinew, particles and constraints (rope order = slot order).
    Sinew(Box<World3>),
    /// Sinew, a rope: the world and the rope's handle.
    SinewRope(Box<World3>, RopeHandle),
    /// Rapier: the world and the rope's handle.
    Rapier(Box<rp::PhysicsWorld>, rp::SoftBodyHandle),
}

impl Sim {
    /// The scenario's initial state for `variant`.
    pub fn new(variant: Variant) -> Self {
        match variant {
            Variant::SinewDistances => sinew_rope(ConstraintOrder::Sequential, false),
            Variant::SinewTethers => sinew_rope(ConstraintOrder::Sequential, true),
            Variant::SinewColoured => sinew_rope(ConstraintOrder::Coloured, false),
            Variant::SinewRope => sinew_rope_type(),
            Variant::RapierRopeDefault => rapier_rope(None, true),
            Variant::RapierRopeStiff => rapier_rope(Some(STIFF), true),
            Variant::RapierRopeStiffNoBend => rapier_rope(Some(STIFF), false),
        }
    }

    /// Advances one 1/60 s step.
    pub fn step(&mut self) {
        match self {
            Sim::Sinew(w) | Sim::SinewRope(w, _) => {
                w.step(DT).expect("sinew step");
            }
            Sim::Rapier(w, _) => w.step(),
        }
    }

    /// Writes the particle positions, in rope order, into `out`.
    pub fn positions(&self, out: &mut Vec<[f32; 3]>) {
        out.clear();
        match self {
            Sim::Sinew(w) => out.extend(w.particles().positions().iter().map(|p| [p.x, p.y, p.z])),
            Sim::SinewRope(w, h) => {
                let rope = w.rope(*h).expect("rope");
                out.extend(rope.particles().iter().map(|&p| {
                    let p = w.particles().position(p).expect("rope particle");
                    [p.x, p.y, p.z]
                }));
            }
            Sim::Rapier(w, h) => out.extend(w.soft_bodies[*h].particle_positions().map(|p| [p.x, p.y, p.z])),
        }
    }
}

fn sinew_rope(constraint_order: ConstraintOrder, tethers: bool) -> Sim {
    let mut w = World3::new(WorldDef::default().constraint_order(constraint_order)).expect("world");
    let at = |i: usize| {
        let [x, y, z] = scenario::initial_position(i);
        Vec3::new(x, y, z)
    };
    let pin = w.add_particle(&ParticleDef::at(at(0)).mass(PARTICLE_MASS).radius(RADIUS).pinned()).expect("pin");
    let mut prev = pin;
    for i in 1..PARTICLES {
        let p = w.add_particle(&ParticleDef::at(at(i)).mass(PARTICLE_MASS).radius(RADIUS)).expect("particle");
        w.add_distance(&DistanceDef::new(prev, p).length(SEGMENT)).expect("distance");
        if tethers {
            w.add_tether(&{
                let mut d = TetherDef::new(p, pin);
                d.length = Some(i as f32 * SEGMENT);
                d
            })
            .expect("tether");
        }
        prev = p;
    }
    Sim::Sinew(Box::new(w))
}

/// Rapier's stiffest useful edge setting (see the module docs).
const STIFF: rp::SpringCoefficients<f32> = rp::SpringCoefficients { natural_frequency: 1000.0, damping_ratio: 1.0 };

fn sinew_rope_type() -> Sim {
    let mut w = World3::new(WorldDef::default()).expect("world");
    let at = |i: usize| {
        let [x, y, z] = scenario::initial_position(i);
        Vec3::new(x, y, z)
    };
    let def = RopeDef::between(at(0), at(PARTICLES - 1))
        .segments(scenario::SEGMENTS)
        .mass(scenario::TOTAL_MASS)
        .radius(RADIUS)
        .pin_start();
    let h = w.add_rope(&def).expect("rope");
    Sim::SinewRope(Box::new(w), h)
}

fn rapier_rope(edge_softness: Option<rp::SpringCoefficients<f32>>, bending: bool) -> Sim {
    let mut world = rp::PhysicsWorld::new();
    let [x0, y0, z0] = scenario::initial_position(0);
    let [x1, y1, z1] = scenario::initial_position(PARTICLES - 1);
    let mut rope = rp::SoftBodyBuilder::rope(rp::Vector::new(x0, y0, z0), rp::Vector::new(x1, y1, z1), PARTICLES)
        .mass(scenario::TOTAL_MASS)
        .pinned_particles([0])
        .particle_radius(RADIUS)
        .no_surface_collider();
    if let Some(s) = edge_softness {
        rope = rope.material(rp::SoftBodyMaterial { edge_softness: s, bend_softness: s, ..Default::default() });
    }
    if !bending {
        rope = rope.bend_edges(Vec::new());
    }
    let handle = world.insert_soft_body(rope);
    Sim::Rapier(Box::new(world), handle)
}
