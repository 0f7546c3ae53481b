//! The command line, as clap derive types (DESIGN.md, "CLI shape").

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// escapade: an arena where agents try to escape rooms from four benchmarks.
#[derive(Debug, Parser)]
#[command(name = "escapade", version, about, propagate_version = true)]
pub struct Cli {
    /// No progress bars (results and errors are still printed).
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List worlds, suites and agents (with a WORLD: its catalogue too).
    List(ListArgs),
    /// Generate scenarios of a world from a difficulty and seeds.
    Gen(GenArgs),
    /// Convert an original benchmark's file into scenario files (comma: the original's
    /// puzzle list, or a PAD-UFES-20 folder for the Telehealth puzzle).
    Import(ImportArgs),
    /// Build a suite, verify every scenario with the oracle, print its stats.
    Suite(SuiteArgs),
    /// Run an agent over a suite, a scenario file or a directory of scenarios.
    Run(RunArgs),
    /// Finish an interrupted run: continue the episodes checkpointed by Ctrl-C at their
    /// next step, and play the episodes missing from a run directory.
    Resume(ResumeArgs),
    /// What a run would cost before you pay for it: tokens and dollars per episode and
    /// for the whole run, along the oracle's path and played to the step budget (the
    /// run's agents and prompts against a stand-in that sends nothing). Takes `run`'s
    /// flags; the same as `escapade run … --dry-run`.
    Estimate(RunArgs),
    /// The response cache that answers a request seen before: what it holds, or empty
    /// it.
    Cache(CacheArgs),
    /// Print metrics tables (mean ± standard error, 95 % intervals, the paper's values
    /// beside them) of one or more runs.
    Report(ReportArgs),
    /// Turn recorded runs into training data: chat JSONL for supervised fine-tuning
    /// (`sft`), preference pairs at the same state (`dpo`), or Parquet with a dataset
    /// card that Hugging Face `datasets` loads (`hf`). The conversations are rebuilt by
    /// replaying the episodes (docs/training.md).
    Export(ExportArgs),
    /// Compare two runs on the scenarios both played: differences with 95 % intervals
    /// and p-values (McNemar's test for success, exact or clustered by scenario when
    /// there are several epochs; a paired bootstrap otherwise).
    Compare(CompareArgs),
    /// Print a paper's results tables as escapade holds them (a world or a suite).
    Paper(PaperArgs),
    /// Have a model judge what the agents of runs wrote (LLM-as-judge metrics), e.g.
    /// VisEscape's reasoning components; verdicts are kept in `<run-dir>/judge/`.
    Judge(JudgeArgs),
    /// Write what an agent sees at the start of a scenario (prompts, first observation,
    /// pictures) to a folder.
    Show(ShowArgs),
    /// Play a scenario yourself in the terminal.
    Play(PlayArgs),
    /// Browse run directories in a web browser: runs, reports with plots, episodes step
    /// by step, runs in progress live. Serves on 127.0.0.1 unless given --host, with an
    /// access token printed once in the address to open.
    View(ViewArgs),
    /// Serve the worlds to MCP clients (desktop assistants, agent frameworks): tools to
    /// list suites and scenarios, start episodes and play them with each world's
    /// actions. Over standard input and output, or streamable HTTP with --http.
    Mcp(McpArgs),
    /// Serve every world over the wire: an OpenEnv-compatible environment server (HTTP +
    /// WebSocket) that reinforcement-learning trainers and agents in any language play.
    Serve(ServeArgs),
    /// Check a scenario written by hand (vis rooms: JSON or TOML) and convert it to JSON.
    Check(CheckArgs),
    /// Print the JSON Schema of the run-directory rows.
    Schema,
    /// Install the built-in local model (llama.cpp server + SmolLM2-135M) into the cache.
    Setup(SetupArgs),
    /// Performance self-check: the harness (zero-latency scripted model on a small
    /// counting world), or a world's own bench (`escapade bench vis`).
    Bench(BenchArgs),
}

