pub struct RenderOptions {
    pub width: u32,
    pub height: u32,
    pub frames: u64,
    pub every: u64,
    pub trail: bool,
}
impl Default for RenderOptions {
    fn default() -> Self {
        Self { width: 800, height: 600, frames: 300, every: 2, trail: false }
    }
}
pub fn render(
    _s: &mut dyn sinew_scene::Simulation,
    _o: &std::path::Path,
    _p: &RenderOptions,
) -> Result<String, String> {
    Err("stub".into())
}
