//! Colours, kinds and the rope tension scale of debug drawing.

/// A colour: 8-bit sRGB channels and straight (not premultiplied) alpha, 255 = opaque.
///
/// The form most drawing libraries take directly (tiny-skia's `set_color_rgba8`, egui's
/// `Color32::from_rgba_unmultiplied`); [`Rgba::to_f32`] gives the `0..=1` floats of the
/// others (Bevy's `Color::srgba`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rgba {
    /// Red.
    pub r: u8,
    /// Green.
    pub g: u8,
    /// Blue.
    pub b: u8,
    /// Alpha (0 transparent, 255 opaque).
    pub a: u8,
}

impl Rgba {
    /// A colour from its four channels.
    #[inline]
    #[must_use]
    pub const fn new(r: u8, g: u8, b: u8, a: u8) -> Self {
        Self { r, g, b, a }
    }

    /// An opaque colour.
    #[inline]
    #[must_use]
    pub const fn rgb(r: u8, g: u8, b: u8) -> Self {
        Self { r, g, b, a: 255 }
    }

    /// The same colour with another alpha.
    #[inline]
    #[must_use]
    pub const fn with_alpha(self, a: u8) -> Self {
        Self { a, ..self }
    }

    /// `[r, g, b, a]`.
    #[inline]
    #[must_use]
    pub const fn to_array(self) -> [u8; 4] {
        [self.r, self.g, self.b, self.a]
    }

    /// `[r, g, b, a]` as sRGB floats in `0..=1`.
    #[inline]
    #[must_use]
    pub fn to_f32(self) -> [f32; 4] {
        self.to_array().map(|c| f32::from(c) / 255.0)
    }

    /// The colour a fraction `t` (clamped to `0..=1`; NaN counts as 0) of the way to `to`,
    /// channel by channel in sRGB.
    #[must_use]
    pub fn lerp(self, to: Self, t: f64) -> Self {
        let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
        let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
        Self::new(mix(self.r, to.r), mix(self.g, to.g), mix(self.b, to.b), mix(self.a, to.a))
    }
}

/// What a primitive shows, so that a back end can style it without parsing colours.
///
/// New kinds may be added (the enum is `#[non_exhaustive]`): match them with a fallback
/// arm that draws the primitive in its [`Style::color`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DrawKind {
    /// A dynamic particle (a disc in 2D, a sphere in 3D).
    Particle,
    /// A kinematic particle: pinned, driven or grabbed.
    PinnedParticle,
    /// A distance constraint: a ragdoll bone, a cloth or chain link.
    Distance,
    /// A tether (maximum distance to an anchor particle).
    Tether,
    /// A rope, coloured by tension (see [`TensionScale`]).
    Rope,
    /// A particle–collider contact of the last substep: its point and normal.
    Contact,
    /// A rope span–collider contact of the last substep: its point and normal.
    RopeContact,
    /// A collider shape.
    Collider,
    /// A joint limit: the allowed range at a joint.
    JointLimit,
    /// A rope wrapped around a collider edge (reserved for rope wrapping; nothing emits it
    /// yet).
    WrapContact,
}

impl DrawKind {
    /// The colour the world draws this kind in (lines and outlines).
    ///
    /// Chosen to read on a light background: dark particles, red pins, brown links, grey
    /// colliders. [`DrawKind::Rope`]'s is the middle of the tension ramp (each segment
    /// carries its own colour).
    #[must_use]
    pub const fn color(self) -> Rgba {
        match self {
            Self::Particle => Rgba::rgb(0x2e, 0x3a, 0x4c),
            Self::PinnedParticle => Rgba::rgb(0xd2, 0x2f, 0x27),
            Self::Distance => Rgba::rgb(0xb0, 0x68, 0x2a),
            Self::Tether => Rgba::new(0x3d, 0x7a, 0xb8, 0x90),
            Self::Rope => RAMP[2],
            Self::Contact => Rgba::rgb(0x1f, 0x8a, 0x4c),
            Self::RopeContact => Rgba::rgb(0x1c, 0x8c, 0x8c),
            Self::Collider => Rgba::rgb(0x55, 0x51, 0x4b),
            Self::JointLimit => Rgba::new(0xc9, 0x8a, 0x1b, 0xe0),
            Self::WrapContact => Rgba::rgb(0x8e, 0x44, 0xad),
        }
    }
}

/// Fill of bounded colliders.
pub(crate) const COLLIDER_FILL: Rgba = Rgba::rgb(0xd6, 0xd1, 0xc7);
/// Edge and fill of half-planes / half-spaces (the ground): a shade darker than colliders.
pub(crate) const GROUND_EDGE: Rgba = Rgba::rgb(0x6e, 0x68, 0x5e);
pub(crate) const GROUND_FILL: Rgba = Rgba::rgb(0xc4, 0xbe, 0xb2);
/// Fill of a joint limit's allowed sector.
pub(crate) const LIMIT_FILL: Rgba = Rgba::new(0xe0, 0xa4, 0x3a, 0x50);
/// A joint limit outside its range.
pub(crate) const LIMIT_VIOLATED: Rgba = Rgba::new(0xd2, 0x2f, 0x27, 0xe0);
pub(crate) const LIMIT_VIOLATED_FILL: Rgba = Rgba::new(0xd2, 0x2f, 0x27, 0x50);
/// What sleeping things fade towards.
const SLEEP_GREY: Rgba = Rgba::rgb(0x9a, 0xa0, 0xa6);

