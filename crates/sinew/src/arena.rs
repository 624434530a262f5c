//! Generational slot storage behind every `*Set` (particles, colliders, constraints).
//!
//! Handles are plain values (`index`, `generation`): copying them is free, they never
//! borrow the world, and a handle to a removed item is detected instead of silently
//! aliasing whatever reused its slot. Freed slots are reused last-freed-first, so the
//! layout after any sequence of insertions and removals is a pure function of that
//! sequence — required for determinism.

/// Index + generation. The typed handles (`ParticleHandle`, `RopeHandle`, …) wrap it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RawHandle {
    /// Slot index.
    pub index: u32,
    /// Generation of the slot when the handle was issued.
    pub generation: u32,
}

impl crate::state::SavedState for RawHandle {
    #[inline]
    fn hash_state(&self, h: &mut crate::state::StateHasher) {
        h.write_u64(u64::from(self.index) | (u64::from(self.generation) << 32));
    }
}

/// Declares a typed handle around [`RawHandle`].
macro_rules! define_handle {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub $crate::arena::RawHandle);

        impl $crate::state::SavedState for $name {
            #[inline]
            fn hash_state(&self, h: &mut $crate::state::StateHasher) {
                $crate::state::SavedState::hash_state(&self.0, h);
            }
        }

        impl $name {
            /// Slot index (stable for the life of the item).
            #[inline]
            #[must_use]
            pub fn index(self) -> usize {
                self.0.index as usize
            }
        }
    };
}
pub(crate) use define_handle;

/// A vector of optional values with generations and a LIFO free list.
///
/// Values and generations are kept in two arrays rather than one array of (generation,
/// value) records: the solver streams the values (distances, joint limits) several times
/// per step and never reads the generations, and without them a 32-byte constraint stays
/// 32 bytes — two per cache line — instead of 36. Copying an arena of `Copy` values
/// (snapshots) is two `memcpy`s.
#[derive(Debug)]
pub struct Arena<T> {
    pub(crate) values: Vec<Option<T>>,
    generations: Vec<u32>,
    free: Vec<u32>,
    len: usize,
}

impl<T: Clone> Clone for Arena<T> {
    fn clone(&self) -> Self {
        Self {
            values: self.values.clone(),
            generations: self.generations.clone(),
            free: self.free.clone(),
            len: self.len,
        }
    }

    // Reuses the buffers (snapshots into a ring of saved states).
    fn clone_from(&mut self, o: &Self) {
        self.values.clone_from(&o.values);
        self.generations.clone_from(&o.generations);
        self.free.clone_from(&o.free);
        self.len = o.len;
    }
}

crate::state::saved_state!(impl[T: crate::state::SavedState] Arena<T> { values, generations, free, len });

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Self { values: Vec::new(), generations: Vec::new(), free: Vec::new(), len: 0 }
    }
}

impl<T> Arena<T> {
    /// Inserts a value and returns its handle.
    pub fn insert(&mut self, value: T) -> RawHandle {
        self.len += 1;
        if let Some(index) = self.free.pop() {
            self.values[index as usize] = Some(value);
            RawHandle { index, generation: self.generations[index as usize] }
        } else {
            let index = self.values.len() as u32;
            self.values.push(Some(value));
            self.generations.push(0);
            RawHandle { index, generation: 0 }
        }
    }

    /// Removes the value behind `h`; `None` if the handle is stale or out of range.
    pub fn remove(&mut self, h: RawHandle) -> Option<T> {
        let i = h.index as usize;
        let generation = self.generations.get_mut(i)?;
        if *generation != h.generation || self.values[i].is_none() {
            return None;
        }
        *generation = generation.wrapping_add(1);
        self.free.push(h.index);
        self.len -= 1;
        self.values[i].take()
    }

    /// The value behind `h`, if live.
    #[inline]
    pub fn get(&self, h: RawHandle) -> Option<&T> {
        let i = h.index as usize;
        if *self.generations.get(i)? == h.generation { self.values[i].as_ref() } else { None }
    }

    /// Mutable access to the value behind `h`, if live.
    #[inline]
    pub fn get_mut(&mut self, h: RawHandle) -> Option<&mut T> {
        let i = h.index as usize;
        if *self.generations.get(i)? == h.generation { self.values[i].as_mut() } else { None }
    }

    /// Number of live values.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of slots (live or free); slot indices are below this.
    #[inline]
    pub fn capacity_slots(&self) -> usize {
        self.values.len()
    }

    /// Live values with their handles, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (RawHandle, &T)> {
        self.values
            .iter()
            .zip(&self.generations)
            .enumerate()
            .filter_map(|(i, (v, &generation))| v.as_ref().map(|v| (RawHandle { index: i as u32, generation }, v)))
    }

    /// Mutable live values in slot order (hot loops).
    #[inline]
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.values.iter_mut().filter_map(|v| v.as_mut())
    }

    /// Live values in slot order.
    #[inline]
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.values.iter().filter_map(|v| v.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_handles_are_rejected_after_reuse() {
        let mut a = Arena::default();
        let h1 = a.insert(1);
        let h2 = a.insert(2);
        assert_eq!(a.remove(h1), Some(1));
        assert_eq!(a.remove(h1), None);
        let h3 = a.insert(3);
        assert_eq!(h3.index, h1.index);
        assert_eq!(a.get(h1), None);
        assert_eq!(a.get(h3), Some(&3));
        assert_eq!(a.get(h2), Some(&2));
        assert_eq!(a.len(), 2);
        assert_eq!(a.get(RawHandle { index: 99, generation: 0 }), None);
    }
}