/// `escapade bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// What to measure: `harness` (the model loop on a small counting world), or a
    /// world by name for its own bench (vis: env step, view drawing, suite build; comma:
    /// puzzle step, picture, suite build; craft: a 2048×1024 frame on one thread and on
    /// all cores, PNG, env step with and without a frame, suite build).
    #[arg(default_value = "harness")]
    pub what: String,
    /// Episodes of the throughput check.
    #[arg(long, default_value_t = 1000)]
    pub episodes: usize,
    /// Episodes in flight in the concurrency check.
    #[arg(long, default_value_t = 256)]
    pub in_flight: usize,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `escapade cache`.
#[derive(Debug, Args)]
pub struct CacheArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: CacheAction,
}

/// `escapade cache stats|clear`.
#[derive(Debug, Subcommand)]
pub enum CacheAction {
    /// Where the cache is, how many replies it holds, their size and bound, hits, and
    /// the replies per model.
    Stats {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove every reply (or a model's only): later runs ask the provider again.
    Clear {
        /// Only this model's replies (`provider/model`, as `stats` lists them).
        #[arg(long, value_name = "PROVIDER/MODEL")]
        model: Option<String>,
    },
}

/// How a session pays for model requests: `run` and `resume` take these.
#[derive(Debug, Clone, Args)]
pub struct SpendingArgs {
    /// The response cache (`escapade cache stats`): `on` reads and writes it (a request
    /// seen before is answered from it, free), `read` only reads, `write` only writes,
    /// `off` leaves it alone. Recorded in run.toml.
    #[arg(long, value_name = "on|read|write|off", default_value = "on")]
    pub cache: escapade_llm::CacheMode,
    /// Stop asking models once the run's cost (every session of it) plus what the
    /// requests in flight may cost would pass this many US dollars; episodes in flight are
    /// checkpointed at their last completed step, the summary says the cap was reached,
    /// and `escapade resume DIR --max-cost MORE` continues them there.
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
}

/// `escapade setup`.
#[derive(Debug, Args)]
pub struct SetupArgs {
    /// Cache directory (default: `$ESCAPADE_CACHE`, `$XDG_CACHE_HOME/escapade` or
    /// `~/.cache/escapade`).
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// Only report whether the local model is installed.
    #[arg(long)]
    pub check: bool,
}

/// `escapade list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Show only this world, with its catalogue of building blocks (a suite's name shows
    /// its world).
    pub world: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `escapade gen`.
#[derive(Debug, Args)]
pub struct GenArgs {
    /// The world (`escapade list` names them).
    pub world: String,
    /// Difficulty tier (tools: node count; vis: room size class 1-3; comma: the puzzle's
    /// number 1-10; craft: chain length, or `10 a + b` for two rooms). Default: the
    /// world's own (`escapade list <world>` shows it).
    #[arg(long, short)]
    pub difficulty: Option<u32>,
    /// A generation option of the world, `KEY=VALUE` (repeatable; `escapade list
    /// <world>` lists them: comma `puzzle=wire`, craft `variant=note-first`).
    #[arg(short = 'W', long = "gen-option", value_name = "KEY=VALUE")]
    pub options: Vec<String>,
    /// Short for `-W puzzle=NAME` (comma: `wire`, `who`, `led`, `memory`, `keypad`,
    /// `password`, `colour`, `maze`, `atm`, `telehealth`).
    #[arg(long, value_name = "NAME")]
    pub puzzle: Option<String>,
    /// Short for `-W variant=NAME` (craft: `standard`, `note-first`, `key-first`,
    /// `two-key`, `wall-pattern`, `multi-room`; two rooms take --difficulty `10 a + b`).
    #[arg(long, value_name = "NAME")]
    pub variant: Option<String>,
    /// Seed of the first scenario; the others use the following seeds.
    #[arg(long, short, default_value_t = 0)]
    pub seed: u64,
    /// How many scenarios.
    #[arg(long, short = 'n', default_value_t = 1)]
    pub count: u32,
    /// A file (one scenario) or a directory (written as `<id>.json`); default: stdout.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
}

/// `escapade import`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
comma takes either of two sources:
  FILE  the original's puzzle file, a JSON list of {\"ClassName\": {fields}}; one scenario
        per entry, comma-import-<n>-<puzzle>.
  DIR   a PAD-UFES-20 folder (the dataset of the Telehealth puzzle, which you supply):
        DIR/metadata.csv and the images its img_id column names, found in DIR/images/,
        DIR/imgs_part_*/, DIR/images/imgs_part_*/ or DIR. One scenario per row,
        comma-telehealth-<img_id without extension>, carrying the row and the photograph
        (PNG or JPEG, scaled down to fit 512x384, stored as base64 PNG), so the file alone
        replays the case. A row whose image is missing or unreadable, or whose diagnostic
        is not one of ACK, BCC, MEL, NEV, SCC, SEK (BOD counts as SCC), is skipped with a
        message.
  DIR --suite comma@4
        the paper's evaluation set with its Telehealth entries played on the exact
        PAD-UFES-20 cases it names (row skin_lesion_idx of DIR/metadata.csv, from 0, and
        its photograph) instead of the synthetic stand-ins; every other scenario as the
        suite builds it, all under the suite's ids.
Run the scenarios with `escapade run OUT_DIR` or `escapade play FILE --role solver`.

vis takes a copy of VisEscape's repository (pull-ups/VisEscape-demo; fetch it yourself,
escapade ships none of it) and needs --out:
  DIR   the copy (or its assets/ folder). Each assets/roomN/ is read by running the copy's
        own config.py and vis_escape classes with your python3 (our small dumper, fed on
        standard input), converted to a vis room named visescape-roomNN that shows the
        copy's own pictures (mapping/, image/) for each view and state, checked by
        replaying the authors' walkthrough_oracle.json and random walks against the
        original engine, and verified by escapade's oracle. OUT_DIR gets one scenario per
        room (the pictures inside, base64), a suite.json manifest (suite
        visescape-original, or visescape-original-hints with --hints) and
        import/report.json. Rooms that cannot be imported, or
        that the oracle cannot escape, are listed with why. Then:
        `escapade run OUT_DIR --agent ...` plays the paper's benchmark and
        `escapade suite OUT_DIR` prints its Table 1 statistics.")]
pub struct ImportArgs {
    /// The world (`comma`, `craft`, `vis`).
    pub world: String,
    /// What to convert (comma: the original's puzzle file, or a PAD-UFES-20 folder;
    /// craft: one of the original's level files; vis: a copy of the original
    /// repository; see --help).
    #[arg(value_name = "FILE|DIR")]
    pub file: PathBuf,
    /// A directory for the scenarios (`<id>.json`); default: stdout, as a JSON list.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Only the first N entries (rows of a folder's metadata.csv).
    #[arg(long, short)]
    pub limit: Option<usize>,
    /// The seed of what the import draws (craft: the room furnished around the level's
    /// prop chain, and its passwords; vis: the random walks of the check).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// comma with a PAD-UFES-20 folder: write this suite (`comma@4`) with its Telehealth
    /// scenarios read from the folder instead of the synthetic stand-ins.
    #[arg(long)]
    pub suite: Option<String>,
    /// vis only: the Python interpreter that runs the copy's code.
    #[arg(long, default_value = "python3")]
    pub python: String,
    /// vis only: random walks per room through the original engine, replayed in the
    /// converted room as a check (0: none).
    #[arg(long, default_value_t = 3)]
    pub walks: u32,
    /// vis only: the rooms in hint mode (VisEscape §5.4, App. A.4: the original's hint
    /// after 30 steps without a checkpoint), as the suite `visescape-original-hints`.
    #[arg(long)]
    pub hints: bool,
}

/// `escapade suite`.
#[derive(Debug, Args)]
pub struct SuiteArgs {
    /// Suite name, e.g. `agentescape@2` (without `@version`: the latest), or a directory
    /// of scenarios (one written by `escapade suite --out` or `escapade import`, or its
    /// `suite.json`).
    pub name: String,
    /// Write the scenarios and `suite.json` to this directory.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Print the manifest as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `escapade run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// A suite name, a scenario file, or a directory of scenarios (not with --from: a
    /// fork plays the recorded run's scenario).
    #[arg(default_value = "", hide_default_value = true)]
    pub source: String,
    /// Fork a recorded episode of this run directory: replay its first K-1 actions (each
    /// observation and answer checked against the recording, and refused when one
    /// differs) and let this command's agent play on from step K (--episode, --step), as
    /// a new run whose episode row names its origin. The suite, seed and world options
    /// are the recorded run's; a baseline agent (`oracle`, …) starts fresh at step K.
    #[arg(long, value_name = "RUN", requires_all = ["episode", "step"], conflicts_with_all = ["limit", "sample", "epochs", "shard"])]
    pub from: Option<PathBuf>,
    /// With --from: the episode to fork, as SCENARIO or SCENARIO:EPOCH (epoch 0 when
    /// not given).
    #[arg(long, value_name = "SCENARIO[:EPOCH]", requires = "from")]
    pub episode: Option<String>,
    /// With --from: the step (from 1) this agent plays first.
    #[arg(long, value_name = "K", requires = "from")]
    pub step: Option<u32>,
    /// With --from: the agent starts with an empty conversation at step K, instead of the
    /// recorded conversation rebuilt from the recorded replies.
    #[arg(long, requires = "from")]
    pub fresh: bool,
    /// The agent: a model agent (see --model) — `llm` (the generic chat loop), `base`
    /// (VisEscape's BaseAgent: one prompt per step with the last 20 steps) or
    /// `visescaper` (BaseAgent with memory and reasoning) — or a baseline kind of the
    /// world (`oracle`, `random`, …).
    #[arg(long, short, default_value = "llm")]
    pub agent: String,
    /// The model of a model agent, as `provider/model`: `openai/gpt-4o`,
    /// `openai-compatible/<model>` (with --base-url), `anthropic/<model>`,
    /// `scripted/<file.jsonl>`, or `local/smollm2` (the default; install with `escapade setup`).
    #[arg(long, short)]
    pub model: Option<String>,
    /// Agent and backend options as key=value (repeatable): reask=N,
    /// structured=auto|on|off, temperature=T, max_tokens=N, images=on|off,
    /// log=delta|full|hash, socratic=off|alt|captions, captioner=PROVIDER/MODEL; `llm`
    /// only: history=full|last:K|key[:K], protocol=text|tools; `base`/`visescaper` only:
    /// memory=on|off, reasoning=on|off, window=N, navigation=PREFIX,…; backend:
    /// timeout=SECS, retries=N, rpm=N, tpm=N, backend_concurrency=N, prices=FILE,
    /// threads=N, context=N, parallel=N; reasoning models: reasoning_effort=LEVEL
    /// (OpenAI-shaped), thinking_budget=N (Anthropic); pictures per request (default:
    /// the provider's documented limits): max_pictures=N, max_picture_mb=N.
    #[arg(short = 'A', long = "agent-option", value_name = "KEY=VALUE")]
    pub agent_options: Vec<String>,
    /// Two-role worlds (comma): the expert's agent — a model agent (`llm`, …) or a
    /// baseline of the world (`oracle`, `random`); `--agent` then plays the solver.
    /// Without it `--agent` plays both roles (a model agent: one agent per role).
    #[arg(long, value_name = "SPEC")]
    pub expert: Option<String>,
    /// The expert's model, as `provider/model` (implies `--expert llm` when --expert is
    /// not given).
    #[arg(long, value_name = "PROVIDER/MODEL")]
    pub expert_model: Option<String>,
    /// The expert's agent and backend options as key=value (repeatable; the keys of -A).
    #[arg(short = 'E', long = "expert-option", value_name = "KEY=VALUE")]
    pub expert_options: Vec<String>,
    /// The world's environment options as key=value (repeatable; `escapade list <world>`
    /// names them), e.g. craft's `-W width=2048 -W height=1024` or `-W grab=original`.
    #[arg(short = 'W', long = "world-option", value_name = "KEY=VALUE")]
    pub world_options: Vec<String>,
    /// Base URL of the model's API (`openai-compatible/…` also reads `OPENAI_BASE_URL`;
    /// the URL used is recorded in the run's config).
    #[arg(long)]
    pub base_url: Option<String>,
    /// Play only shard i of N of the run's episodes (1-based, e.g. 2/8), for spreading one
    /// evaluation over machines; `escapade report` merges the shards' run directories.
    /// `auto` takes the shard from a Slurm job array; `auto/N` takes the 0-based index
    /// from a Kubernetes indexed job (`JOB_COMPLETION_INDEX`) or a Slurm array.
    #[arg(long, value_name = "I/N|auto[/N]")]
    pub shard: Option<String>,
    /// Episodes per scenario (default: the suite's paper setting, else 1).
    #[arg(long, short)]
    pub epochs: Option<u32>,
    /// Only the first N scenarios, in suite order (each played for every epoch: the run
    /// says how many episodes that is).
    #[arg(long, short, conflicts_with = "sample")]
    pub limit: Option<usize>,
    /// Only N scenarios drawn evenly over the suite's difficulty tiers (comma: its
    /// puzzles), with the run's seed: a quick look at the whole suite (`--limit 2` on
    /// comma gives two Wire puzzles). Recorded in run.toml as a departure.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Episodes played at once (does not change results). Default: the machine's cores
    /// when every agent is a world baseline (`oracle`, `random`, …), else 1.
    #[arg(long, short)]
    pub concurrency: Option<usize>,
    /// Run seed; each episode's seed is derived from it, the scenario and the epoch.
    #[arg(long, short, default_value_t = 0)]
    pub seed: u64,
    /// Cap on steps per episode (worlds stop their episodes long before the default).
    /// An episode that reaches it ends as "step cap" (not an error); a value below the
    /// world's own limit departs from the paper's protocol (recorded in run.toml).
    #[arg(long, default_value_t = escapade_run::runner::DEFAULT_MAX_STEPS)]
    pub max_steps: u32,
    /// Directory for a new run directory, or a run directory to resume.
    #[arg(long, short, default_value = "runs")]
    pub out: PathBuf,
    /// The closing report with every metric (by default each world's key metrics, every
    /// line within 120 columns; report.md always has all).
    #[arg(long)]
    pub wide: bool,
    /// The response cache and the cost cap.
    #[command(flatten)]
    pub spending: SpendingArgs,
    /// Play nothing: print what the run would cost (see `escapade estimate`).
    #[arg(long)]
    pub dry_run: bool,
    /// With --dry-run (and `estimate`): the output tokens each reply is counted at.
    #[arg(long, value_name = "N", default_value_t = escapade_run::estimate::DEFAULT_REPLY_TOKENS)]
    pub reply_tokens: u64,
    /// With --dry-run (and `estimate`): print JSON, every scenario's figures too.
    #[arg(long)]
    pub json: bool,
}

/// `escapade resume`.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The run directory; or a folder of runs (`runs`): the interrupted runs below it are
    /// listed, and resumed when there is one.
    pub dir: PathBuf,
    /// Episodes played at once (does not change results). Default as for `run`.
    #[arg(long, short)]
    pub concurrency: Option<usize>,
    /// Client tuning for the rest of the run (`timeout`, `retries`, `rpm`, `tpm`,
    /// `backend_concurrency`): how the run talks to its backend, not what it measures, so
    /// it may change on resume. Other options are the run's identity and may not.
    #[arg(short = 'A', long = "agent-option", value_name = "KEY=VALUE")]
    pub agent_options: Vec<String>,
    /// The same for the expert role's agent.
    #[arg(short = 'E', long = "expert-option", value_name = "KEY=VALUE")]
    pub expert_options: Vec<String>,
    /// The closing report with every metric (see `run --wide`).
    #[arg(long)]
    pub wide: bool,
    /// The response cache and the cost cap for the rest of the run (the cap counts what
    /// the earlier sessions spent).
    #[command(flatten)]
    pub spending: SpendingArgs,
}

