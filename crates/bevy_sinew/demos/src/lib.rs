//! Nothing here: the demos are the examples (`cargo run --example rope_2d`).
