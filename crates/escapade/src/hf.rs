//! `escapade export --format hf`: a folder that Hugging Face `datasets` loads.
//!
//! Why a folder of Parquet and not the JSONL: the JSONL keeps pictures as files or data
//! URLs beside OpenAI's message shape, which `datasets` reads as strings; a vision-language
//! trainer (TRL's SFT and DPO trainers among them) wants the pictures as an image column
//! and each message's content as typed parts, an `{"type": "image"}` part standing for the
//! next picture of the row's `images`. That is what this writes:
//!
//! - `data/sft.parquet`: one row per conversation ([`Rebuilt::conversations`]):
//!   `messages`, `images`, `tools` (the functions offered, as JSON text: their parameter
//!   schemas have no fixed shape) and where it came from;
//! - `data/preferences.parquet` when the runs hold pairs ([`export::pairs`]): `prompt`,
//!   `chosen`, `rejected`, `images` (the prompt's), `tools` and where they came from;
//! - `README.md`, the dataset card (its YAML names both as configurations), and
//!   `manifest.json`, the provenance the JSONL formats write beside them.
//!
//! The Parquet schema carries the `datasets` features (the `huggingface` metadata key), so
//! `images` loads as pictures, not as dictionaries of bytes.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use arrow_array::builder::{BinaryBuilder, ListBuilder, StringBuilder, StructBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema};
use escapade_core::World;
use escapade_llm::{ChatRequest, ChatResponse, Message, Part, Role};
use escapade_run::export::{self, Filter, Pair, Provenance, Rebuilt};
use serde_json::{Value, json};

/// Writes the hf export of the episodes of `dirs` that `filter` keeps into the folder
/// `out` (see the module docs), and returns what it kept.
pub fn export(
    worlds: &[Box<dyn World>],
    dirs: &[std::path::PathBuf],
    filter: &Filter,
    out: &Path,
) -> Result<Provenance> {
    let mut provenance = Provenance::new("hf", filter);
    let episodes = export::rebuild_runs(worlds, dirs, filter, &mut provenance)?;
    if episodes.is_empty() {
        return Ok(provenance); // the caller says why; no empty folder is left behind
    }
    let data = out.join("data");
    std::fs::create_dir_all(&data).with_context(|| format!("cannot create {}", data.display()))?;
    let sft = sft_rows(&episodes);
    provenance.records = sft.len();
    write_parquet(&data.join("sft.parquet"), &sft_schema(), &sft)?;
    let (pairs, unpaired) = export::pairs(&episodes);
    provenance.unpaired = unpaired;
    let preferences = (!pairs.is_empty()).then(|| preference_rows(&pairs));
    let pref_path = data.join("preferences.parquet");
    match &preferences {
        Some(rows) => write_parquet(&pref_path, &preference_schema(), rows)?,
        None if pref_path.exists() => std::fs::remove_file(&pref_path)
            .with_context(|| format!("cannot remove {}", pref_path.display()))?,
        None => {}
    }
    let card = card(&provenance, preferences.as_ref().map_or(0, Vec::len));
    let readme = out.join("README.md");
    std::fs::write(&readme, card).with_context(|| format!("cannot write {}", readme.display()))?;
    export::write_manifest(&out.join("manifest.json"), &provenance)?;
    Ok(provenance)
}

/// One Parquet row: the JSON of its columns but the pictures, and its pictures.
struct Row {
    columns: Value,
    images: Vec<Vec<u8>>,
}

/// `messages` as `datasets` conversations: each content a list of typed parts, each
/// picture an `{"type": "image"}` part whose bytes go to `images`, in order.
fn hf_messages(messages: &[Message], images: &mut Vec<Vec<u8>>) -> Value {
    let hf: Vec<Value> = messages
        .iter()
        .map(|m| {
            let role = match m.role {
                Role::System => "system",
                Role::User => "user",
                Role::Assistant => "assistant",
                Role::Tool => "tool",
            };
            let content: Vec<Value> = m
                .parts
                .iter()
                .map(|p| match p {
                    Part::Text { text } => json!({ "type": "text", "text": text }),
                    Part::Image { bytes, .. } => {
                        images.push(bytes.as_ref().clone());
                        json!({ "type": "image" })
                    }
                })
                .collect();
            let mut message = json!({ "role": role, "content": content });
            if !m.tool_calls.is_empty() {
                message["tool_calls"] = escapade_llm::openai::wire_tool_calls(&m.tool_calls);
            }
            if let Some(id) = &m.tool_call_id {
                message["tool_call_id"] = json!(id);
            }
            message
        })
        .collect();
    Value::Array(hf)
}

/// The functions a request offered, as JSON text in OpenAI's shape (null when none).
fn tools_json(request: &ChatRequest) -> Value {
    match request.tools.is_empty() {
        true => Value::Null,
        false => json!(
            serde_json::to_string(&escapade_llm::openai::wire_tools(&request.tools))
                .expect("tool schemas serialize")
        ),
    }
}

