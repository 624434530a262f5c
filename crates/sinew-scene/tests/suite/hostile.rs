//! Hostile scene files: every scene of `scenes/` mutated at random (numbers replaced by
//! NaN-like, infinite, huge, negative or zero values, strings by other strings, arrays
//! emptied, keys dropped) must load with a clear error or run without a panic and without
//! non-finite positions.

use serde_json::Value;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Every value of the document, by path, so one can be picked at random.
fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count).sum(),
        Value::Object(o) => o.values().map(count).sum(),
        _ => 0,
    }
}

/// Mutates the `k`-th value (pre-order) of `v`; returns how many values were passed.
fn mutate(v: &mut Value, k: &mut usize, rng: &mut Rng) -> bool {
    if *k == 0 {
        *v = match (v.clone(), rng.below(8)) {
            (Value::Number(_), 0) => Value::from(1e300),
            (Value::Number(_), 1) => Value::from(-1e300),
            (Value::Number(_), 2) => Value::from(0),
            (Value::Number(n), 3) => Value::from(-n.as_f64().unwrap_or(1.0)),
            (Value::Number(_), 4) => Value::from(1e-300),
            (Value::Number(n), 5) => Value::from(n.as_f64().unwrap_or(1.0) * 1e6),
            (Value::Number(_), 6) => Value::from(-7),
            (Value::Array(_), 0 | 1) => Value::Array(Vec::new()),
            (Value::Object(mut o), 0..=2) if !o.is_empty() => {
                let key = o.keys().nth(rng.below(o.len())).cloned().unwrap_or_default();
                o.remove(&key);
                Value::Object(o)
            }
            (Value::String(_), _) => Value::from("start"),
            (_, 7) => Value::Null,
            (other, _) => Value::from(if matches!(other, Value::Bool(_)) { 1 } else { -1 }),
        };
        return true;
    }
    *k -= 1;
    match v {
        Value::Array(a) => a.iter_mut().any(|x| mutate(x, k, rng)),
        Value::Object(o) => o.values_mut().any(|x| mutate(x, k, rng)),
        _ => false,
    }
}

#[test]
fn mutated_scene_files_give_errors_or_finite_runs_never_panics() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut loaded, mut rejected) = (0, 0);
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    for path in names.iter().filter(|p| p.extension().is_some_and(|e| e == "json")) {
        let text = std::fs::read_to_string(path).unwrap();
        let base: Value = serde_json::from_str(&text).unwrap();
        // Big scenes (benchmarks, stress) take a few mutations only: each run steps them.
        let big = text.len() > 200_000;
        for round in 0..if big { 4 } else { 40 } {
            let mut doc = base.clone();
            for _ in 0..1 + rng.below(3) {
                let n = count(&doc);
                let mut k = rng.below(n);
                mutate(&mut doc, &mut k, &mut rng);
            }
            let what = format!("{} round {round}", path.display());
            let mut sim = match sinew_scene::load_str(&doc.to_string()) {
                Ok(sim) => sim,
                Err(e) => {
                    assert!(!e.to_string().trim().is_empty(), "{what}: an error without a message");
                    rejected += 1;
                    continue;
                }
            };
            loaded += 1;
            for _ in 0..5 {
                if sim.step().is_err() {
                    break;
                }
            }
            for p in sim.positions() {
                assert!(p.iter().all(|c| c.is_finite()), "{what}: non-finite position {p:?}");
            }
        }
    }
    println!("{loaded} mutated scenes loaded and ran, {rejected} rejected with an error");
    assert!(loaded > 50 && rejected > 50, "loaded {loaded}, rejected {rejected}");
}
