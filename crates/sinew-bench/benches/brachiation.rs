//! Brachiation benchmarks (criterion; figures in docs/BENCHMARKS.md, "Brachiation"):
//!
//! - `brachiation/plan/{f64,Fx}`: one planning call from a swing on a handhold to the
//!   next three handholds of a seeded course (the character's lookahead), 16 grab angles
//!   and up to 10 Newton steps per candidate — what the character runs once a swing;
//! - `brachiation/frame/{f32,f64,Fx}`: one 1/60 s frame of the whole character on a seeded
//!   course — its swing rig's world (16 substeps), the planner amortised over the frames
//!   (a run of 600 frames is timed and divided), and the level-of-detail chain (5- and
//!   14-point rigs with their IK) evaluated every frame as a renderer would.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use sinew::brachiation::lod::{self, RigDims};
use sinew::brachiation::{BrachRng, Brachiator, BrachiatorDef, Course, CourseDef, PlannerDef, SwingState, planner};
use sinew::{Fx, Real, Vector2};
use std::hint::black_box;

fn course<R: Real>() -> Course<R> {
    Course::generate(&CourseDef::new(7, R::from_i32(400))).expect("course")
}

fn bench_plan<R: Real>(c: &mut Criterion) {
    let course = course::<R>();
    let holds: Vec<Vector2<R>> = course.handholds.iter().map(|h| h.position).collect();
    let def = PlannerDef::<R>::new();
    let mut rng = BrachRng::new(3);
    // Swings from the first 50 handholds in turn, each to the next three.
    let states: Vec<(SwingState<R>, usize)> = (0..50)
        .map(|k| {
            let s = SwingState::on_branch(holds[k], R::from_f64(-0.6), R::from_f64(3.5), &def);
            (s, k + 1)
        })
        .collect();
    let mut k = 0;
    c.bench_function(&format!("brachiation/plan/{}", R::NAME), |b| {
        b.iter(|| {
            let (s, next) = &states[k % states.len()];
            k += 1;
            let end = (*next + 3).min(holds.len());
            black_box(planner::plan(black_box(s), &holds[*next..end], &def, &mut rng).ok())
        })
    });
}

/// 600 frames of the character with the rigs mapped every frame.
fn run_frames<R: Real>(b: &mut Brachiator<R>, frames: u32) -> R {
    let dt = R::from_ratio(1, 60);
    let dims = RigDims::<R>::new();
    let mut acc = R::ZERO;
    for _ in 0..frames {
        b.step(dt).expect("step");
        let holding = b.holding().map(|h| h.is_some());
        let (_, r14) = lod::chain(b.com(), b.hands(), holding, b.com_velocity(), &dims);
        acc += r14.com().x;
    }
    acc
}

fn bench_frame<R: Real>(c: &mut Criterion) {
    const FRAMES: u32 = 600;
    let make = || Brachiator::new(course::<R>(), BrachiatorDef::new(5)).expect("brachiator");
    c.bench_function(&format!("brachiation/frame_x{FRAMES}/{}", R::NAME), |b| {
        b.iter_batched(make, |mut br| black_box(run_frames(&mut br, FRAMES)), BatchSize::LargeInput)
    });
}

fn benches(c: &mut Criterion) {
    bench_plan::<f64>(c);
    bench_plan::<Fx>(c);
    bench_frame::<f32>(c);
    bench_frame::<f64>(c);
    bench_frame::<Fx>(c);
}

criterion_group!(brachiation, benches);
criterion_main!(brachiation);
