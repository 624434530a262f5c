//! Errors returned by the library. Nothing in Sinew panics on bad input: invalid values
//! are rejected here, before they can reach the solver.

use crate::arena::RawHandle;

/// An error from a Sinew API call: which argument, handle or value was wrong, and why.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SinewError {
    /// A vector or scalar argument was NaN or infinite.
    NonFinite {
        /// Which argument.
        what: &'static str,
    },
    /// A handle does not refer to a live object (removed, or from another world).
    InvalidHandle {
        /// Which kind of object.
        what: &'static str,
        /// The handle (slot index and generation), where the call had one.
        handle: Option<RawHandle>,
    },
    /// A parameter is out of its valid range.
    InvalidParameter {
        /// Which parameter.
        what: &'static str,
        /// Why it is invalid.
        reason: &'static str,
        /// The value given, where it is a number.
        value: Option<f64>,
    },
    /// The time step is not finite and positive.
    InvalidTimeStep {
        /// The step given (s).
        dt: f64,
    },
    /// A convex shape could not be built.
    Convex(ConvexError),
    /// The call would take the world past one of its [`crate::Limits`]; nothing changed.
    LimitExceeded {
        /// Which limit (`"particles"`, `"constraints"`, `"colliders"`, `"rope segments"`).
        what: &'static str,
        /// The limit.
        limit: usize,
        /// The count the call asked for.
        requested: usize,
    },
}

impl SinewError {
    /// [`SinewError::InvalidParameter`] with the value given.
    #[must_use]
    pub fn parameter<R: Into<f64>>(what: &'static str, reason: &'static str, value: R) -> Self {
        Self::InvalidParameter { what, reason, value: Some(value.into()) }
    }
}

impl core::fmt::Display for SinewError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NonFinite { what } => write!(f, "{what} is not finite"),
            Self::InvalidHandle { what, handle: Some(h) } => {
                write!(f, "{what} handle {}v{} does not refer to a live {what}", h.index, h.generation)
            }
            Self::InvalidHandle { what, handle: None } => write!(f, "{what} handle does not refer to a live {what}"),
            Self::InvalidParameter { what, reason, value: Some(v) } => write!(f, "invalid {what} {v}: {reason}"),
            Self::InvalidParameter { what, reason, value: None } => write!(f, "invalid {what}: {reason}"),
            Self::InvalidTimeStep { dt } => write!(f, "time step {dt} must be finite and > 0"),
            Self::Convex(e) => write!(f, "invalid convex shape: {e}"),
            Self::LimitExceeded { what, limit, requested } => {
                write!(f, "{requested} {what} would exceed the world's limit of {limit} (sinew::Limits)")
            }
        }
    }
}

impl std::error::Error for SinewError {}

impl From<ConvexError> for SinewError {
    fn from(e: ConvexError) -> Self {
        Self::Convex(e)
    }
}

/// Why a convex shape could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConvexError {
    /// Fewer points than the dimension needs (3 in 2D, 4 in 3D).
    TooFewPoints {
        /// Points given.
        given: usize,
        /// Points needed.
        needed: usize,
    },
    /// A coordinate was NaN or infinite.
    NonFinite {
        /// Index of the offending point.
        index: usize,
    },
    /// The points do not span the space (collinear in 2D, coplanar in 3D), or two
    /// consecutive points coincide.
    Degenerate,
    /// The 2D polygon is not convex (or self-intersects); `index` is the first vertex
    /// where the turn direction changes.
    NotConvex {
        /// Offending vertex.
        index: usize,
    },
}

impl core::fmt::Display for ConvexError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::TooFewPoints { given, needed } => {
                write!(f, "{given} points given, at least {needed} needed")
            }
            Self::NonFinite { index } => write!(f, "point {index} is not finite"),
            Self::Degenerate => write!(f, "points are degenerate (collinear, coplanar or repeated)"),
            Self::NotConvex { index } => write!(f, "polygon is not convex at point {index}"),
        }
    }
}

impl std::error::Error for ConvexError {}
