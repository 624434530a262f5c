#!/usr/bin/env bash
# Frame rate of the playground's rope scene in the real window under Xvfb (software OpenGL):
# the median real frame time over 10 s with the rope at rest, then over 10 s held up by the
# mouse hand (the scripted drag of the smoke test). Usage:
#   cargo build --release -p sinew-playground && bash crates/sinew-playground/scripts/fps.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin="${1:-target/release/sinew-playground}"
dir="$(mktemp -d)"
SINEW_PLAYGROUND_AUTO="scene=rope;wait=120;bench=10,$dir/rest.txt;holdmid=0.5,0.15,40;bench=10,$dir/held.txt;quit" \
    LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s "-screen 0 1280x800x24" "$bin"
for f in rest held; do echo "$f: $(tr '\n' ' ' <"$dir/$f.txt")"; done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
