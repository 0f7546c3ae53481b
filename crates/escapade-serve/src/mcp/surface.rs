//! The tools the server lists, and what each call means.
//!
//! Five tools need no world: `list_suites`, `list_scenarios`, `start_episode`,
//! `episode_state` and `end_episode`. Each world's actions are tools too, named
//! `<world>_<function>` and derived from the world itself rather than written out here:
//! the function schemas its environment offers ([`Env::tool_schemas`]) over an oracle's
//! play of two generated scenarios, keeping the functions both offer (the tools world
//! names a function after each node investigated; those differ between scenarios, and
//! `call_tool` reaches the same nodes). The values a state allows (`enum`s: the actions
//! listed, the nodes in view) are dropped from the schema, since they change from step
//! to step; each observation lists them. A world without function schemas whose roles
//! take turns (COMMA) gets a tool per role (`comma_solver`, `comma_expert`) taking the
//! role's message; a world with neither, one tool taking its free-text action. Every
//! world tool takes the `episode` id besides the world's own arguments.

use std::collections::BTreeSet;

use escapade_core::{Action, Env, Options, ToolSchema, World};
use serde_json::{Map, Value, json};

/// What a tool call asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `list_suites`.
    ListSuites,
    /// `list_scenarios`.
    ListScenarios,
    /// `start_episode`.
    StartEpisode,
    /// `episode_state`.
    EpisodeState,
    /// `end_episode`.
    EndEpisode,
    /// One of a world's actions.
    World {
        /// The world's name.
        world: String,
        /// How the call's arguments become the world's action.
        action: WorldAction,
    },
}

/// How a world tool's arguments become an [`Action`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorldAction {
    /// The world's function of this name, with the call's arguments (less `episode`) as
    /// its JSON arguments.
    Call(String),
    /// The `message` argument as this role's free-text turn.
    Role(String),
    /// The `text` argument as the world's free-text action.
    Text,
}

impl WorldAction {
    /// The world's action for these arguments (`episode` already taken out). The raw
    /// text goes to the world, which answers a malformed action with feedback, as it
    /// answers a model.
    pub fn action(&self, tool: &str, args: &Map<String, Value>) -> Result<Action, String> {
        let text = |key: &str| match args.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(format!("`{key}` must be a string")),
            None => Err(format!("`{tool}` needs `{key}`")),
        };
        match self {
            WorldAction::Call(name) => Ok(Action::call(
                name.clone(),
                Value::Object(args.clone()).to_string(),
            )),
            WorldAction::Role(_) => text("message").map(Action::text),
            WorldAction::Text => text("text").map(Action::text),
        }
    }
}

/// One tool: its name, description, input schema, and route.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// The name clients call.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of its arguments (an object).
    pub input: Map<String, Value>,
    /// What a call means.
    pub route: Route,
}

/// Every tool the server lists for `worlds`, in a fixed order: the five episode tools,
/// then each world's, in registry order.
pub fn tools(worlds: &[std::sync::Arc<dyn World>]) -> Vec<ToolDef> {
    let mut out = episode_tools(worlds);
    for w in worlds {
        out.extend(world_tools(w.as_ref()));
    }
    out
}

/// The tools of one world (see the module's documentation).
pub fn world_tools(world: &dyn World) -> Vec<ToolDef> {
    let name = world.name();
    let functions = stable_functions(world);
    if !functions.is_empty() {
        return functions
            .into_iter()
            .map(|f| ToolDef {
                name: format!("{name}_{}", f.name),
                description: format!(
                    "[{name}] {} Takes the `episode` id from start_episode; values the \
                     current state allows are listed in the last observation.",
                    f.description
                ),
                input: with_episode(general(f.parameters)),
                route: Route::World {
                    world: name.to_string(),
                    action: WorldAction::Call(f.name),
                },
            })
            .collect();
    }
    let roles = sample_env(world, 0).map(|e| e.roles()).unwrap_or_default();
    if !roles.is_empty() {
        return roles
            .into_iter()
            .map(|role| ToolDef {
                name: format!("{name}_{role}"),
                description: format!(
                    "[{name}] The {role}'s turn: a message in the {role}'s words, as the \
                     {role}'s instructions (start_episode) describe. Only while it is the \
                     {role}'s turn."
                ),
                input: with_episode(object(
                    json!({"message": {"type": "string", "description": format!("what the {role} says or does")}}),
                    &["message"],
                )),
                route: Route::World {
                    world: name.to_string(),
                    action: WorldAction::Role(role),
                },
            })
            .collect();
    }
    vec![ToolDef {
        name: format!("{name}_act"),
        description: format!("[{name}] One action in the world's text protocol."),
        input: with_episode(object(
            json!({"text": {"type": "string", "description": "the action"}}),
            &["text"],
        )),
        route: Route::World {
            world: name.to_string(),
            action: WorldAction::Text,
        },
    }]
}

