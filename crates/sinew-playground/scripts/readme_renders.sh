#!/usr/bin/env bash
# Re-renders the README's headless pictures (docs/images/*.png that are not playground
# screenshots) with `sinew render`: each names its scene and simulated time in the top-left
# corner and has a scale bar with its length in the bottom-left one. Usage:
#   cargo build --release -p sinew-cli && bash crates/sinew-playground/scripts/readme_renders.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
sinew="${1:-target/release/sinew}"
out=docs/images
"$sinew" render scenes/showcase_2d.json --out "$out/showcase_2d.png" --frames 240
"$sinew" render scenes/showcase_3d.json --out "$out/showcase_3d.png" --frames 240
"$sinew" render scenes/rope_14m_2d.json --out "$out/rope_14m_2d.png" --frames 330 --width 1200 --height 450
"$sinew" render scenes/rope_14m_3d.json --out "$out/rope_14m_3d.png" --frames 330 --width 1200 --height 450
"$sinew" render scenes/rope_between_objects_3d.json --out "$out/rope_between_objects_3d.png" --frames 198
"$sinew" render scenes/rope_grappling_hook_2d.json --out "$out/rope_grappling_hook_2d.png" --frames 54
"$sinew" render scenes/ragdolls_2d.json --out "$out/ragdolls_2d.png" --frames 300
"$sinew" render scenes/rope_taut_3d.json --out "$out/rope_taut_3d.png" --frames 90
