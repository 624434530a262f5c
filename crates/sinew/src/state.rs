//! Saved state: what a snapshot copies and what the state hash reads.
//!
//! Rollback netcode (GGRS-style) saves the world every frame, restores an older frame when
//! a late input arrives, re-simulates, and compares checksums with its peers. That only
//! works if the saved state is *complete* — everything the next step reads that it does not
//! rebuild — and the hash covers all of it.
//!
//! A world keeps that state in one value ([`crate::world::World`]'s `state`), apart from
//! what it derives from it (broad phase, constraint order) and its per-step buffers. Every
//! type in the state implements [`SavedState`], which gives it three walks over its fields:
//! the hash, the heap size, and a copy that reuses the destination's buffers (a ring of
//! snapshots then costs copies only, no allocation). Structs implement it with the
//! crate's `saved_state!` macro, whose field list is destructured *exhaustively*: a field
//! added to a state struct and not to its list is a compile error, so nothing can be left
//! out of a snapshot or of the hash by forgetting it.
//!
//! The hash is canonical: it reads values (scalars by [`crate::Real::hash_bits`], so
//! `-0.0` and `0.0` hash alike), in order, never memory layout, padding or addresses. In
//! fixed point it is the same on every machine; in floats on one build and machine.
//!
//! ```
//! use sinew::prelude::*;
//! use sinew::state::StateHasher;
//!
//! // Values, not bits: 0.0 and −0.0 hash alike; one ULP does not.
//! let hash = |x: f32| {
//!     let mut h = StateHasher::default();
//!     h.write(&x);
//!     h.finish()
//! };
//! assert_eq!(hash(0.0), hash(-0.0));
//! assert_ne!(hash(1.0), hash(1.0 + f32::EPSILON));
//!
//! // A world's state: snapshot, restore, and the hash that covers all of it.
//! let mut world = World2x::new(WorldDef::default())?;
//! let p = world.add_particle(&ParticleDef::at(XVec2::new(Fx::ZERO, Fx::ONE)))?;
//! let saved = world.snapshot();
//! let dt = Fx::from_ratio(1, 60);
//! world.step(dt)?;
//! let stepped = world.state_hash();
//! assert_ne!(stepped, saved.state_hash());
//! world.restore(&saved);
//! assert_eq!(world.state_hash(), saved.state_hash());
//! world.step(dt)?; // restore, then step: the same bits as before
//! assert_eq!(world.state_hash(), stepped);
//! assert!(world.particles().position(p).unwrap().y < Fx::ONE);
//! # Ok::<(), SinewError>(())
//! ```

/// A fast, canonical 64-bit hash of a sequence of words (four independent
/// multiply–rotate lanes, folded at the end). Not cryptographic: it detects divergence.
#[derive(Clone, Debug)]
pub struct StateHasher {
    lanes: [u64; 4],
    n: usize,
}

const K: [u64; 4] = [0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x27D4_EB2F_1656_67C5];

impl Default for StateHasher {
    fn default() -> Self {
        Self { lanes: K, n: 0 }
    }
}

impl StateHasher {
    /// Mixes one word.
    #[inline]
    pub fn write_u64(&mut self, w: u64) {
        let i = self.n & 3;
        self.lanes[i] = (self.lanes[i] ^ w).wrapping_mul(K[i]).rotate_left(29);
        self.n += 1;
    }

    /// Mixes a value of the saved state (a scalar, a vector, a list of them, …).
    #[inline]
    pub fn write<T: SavedState>(&mut self, v: &T) {
        v.hash_state(self);
    }

    /// The hash of everything written so far.
    #[must_use]
    pub fn finish(&self) -> u64 {
        let mut h = self.n as u64 ^ 0x5851_F42D_4C95_7F2D;
        for (i, l) in self.lanes.iter().enumerate() {
            h = (h ^ l.rotate_left(17 * i as u32)).wrapping_mul(0x2545_F491_4F6C_DD1D);
            h ^= h >> 31;
        }
        h
    }
}

/// A part of a world's saved state (see the module docs).
///
/// Implemented for the scalars, vectors and rotations, `Vec`, `Option`, arrays and tuples
/// of saved values, and every state type of the world. A user controller
/// ([`crate::controller::Controller`]) hashes its own fields with [`StateHasher::write`].
pub trait SavedState: Clone {
    /// Mixes the value into `h`, canonically.
    fn hash_state(&self, h: &mut StateHasher);

    /// Heap bytes the value holds (for sizing a rollback buffer); 0 for plain values.
    #[inline]
    fn heap_bytes(&self) -> usize {
        0
    }

    /// Makes `self` equal to `o`, reusing `self`'s buffers where it has any.
    #[inline]
    fn copy_from(&mut self, o: &Self) {
        self.clone_from(o);
    }
}