/// The functions a world offers in every scenario: those seen over an oracle's play of
/// its generated scenarios of seeds 0 and 1, kept when both offer them, in the order
/// first seen.
fn stable_functions(world: &dyn World) -> Vec<ToolSchema> {
    let first = offered(world, 0);
    let second: BTreeSet<String> = offered(world, 1).into_iter().map(|f| f.name).collect();
    first
        .into_iter()
        .filter(|f| second.contains(&f.name) && valid_name(&format!("{}_{}", world.name(), f.name)))
        .collect()
}

/// The oracle's longest play while the functions are gathered: enough for any suite's
/// game (the worlds' budgets are far shorter) and a bound on a world whose oracle does
/// not finish.
const GATHER_STEPS: u32 = 400;

/// Every function a world's environment offers over its oracle's play of the generated
/// scenario of `seed` (first definition of each name).
fn offered(world: &dyn World, seed: u64) -> Vec<ToolSchema> {
    let none = Options::new();
    let difficulty = world.generation().default_difficulty;
    let Ok(json) = world.generate(difficulty, seed, &none) else {
        return Vec::new();
    };
    let Ok(mut env) = world.env(&json, &none) else {
        return Vec::new();
    };
    let mut seen: Vec<ToolSchema> = Vec::new();
    let mut gather = |env: &dyn Env| {
        for f in env.tool_schemas() {
            if !seen.iter().any(|s| s.name == f.name) {
                seen.push(f);
            }
        }
    };
    let mut observation = env.reset(seed);
    gather(env.as_ref());
    if let Ok(mut oracle) = world.agent("oracle", &json, seed, &none) {
        let (prompt, tools) = (env.system_prompt(), env.tool_schemas());
        let roles = escapade_core::agent::role_prompts(env.as_ref());
        oracle.reset(escapade_core::EpisodeStart {
            roles: &roles,
            ..escapade_core::EpisodeStart::new(seed, &prompt, &tools)
        });
        let mut last = None;
        for _ in 0..GATHER_STEPS {
            let Ok(turn) = oracle.act(&observation, last.as_ref()) else {
                break;
            };
            let Ok(step) = env.step(&turn.action) else {
                break;
            };
            gather(env.as_ref());
            observation = step.observation.clone();
            let over = step.terminated || step.truncated;
            last = Some(step);
            if over {
                break;
            }
        }
    }
    seen
}

/// An environment of the world on its generated scenario of `seed`, reset.
fn sample_env(world: &dyn World, seed: u64) -> Option<Box<dyn Env + Send>> {
    let none = Options::new();
    let json = world
        .generate(world.generation().default_difficulty, seed, &none)
        .ok()?;
    let mut env = world.env(&json, &none).ok()?;
    env.reset(seed);
    Some(env)
}

/// MCP tool names: 1 to 128 of `A-Z a-z 0-9 _ - .`.
pub fn valid_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// A function's parameter schema without the values of one state: `enum` lists dropped
/// from its properties (and from their items).
fn general(parameters: Value) -> Map<String, Value> {
    let mut schema = match parameters {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        for (_, p) in props.iter_mut() {
            if let Value::Object(p) = p {
                p.remove("enum");
                if let Some(Value::Object(items)) = p.get_mut("items") {
                    items.remove("enum");
                }
            }
        }
    }
    schema.insert("type".into(), json!("object"));
    schema
}