/// A colour faded towards grey: how the world marks sleeping things when
/// [`super::DebugDrawOptions::sleeping`] is on.
#[inline]
#[must_use]
pub(crate) fn asleep(c: Rgba) -> Rgba {
    c.lerp(SLEEP_GREY.with_alpha(c.a), 0.6)
}

/// How one primitive is drawn: what it is, its colours, and which world object it shows.
///
/// `#[non_exhaustive]`: build one with [`Style::new`] and the builder methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Style {
    /// What the primitive shows.
    pub kind: DrawKind,
    /// Colour of lines and outlines.
    pub color: Rgba,
    /// Colour of the inside of closed shapes (discs, polygons, solids, the solid side of a
    /// half-plane, a joint limit's sector); `None` draws the outline only.
    pub fill: Option<Rgba>,
    /// The object is asleep (set only when [`super::DebugDrawOptions::sleeping`] is on;
    /// the colours are then already faded).
    pub sleeping: bool,
    /// Slot index of the world object shown, for picking and per-object state in a back
    /// end: the particle's for particles and contacts, the collider's, the distance's, the
    /// rope's, the joint limit's, the tether's (its arena slot). `None` when there is none.
    pub id: Option<u32>,
}

impl Style {
    /// A style of `kind` in `color`, without fill, awake, without id.
    #[inline]
    #[must_use]
    pub const fn new(kind: DrawKind, color: Rgba) -> Self {
        Self { kind, color, fill: None, sleeping: false, id: None }
    }

    /// `kind` in its default colour ([`DrawKind::color`]).
    #[inline]
    #[must_use]
    pub const fn of(kind: DrawKind) -> Self {
        Self::new(kind, kind.color())
    }

    /// With a fill colour.
    #[inline]
    #[must_use]
    pub const fn with_fill(self, fill: Rgba) -> Self {
        Self { fill: Some(fill), ..self }
    }

    /// With another line colour.
    #[inline]
    #[must_use]
    pub const fn with_color(self, color: Rgba) -> Self {
        Self { color, ..self }
    }

    /// With the id of the world object shown.
    #[inline]
    #[must_use]
    pub const fn with_id(self, id: u32) -> Self {
        Self { id: Some(id), ..self }
    }

    /// Marked asleep, its colours faded towards grey.
    #[must_use]
    pub fn asleep(self) -> Self {
        Self { color: asleep(self.color), fill: self.fill.map(asleep), sleeping: true, ..self }
    }
}

/// The tension ramp's stops, evenly spaced: slack blue, teal, ochre, orange, taut red.
const RAMP: [Rgba; 5] = [
    Rgba::rgb(0x3b, 0x6f, 0xb6),
    Rgba::rgb(0x2a, 0x9d, 0x8f),
    Rgba::rgb(0xc4, 0x8a, 0x12),
    Rgba::rgb(0xd9, 0x60, 0x1a),
    Rgba::rgb(0xc0, 0x18, 0x2c),
];

/// The colour at fraction `u` of the tension ramp, cool to hot: blue `#3b6fb6` at 0
/// (slack), teal `#2a9d8f` at ¼, ochre `#c48a12` at ½, orange `#d9601a` at ¾, red
/// `#c0182c` at 1 (taut), linear in sRGB between neighbouring stops (saturated all the way:
/// no grey middle on a light background). `u` is clamped to `0..=1`; NaN counts as 0.
#[must_use]
pub fn tension_ramp(u: f64) -> Rgba {
    let u = if u.is_nan() { 0.0 } else { u.clamp(0.0, 1.0) };
    let x = u * (RAMP.len() - 1) as f64;
    let i = (x.floor() as usize).min(RAMP.len() - 2);
    RAMP[i].lerp(RAMP[i + 1], x - i as f64)
}

/// How rope tension (N) maps to the colour ramp: logarithmically between `low` and `high`.
///
/// [`TensionScale::fraction`] is `log(T / low) / log(high / low)`, clamped to `0..=1`: a
/// tension at or below `low` (and slack, compression, NaN) is the ramp's low end, one at
/// or above `high` its high end, and every factor of ten between them moves the colour the
/// same distance. A logarithmic scale because rope tensions span decades: the default
/// 0.1 N – 1 kN puts a 1.4 kg, 14 m rope hanging from a hand (≈ 5–15 N) in the middle,
/// and a person on a rope (≈ 700 N) near the top.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TensionScale {
    /// Tension at the low end (N, > 0).
    pub low: f64,
    /// Tension at the high end (N, > `low`).
    pub high: f64,
}

impl Default for TensionScale {
    /// 0.1 N to 1 kN.
    fn default() -> Self {
        Self { low: 0.1, high: 1000.0 }
    }
}

impl TensionScale {
    /// Position of a tension (N) on the ramp, in `0..=1` (see the type's docs). An invalid
    /// scale (`low ≤ 0`, `high ≤ low`, non-finite) puts everything at the low end.
    #[must_use]
    pub fn fraction(&self, tension: f64) -> f64 {
        let span = (self.high / self.low).ln();
        // (Written so that NaN anywhere fails the test.)
        if !(self.low > 0.0 && span > 0.0 && span.is_finite() && tension > self.low) {
            return 0.0;
        }
        ((tension / self.low).ln() / span).clamp(0.0, 1.0)
    }

    /// The colour of a tension (N): [`tension_ramp`] at [`TensionScale::fraction`].
    #[must_use]
    pub fn color(&self, tension: f64) -> Rgba {
        tension_ramp(self.fraction(tension))
    }
}
