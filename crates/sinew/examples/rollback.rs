//! Rollback netcode (GGRS-style) with Sinew: a fixed-point world (`World2x`, bit-exact on
//! every machine) with a muscle ragdoll fighter and a rope. The remote player's inputs
//! (punch the fighter, pull the rope) reach this client 5 frames late, so the client
//! predicts them (it repeats the last one it has), keeps a ring of snapshots, and when an
//! input arrives that it predicted wrong, restores the frame it belongs to and
//! re-simulates to the present. A peer world that got every input on time is the
//! reference: the client's state hash must equal the peer's for every confirmed frame.
//!
//! ```sh
//! cargo run --release -p sinew --example rollback
//! ```

use sinew::prelude::*;
use sinew::ragdoll::presets;

const FRAMES: u32 = 240;
/// Remote inputs arrive this many frames late.
const LAG: u32 = 5;
/// Snapshots kept: enough to go back `LAG` frames.
const RING: usize = 8;

/// One frame of the remote player's controller.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Input {
    punch: bool,
    /// Pull the rope's end left (−1), not (0) or right (+1).
    pull: i8,
}

/// What the remote player really pressed on frame `f`.
fn remote_input(f: u32) -> Input {
    Input { punch: f % 60 == 20, pull: [0, 1, 0, -1][(f / 25 % 4) as usize] }
}

struct Game {
    world: World2x,
    fighter: MuscleRagdollHandle<Space2<Fx>>,
    chest: ParticleHandle,
    rope_end: ParticleHandle,
}

fn new_game() -> Result<Game, SinewError> {
    let fx = Fx::from_f64; // exact and the same everywhere for constants like these
    let mut world = World2x::new(WorldDef::default().friction(Fx::ONE))?;
    world.add_collider(&ColliderDef::new(Shape::half_space(XVec2::new(Fx::ZERO, Fx::ONE), Fx::ZERO)?))?;
    // The Shadow Fight 3 muscle ragdoll in its fighting stance: a controller of the world,
    // so snapshots hold its muscles, schedules and frame counter too.
    let rig = presets::humanoid16_stabilised::<Fx>();
    let stance = SpawnDef::at_rest(presets::humanoid16_poses::<Fx>()[0].1.clone());
    let fighter =
        MuscleRagdoll::spawn(&mut world, &rig, &MuscleRagdollDef::default(), &presets::humanoid16_targets(), &stance)?;
    let chest = world.controller(fighter)?.nodes()[rig.node_index("chest").expect("a chest")];
    // A 1.2 m rope hanging from a hook beside it, with 1 kg at its end.
    let def = RopeDef::between(Vector2::from_f64(1.5, 2.4), Vector2::from_f64(1.5, 1.2)).segments(24).pin_start();
    let rope = world.add_rope(&def.mass(fx(0.2)))?;
    let rope_end = world.rope(rope)?.end();
    world.particles_mut().set_mass(rope_end, Fx::ONE)?;
    Ok(Game { world, fighter, chest, rope_end })
}

/// One frame: the input, then one fixed step. Returns the state hash after it.
fn advance(game: &mut Game, input: Input) -> Result<u64, SinewError> {
    if input.punch {
        let at = game.world.particles().position(game.chest).expect("a live node");
        game.fighter.apply_impulse_at(&mut game.world, at, Vector2::from_f64(-30.0, 0.0))?; // N·s
    }
    let pull = XVec2::new(Fx::from_i32(15 * i32::from(input.pull)), Fx::ZERO); // N
    game.world.particles_mut().apply_force(game.rope_end, pull)?;
    game.world.step(Fx::from_ratio(1, 60))?;
    Ok(game.world.state_hash())
}

fn main() -> Result<(), SinewError> {
    let (mut peer, mut client) = (new_game()?, new_game()?);
    assert_eq!(peer.world.state_hash(), client.world.state_hash(), "both start from the same state");
    let mut ring = vec![client.world.snapshot(); RING]; // ring[f % RING]: the state before frame f
    let mut used: Vec<Input> = Vec::new(); // the remote input the client last simulated frame f with
    let (mut client_hash, mut peer_hash) = (Vec::new(), Vec::new());
    let (mut rollbacks, mut resimulated) = (0, 0);
    // The client's guess for frame f when it has the inputs up to `confirmed`: the real
    // input where it has it, else the last one it has again.
    let guess = |f: u32, confirmed: Option<u32>| match confirmed {
        Some(c) => remote_input(f.min(c)),
        None => Input::default(),
    };

    for frame in 0..FRAMES {
        peer_hash.push(advance(&mut peer, remote_input(frame))?);

        // The remote input of frame `frame − LAG` arrives now.
        let confirmed = frame.checked_sub(LAG);
        if let Some(c) = confirmed.filter(|&c| used[c as usize] != remote_input(c)) {
            // Predicted wrong: back to the start of frame c, and re-simulate to the present.
            let (predicted, wrong) = (used[c as usize], client_hash[c as usize]);
            let snapshot = &ring[c as usize % RING];
            assert_eq!(snapshot.step_count(), u64::from(c), "the ring holds the state before frame {c}");
            client.world.restore(snapshot);
            for f in c..frame {
                client.world.snapshot_into(&mut ring[f as usize % RING]);
                used[f as usize] = guess(f, confirmed);
                client_hash[f as usize] = advance(&mut client, used[f as usize])?;
            }
            rollbacks += 1;
            resimulated += frame - c;
            if rollbacks <= 3 {
                let (real, (h, p)) = (remote_input(c), (client_hash[c as usize], peer_hash[c as usize]));
                println!(
                    "frame {frame}: frame {c}'s input arrives: punch {} pull {:+} (predicted punch {} pull {:+}); \
                     back {} frames: frame {c} hash {wrong:016x} -> {h:016x}, peer {p:016x}",
                    real.punch,
                    real.pull,
                    predicted.punch,
                    predicted.pull,
                    frame - c
                );
            }
        }
        // This frame, with a predicted remote input.
        client.world.snapshot_into(&mut ring[frame as usize % RING]);
        used.push(guess(frame, confirmed));
        client_hash.push(advance(&mut client, used[frame as usize])?);

        // Every confirmed frame is the peer's, bit for bit.
        if let Some(c) = confirmed {
            assert_eq!(client_hash[c as usize], peer_hash[c as usize], "frame {c} diverged from the peer");
        }
    }
    let checked = FRAMES - LAG;
    println!(
        "{rollbacks} rollbacks, {resimulated} frames re-simulated; frames 0..{checked} match the peer bit for bit"
    );
    let fighter = client.world.controller(client.fighter)?;
    let head = client.world.particles().position(fighter.nodes()[fighter.head().expect("a head")]).expect("a node");
    println!(
        "snapshot: {} bytes; the fighter's muscle frame counter {} (one per frame), head at {:.2} m",
        ring[0].size_bytes(),
        fighter.frame(),
        head.y.to_f64()
    );
    assert!(rollbacks >= 10, "the remote player changed inputs often enough to mispredict");
    assert_eq!(fighter.frame(), FRAMES, "one muscle frame per game frame: rolled back with the world");
    assert!(head.y.to_f64() > 1.3, "the punched fighter is still on its feet");
    Ok(())
}
