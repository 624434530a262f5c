//! The core crate's layers, as ARCHITECTURE.md draws them: each top-level module imports
//! only modules below it. This test reads the sources and fails on an import that goes up
//! (or sideways into a module not listed), so the picture stays true of the code.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The modules from the bottom up; a module may import any module before it.
const LAYERS: &[&str] = &[
    "state",
    "math",
    "arena",
    "error",
    "limits",
    "dim",
    "particle",
    "collider",
    "constraint",
    "ik",
    "space",
    "driver",
    "sleep",
    "rope",
    "contact",
    "impact",
    "controller",
    "world",
    "ragdoll",
    "brachiation",
    "fight",
    "debug_draw",
    "stepper",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The crate-root names re-exported by `lib.rs`, with the module each comes from.
fn root_names() -> Vec<(String, String)> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let mut out = Vec::new();
    for stmt in lib.split("pub use ").skip(1) {
        let stmt = &stmt[..stmt.find(';').unwrap_or(stmt.len())];
        let Some((module, rest)) = stmt.split_once("::") else { continue };
        let rest = rest.trim_start_matches('{').trim_end_matches('}');
        for name in rest.split(',') {
            let name = name.split(" as ").last().unwrap_or("").trim();
            if !name.is_empty() {
                out.push((name.to_string(), module.to_string()));
            }
        }
    }
    out
}

/// The top-level modules a file's code names through `crate::` (comments and the test
/// module left out).
fn imports(text: &str, roots: &[(String, String)]) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
    let mut out = BTreeSet::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + 7..];
            let mut names = Vec::new();
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                names.extend(group[..end].split(',').map(|n| n.trim().split("::").next().unwrap_or("").to_string()));
            } else {
                let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
                names.push(rest[..end].to_string());
            }
            for n in names {
                let module = roots.iter().find(|(name, _)| *name == n).map_or(n.clone(), |(_, m)| m.clone());
                out.insert(module);
            }
        }
    }
    out
}

#[test]
fn every_module_of_the_core_imports_only_modules_below_it() {
    let roots = root_names();
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut checked = BTreeSet::new();
    let mut wrong = Vec::new();
    for f in files {
        let rel = f.strip_prefix(src()).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        if top == "lib" {
            continue;
        }
        let Some(level) = LAYERS.iter().position(|&m| m == top) else {
            wrong.push(format!("{}: module `{top}` is not in the layer list", rel.display()));
            continue;
        };
        checked.insert(top.clone());
        for m in imports(&std::fs::read_to_string(&f).unwrap(), &roots) {
            if m == top {
                continue;
            }
            match LAYERS.iter().position(|&l| l == m) {
                Some(l) if l < level => {}
                Some(_) => wrong.push(format!("{}: `{top}` imports `{m}`, which is not below it", rel.display())),
                None => wrong.push(format!("{}: `{top}` imports `{m}`, not in the layer list", rel.display())),
            }
        }
    }
    assert!(wrong.is_empty(), "imports against the layers:\n{}", wrong.join("\n"));
    assert_eq!(checked.len(), LAYERS.len(), "every listed module exists: {checked:?}");
}

#[test]
fn no_source_file_of_the_core_holds_more_than_800_lines_of_code() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let lines = code.lines().filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with("//")).count();
        assert!(lines <= 800, "{}: {lines} lines of code (tests and comments aside)", f.display());
    }
}
