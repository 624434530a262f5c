//! `sinew`: simulate, render and benchmark Sinew scene files.
//!
//! ```text
//! sinew simulate SCENE [--frames N] [--every K] [--threads T]   JSON Lines, one per frame, on stdout
//! sinew render SCENE --out FILE.png|FILE.gif [--frames N] [--show contacts,limits,...]
//! sinew bench SCENE [--frames N] [--repeat R] [--skip K] [--no-stages] [--threads T] [--worlds W]
//!                                                           time per frame, per particle-substep, per stage
//! sinew                                                     render the showcase scenes into ./out
//! ```
//!
//! `--threads T` runs the steps in a pool of `T` threads (default: one per core); the
//! results are the same whatever `T` (see `sinew::world` on threads).
//!
//! Every error is one line on stderr naming the file and the path of the offending value
//! in it, with a non-zero exit status; the command never panics on bad input.

use clap::{Parser, Subcommand};
use sinew_cli::{load, render};
use sinew_scene::Simulation;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(name = "sinew", version, about = "Simulate, render and benchmark Sinew scene files")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scene and print one JSON line per frame (frame 0 is the initial state).
    Simulate {
        /// Scene file (JSON).
        scene: PathBuf,
        /// Frames to simulate after the initial one.
        #[arg(long, default_value_t = 60)]
        frames: u64,
        /// Print only every K-th frame (and the last).
        #[arg(long, default_value_t = 1)]
        every: u64,
        /// Threads for the steps (default: one per core); the output is the same for any.
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Run a scene and draw it to a PNG (last frame) or an animated GIF.
    Render {
        /// Scene file (JSON).
        scene: PathBuf,
        /// Output image (.png or .gif).
        #[arg(long)]
        out: PathBuf,
        /// Frames to simulate.
        #[arg(long, default_value_t = 180)]
        frames: u64,
        /// GIF: keep every K-th frame.
        #[arg(long, default_value_t = 2)]
        every: u64,
        /// Image width in pixels.
        #[arg(long, default_value_t = 800)]
        width: u32,
        /// Image height in pixels.
        #[arg(long, default_value_t = 600)]
        height: u32,
        /// Debug overlays to draw as well (comma-separated).
        #[arg(long, value_enum, value_delimiter = ',')]
        show: Vec<Overlay>,
    },
    /// Time a scene: wall-clock per frame and per particle-substep, best of several runs.
    Bench {
        /// Scene file (JSON).
        scene: PathBuf,
        /// Frames per run.
        #[arg(long, default_value_t = 600)]
        frames: u64,
        /// Runs (the best is reported).
        #[arg(long, default_value_t = 5)]
        repeat: u32,
        /// Frames simulated before the timed ones in each run (not timed): time a scene's
        /// later, settled phase, e.g. `--skip 180 --frames 120` for frames 181–300.
        #[arg(long, default_value_t = 0)]
        skip: u64,
        /// Skip the extra profiled run that splits a frame into its stages (never run
        /// with `--worlds` above 1).
        #[arg(long)]
        no_stages: bool,
        /// Threads for the steps (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        /// Independent copies of the scene, stepped side by side (one task per copy) each
        /// frame; the time is per frame of all of them.
        #[arg(long, default_value_t = 1)]
        worlds: usize,
    },
}

