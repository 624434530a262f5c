//! Temporary diagnostics (printed, not asserted).
use sinew::prelude::*;
use sinew::ragdoll::{Ragdoll, SpawnDef, presets};
use sinew::{Rot2, World};

const DT: f64 = 1.0 / 60.0;

/// (strain %, limit °, depth mm, late speed)
fn run2(substeps: u32, origin: (f64, f64), vel: (f64, f64), e: f64) -> (f64, f64, f64, f64, f64) {
    let rig = presets::humanoid16::<f64>();
    let def = WorldDef::default().substeps(substeps).friction(0.6).damping(0.3).restitution(e);
    let mut w = World::<Space2<f64>>::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0).unwrap())).unwrap();
    let wall = Shape::cuboid(Vector2::new(0.25, 3.0)).unwrap();
    w.add_collider(&ColliderDef::new(wall).position(Vector2::new(3.25, 3.0))).unwrap();
    let at = Vector2::new(origin.0, origin.1);
    let rd = Ragdoll::spawn(&mut w, &rig, at, 1.0, Vector2::new(vel.0, vel.1)).unwrap();
    let (mut strain, mut limit, mut depth, mut late) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for f in 0..300 {
        w.step(DT).unwrap();
        let st = rd.stats(&w).unwrap();
        strain = strain.max(st.max_bone_strain);
        limit = limit.max(st.max_limit_violation.to_degrees());
        for &h in rd.nodes() {
            let (p, r) = (w.particles().position(h).unwrap(), w.particles().radius(h).unwrap());
            depth = depth.max(r - p.y).max(p.x - (3.0 - r));
        }
        if f >= 270 {
            late = late.max(st.max_speed);
        }
    }
    (strain * 100.0, limit, depth * 1000.0, late, 0.0)
}

fn run3(substeps: u32, origin: (f64, f64, f64), vel: (f64, f64, f64), tree: bool) -> (f64, f64, f64, f64) {
    let rig = presets::humanoid3d::<f64>();
    let def = WorldDef::default().substeps(substeps).friction(0.6).damping(0.3).tree_solve(tree);
    let mut w = World::<Space3<f64>>::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector3::new(0.0, 1.0, 0.0), 0.0).unwrap())).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector3::new(-1.0, 0.0, 0.0), -3.0).unwrap())).unwrap();
    let rd = Ragdoll::spawn(&mut w, &rig, Vector3::new(origin.0, origin.1, origin.2), 1.0, Vector3::new(vel.0, vel.1, vel.2)).unwrap();
    let (mut strain, mut limit, mut depth, mut late) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for f in 0..300 {
        w.step(DT).unwrap();
        let st = rd.stats(&w).unwrap();
        strain = strain.max(st.max_bone_strain);
        limit = limit.max(st.max_limit_violation.to_degrees());
        for &h in rd.nodes() {
            let (p, r) = (w.particles().position(h).unwrap(), w.particles().radius(h).unwrap());
            depth = depth.max(r - p.y).max(p.x - (3.0 - r));
        }
        if f >= 270 {
            late = late.max(st.max_speed);
        }
    }
    (strain * 100.0, limit, depth * 1000.0, late)
}

fn bounce(substeps: u32, e: f64, h: f64) -> f64 {
    bounce_with(substeps, e, h, 0.6, 0.3, false)
}
fn bounce_with(substeps: u32, e: f64, h: f64, mu: f64, damp: f64, nolimits: bool) -> f64 {
    let mut rig = presets::humanoid16::<f64>();
    if nolimits { rig.limits.clear(); }
    let mut w = World::<Space2<f64>>::new(WorldDef::default().substeps(substeps).restitution(e).friction(mu).damping(damp)).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0).unwrap())).unwrap();
    let s = SpawnDef::from_rig(&rig, Vector2::new(0.0, h), Rot2::from_angle(std::f64::consts::FRAC_PI_2), 1.0, Vector2::ZERO);
    let rd = Ragdoll::spawn_with(&mut w, &rig, &s).unwrap();
    let c0 = rd.center_of_mass(&w).unwrap().y;
    let mut trace = Vec::new();
    for _ in 0..240 {
        w.step(DT).unwrap();
        trace.push(rd.center_of_mass(&w).unwrap().y);
    }
    let (i_min, c_min) = trace.iter().enumerate().take(90).fold((0, f64::MAX), |b, (i, &c)| if c < b.1 { (i, c) } else { b });
    let top = trace[i_min..].iter().fold(f64::MIN, |m, &c| m.max(c));
    eprintln!("   c0 {c0:.3} min {c_min:.3} at {i_min} top {top:.3}");
    top - c_min
}

