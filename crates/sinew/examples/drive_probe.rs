use sinew::prelude::*;
use sinew::ragdoll::drive_parts::humanoid16_parts;
use sinew::ragdoll::{HitReactionDef, PoseDrive, PoseDriveDef, Ragdoll, presets};

fn main() {
    let mut world = World2d::new(WorldDef::default().gravity(Vector2::ZERO)).unwrap();
    let rig = presets::humanoid16::<f64>();
    let doll = Ragdoll::spawn(&mut world, &rig, Vector2::ZERO, 1.0, Vector2::ZERO).unwrap();
    let reaction = HitReactionDef::default().knockout_impulse(Some(50.0)).knockout_frames(90).getup_frames(60);
    let h = PoseDrive::add(&mut world, &rig, doll.nodes(), &humanoid16_parts(), &PoseDriveDef::default().reaction(reaction)).unwrap();
    let (_, p) = presets::humanoid16_poses::<f64>().into_iter().find(|(n, _)| *n == "stance").unwrap();
    world.controller_mut(h).unwrap().set_targets_from_pose(&sinew::Pose::new(p.positions[..16].to_vec())).unwrap();
    for _ in 0..120 { world.step(1.0 / 60.0).unwrap(); }
    let at = world.particles().position(doll.node(0).unwrap()).unwrap();
    h.hit(&mut world, 2, at, Vector2::new(-60.0, 10.0)).unwrap();
    for f in 0..600 {
        world.step(1.0 / 60.0).unwrap();
        if f % 30 == 0 {
            let d = world.controller(h).unwrap();
            let errs: Vec<String> = (0..d.part_count()).map(|i| format!("{:.1}", d.error_angle(world.particles(), i).unwrap().to_degrees())).collect();
            let s = doll.stats(&world).unwrap();
            println!("f {f} {:?} errs {} lim {:.2}", d.phase(), errs.join(" "), s.max_limit_violation.to_degrees());
        }
    }
}
