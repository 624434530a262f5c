//! Level-of-detail chain (placeholder, filled below).
