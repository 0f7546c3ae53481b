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
}
