//! Hostile scene files under 1 MB cannot make `sinew` use more than 1 GB: each is run in
//! a child process whose peak resident size (`wait4`'s `ru_maxrss`) is read back, under an
//! address-space cap of 2 GB (so a regression fails this test instead of the machine).
//! Each is either rejected with one error line naming the path and the limit, or runs.

#![cfg(target_os = "linux")]

use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

const ONE_GB_KB: i64 = 1 << 20;

fn temp_scene(name: &str, text: &str) -> PathBuf {
    assert!(text.len() < 1 << 20, "{name}: hostile files are under 1 MB ({} bytes)", text.len());
    let dir = std::env::temp_dir().join(format!("sinew-memory-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs `sinew args…`; returns (exit code, stderr, peak resident KB).
fn run(args: &[&str]) -> (i32, String, i64) {
    let dir = std::env::temp_dir().join(format!("sinew-memory-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let err_path = dir.join(format!("stderr-{}.txt", args.join("_").len()));
    let err_file = std::fs::File::create(&err_path).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sinew"));
    cmd.args(args).stdout(Stdio::null()).stderr(err_file);
    // SAFETY: `setrlimit` is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let cap = libc::rlimit { rlim_cur: 2 << 30, rlim_max: 2 << 30 };
            if libc::setrlimit(libc::RLIMIT_AS, &cap) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // Reaped by `wait4` below, which also reads its resource usage.
    #[allow(clippy::zombie_processes)]
    let child = cmd.spawn().unwrap();
    let mut status = 0;
    // SAFETY: plain FFI with valid pointers; the child is ours and not yet waited for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t);
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 128 + libc::WTERMSIG(status) };
    let stderr = std::fs::read_to_string(&err_path).unwrap();
    (code, stderr, usage.ru_maxrss)
}

/// A rope hanging from a pin (straight down: its chain solve converges at once, so the
/// runs below measure memory, not the solver's worst case).
fn rope(segments: usize, reel: Option<f64>) -> String {
    let reel = reel.map_or(String::new(), |l| format!(r#","reel":[[0,1],[10,{l}]]"#));
    format!(r#"{{"points":[[0,0],[0,-1]],"segments":{segments},"pin":["start"]{reel}}}"#)
}

fn scene_2d(body: &str) -> String {
    format!(r#"{{"dim":2,{body}}}"#)
}

/// A file that must be rejected: exit 1, one error line naming `path` and `limit`.
fn rejected(name: &str, text: &str, extra: &[&str], path: &str, limit: &str) -> i64 {
    let p = temp_scene(name, text);
    let mut args = vec![if extra.is_empty() { "simulate" } else { "render" }, p.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--frames", "3"]);
    let (code, stderr, kb) = run(&args);
    assert_eq!(code, 1, "{name}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{name}: one error line: {stderr}");
    assert!(stderr.contains(path) && stderr.contains(limit), "{name}: names {path} and {limit}: {stderr}");
    assert!(kb < ONE_GB_KB, "{name}: peak {kb} KB");
    kb
}

/// A file that must load and run `frames` frames.
fn runs(name: &str, text: &str, frames: &str) -> i64 {
    let p = temp_scene(name, text);
    let (code, stderr, kb) = run(&["simulate", p.to_str().unwrap(), "--frames", frames]);
    assert_eq!(code, 0, "{name}: {stderr}");
    assert!(kb < ONE_GB_KB, "{name}: peak {kb} KB");
    kb
}

#[test]
fn hostile_files_under_1_mb_stay_under_1_gb() {
    let mut peaks = Vec::new();
    // 200 ropes × 100,000 segments (10 KB): over the scene's rope segments.
    let ropes = vec![rope(100_000, None); 200].join(",");
    let text = scene_2d(&format!(r#""ropes":[{ropes}]"#));
    peaks.push(("200 ropes x 100000 segments", rejected("ropes.json", &text, &[], "ropes[1].segments", "200000")));
    // A reel schedule to 10⁶ m.
    let text = scene_2d(&format!(r#""ropes":[{}]"#, rope(20, Some(1e6))));
    peaks.push(("reel to 1e6 m", rejected("reel.json", &text, &[], "ropes[0].reel[1][1]", "reel_length")));
    // Within the reel length but over the segments: 9,000 m of 2.5 cm segments.
    let text = scene_2d(&format!(r#""ropes":[{}]"#, rope(40, Some(9000.0))));
    peaks.push(("reel to 9000 m", rejected("reel_segments.json", &text, &[], "ropes[0].segments", "200000")));
    // 25,000 ragdolls (1 MB): their nodes are counted by the world as it is built.
    let dolls = vec![r#"{"preset":"humanoid16","origin":[0,0]}"#; 25_000].join(",");
    let text = scene_2d(&format!(r#""ragdolls":[{dolls}]"#));
    peaks.push(("25000 ragdolls", rejected("ragdolls.json", &text, &[], "ragdolls[", "SceneLimits")));
    // A 100,000-pixel-wide image.
    let text = scene_2d(r#""particles":[{"pos":[0,0]}]"#);
    let out = std::env::temp_dir().join(format!("sinew-memory-test-{}/wide.png", std::process::id()));
    let extra = ["--out", out.to_str().unwrap(), "--width", "100000"];
    peaks.push(("render --width 100000", rejected("render.json", &text, &extra, "100000x600", "max_pixels")));
    // What the limits let through, run: 60,000 particles; two ropes of 100,000 segments;
    // a rope reeled out to 1,000 m (20,000 segments).
    let particles = vec![r#"{"pos":[0,0]}"#; 60_000].join(",");
    peaks.push(("60000 particles", runs("particles.json", &scene_2d(&format!(r#""particles":[{particles}]"#)), "2")));
    let two = [rope(100_000, None), rope(99_998, None)].join(",");
    peaks.push(("2 ropes x 100000 segments", runs("two_ropes.json", &scene_2d(&format!(r#""ropes":[{two}]"#)), "1")));
    let reel = r#"{"points":[[0,0],[0,-1]],"segment_length":0.05,"pin":["start"],"reel":[[0,1],[0.03,1000]]}"#;
    peaks.push(("reel to 1000 m", runs("reel_ok.json", &scene_2d(&format!(r#""ropes":[{reel}]"#)), "3")));
    for (name, kb) in &peaks {
        eprintln!("{name}: peak {:.1} MB", *kb as f64 / 1024.0);
    }
}