fn sft_rows(episodes: &[Rebuilt]) -> Vec<Row> {
    let mut rows = Vec::new();
    for e in episodes {
        for (role, request, reply) in e.conversations() {
            let mut messages = request.messages.clone();
            messages.push(export::assistant(&reply));
            let mut images = Vec::new();
            let mut columns = e.fields(&role);
            columns.insert("messages".into(), hf_messages(&messages, &mut images));
            columns.insert("tools".into(), tools_json(&request));
            let columns = Value::Object(columns);
            rows.push(Row { columns, images });
        }
    }
    rows
}

fn reply_messages(reply: &ChatResponse, images: &mut Vec<Vec<u8>>) -> Value {
    hf_messages(&[export::assistant(reply)], images)
}

fn preference_rows(pairs: &[Pair<'_>]) -> Vec<Row> {
    pairs
        .iter()
        .map(|p| {
            let mut images = Vec::new();
            let mut columns = p.fields();
            // in the order the pictures appear: the prompt's, then the replies'
            let prompt = hf_messages(&p.prompt.messages, &mut images);
            let chosen = reply_messages(&p.chosen_reply, &mut images);
            let rejected = reply_messages(&p.rejected_reply, &mut images);
            columns.insert("prompt".into(), prompt);
            columns.insert("chosen".into(), chosen);
            columns.insert("rejected".into(), rejected);
            columns.insert("tools".into(), tools_json(p.prompt));
            Row {
                columns: Value::Object(columns),
                images,
            }
        })
        .collect()
}

fn text(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Utf8, nullable)
}

fn int(name: &str) -> Field {
    Field::new(name, DataType::Int64, false)
}

fn list_of(name: &str, item: DataType, nullable: bool) -> Field {
    Field::new(
        name,
        DataType::List(Arc::new(Field::new("item", item, true))),
        nullable,
    )
}

/// A conversation: a list of messages, each with typed content parts and the function
/// calls an assistant made.
fn messages_field(name: &str) -> Field {
    let part = DataType::Struct(Fields::from(vec![text("type", false), text("text", true)]));
    let call = DataType::Struct(Fields::from(vec![
        text("id", false),
        text("type", false),
        Field::new(
            "function",
            DataType::Struct(Fields::from(vec![
                text("name", false),
                text("arguments", false),
            ])),
            false,
        ),
    ]));
    let message = DataType::Struct(Fields::from(vec![
        text("role", false),
        list_of("content", part, false),
        list_of("tool_calls", call, true),
        text("tool_call_id", true),
    ]));
    list_of(name, message, false)
}

/// `datasets`' picture storage: `{bytes, path}`.
fn image_fields() -> Fields {
    Fields::from(vec![
        Field::new("bytes", DataType::Binary, true),
        text("path", true),
    ])
}

fn origin_fields() -> Vec<Field> {
    vec![
        text("world", false),
        text("suite", false),
        text("scenario", false),
        int("epoch"),
        int("tier"),
    ]
}

/// The columns of `data/sft.parquet` but `images` (last).
fn sft_schema() -> Schema {
    let mut fields = vec![messages_field("messages"), text("tools", true)];
    fields.extend(origin_fields());
    fields.extend([
        text("role", false),
        text("agent", false),
        Field::new("success", DataType::Boolean, false),
        int("steps"),
    ]);
    Schema::new(fields)
}

/// The columns of `data/preferences.parquet` but `images` (last).
fn preference_schema() -> Schema {
    let mut fields = vec![
        messages_field("prompt"),
        messages_field("chosen"),
        messages_field("rejected"),
        text("tools", true),
    ];
    fields.extend(origin_fields());
    fields.extend([
        int("step"),
        text("role", false),
        int("steps_to_go"),
        text("chosen_agent", false),
        int("chosen_steps_to_go"),
        text("rejected_agent", false),
        int("rejected_steps_to_go"),
    ]);
    Schema::new(fields)
}

/// A `datasets` feature (its JSON form) for an Arrow type; `images` is a list of pictures.
fn feature(field: &Field) -> Value {
    if field.name() == "images" {
        return json!({ "_type": "List", "feature": { "_type": "Image" } });
    }
    fn of(t: &DataType) -> Value {
        match t {
            DataType::Utf8 => json!({ "_type": "Value", "dtype": "string" }),
            DataType::Int64 => json!({ "_type": "Value", "dtype": "int64" }),
            DataType::Boolean => json!({ "_type": "Value", "dtype": "bool" }),
            DataType::Binary => json!({ "_type": "Value", "dtype": "binary" }),
            DataType::List(item) => json!({ "_type": "List", "feature": of(item.data_type()) }),
            DataType::Struct(fields) => Value::Object(
                fields
                    .iter()
                    .map(|f| (f.name().clone(), of(f.data_type())))
                    .collect(),
            ),
            other => unreachable!("no column of the export is {other}"),
        }
    }
    of(field.data_type())
}

