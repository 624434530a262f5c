#!/usr/bin/env python3
"""Writes fuzz/afl/scene.dict: AFL++ tokens for the scene format (its keys and enumerated
strings, from scenes/, the committed corpus and docs/SCENE_FORMAT.md, plus hostile numbers).
Run from the repository root: python3 fuzz/afl/make_dict.py"""
import glob
import json
import re

keys, strs = set(), set()


def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            keys.add(k)
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
    elif isinstance(v, str):
        strs.add(v)


for f in glob.glob("scenes/*.json") + glob.glob("crates/sinew-scene/fuzz/corpus/*.json"):
    walk(json.load(open(f)))
keys.update(re.findall(r'`"([a-z_0-9]+)"', open("docs/SCENE_FORMAT.md").read()))
out = [
    "# Scene-format tokens for AFL++ (-x): keys and enumerated strings from scenes/,",
    "# the committed corpus and docs/SCENE_FORMAT.md (regenerate: python3 fuzz/afl/make_dict.py).",
]
out += [f'key_{i}="\\"{k}\\":"' for i, k in enumerate(sorted(keys))]
out += [f'str_{i}="\\"{k}\\""' for i, k in enumerate(sorted(strs)) if len(k) < 24 and re.fullmatch(r"[A-Za-z0-9_ .-]+", k)]
hostile = ["1e308", "-1e308", "NaN", "0.0", "-0", "1e-320", "[]", "{}", "null", "true", "false", "[0,0]", "[0,0,0]", "[0,0,0,1]"]
out += [f'tok_{i}="{t}"' for i, t in enumerate(hostile)]
open("fuzz/afl/scene.dict", "w").write("\n".join(out) + "\n")
