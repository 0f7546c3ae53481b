//! Errors of the render crate.

/// What can go wrong while drawing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// Occurs when a canvas is asked for with a zero or oversized dimension.
    #[error("bad canvas size {width}x{height}: each side must be 1 to 8192 pixels")]
    Size {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// Occurs when PNG encoding fails (it should not for a valid canvas).
    #[error("cannot encode png: {0}")]
    Encode(String),
    /// Occurs when a ray-cast frame is asked for with a zero or oversized dimension.
    #[error("bad frame size {width}x{height}: each side must be 1 to 8192 pixels")]
    FrameSize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// Occurs when a camera has a non-finite position or angle, or a field of view not
    /// strictly between 0 and 180 degrees.
    #[error(
        "bad camera: position and angles must be finite and the field of view strictly between 0 and 180 degrees"
    )]
    Camera,
    /// Occurs when the light's direction, intensity or ambient term is not finite.
    #[error("bad light: direction, intensity and ambient must be finite")]
    Light,
    /// Occurs when an object's shape or material has a non-finite number in it.
    #[error("object {object} has a non-finite coordinate, size or scale")]
    NonFinite {
        /// Index of the object in `Scene::objects`.
        object: usize,
    },
    /// Occurs when a texture's sides are zero or over 8192 pixels, or its byte count is
    /// not `width * height * 4`.
    #[error(
        "bad texture {index}: {width}x{height} with {len} rgba bytes (sides must be 1 to 8192 pixels, 4 bytes each)"
    )]
    Texture {
        /// Index of the texture in `Scene::textures`.
        index: usize,
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
        /// How many bytes it has.
        len: usize,
    },
    /// Occurs when an object's material names a texture the scene does not have.
    #[error("object {object} uses texture {texture}, which the scene does not have")]
    MissingTexture {
        /// Index of the object in `Scene::objects`.
        object: usize,
        /// The texture index it names.
        texture: usize,
    },
    /// Occurs when a frame is asked for with more than 1024 threads, or the thread pool
    /// cannot be started.
    #[error("cannot render with {threads} threads")]
    Threads {
        /// Requested thread count.
        threads: usize,
    },
}