/// Implements [`SavedState`] for a struct from its field list. The list is destructured
/// exhaustively, so a field missing from it does not compile.
///
/// ```ignore
/// saved_state!(impl[S: Space] Rope<S> { particles, idx, rest, lambda });
/// ```
macro_rules! saved_state {
    (impl[$($g:tt)*] $ty:ty { $($f:ident),* $(,)? }) => {
        impl<$($g)*> $crate::state::SavedState for $ty {
            #[inline]
            fn hash_state(&self, h: &mut $crate::state::StateHasher) {
                let Self { $($f),* } = self;
                $( $crate::state::SavedState::hash_state($f, h); )*
            }
            fn heap_bytes(&self) -> usize {
                let Self { $($f),* } = self;
                0 $( + $crate::state::SavedState::heap_bytes($f) )*
            }
            fn copy_from(&mut self, o: &Self) {
                let Self { $($f),* } = self;
                $( $crate::state::SavedState::copy_from($f, &o.$f); )*
            }
        }
    };
}
pub(crate) use saved_state;

macro_rules! saved_word {
    ($($t:ty),*) => {$(
        impl SavedState for $t {
            #[inline]
            fn hash_state(&self, h: &mut StateHasher) {
                h.write_u64(*self as u64);
            }
        }
    )*};
}
saved_word!(u8, u16, u32, u64, usize, i32, i64, bool);

impl<T: SavedState> SavedState for Option<T> {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        match self {
            None => h.write_u64(0),
            Some(v) => {
                h.write_u64(1);
                v.hash_state(h);
            }
        }
    }
    fn heap_bytes(&self) -> usize {
        self.as_ref().map_or(0, SavedState::heap_bytes)
    }
    fn copy_from(&mut self, o: &Self) {
        match (self.as_mut(), o) {
            (Some(a), Some(b)) => a.copy_from(b),
            _ => self.clone_from(o),
        }
    }
}

impl<T: SavedState> SavedState for Vec<T> {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(self.len() as u64);
        for v in self {
            v.hash_state(h);
        }
    }
    fn heap_bytes(&self) -> usize {
        core::mem::size_of_val(self.as_slice()) + self.iter().map(SavedState::heap_bytes).sum::<usize>()
    }
    fn copy_from(&mut self, o: &Self) {
        // `Vec::clone_from` reuses the buffer (and, element by element, the elements'
        // own buffers through their `clone_from`).
        self.clone_from(o);
    }
}

impl<T: SavedState, const N: usize> SavedState for [T; N] {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        for v in self {
            v.hash_state(h);
        }
    }
    fn heap_bytes(&self) -> usize {
        self.iter().map(SavedState::heap_bytes).sum()
    }
}

impl<A: SavedState, B: SavedState> SavedState for (A, B) {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        self.0.hash_state(h);
        self.1.hash_state(h);
    }
    fn heap_bytes(&self) -> usize {
        self.0.heap_bytes() + self.1.heap_bytes()
    }
}

impl<T: ?Sized> SavedState for core::marker::PhantomData<T> {
    #[inline]
    fn hash_state(&self, _: &mut StateHasher) {}
}

impl SavedState for &'static str {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(self.len() as u64);
        for b in self.bytes() {
            h.write_u64(u64::from(b));
        }
    }
}

impl SavedState for String {
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(self.len() as u64);
        for b in self.bytes() {
            h.write_u64(u64::from(b));
        }
    }
    fn heap_bytes(&self) -> usize {
        self.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hasher_is_order_sensitive_and_counts_words() {
        let mut a = StateHasher::default();
        a.write_u64(1);
        a.write_u64(2);
        let mut b = StateHasher::default();
        b.write_u64(2);
        b.write_u64(1);
        assert_ne!(a.finish(), b.finish());
        let mut e = StateHasher::default();
        e.write_u64(0);
        assert_ne!(e.finish(), StateHasher::default().finish(), "length is part of the hash");
    }

    #[test]
    fn lists_hash_their_length_so_moving_an_element_between_them_changes_the_hash() {
        let h = |v: &(Vec<u32>, Vec<u32>)| {
            let mut s = StateHasher::default();
            s.write(v);
            s.finish()
        };
        assert_ne!(h(&(vec![1, 2], vec![3])), h(&(vec![1], vec![2, 3])));
        assert_ne!(h(&(vec![], vec![0])), h(&(vec![0], vec![])));
    }

    #[derive(Clone, Debug, PartialEq)]
    struct Pair {
        a: Vec<u32>,
        b: Option<u64>,
    }
    saved_state!(impl[] Pair { a, b });

    #[test]
    fn the_macro_walks_every_field_and_copies_into_existing_buffers() {
        let x = Pair { a: vec![1, 2, 3], b: Some(7) };
        let mut y = Pair { a: Vec::with_capacity(16), b: None };
        let cap = y.a.capacity();
        y.copy_from(&x);
        assert_eq!(x, y);
        assert_eq!(y.a.capacity(), cap, "the buffer was reused");
        let hash = |p: &Pair| {
            let mut s = StateHasher::default();
            s.write(p);
            s.finish()
        };
        assert_eq!(hash(&x), hash(&y));
        y.b = Some(8);
        assert_ne!(hash(&x), hash(&y), "every field is hashed");
        assert_eq!(x.heap_bytes(), 12);
    }
}
