#!/usr/bin/env bash
# Takes the README's screenshots of every playground scene from the real window under Xvfb
# (software OpenGL): bash crates/sinew-playground/scripts/screenshots.sh [BINARY]
# Writes docs/images/playground_*.png. Needs xvfb-run (apt-get install -y xvfb libgl1-mesa-dri).
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin="${1:-target/release/sinew-playground}"
out="$PWD/docs/images"
shot() { # NAME SCRIPT
    SINEW_PLAYGROUND_AUTO="$2;shot=$out/playground_$1.png;wait=3;quit" LIBGL_ALWAYS_SOFTWARE=1 \
        xvfb-run -a -s "-screen 0 1280x800x24" "$bin"
}
shot rope "scene=rope;wait=150;holdmid=0.55,0.15,50;wait=4"
shot rope_3d "scene=rope3d;wait=150;holdmid=0.5,0.2,50;wait=4"
shot rope_between "scene=rope_between;wait=90;pull;wait=5"
shot grappling_hook "scene=grappling_hook;wait=60"
shot taut_rope_3d "scene=taut3d;wait=90"
shot ragdoll "scene=ragdoll;wait=120;holdmid=0.65,0.25,30;wait=10"
shot ragdoll_3d "scene=ragdoll3d;wait=90;holdmid=0.45,0.12,40;wait=25"
shot muscle "scene=muscle;wait=60;punch;wait=14"
shot fighters "scene=fighters;wait=36"
shot brachiation "scene=brachiation;wait=170"
shot determinism "scene=determinism;wait=100"
shot stress "scene=stress;wait=150"
