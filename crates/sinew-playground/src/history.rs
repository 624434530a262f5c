//! The last seconds of statistics, for the plots: one sample per frame.

use std::collections::VecDeque;

/// Samples kept: 10 s at 60 frames a second.
pub const CAPACITY: usize = 600;

/// One frame's numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// Simulated time (s).
    pub time: f64,
    /// Kinetic plus potential energy (J).
    pub energy: f64,
    /// Worst relative constraint error.
    pub worst_error: f64,
    /// Real time since the previous frame (ms).
    pub frame_ms: f64,
    /// Time the frame's physics took (ms).
    pub physics_ms: f64,
}

/// A ring of the last [`CAPACITY`] samples.
#[derive(Clone, Debug, Default)]
pub struct History {
    samples: VecDeque<Sample>,
    /// Frames pushed in all (x axis of the plots).
    frames: u64,
}

impl History {
    /// Adds a frame's sample, dropping the oldest beyond [`CAPACITY`].
    pub fn push(&mut self, s: Sample) {
        if self.samples.len() == CAPACITY {
            self.samples.pop_front();
        }
        self.samples.push_back(s);
        self.frames += 1;
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.samples.clear();
        self.frames = 0;
    }

    /// No samples.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Number of samples.
    #[must_use]
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// `[frame, value]` points of one quantity, oldest first, at most `max_points` of
    /// them: each the largest value of its run of samples (so spikes stay visible).
    #[must_use]
    pub fn series(&self, f: impl Fn(&Sample) -> f64, max_points: usize) -> Vec<[f64; 2]> {
        let first = self.frames - self.samples.len() as u64;
        let run = self.samples.len().div_ceil(max_points.max(1)).max(1);
        let points: Vec<[f64; 2]> =
            (self.samples.iter().enumerate()).map(|(i, s)| [(first + i as u64) as f64, f(s)]).collect();
        points
            .chunks(run)
            .map(|c| c.iter().copied().fold([c[0][0], f64::NEG_INFINITY], |m, p| [m[0], m[1].max(p[1])]))
            .collect()
    }

    /// Median of one quantity over the kept samples (0 when empty).
    #[must_use]
    pub fn median(&self, f: impl Fn(&Sample) -> f64) -> f64 {
        let mut v: Vec<f64> = self.samples.iter().map(f).filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return 0.0;
        }
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }
}
