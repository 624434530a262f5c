use super::shape::{ConvexError, ConvexShape, Proximity, RayHit, ShapeQuery};
use crate::math::{Real, Vector, Vector3};
use crate::space::Space3;
/// Temporary.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull<R> {
    v: Vec<Vector3<R>>,
}
impl<R: Real> ShapeQuery<Space3<R>> for ConvexHull<R> {
    fn closest(&self, _p: Vector3<R>) -> Proximity<R, Vector3<R>> {
        Proximity { distance: R::ONE, normal: Vector3::ZERO }
    }
    fn raycast(&self, _f: Vector3<R>, _t: Vector3<R>, _i: R) -> Option<RayHit<R, Vector3<R>>> {
        None
    }
    fn support(&self, _d: Vector3<R>) -> Vector3<R> {
        Vector3::ZERO
    }
    fn local_aabb(&self) -> Option<(Vector3<R>, Vector3<R>)> {
        None
    }
}
impl<R: Real> ConvexShape<Space3<R>> for ConvexHull<R> {
    fn from_points(_p: &[Vector3<R>]) -> Result<Self, ConvexError> {
        Err(ConvexError::Degenerate)
    }
    fn vertices(&self) -> &[Vector3<R>] {
        &self.v
    }
    fn edges(&self) -> Vec<(usize, usize)> {
        Vec::new()
    }
}