/// Formats of `escapade export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Chat JSONL in OpenAI's messages format: one line per conversation an agent had
    /// (per episode and role; per step for agents sent each step alone).
    Sft,
    /// Preference pairs (prompt, chosen, rejected) at the same state, as JSONL.
    Dpo,
    /// A folder with Parquet files and a dataset card (README.md).
    Hf,
}

/// `escapade export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Run directories; a folder that is no run directory stands for the runs below it.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// What to write.
    #[arg(long, short, value_enum)]
    pub format: ExportFormat,
    /// Where: a file for sft and dpo (default `export-sft.jsonl`, `export-dpo.jsonl`), a
    /// folder for hf (default `export-hf`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Only this world's episodes (tools, vis, comma, craft).
    #[arg(long)]
    pub world: Option<String>,
    /// Only this difficulty tier.
    #[arg(long)]
    pub tier: Option<u32>,
    /// Episodes by outcome: success, failure or any (default: success for sft and hf,
    /// any for dpo, whose rejected actions come from episodes that went wrong).
    #[arg(long)]
    pub outcome: Option<String>,
    /// Pictures inline as data URLs instead of files in `images/` beside the output.
    #[arg(long)]
    pub data_urls: bool,
}

/// Output formats of `escapade report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Markdown tables.
    Md,
    /// CSV, a row per group and metric.
    Csv,
    /// JSON.
    Json,
}

