use super::shape::{ConvexError, ConvexShape, Proximity, RayHit, ShapeQuery};
use crate::math::{Real, Vector, Vector2};
use crate::space::Space2;
/// Temporary.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolygon<R> {
    v: Vec<Vector2<R>>,
}
impl<R: Real> ShapeQuery<Space2<R>> for ConvexPolygon<R> {
    fn closest(&self, _p: Vector2<R>) -> Proximity<R, Vector2<R>> {
        Proximity { distance: R::ONE, normal: Vector2::ZERO }
    }
    fn raycast(&self, _f: Vector2<R>, _t: Vector2<R>, _i: R) -> Option<RayHit<R, Vector2<R>>> {
        None
    }
    fn support(&self, _d: Vector2<R>) -> Vector2<R> {
        Vector2::ZERO
    }
    fn local_aabb(&self) -> Option<(Vector2<R>, Vector2<R>)> {
        None
    }
}
impl<R: Real> ConvexShape<Space2<R>> for ConvexPolygon<R> {
    fn from_points(_p: &[Vector2<R>]) -> Result<Self, ConvexError> {
        Err(ConvexError::Degenerate)
    }
    fn vertices(&self) -> &[Vector2<R>] {
        &self.v
    }
    fn edges(&self) -> Vec<(usize, usize)> {
        Vec::new()
    }
}