/// `schema` with a required `episode` argument first.
fn with_episode(schema: Map<String, Value>) -> Map<String, Value> {
    let mut props = Map::new();
    props.insert(
        "episode".into(),
        json!({"type": "string", "description": "the episode id start_episode gave"}),
    );
    if let Some(Value::Object(p)) = schema.get("properties") {
        for (k, v) in p {
            props.insert(k.clone(), v.clone());
        }
    }
    let mut required = vec![json!("episode")];
    if let Some(Value::Array(r)) = schema.get("required") {
        required.extend(r.iter().filter(|v| v.as_str() != Some("episode")).cloned());
    }
    let mut out = schema;
    out.insert("properties".into(), Value::Object(props));
    out.insert("required".into(), Value::Array(required));
    out
}

/// An object schema with these properties and required keys.
fn object(properties: Value, required: &[&str]) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    m.insert("properties".into(), properties);
    m.insert("required".into(), json!(required));
    m
}

/// The five tools that need no world.
fn episode_tools(worlds: &[std::sync::Arc<dyn World>]) -> Vec<ToolDef> {
    let world_names: Vec<&str> = worlds.iter().map(|w| w.name()).collect();
    let episode = || {
        object(
            json!({"episode": {"type": "string", "description": "the episode id start_episode gave"}}),
            &["episode"],
        )
    };
    vec![
        ToolDef {
            name: "list_suites".into(),
            description: "List the suites (named, versioned lists of scenarios) of every \
                          world, or of one world: name, world, description, scenario count \
                          and difficulty tiers."
                .into(),
            input: object(
                json!({"world": {"type": "string", "enum": world_names, "description": "only this world's suites"}}),
                &[],
            ),
            route: Route::ListSuites,
        },
        ToolDef {
            name: "list_scenarios".into(),
            description: "List the scenarios of a suite by index, id and difficulty (a page \
                          at a time). Play one with start_episode's suite and index."
                .into(),
            input: object(
                json!({
                    "suite": {"type": "string", "description": "a suite name (without @version: its latest)"},
                    "offset": {"type": "integer", "minimum": 0, "description": "first index listed (default 0)"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "description": format!("how many (default {PAGE})")}
                }),
                &["suite"],
            ),
            route: Route::ListScenarios,
        },
        ToolDef {
            name: "start_episode".into(),
            description: "Start an episode: a scenario of a suite (suite and index) or a \
                          scenario you send (scenario, its JSON), with a seed and the \
                          world's options. Answers with the episode id, the instructions \
                          (system prompt), the first observation (text and pictures) and \
                          the tools that play it. One client may hold several episodes."
                .into(),
            input: object(
                json!({
                    "suite": {"type": "string", "description": "a suite name, e.g. agentescape@2 (see list_suites)"},
                    "index": {"type": "integer", "minimum": 0, "description": "the scenario's index in the suite (default 0)"},
                    "scenario": {"description": "instead of suite: a scenario as JSON (a string or an object)"},
                    "seed": {"type": "integer", "minimum": 0, "description": "the episode seed (default 0); same seed and actions, same observations"},
                    "options": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}, "description": "the world's options (`escapade list <world>`: e.g. vis prompt=helpful); none: the paper's protocol"},
                    "role": {"type": "string", "description": "worlds whose roles take turns (comma): the one role you play (solver or expert), with partner; without it you play every role"},
                    "partner": {"type": "string", "description": "with role: the world's baseline agent that plays the other role (oracle, random)"}
                }),
                &[],
            ),
            route: Route::StartEpisode,
        },
        ToolDef {
            name: "episode_state".into(),
            description: "The episode's current observation again (text and pictures), \
                          whose turn it is, steps taken, and its outcome when over."
                .into(),
            input: episode(),
            route: Route::EpisodeState,
        },
        ToolDef {
            name: "end_episode".into(),
            description: "End an episode (give up, if it is not over) and get its outcome \
                          and metrics; its id is freed."
                .into(),
            input: episode(),
            route: Route::EndEpisode,
        },
    ]
}

/// Scenarios listed by default in one `list_scenarios` page.
pub const PAGE: usize = 100;
/// The largest `list_scenarios` page.
pub const MAX_PAGE: usize = 1000;
