//! `escapade mcp`: the worlds as an MCP server, on the official Rust SDK (rmcp).
//!
//! Any MCP client — a desktop assistant, an agent framework — lists the suites and
//! their scenarios, starts episodes (one client may hold several, by id), and plays each
//! with the world's own actions as tools ([`surface`]): answers carry the observation's
//! text and pictures (PNG images) and, once over, the episode's metrics ([`reply`]).
//! Over stdio ([`serve_stdio`]) or streamable HTTP ([`serve_http`]: loopback by
//! default, a bearer token when listening elsewhere). With a record directory every
//! episode is an ordinary run directory of agent `remote`, so `escapade report` and
//! `escapade view` read it.
//!
//! Nothing a client can reach holds a scenario's contents: the listings give ids and
//! difficulties, observations are what the world shows an agent, and a bad call (an
//! unknown episode, one that is over, wrong arguments) is a tool error with a message.
//!
//! ```
//! use escapade_serve::mcp::{McpOptions, McpServer};
//! use escapade_testkit::counter::{CounterWorld, scenario};
//! use serde_json::json;
//!
//! let server = McpServer::new(vec![Box::new(CounterWorld)], McpOptions::default());
//! tokio::runtime::Runtime::new()?.block_on(async {
//!     let start = json!({"scenario": scenario("c0", 1).json()});
//!     let r = server.call("start_episode", start.as_object().cloned()).await;
//!     let id = r.structured_content.unwrap()["episode"].clone();
//!     let step = json!({"episode": id, "text": "inc"});
//!     let r = server.call("counter_act", step.as_object().cloned()).await;
//!     assert_eq!(r.structured_content.unwrap()["outcome"]["success"], true);
//! });
//! # Ok::<(), std::io::Error>(())
//! ```

pub mod catalogue; // suites and their scenarios by index, id and difficulty
pub mod episodes; // the episodes in play, by random id, with a maximum and idle closing
pub mod error; // ToolError: every way a call can fail, as the message the client sees
pub mod http; // streamable HTTP: loopback, or a bearer token
pub mod play; // one episode: environment, seat, partner, recording
pub mod reply; // observations and states as MCP content
pub mod surface; // the tool list, derived from the worlds, and what each call means

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use escapade_core::{Options, ScenarioHeader, World};
use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};

pub use error::ToolError;
pub use http::{Bound, HttpOptions, bind, serve_http};

use catalogue::Catalogue;
use episodes::Episodes;
use play::{Held, Start};
use surface::{Route, ToolDef};

/// How the server plays.
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// Record every episode as a run directory under this directory.
    pub record: Option<PathBuf>,
    /// Most episodes in play at once.
    pub max_episodes: usize,
    /// An episode without a call for this long may be closed to make room.
    pub idle: Duration,
    /// The largest picture a client may ask an environment to draw (craft's `width` ×
    /// `height`), in pixels.
    pub max_pixels: u64,
    /// Answers carry `steps_to_go`, the oracle's distance from the current state: for
    /// training. Off by default, since the model playing through MCP reads the answers
    /// and the distance tells it whether a move was right.
    pub steps_to_go: bool,
}

impl Default for McpOptions {
    fn default() -> Self {
        McpOptions {
            record: None,
            max_episodes: episodes::DEFAULT_MAX_EPISODES,
            idle: episodes::DEFAULT_IDLE,
            max_pixels: crate::app::MAX_PIXELS,
            steps_to_go: false,
        }
    }
}

/// The largest scenario a client may send inline, in bytes (a vis room carrying its
/// pictures is a few megabytes).
pub const MAX_SCENARIO_BYTES: usize = 32 << 20;

/// The MCP server: one per process, shared by every connection (a clone is cheap).
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    catalogue: Catalogue,
    episodes: Episodes,
    tools: OnceLock<Vec<ToolDef>>,
    /// Serializes the first derivation of the tool list.
    deriving: Mutex<()>,
    options: McpOptions,
}

impl McpServer {
    /// A server over `worlds` (the binary's registry).
    pub fn new(worlds: Vec<Box<dyn World>>, options: McpOptions) -> McpServer {
        McpServer {
            inner: Arc::new(Inner {
                catalogue: Catalogue::new(worlds.into_iter().map(Arc::from).collect()),
                episodes: Episodes::new(options.max_episodes, options.idle),
                tools: OnceLock::new(),
                deriving: Mutex::new(()),
                options,
            }),
        }
    }

    /// The tools it lists (derived from the worlds on first use; blocking).
    pub fn tool_defs(&self) -> &[ToolDef] {
        if let Some(t) = self.inner.tools.get() {
            return t;
        }
        let _one = self
            .inner
            .deriving
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        self.inner
            .tools
            .get_or_init(|| surface::tools(self.inner.catalogue.worlds()))
    }

