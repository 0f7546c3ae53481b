//! The files of a scenario (ZIP archives, CSV tables, JSON documents, graphs).
//!
//! Tools with `File_Id` ports read files by id. A file's content is decided by the
//! template that *consumes* it, at seeding time, so that it is consistent with that
//! tool's other inputs (the key a CSV query looks for is in the table); producers only
//! reserve an id. Every file ends up in the scenario JSON, base64-encoded, so an outside
//! program can re-execute the DAG.

use std::collections::BTreeMap;

use base64::Engine;
use rand::RngCore;
use serde::{Deserialize, Serialize};

use escapade_core::seed::Rng;

/// One file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// A human file name (`ledger.csv`), shown to the agent.
    pub name: String,
    /// `application/zip`, `text/csv`, `application/json`, `text/plain`, or `pending`
    /// while reserved but not yet written.
    pub media_type: String,
    /// Content, base64 (standard alphabet, padded).
    pub data: String,
}

impl FileEntry {
    /// Decoded bytes (empty if the stored base64 is corrupt).
    pub fn bytes(&self) -> Vec<u8> {
        base64::engine::general_purpose::STANDARD
            .decode(&self.data)
            .unwrap_or_default()
    }
}

/// All files of a scenario, by id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Files(pub BTreeMap<String, FileEntry>);

impl Files {
    /// Reserves a fresh `file-xxxxxxxx` id (content `pending`).
    pub fn reserve(&mut self, rng: &mut Rng) -> String {
        loop {
            let id = format!("file-{:08x}", rng.next_u32());
            if !self.0.contains_key(&id) {
                self.0.insert(
                    id.clone(),
                    FileEntry {
                        name: String::new(),
                        media_type: "pending".into(),
                        data: String::new(),
                    },
                );
                return id;
            }
        }
    }

    /// Writes a file's content (creating the id if needed).
    pub fn write(&mut self, id: &str, name: &str, media_type: &str, bytes: &[u8]) {
        self.0.insert(
            id.to_string(),
            FileEntry {
                name: name.to_string(),
                media_type: media_type.to_string(),
                data: base64::engine::general_purpose::STANDARD.encode(bytes),
            },
        );
    }

    /// Whether the id exists and holds written content.
    pub fn is_written(&self, id: &str) -> bool {
        self.0.get(id).is_some_and(|f| f.media_type != "pending")
    }

    /// The file, if written.
    pub fn get(&self, id: &str) -> Option<&FileEntry> {
        self.0.get(id).filter(|f| f.media_type != "pending")
    }
}
