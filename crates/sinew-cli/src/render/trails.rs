//! Trails: the paths free particles (and rope vertices) have travelled, for `--trail`-style
//! renders.

use super::frame::Frame;
use super::geom::{P3, finite3};
use std::collections::BTreeMap;

/// Trail samples kept over all particles together (bounds memory for long runs).
const TRAIL_BUDGET: usize = 2_000_000;

/// Recorded particle paths by particle slot, thinned as they grow so memory stays bounded.
pub struct Trails {
    stride: u64,
    ticks: u64,
    cap: usize,
    /// Slot → path (a `BTreeMap` so that paths are drawn in a fixed order).
    pub(super) paths: BTreeMap<u32, Vec<P3>>,
}

impl Trails {
    /// Trails for about `particles` particles.
    pub fn new(particles: usize) -> Self {
        Trails { stride: 1, ticks: 0, cap: (TRAIL_BUDGET / particles.max(1)).clamp(4, 1024), paths: BTreeMap::new() }
    }

    /// Records one frame (call once per simulated frame).
    pub fn record(&mut self, frame: &Frame) {
        if self.ticks % self.stride == 0 {
            let mut full = false;
            for (id, p, _, pinned) in frame.bodies() {
                if let Some(id) = id.filter(|_| !pinned && finite3(p)) {
                    let path = self.paths.entry(id).or_default();
                    path.push(p);
                    full |= path.len() > self.cap;
                }
            }
            if full {
                for path in self.paths.values_mut() {
                    let mut k = 0;
                    path.retain(|_| {
                        k += 1;
                        k % 2 == 1
                    });
                }
                self.stride *= 2;
            }
        }
        self.ticks += 1;
    }

    /// Every recorded point.
    pub fn points(&self) -> impl Iterator<Item = P3> + '_ {
        self.paths.values().flatten().copied()
    }
}