/// Writes `rows` with `schema`'s columns and an `images` column to `path`, the schema
/// carrying the `datasets` features.
fn write_parquet(path: &Path, schema: &Schema, rows: &[Row]) -> Result<()> {
    let mut decoder = arrow_json::ReaderBuilder::new(Arc::new(schema.clone()))
        .with_batch_size(rows.len().max(1))
        .build_decoder()?;
    let columns: Vec<&Value> = rows.iter().map(|r| &r.columns).collect();
    decoder.serialize(&columns)?;
    let batch = decoder
        .flush()?
        .unwrap_or_else(|| RecordBatch::new_empty(Arc::new(schema.clone())));

    let image = Field::new("item", DataType::Struct(image_fields()), true);
    let mut images = ListBuilder::new(StructBuilder::new(
        image_fields(),
        vec![
            Box::new(BinaryBuilder::new()) as Box<dyn arrow_array::builder::ArrayBuilder>,
            Box::new(StringBuilder::new()),
        ],
    ))
    .with_field(Arc::new(image.clone()));
    for row in rows {
        let pictures = images.values();
        for png in &row.images {
            pictures
                .field_builder::<BinaryBuilder>(0)
                .expect("bytes")
                .append_value(png);
            pictures
                .field_builder::<StringBuilder>(1)
                .expect("path")
                .append_null();
            pictures.append(true);
        }
        images.append(true);
    }
    let images: ArrayRef = Arc::new(images.finish());

    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    // nullable as `datasets` makes it: its features apply only to a field equal to theirs
    fields.push(Field::new("images", DataType::List(Arc::new(image)), true));
    let features: serde_json::Map<String, Value> = fields
        .iter()
        .map(|f| (f.name().clone(), feature(f)))
        .collect();
    let metadata = json!({ "info": { "features": features } }).to_string();
    let full = Arc::new(
        Schema::new(fields).with_metadata(std::collections::HashMap::from([(
            "huggingface".to_string(),
            metadata,
        )])),
    );
    let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
    columns.push(images);
    let batch = RecordBatch::try_new(Arc::clone(&full), columns)?;

    let file =
        std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    let props = parquet::file::properties::WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, full, Some(props))?;
    writer.write(&batch)?;
    writer.close()?;
    Ok(())
}

/// The dataset card: `datasets`' configurations in its YAML, then what the rows are.
fn card(provenance: &Provenance, pairs: usize) -> String {
    let mut configs = String::from(
        "configs:\n- config_name: default\n  data_files:\n  - split: train\n    path: data/sft.parquet\n",
    );
    if pairs > 0 {
        configs.push_str(
            "- config_name: preferences\n  data_files:\n  - split: train\n    path: data/preferences.parquet\n",
        );
    }
    let runs: Vec<String> = provenance
        .runs
        .iter()
        .map(|r| {
            format!(
                "- `{}`: suite {}, agent {}{}, config {}",
                r["dir"].as_str().unwrap_or_default(),
                r["suite"].as_str().unwrap_or_default(),
                r["agent"].as_str().unwrap_or_default(),
                r["model"]
                    .as_str()
                    .map(|m| format!(" ({m})"))
                    .unwrap_or_default(),
                r["config_hash"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    format!(
        "---\n{configs}tags:\n- escapade\n- agents\n- escape-room\n---\n\n\
         # escapade trajectories\n\n\
         Written by `escapade export --format hf` (escapade {version}) from {episodes} recorded \
         episodes ({filter}). The conversations were rebuilt by replaying each episode: the \
         observations were checked against the recording, and a model's requests against the \
         SHA-256 it recorded. A baseline's episodes (the oracle's) are written in the requests \
         of a model that sees pictures and calls functions ({request_model}'s format; nothing \
         was sent).\n\n\
         ## default: {records} conversations for supervised fine-tuning\n\n\
         `messages` is one conversation, its last message the reply that chose an action; \
         each message's `content` is a list of parts (`text`, or `image`: the next picture of \
         the row's `images`); an assistant's `tool_calls` are OpenAI's. `tools` holds the \
         functions offered as JSON text (`json.loads`). `world`, `suite`, `scenario`, \
         `epoch`, `tier`, `role`, `agent`, `success` and `steps` say where it came from.\n\n\
         ## preferences: {pairs} pairs at the same state\n\n\
         Two episodes of one scenario and seed that parted at a step: `chosen` is the reply \
         whose action lowered the oracle's distance to the exit (`steps_to_go`), `rejected` \
         one whose action did not, both answering `prompt` (the rejected agent's request). \
         Present only when the runs held such pairs (a fork beside its origin, a model \
         beside the oracle).\n\n\
         ## Sources\n\n{runs}\n\n\
         Load it with `datasets.load_dataset(\"<this folder>\")` (add `\"preferences\"` for the \
         pairs); `manifest.json` lists what was skipped and why.\n",
        version = provenance.escapade,
        episodes = provenance.episodes,
        filter = filter_text(&provenance.filter),
        request_model = export::REQUEST_MODEL,
        records = provenance.records,
        runs = runs.join("\n"),
    )
}

fn filter_text(filter: &Filter) -> String {
    let mut parts = vec![format!(
        "outcome {}",
        serde_json::to_value(filter.outcome)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    )];
    if let Some(w) = &filter.world {
        parts.push(format!("world {w}"));
    }
    if let Some(t) = filter.tier {
        parts.push(format!("tier {t}"));
    }
    parts.join(", ")
}