/// `escapade report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Run directories (or `episodes.jsonl` files); a folder that is no run directory
    /// stands for the runs below it.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = ReportFormat::Md)]
    pub format: ReportFormat,
    /// Markdown with every metric: by default each world's key metrics (the paper's
    /// headline columns), every line within 120 columns; report.md, CSV and JSON always
    /// have all.
    #[arg(long)]
    pub wide: bool,
    /// Also give a table per scenario (per room), and `scenarios` in the JSON.
    #[arg(long)]
    pub per_scenario: bool,
    /// Same as `--format json`.
    #[arg(long)]
    pub json: bool,
    /// Also give success against the number of allowed solver turns (COMMA Fig. 4:
    /// success had the episode been cut after k turns, k = 1..10), from the
    /// trajectories; always on for comma runs.
    #[arg(long)]
    pub per_turn: bool,
    /// Also draw the papers' figures (SVG and PNG) into this directory (default:
    /// `plots/` inside the first run directory).
    #[arg(long, value_name = "DIR", num_args = 0..=1)]
    pub plots: Option<Option<PathBuf>>,
}

/// The access token of a server (`view`, `play --web`, `serve`, `mcp --http`): a fresh
/// random one by default, printed once in the address to open.
#[derive(Debug, Args)]
pub struct TokenArgs {
    /// The access token every request must carry (at least 16 letters, digits or
    /// `-._~`) instead of a fresh random one. Prefer the environment variable: an
    /// argument shows in the process list.
    #[arg(
        long,
        env = "ESCAPADE_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub token: Option<String>,
    /// No token: anyone who can connect may use the server — on 127.0.0.1, anyone logged
    /// in to this machine; with --host, anyone who can reach the address.
    #[arg(long)]
    pub no_token: bool,
}