/// A debug-draw overlay `sinew render --show` can add to the scene picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Overlay {
    /// Contact points and normals of the last substep.
    Contacts,
    /// Joint limits: allowed sectors (2D) and swing cones (3D), red when violated.
    Limits,
    /// Tether constraints.
    Tethers,
    /// Sleeping particles and ropes, greyed.
    Sleeping,
    /// Ropes' particles as dots.
    RopeParticles,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Simulate { scene, frames, every, threads }) => {
            pool(threads).and_then(|p| p.install(|| simulate(&scene, frames, every)))
        }
        Some(Command::Render { scene, out, frames, every, width, height, show }) => {
            let mut opts = render::RenderOptions {
                width,
                height,
                frames,
                every: every.max(1),
                title: Some(render::title_of(&scene)),
                ..Default::default()
            };
            for o in show {
                let d = &mut opts.draw;
                match o {
                    Overlay::Contacts => d.contacts = true,
                    Overlay::Limits => d.joint_limits = true,
                    Overlay::Tethers => d.tethers = true,
                    Overlay::Sleeping => d.sleeping = true,
                    Overlay::RopeParticles => d.rope_particles = true,
                }
            }
            load(&scene)
                .and_then(|mut sim| {
                    render::render(sim.as_mut(), &out, &opts).map_err(|e| format!("{}: {e}", scene.display()))
                })
                .map(|msg| eprintln!("{msg}"))
        }
        Some(Command::Bench { scene, frames, repeat, skip, no_stages, threads, worlds }) => pool(threads)
            .and_then(|p| p.install(|| bench(&scene, (frames.max(1), repeat.max(1), skip), !no_stages, worlds))),
        None => showcase(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The thread pool of `--threads` (`None`: one thread per core, or `RAYON_NUM_THREADS`).
fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, String> {
    if threads == Some(0) {
        return Err("--threads must be at least 1".into());
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| format!("cannot start {} threads: {e}", threads.unwrap_or(0)))
}

/// Steps every copy once, side by side (one task each).
fn step_copies(sims: &mut [Box<dyn Simulation>], path: &Path, f: u64) -> Result<(), String> {
    use rayon::prelude::*;
    let failed = sims.par_iter_mut().with_max_len(1).map(|sim| sim.step().err()).find_first(Option::is_some);
    match failed.flatten() {
        Some(e) => Err(format!("{}: frame {f}: {e}", path.display())),
        None => Ok(()),
    }
}

fn simulate(path: &Path, frames: u64, every: u64) -> Result<(), String> {
    if every == 0 {
        return Err("--every must be at least 1".into());
    }
    let mut sim = load(path)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut line = String::with_capacity(4096);
    let mut emit = |sim: &dyn Simulation, out: &mut dyn Write| -> Result<(), String> {
        line.clear();
        // A value that is not finite is an error, never printed (JSON has no NaN).
        sim.write_frame_json(&mut line).map_err(|e| format!("{}: frame {}: {e}", path.display(), sim.frame()))?;
        line.push('\n');
        out.write_all(line.as_bytes()).map_err(|e| format!("writing output: {e}"))
    };
    emit(sim.as_ref(), &mut out)?;
    for f in 1..=frames {
        sim.step().map_err(|e| format!("{}: frame {f}: {e}", path.display()))?;
        if f % every == 0 || f == frames {
            emit(sim.as_ref(), &mut out)?;
        }
    }
    out.flush().map_err(|e| format!("writing output: {e}"))
}

fn bench(path: &Path, (frames, repeat, skip): (u64, u32, u64), stages: bool, worlds: usize) -> Result<(), String> {
    if worlds == 0 {
        return Err("--worlds must be at least 1".into());
    }
    let mut best = f64::MAX;
    let mut particles = 0;
    let mut substeps_note = String::new();
    for _ in 0..repeat {
        let mut sims = (0..worlds).map(|_| load(path)).collect::<Result<Vec<_>, _>>()?;
        let step = |sims: &mut [Box<dyn Simulation>], f: u64| match sims {
            [sim] => sim.step().map_err(|e| format!("{}: frame {f}: {e}", path.display())),
            _ => step_copies(sims, path, f),
        };
        for f in 1..=skip {
            step(&mut sims, f)?;
        }
        particles = sims.iter().map(|s| s.particle_count()).sum();
        let t = Instant::now();
        for f in skip + 1..=skip + frames {
            step(&mut sims, f)?;
        }
        best = best.min(t.elapsed().as_secs_f64());
        substeps_note = format!("{}D {}", sims[0].dim(), sims[0].numeric());
    }
    let per_frame = best / frames as f64;
    let substeps = scene_substeps(path);
    let per_ps = per_frame / (particles.max(1) as f64 * substeps as f64);
    // (Written, not printed: a closed pipe, `sinew bench … | head`, is not a panic.)
    let mut stdout = std::io::stdout();
    let _ = writeln!(
        stdout,
        "{}{}: {substeps_note}, {particles} particles, {substeps} substeps, {} thread{}: {:.3} µs/frame, {:.2} ns/particle-substep (best of {repeat} × {frames} frames{})",
        path.display(),
        if worlds > 1 { format!(" × {worlds} worlds") } else { String::new() },
        rayon::current_num_threads(),
        if rayon::current_num_threads() == 1 { "" } else { "s" },
        per_frame * 1e6,
        per_ps * 1e9,
        if skip > 0 { format!(" after {skip}") } else { String::new() }
    );
    if !stages || worlds > 1 {
        return Ok(());
    }
    // One more run with the world's per-stage clock on (it reads the clock once per stage,
    // so it is not the run timed above): where a frame's time goes.
    let mut sim = load(path)?;
    for f in 1..=skip {
        sim.step().map_err(|e| format!("{}: frame {f}: {e}", path.display()))?;
    }
    sim.set_profiling(true);
    let mut sum = sinew::StepProfile::default();
    for f in skip + 1..=skip + frames {
        sim.step().map_err(|e| format!("{}: frame {f}: {e}", path.display()))?;
        sum += sim.profile();
    }
    let total = sum.total.as_secs_f64().max(f64::MIN_POSITIVE);
    let stages: Vec<String> = (sum.stages().iter())
        .filter(|(_, d)| !d.is_zero())
        .map(|(name, d)| {
            let s = d.as_secs_f64();
            format!("{name} {:.2} µs ({:.0} %)", s / frames as f64 * 1e6, 100.0 * s / total)
        })
        .collect();
    let _ = writeln!(stdout, "  stages per frame (profiled run): {}", stages.join(", "));
    Ok(())
}

fn scene_substeps(path: &Path) -> u64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| sinew_scene::parse(&t).ok())
        .and_then(|s| s.substeps)
        .map_or(8, |n| n.max(1) as u64)
}

/// `sinew` with no arguments: render the showcase scenes to files.
fn showcase() -> Result<(), String> {
    let out_dir = PathBuf::from("out");
    println!("sinew: rendering the showcase scenes to files (the interactive playground is `cargo run --release`).");
    for (_, msg) in sinew_cli::showcase(&out_dir)? {
        println!("  {msg}");
    }
    println!("Open the files under {}/ to see them. Run `sinew --help` for the CLI.", out_dir.display());
    Ok(())
}