#[test]
#[ignore]
fn diag() {
    for s in [4, 8] {
        for e in [0.0, 0.5, 0.8] {
            eprintln!("bounce s{s} e{e}: {:.3}", bounce(s, e, 4.0));
        }
    }
    for s in [4, 8] {
        eprintln!("2D throw s{s}: {:?}", run2(s, (0.0, 0.3), (10.0, 0.0), 0.0));
        eprintln!("2D drop  s{s}: {:?}", run2(s, (0.0, 5.0), (0.0, 0.0), 0.0));
        for tree in [false, true] {
            eprintln!("3D throw s{s} tree {tree}: {:?}", run3(s, (0.0, 0.4, 0.0), (10.0, 1.0, 1.0), tree));
            eprintln!("3D drop  s{s} tree {tree}: {:?}", run3(s, (0.0, 5.0, 0.0), (0.0, 0.0, 0.0), tree));
        }
    }
}

#[test]
#[ignore]
fn diag_bounce() {
    for (mu, damp, nl) in [(0.6, 0.3, false), (0.0, 0.0, false), (0.0, 0.0, true), (0.6, 0.0, false)] {
        for e in [0.0, 0.5, 0.8, 1.0] {
            eprintln!("mu {mu} damp {damp} nolimits {nl} e {e}: {:.3}", bounce_with(4, e, 4.0, mu, damp, nl));
        }
    }
}

#[test]
#[ignore]
fn diag_trace() {
    for e in [0.8] {
        let rig = presets::humanoid16::<f64>();
        let mut w = World::<Space2<f64>>::new(WorldDef::default().substeps(4).restitution(e).friction(0.6).damping(0.3)).unwrap();
        w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0).unwrap())).unwrap();
        let s = SpawnDef::from_rig(&rig, Vector2::new(0.0, 4.0), Rot2::from_angle(std::f64::consts::FRAC_PI_2), 1.0, Vector2::ZERO);
        let rd = Ragdoll::spawn_with(&mut w, &rig, &s).unwrap();
        for i in 0..rig.node_count() { let h = rd.node(i).unwrap(); eprint!("({:.2},{:.2} r{:.2}) ", w.particles().position(h).unwrap().x, w.particles().position(h).unwrap().y, w.particles().radius(h).unwrap()); }
        eprintln!();
        let mut last = rd.center_of_mass(&w).unwrap().y;
        for f in 0..80 {
            let rep = w.step(DT).unwrap();
            let c = rd.center_of_mass(&w).unwrap().y;
            if f >= 50 {
                let st = rd.stats(&w).unwrap();
                let vys: Vec<String> = rd.nodes().iter().map(|&h| format!("{:.1}", w.particles().velocity(h).unwrap().y)).collect();
                eprintln!("f{f} com {c:.3} vy {:.2} contacts {} lim {:.1} vys {}", (c - last) / DT, rep.contacts, st.max_limit_violation.to_degrees(), vys.join(" "));
            }
            last = c;
        }
    }
}

#[test]
#[ignore]
fn diag_rest() {
    let rig = presets::humanoid16::<f64>();
    let def = WorldDef::default().substeps(4).friction(0.6).damping(0.3);
    let mut w = World::<Space2<f64>>::new(def).unwrap();
    w.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0).unwrap())).unwrap();
    let rd = Ragdoll::spawn(&mut w, &rig, Vector2::new(0.0, 5.0), 1.0, Vector2::ZERO).unwrap();
    for f in 0..300 {
        let rep = w.step(DT).unwrap();
        let st = rd.stats(&w).unwrap();
        if f % 10 == 0 || f > 290 {
            let sp: Vec<String> = rd.nodes().iter().map(|&h| format!("{:.3}", w.particles().velocity(h).unwrap().length())).collect();
            eprintln!("f{f} max {:.4} lim {:.2} contacts {} sleeping {} {}", st.max_speed, st.max_limit_violation.to_degrees(), rep.contacts, rd.is_sleeping(&w), sp.join(" "));
        }
    }
}