impl TokenArgs {
    /// The library's token choice (`--no-token` wins over a token in the environment).
    pub fn choice(&self) -> escapade_web::auth::TokenChoice {
        escapade_web::auth::TokenChoice::from_flags(self.token.clone(), self.no_token)
    }
}

/// `escapade compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The first run directory (or its `episodes.jsonl`).
    pub a: PathBuf,
    /// The second run directory.
    pub b: PathBuf,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `escapade paper`.
#[derive(Debug, Args)]
pub struct PaperArgs {
    /// A world (`tools`, `vis`, `comma`, `craft`) or one of its suites.
    pub name: String,
    /// Print JSON: the tables as declared and every value flattened, in the run's units.
    #[arg(long)]
    pub json: bool,
}

/// `escapade view`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// Folders to find runs in (searched recursively for run directories).
    #[arg(default_value = "runs")]
    pub dirs: Vec<PathBuf>,
    /// Listen on this address (e.g. 0.0.0.0, or this machine's address on your network)
    /// instead of 127.0.0.1.
    #[arg(long, value_name = "ADDRESS")]
    pub host: Option<String>,
    /// The port (0: any free port).
    #[arg(long, default_value_t = escapade_web::server::DEFAULT_PORT)]
    pub port: u16,
    /// The access token (printed once at start, in the address to open).
    #[command(flatten)]
    pub access: TokenArgs,
}