    /// The tool list, derived off the async threads the first time.
    async fn tools(&self) -> Result<&[ToolDef], ToolError> {
        if self.inner.tools.get().is_none() {
            let me = self.clone();
            tokio::task::spawn_blocking(move || {
                me.tool_defs();
            })
            .await
            .map_err(|e| ToolError::Internal(e.to_string()))?;
        }
        Ok(self.tool_defs())
    }

    /// How many episodes are in play.
    pub fn episodes_in_play(&self) -> usize {
        self.inner.episodes.len()
    }

    /// Ends every episode in play (the server is stopping: each ends with
    /// [`escapade_run::remote::STOPPED`]) and waits until each is recorded.
    pub async fn close_all(&self) {
        self.inner.episodes.close_all().await;
    }

    /// Carries out one tool call. Every failure is an MCP tool error (`isError`) with
    /// its message.
    pub async fn call(&self, name: &str, args: Option<Map<String, Value>>) -> CallToolResult {
        match self.route(name, args.unwrap_or_default()).await {
            Ok(r) => r,
            Err(e) => reply::error(e),
        }
    }

    async fn route(
        &self,
        name: &str,
        args: Map<String, Value>,
    ) -> Result<CallToolResult, ToolError> {
        let tools = self.tools().await?;
        let Some(tool) = tools.iter().find(|t| t.name == name) else {
            return Err(ToolError::UnknownTool {
                name: name.to_string(),
                known: tools
                    .iter()
                    .map(|t| t.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        let a = Args { tool: name, args };
        a.only(tool)?;
        match &tool.route {
            Route::ListSuites => self.list_suites(&a),
            Route::ListScenarios => self.list_scenarios(&a).await,
            Route::StartEpisode => self.start_episode(&a).await,
            Route::EpisodeState => self.episode_state(&a).await,
            Route::EndEpisode => self.end_episode(&a).await,
            Route::World { world, action } => self.world_action(&a, world, action).await,
        }
    }

    /// A suite, built off the async threads (the first build of a large suite takes a
    /// moment; later ones are kept).
    async fn suite(&self, name: &str) -> Result<catalogue::Built, ToolError> {
        let (me, name) = (self.clone(), name.to_string());
        tokio::task::spawn_blocking(move || me.inner.catalogue.suite(&name))
            .await
            .map_err(|e| ToolError::Internal(e.to_string()))?
    }

    /// The names of a world's tools.
    fn world_tool_names(&self, world: &str) -> Vec<&str> {
        self.tool_defs()
            .iter()
            .filter(|t| matches!(&t.route, Route::World { world: w, .. } if w == world))
            .map(|t| t.name.as_str())
            .collect()
    }

    fn list_suites(&self, a: &Args<'_>) -> Result<CallToolResult, ToolError> {
        let suites = self.inner.catalogue.suites(a.str("world")?.as_deref())?;
        let text = suites
            .iter()
            .map(|s| {
                format!(
                    "{} ({}, {} scenarios): {}",
                    s.name, s.world, s.scenarios, s.description
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
        let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
        r.structured_content = Some(json!({ "suites": suites }));
        Ok(r)
    }

    async fn list_scenarios(&self, a: &Args<'_>) -> Result<CallToolResult, ToolError> {
        let suite = a.required_str("suite")?;
        let offset = a.uint("offset")?.unwrap_or(0) as usize;
        let limit = a.uint("limit")?.unwrap_or(surface::PAGE as u64) as usize;
        if !(1..=surface::MAX_PAGE).contains(&limit) {
            return Err(ToolError::bad(
                a.tool,
                format!("`limit` must be 1 to {}", surface::MAX_PAGE),
            ));
        }
        let (full, _, scenarios) = self.suite(&suite).await?;
        let (page, total) = catalogue::page(&scenarios, offset, limit)?;
        let mut text = format!("{full}: {total} scenarios (index: id, difficulty)\n");
        for s in &page {
            text.push_str(&format!("{}: {}, {}\n", s.index, s.id, s.difficulty));
        }
        if offset + page.len() < total {
            text.push_str(&format!("… more from offset {}\n", offset + page.len()));
        }
        let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
        r.structured_content = Some(json!({"suite": full, "total": total, "scenarios": page}));
        Ok(r)
    }

    async fn start_episode(&self, a: &Args<'_>) -> Result<CallToolResult, ToolError> {
        let (suite, world, scenario) = match (a.args.get("suite"), a.args.get("scenario")) {
            (Some(_), Some(_)) => {
                return Err(ToolError::bad(
                    a.tool,
                    "give `suite` (and `index`) or `scenario`, not both",
                ));
            }
            (None, None) => {
                return Err(ToolError::bad(
                    a.tool,
                    "give `suite` (and `index`; see list_suites) or `scenario` (a scenario's JSON)",
                ));
            }
            (Some(_), None) => {
                let name = a.required_str("suite")?;
                let index = a.uint("index")?.unwrap_or(0);
                let (full, world, scenarios) = self.suite(&name).await?;
                let json = usize::try_from(index)
                    .ok()
                    .and_then(|i| scenarios.get(i))
                    .cloned()
                    .ok_or_else(|| {
                        ToolError::bad(
                            a.tool,
                            format!(
                                "suite {full} has {} scenarios: index 0 to {}",
                                scenarios.len(),
                                scenarios.len().saturating_sub(1)
                            ),
                        )
                    })?;
                (full, world, json)
            }
            (None, Some(v)) => {
                if a.args.contains_key("index") {
                    return Err(ToolError::bad(
                        a.tool,
                        "`index` goes with `suite`, not `scenario`",
                    ));
                }
                let json = match v {
                    Value::String(s) => s.clone(),
                    Value::Object(_) => v.to_string(),
                    _ => {
                        return Err(ToolError::bad(
                            a.tool,
                            "`scenario` must be a JSON object, or a string holding one",
                        ));
                    }
                };
                if json.len() > MAX_SCENARIO_BYTES {
                    return Err(ToolError::bad(
                        a.tool,
                        format!("the scenario is over {} MiB", MAX_SCENARIO_BYTES >> 20),
                    ));
                }
                let header = ScenarioHeader::parse(&json)?;
                let world = self.inner.catalogue.world(&header.world)?;
                (format!("mcp:{}", header.id), world, json)
            }
        };
        let options = a.options()?;
        crate::app::check_pixels(world.as_ref(), &options, self.inner.options.max_pixels)
            .map_err(|e| ToolError::bad(a.tool, e.to_string()))?;
        let start = Start {
            world,
            scenario,
            suite,
            seed: a.uint("seed")?.unwrap_or(0),
            options,
            role: a.str("role")?,
            partner: a.str("partner")?,
            record: self.inner.options.record.clone(),
        };
        let id = self.inner.episodes.reserve()?;
        let (held, rules) = Held::start(&id, start).await?;
        let episode = self.inner.episodes.put(&id, held)?;
        let e = episode.lock().await;
        let view = e.view();
        let tools = self.world_tool_names(&e.world);
        let mut blocks = vec![ContentBlock::text(format!(
            "Episode {id} started: {} scenario {}. Play it with {}, passing episode = \"{id}\".\n\nINSTRUCTIONS\n{rules}\n\nFIRST OBSERVATION",
            e.world,
            e.scenario,
            tools.join(", ")
        ))];
        blocks.extend(reply::observation(&view.observation));
        let mut r = reply::success(&e, &view, blocks, self.inner.options.steps_to_go);
        if let Some(state) = r.structured_content.as_mut() {
            state["tools"] = json!(tools);
        }
        Ok(r)
    }

    async fn episode_state(&self, a: &Args<'_>) -> Result<CallToolResult, ToolError> {
        let id = a.required_str("episode")?;
        let episode = self.inner.episodes.get(&id)?;
        let e = lock(&episode, &id)?;
        let view = e.view();
        Ok(reply::success(
            &e,
            &view,
            reply::observation(&view.observation),
            self.inner.options.steps_to_go,
        ))
    }

    async fn end_episode(&self, a: &Args<'_>) -> Result<CallToolResult, ToolError> {
        let id = a.required_str("episode")?;
        let episode = self.inner.episodes.get(&id)?;
        let mut e = lock(&episode, &id)?;
        self.inner.episodes.remove(&id)?;
        let view = e.end().await;
        Ok(reply::success(
            &e,
            &view,
            vec![ContentBlock::text(format!("Episode {id} ended."))],
            self.inner.options.steps_to_go,
        ))
    }

    async fn world_action(
        &self,
        a: &Args<'_>,
        world: &str,
        action: &surface::WorldAction,
    ) -> Result<CallToolResult, ToolError> {
        let id = a.required_str("episode")?;
        let episode = self.inner.episodes.get(&id)?;
        let mut e = lock(&episode, &id)?;
        if e.world != world {
            return Err(ToolError::WrongWorld {
                episode: id,
                world: e.world.clone(),
                tools: self.world_tool_names(&e.world).join(", "),
            });
        }
        if e.view().over() {
            return Err(ToolError::EpisodeOver(id));
        }
        if let surface::WorldAction::Role(role) = action {
            if let Some(seat) = e.seat.as_deref().filter(|s| *s != role) {
                return Err(ToolError::NotYourTurn(format!(
                    "in episode {id} you play the {seat}; the server's partner plays the {role}"
                )));
            }
            let turn = e.turn().unwrap_or_default();
            if turn != *role {
                return Err(ToolError::NotYourTurn(format!(
                    "it is the {turn}'s turn in episode {id}, not the {role}'s: use {}_{turn}",
                    e.world
                )));
            }
        }
        let mut args = a.args.clone();
        args.remove("episode");
        let act = action
            .action(a.tool, &args)
            .map_err(|why| ToolError::bad(a.tool, why))?;
        let view = e.act(act).await?;
        let mut blocks = Vec::new();
        if let Some(why) = &view.unreadable {
            blocks.push(ContentBlock::text(format!(
                "That action cannot be read (no step was spent): {why}"
            )));
        }
        blocks.extend(reply::observation(&view.observation));
        Ok(reply::success(
            &e,
            &view,
            blocks,
            self.inner.options.steps_to_go,
        ))
    }
}

/// The episode, unless a call is already playing it.
fn lock<'a>(
    episode: &'a tokio::sync::Mutex<Held>,
    id: &str,
) -> Result<tokio::sync::MutexGuard<'a, Held>, ToolError> {
    episode
        .try_lock()
        .map_err(|_| ToolError::Busy(id.to_string()))
}

/// A call's arguments, read with messages that name the tool.
struct Args<'a> {
    tool: &'a str,
    args: Map<String, Value>,
}

impl Args<'_> {
    /// Refuses arguments the tool does not take.
    fn only(&self, tool: &ToolDef) -> Result<(), ToolError> {
        let known = tool.input.get("properties").and_then(Value::as_object);
        for k in self.args.keys() {
            if !known.is_some_and(|p| p.contains_key(k)) {
                let names: Vec<&str> = known
                    .map(|p| p.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                return Err(ToolError::bad(
                    self.tool,
                    format!("no argument `{k}`; it takes {}", names.join(", ")),
                ));
            }
        }
        Ok(())
    }

    fn str(&self, key: &str) -> Result<Option<String>, ToolError> {
        match self.args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(ToolError::bad(
                self.tool,
                format!("`{key}` must be a string"),
            )),
        }
    }

    fn required_str(&self, key: &str) -> Result<String, ToolError> {
        self.str(key)?
            .ok_or_else(|| ToolError::bad(self.tool, format!("`{key}` is required")))
    }

    fn uint(&self, key: &str) -> Result<Option<u64>, ToolError> {
        match self.args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| {
                ToolError::bad(self.tool, format!("`{key}` must be a whole number ≥ 0"))
            }),
        }
    }

    /// The world options: an object whose values are strings, numbers or booleans.
    fn options(&self) -> Result<Options, ToolError> {
        let mut out = Options::new();
        match self.args.get("options") {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => {
                for (k, v) in m {
                    let v = match v {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        Value::Bool(b) => b.to_string(),
                        _ => {
                            return Err(ToolError::bad(
                                self.tool,
                                format!("option `{k}` must be a string, number or boolean"),
                            ));
                        }
                    };
                    out.insert(k.clone(), v);
                }
            }
            Some(_) => return Err(ToolError::bad(self.tool, "`options` must be an object")),
        }
        Ok(out)
    }
}

impl rmcp::ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("escapade", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Escape rooms from four benchmarks (AgentEscapeBench, COMMA, VisEscape, \
                 MM-Escape). list_suites and list_scenarios show what there is to play; \
                 start_episode starts one and tells you its rules and its tools; each answer \
                 shows what you see next. end_episode gives the outcome and metrics.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let defs = self
            .tools()
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(ListToolsResult::with_all_items(
            defs.iter()
                .map(|d| Tool::new(d.name.clone(), d.description.clone(), d.input.clone()))
                .collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(self.call(&request.name, request.arguments).await.into())
    }
}

/// Serves MCP over standard input and output until the client closes them or `stop`
/// completes (a signal); every episode still in play is then closed (and recorded).
pub async fn serve_stdio(
    server: McpServer,
    stop: impl std::future::Future<Output = ()>,
) -> Result<(), ToolError> {
    use rmcp::ServiceExt;
    let mut stop = std::pin::pin!(stop);
    let running = tokio::select! {
        r = server.clone().serve(rmcp::transport::stdio()) => {
            r.map_err(|e| ToolError::Internal(format!("cannot start the MCP session: {e}")))?
        }
        () = &mut stop => {
            server.close_all().await;
            return Ok(());
        }
    };
    tokio::select! {
        _ = running.waiting() => {}
        () = stop => {}
    }
    server.close_all().await;
    Ok(())
}
