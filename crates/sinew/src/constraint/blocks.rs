//! Blocks (biconnected components) of a small graph by Tarjan's algorithm, for the tree
//! solve's plan ([`super::tree`]): the block-cut tree whose blocks the solve eliminates
//! from the leaves. Iterative (a long chain would overflow a recursive search's stack);
//! deterministic (adjacency in edge order).

/// Tarjan's biconnected components, with reusable buffers.
#[derive(Default)]
pub(crate) struct Planner {
    /// Per particle slot: its local vertex while a piece is planned (0: none yet).
    pub(crate) local_of: Vec<u32>,
    /// The piece's particles and its edges' local ends.
    pub(crate) local: Vec<usize>,
    pub(crate) ends: Vec<(u32, u32)>,
    /// The blocks found: `(root vertex, range in out_edges)`, and their edges.
    pub(crate) out: Vec<(u32, u32, u32)>,
    pub(crate) out_edges: Vec<u32>,
    disc: Vec<u32>,
    low: Vec<u32>,
    adj_at: Vec<u32>,
    adj: Vec<(u32, u32)>,
    fill: Vec<u32>,
    stack: Vec<(u32, u32, u32)>,
    edges: Vec<u32>,
}

impl Planner {
    /// The blocks of a connected graph of `n` vertices and `ends` edges, depth first from
    /// `root`, into `out` (`(the block's root vertex, its edges' range in out_edges)`),
    /// every block after the blocks below it. False if the graph is not connected.
    pub(crate) fn blocks(&mut self, n: usize, ends: &[(u32, u32)], root: u32) -> bool {
        self.adj_at.clear();
        self.adj_at.resize(n + 1, 0);
        for &(a, b) in ends {
            self.adj_at[a as usize + 1] += 1;
            self.adj_at[b as usize + 1] += 1;
        }
        for v in 0..n {
            self.adj_at[v + 1] += self.adj_at[v];
        }
        self.fill.clear();
        self.fill.extend_from_slice(&self.adj_at);
        let fill = &mut self.fill;
        self.adj.clear();
        self.adj.resize(2 * ends.len(), (0, 0));
        for (e, &(a, b)) in ends.iter().enumerate() {
            self.adj[fill[a as usize] as usize] = (b, e as u32);
            fill[a as usize] += 1;
            self.adj[fill[b as usize] as usize] = (a, e as u32);
            fill[b as usize] += 1;
        }
        self.disc.clear();
        self.disc.resize(n, 0);
        self.low.clear();
        self.low.resize(n, 0);
        self.stack.clear();
        self.edges.clear();
        if root != 0 {
            // No ground vertex in this graph.
            self.disc[0] = u32::MAX;
        }
        self.out.clear();
        self.out_edges.clear();
        let mut time = 1u32;
        self.disc[root as usize] = time;
        self.low[root as usize] = time;
        // Frames: (vertex, the edge it was reached by, next adjacency entry).
        self.stack.push((root, u32::MAX, self.adj_at[root as usize]));
        while let Some(&(v, pe, it)) = self.stack.last() {
            let vi = v as usize;
            if it < self.adj_at[vi + 1] {
                if let Some(f) = self.stack.last_mut() {
                    f.2 += 1;
                }
                let (w, e) = self.adj[it as usize];
                if e == pe {
                    continue;
                }
                let wi = w as usize;
                if self.disc[wi] == 0 {
                    time += 1;
                    (self.disc[wi], self.low[wi]) = (time, time);
                    self.edges.push(e);
                    self.stack.push((w, e, self.adj_at[wi]));
                } else if self.disc[wi] < self.disc[vi] {
                    self.edges.push(e);
                    self.low[vi] = self.low[vi].min(self.disc[wi]);
                }
                continue;
            }
            self.stack.pop();
            let Some(&(u, _, _)) = self.stack.last() else { break };
            let ui = u as usize;
            self.low[ui] = self.low[ui].min(self.low[vi]);
            if self.low[vi] >= self.disc[ui] {
                let e0 = self.out_edges.len();
                while let Some(e) = self.edges.pop() {
                    self.out_edges.push(e);
                    if e == pe {
                        break;
                    }
                }
                self.out_edges[e0..].reverse();
                self.out.push((u, e0 as u32, self.out_edges.len() as u32));
            }
        }
        self.disc.iter().all(|&d| d > 0)
    }
}