/// `escapade mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Serve streamable HTTP at `http://HOST:PORT/mcp` instead of standard input and
    /// output.
    #[arg(long)]
    pub http: bool,
    /// With --http: listen on this address instead of 127.0.0.1 (e.g. 0.0.0.0).
    #[arg(long, requires = "http", value_name = "ADDRESS")]
    pub host: Option<String>,
    /// With --http: the port (0: any free port).
    #[arg(long, requires = "http", default_value_t = escapade_serve::mcp::http::DEFAULT_PORT)]
    pub port: u16,
    /// With --http: the access token every request carries (`Authorization: Bearer
    /// <token>`, or `?token=` in the URL; printed once at start).
    #[command(flatten)]
    pub access: TokenArgs,
    /// With --http: transport sessions held at once (clients of protocol versions before
    /// 2026-07-28 open one each); one more is refused until one ends.
    #[arg(long, default_value_t = escapade_serve::mcp::http::DEFAULT_MAX_SESSIONS)]
    pub max_sessions: usize,
    /// The largest picture a client may ask a world to draw (craft's width × height),
    /// in pixels.
    #[arg(long, default_value_t = escapade_serve::app::MAX_PIXELS)]
    pub max_pixels: u64,
    /// Write every episode as a run directory (agent `remote`) under this directory.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// Most episodes in play at once (idle ones are closed to make room).
    #[arg(long, default_value_t = escapade_serve::mcp::episodes::DEFAULT_MAX_EPISODES)]
    pub max_episodes: usize,
    /// Answers carry `steps_to_go`, the oracle's distance from the current state (for
    /// training; off by default, since a model playing reads the answers).
    #[arg(long)]
    pub steps_to_go: bool,
}

