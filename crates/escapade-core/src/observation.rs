//! What an agent sees.
//!
//! An observation is text plus images (PNG bytes, stored once per run under their
//! SHA-256), optionally the list of currently available actions (worlds with a closed
//! action set, like VisEscape) and the function schemas a tool-calling model may use.

use serde::{Deserialize, Serialize};

/// A picture shown to the agent: PNG bytes addressed by their SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// Lowercase hex SHA-256 of `png`.
    pub sha256: String,
    /// The PNG file bytes (not serialized; run directories store them under `media/`).
    #[serde(skip)]
    pub png: Vec<u8>,
    /// An exact text description of what the picture shows, for text-only models and
    /// the socratic mode (VisEscape §7). Never more than the picture shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alt: Option<String>,
}

impl Image {
    /// Wraps PNG bytes, computing their address.
    pub fn from_png(png: Vec<u8>) -> Self {
        Image {
            sha256: crate::hash::sha256_hex(&png),
            png,
            alt: None,
        }
    }

    /// Wraps PNG bytes with an exact text description of the picture.
    pub fn with_alt(png: Vec<u8>, alt: impl Into<String>) -> Self {
        Image {
            alt: Some(alt.into()),
            ..Image::from_png(png)
        }
    }
}

/// A function an agent may call in the native tool-calling protocol (OpenAI style).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolSchema {
    /// Function name.
    pub name: String,
    /// What the function does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// Everything an agent is shown at one step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// The text the agent reads.
    pub text: String,
    /// Pictures, in the order the text refers to them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Image>,
    /// The available actions when the world has a closed action set; `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<String>>,
    /// In a world with several roles ([`crate::Env::roles`]), the role this observation
    /// is for: the one whose turn it is (PettingZoo's AEC `agent_selection`). `None` in
    /// one-role worlds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

impl Observation {
    /// A text-only observation.
    pub fn text(text: impl Into<String>) -> Self {
        Observation {
            text: text.into(),
            ..Default::default()
        }
    }
}