/// `escapade serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Listen on this address (e.g. 0.0.0.0) instead of 127.0.0.1.
    #[arg(long, value_name = "ADDRESS")]
    pub host: Option<std::net::IpAddr>,
    /// The port (0: any free port).
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// Record every episode played as a run directory under this directory
    /// (`escapade report` and `escapade view` read them).
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// Sessions held at once; a client past the maximum is refused.
    #[arg(long, default_value_t = 256)]
    pub max_sessions: usize,
    /// Seconds a session may sit unused before it is removed (its episode recorded as
    /// given up); this also frees the slots of clients that vanished without closing.
    #[arg(long, default_value_t = 300)]
    pub idle_timeout: u64,
    /// Largest request body or WebSocket message, in bytes.
    #[arg(long, default_value_t = 1 << 20)]
    pub max_message: usize,
    /// Requests (and WebSocket messages) a second per client address; 0: no limit.
    #[arg(long, default_value_t = 200.0)]
    pub rate: f64,
    /// The largest picture a client may ask a world to draw (craft's width × height),
    /// in pixels.
    #[arg(long, default_value_t = escapade_serve::app::MAX_PIXELS)]
    pub max_pixels: u64,
    /// The access token every request carries (`Authorization: Bearer <token>`, or as
    /// the password of the base URL; printed once at start).
    #[command(flatten)]
    pub access: TokenArgs,
}

/// `escapade judge`.
#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// Run directories (or `episodes.jsonl` files); the shards of one run are merged, and
    /// each run gets its own table.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// The judge model, as `provider/model`: `openai/gpt-4o`, `anthropic/<model>`,
    /// `openai-compatible/<model>` (with --base-url), `local/smollm2`, or
    /// `scripted/<file.jsonl>`.
    #[arg(long, short, required = true)]
    pub model: String,
    /// What to judge: `reasoning` (VisEscape §6.2: each step's reasoning cut into
    /// Observation, Guess, Hypothesis, Planning and Recall units), `errors` (COMMA
    /// §5.2: each two-role episode's conversation checked for roleplay,
    /// misinterpretation, repetition loops and miscommunication), `intent` (MM-Escape
    /// §5.3: whether each successful interaction of a craft episode was meant by its
    /// rationale, C_IO) or `debrief` (MM-Escape §5.4: a storyteller recounts each escaped
    /// craft episode, the judge scores it 0-5 against the scenario's story).
    #[arg(long, short, default_value = "reasoning")]
    pub task: String,
    /// Judge calls in flight at once.
    #[arg(long, short, default_value_t = escapade_run::judge::DEFAULT_CONCURRENCY)]
    pub concurrency: usize,
    /// Judge only the first N steps of each run (in scenario, epoch and step order).
    #[arg(long, short)]
    pub limit: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Judge and backend options as key=value (repeatable): max_chars=N (most characters
    /// of reasoning sent, default 8000), max_tokens=N (default 4096),
    /// storyteller=provider/model (who recounts the game for `debrief`; default: the
    /// judge model), timeout=SECS,
    /// retries=N, rpm=N, tpm=N, backend_concurrency=N, prices=FILE, threads=N, context=N,
    /// parallel=N.
    #[arg(short = 'A', long = "option", value_name = "KEY=VALUE")]
    pub options: Vec<String>,
    /// Base URL of the judge model's API (`openai-compatible/…` also reads
    /// `OPENAI_BASE_URL`).
    #[arg(long)]
    pub base_url: Option<String>,
}

/// `escapade check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The scenario file.
    pub file: PathBuf,
    /// The world, when the file does not name it.
    #[arg(long)]
    pub world: Option<String>,
    /// Write the scenario as JSON here (what `run` and `play` read).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `escapade show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A suite name, a scenario file, or a directory of scenarios.
    pub source: String,
    /// Which scenario of a suite or directory (default: the first).
    #[arg(long)]
    pub scenario: Option<String>,
    /// Seed given to the environment.
    #[arg(long, short, default_value_t = 0)]
    pub seed: u64,
    /// The world's environment options as key=value (repeatable; `escapade list <world>`
    /// names them), e.g. craft's `-W width=2048 -W height=1024` or `-W grab=original`.
    #[arg(short = 'W', long = "world-option", value_name = "KEY=VALUE")]
    pub world_options: Vec<String>,
    /// The folder to write `observation.md` and the pictures into.
    #[arg(long, short, default_value = "escapade-show")]
    pub out: PathBuf,
}

/// `escapade play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// A suite name, a scenario file, or a directory of scenarios.
    pub source: String,
    /// Which scenario of a suite or directory (default: the first).
    #[arg(long)]
    pub scenario: Option<String>,
    /// Seed given to the environment.
    #[arg(long, short, default_value_t = 0)]
    pub seed: u64,
    /// Also write a run directory (agent `human`) under this directory (with --web:
    /// where every game is recorded, default `play-runs`).
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Where pictures of the views are written (`current.png` is the view in front of
    /// you, rewritten every step).
    #[arg(long, default_value = "escapade-play")]
    pub images: PathBuf,
    /// The world's environment options as key=value (repeatable; `escapade list <world>`
    /// names them), e.g. craft's `-W width=2048 -W height=1024` or `-W grab=original`.
    #[arg(short = 'W', long = "world-option", value_name = "KEY=VALUE")]
    pub world_options: Vec<String>,
    /// Two-role worlds (comma): the role you play (`solver` or `expert`); the other role
    /// is played by --expert's agent. Without it you play every role.
    #[arg(long)]
    pub role: Option<String>,
    /// The agent of the role you do not play: a baseline of the world (`oracle`, the
    /// default, or `random`) or a model agent (`llm`, with --expert-model; with --web
    /// also `provider/model`). With --web and no partner, two people play the two roles.
    #[arg(long, value_name = "SPEC", visible_alias = "partner")]
    pub expert: Option<String>,
    /// The other role's model, as `provider/model` (implies `--expert llm`).
    #[arg(long, value_name = "PROVIDER/MODEL")]
    pub expert_model: Option<String>,
    /// The other role's agent and backend options as key=value (repeatable).
    #[arg(short = 'E', long = "expert-option", value_name = "KEY=VALUE")]
    pub expert_options: Vec<String>,
    /// Your name or a label, recorded with the run (`participant` in run.toml; `escapade
    /// report` shows it beside `human`). With --web each person types theirs.
    #[arg(long, conflicts_with = "web")]
    pub participant: Option<String>,
    /// Play in the browser: serve pages where people play the scenarios (each game
    /// recorded under --record, default `play-runs`); prints the address to open. A
    /// person sees their own seat's view of their own game only.
    #[arg(long)]
    pub web: bool,
    /// With --web: the address to listen on (e.g. 0.0.0.0 to let a colleague join from
    /// another machine). Without it, this machine only.
    #[arg(long, requires = "web")]
    pub host: Option<String>,
    /// With --web: the port (0: any free port).
    #[arg(long, requires = "web", default_value_t = 8641)]
    pub port: u16,
    /// With --web: the access token every request carries (printed once at start, in
    /// the address to open).
    #[command(flatten)]
    pub access: TokenArgs,
}
