//! Who plays a run: the agent flags (`--agent`, `--model`, `-A`, `--expert`,
//! `--expert-model`, `-E`, `--base-url`) read into [`Players`], and the agent factory
//! made from them.
//!
//! One way for every front end: `escapade run` and `resume`, `escapade play`'s partner,
//! and the workers of a distributed run (`escapade.ray`) all read the flags with
//! [`AgentFlags::players`] and build agents with [`agents`] — so the options recorded in
//! `run.toml` (and the config hash) are the same whichever of them starts a run, and a
//! worker on another machine makes the agents the binary would make.

use std::collections::BTreeMap;
use std::sync::Arc;

use escapade_agents::config::{CLIENT_KEYS, client_options};
use escapade_agents::{AgentError, EscaperConfig, EscaperKind, LlmConfig, MODEL_AGENTS};
use escapade_core::env::SuiteSettings;
use escapade_core::{CoreError, World};
use escapade_llm::{ClientOptions, LlmError};
use serde::{Deserialize, Serialize};

use crate::error::RunError;
use crate::runner::{AgentFactory, Baseline, LlmFactory, RunSpec, TeamFactory};

/// The model used when a model agent (`--agent llm|base|visescaper`) is given without
/// `--model`: the built-in local model.
pub const DEFAULT_MODEL: &str = "local/smollm2";

/// The expert role of two-role worlds (comma).
pub const EXPERT_ROLE: &str = "expert";

/// Errors of reading agent flags and making agents.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlayersError {
    /// Occurs when a `KEY=VALUE` flag (`-A`, `-E`, `-W`) has no `=`.
    #[error("bad {what} `{pair}` ({flag}): expected KEY=VALUE")]
    NotKeyValue {
        /// What the pairs are (`agent option`, `world option`).
        what: &'static str,
        /// The pair as given.
        pair: String,
        /// The flag (`-A`).
        flag: &'static str,
    },
    /// Occurs when a `KEY=VALUE` flag has an empty key.
    #[error("bad {what} `{pair}`: the key is empty")]
    EmptyKey {
        /// What the pairs are.
        what: &'static str,
        /// The pair as given.
        pair: String,
    },
    /// Occurs when a model (`--model`, `--expert-model`) is given for a baseline agent.
    #[error(
        "{model_flag} applies only to `{agent_flag} llm`, `base` or `visescaper` (got \
         {agent_flag} {spec})"
    )]
    ModelOfBaseline {
        /// The model's flag.
        model_flag: &'static str,
        /// The agent's flag.
        agent_flag: &'static str,
        /// The baseline given.
        spec: String,
    },
    /// Occurs when a baseline agent is given agent options.
    #[error(
        "agent options (-A/-E, --model/--expert-model, --base-url) apply only to model \
         agents (`{models}`), not to `{spec}`"
    )]
    OptionsOfBaseline {
        /// The model agents, `|`-separated.
        models: String,
        /// The baseline given.
        spec: String,
    },
    /// Occurs when `-E` is given without an expert.
    #[error("-E (expert options) needs --expert SPEC or --expert-model")]
    ExpertOptionsAlone,
    /// Occurs when `--expert` is given for a world whose scenarios have one role.
    #[error(
        "--expert applies only to worlds whose scenarios have two roles (comma's solver and \
         expert); world `{world}` has one role"
    )]
    ExpertOfOneRole {
        /// The world.
        world: String,
    },
    /// Occurs when `--expert` is given for a world without an expert role.
    #[error("--expert needs a world with an `{EXPERT_ROLE}` role; world `{world}` has {roles}")]
    NoExpertRole {
        /// The world.
        world: String,
        /// Its roles, comma-separated.
        roles: String,
    },
    /// Occurs when a model backend cannot be opened (unknown provider, missing key, a
    /// script that does not parse).
    #[error("cannot open the model backend `{model}`: {error}")]
    Backend {
        /// The backend spec.
        model: String,
        /// Why not.
        error: LlmError,
    },
    /// Occurs when the captioner's backend cannot be opened.
    #[error("cannot open the captioner backend `{model}`: {error}")]
    Captioner {
        /// The backend spec.
        model: String,
        /// Why not.
        error: LlmError,
    },
    /// Occurs when a model agent's options are refused (an unknown key, a bad value).
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// Occurs when a baseline is not one of the world's.
    #[error(transparent)]
    Run(#[from] RunError),
    /// Occurs when the world cannot open a scenario to read its roles.
    #[error(transparent)]
    Core(#[from] CoreError),
}

/// Result with [`PlayersError`].
pub type Result<T, E = PlayersError> = std::result::Result<T, E>;

/// The agent flags of `escapade run` as given, before they are read into [`Players`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentFlags {
    /// `--agent`: a model agent (`llm`, `base`, `visescaper`) or a world's baseline.
    pub agent: String,
    /// `--model`.
    pub model: Option<String>,
    /// `-A KEY=VALUE`, as given.
    pub options: Vec<String>,
    /// `--base-url` (the agent's, and a model expert's without its own).
    pub base_url: Option<String>,
    /// `--expert`.
    pub expert: Option<String>,
    /// `--expert-model`.
    pub expert_model: Option<String>,
    /// `-E KEY=VALUE`, as given.
    pub expert_options: Vec<String>,
}

impl AgentFlags {
    /// The players the flags name, with the suite's paper `settings` as the defaults of
    /// the options the user left out (what the user gave wins), as `escapade run`
    /// records them in `run.toml`.
    pub fn players(&self, settings: &SuiteSettings) -> Result<Players> {
        let mut options = options_of(
            &self.agent,
            &self.options,
            self.model.as_deref(),
            self.base_url.as_deref(),
            ("-A", "--model", "--agent"),
        )?;
        crate::settings::apply(settings, &self.agent, &mut options);
        let mut expert = expert_options(
            self.expert.as_deref(),
            self.expert_model.as_deref(),
            &self.expert_options,
            self.base_url.as_deref(),
        )?;
        if let Some((spec, options)) = expert.as_mut() {
            crate::settings::apply(settings, spec, options);
        }
        Ok(Players {
            agent: self.agent.clone(),
            options,
            expert,
        })
    }
}

/// Who plays a run: the `--agent` spec and its options, and in two-role worlds the
/// `--expert` spec and its options when given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Players {
    /// The agent spec (`llm`, `oracle`, …).
    pub agent: String,
    /// Its options (model, …).
    pub options: BTreeMap<String, String>,
    /// The expert role's spec and options (`--expert`), when given.
    pub expert: Option<(String, BTreeMap<String, String>)>,
}

impl Players {
    /// The players of a run spec (a resumed run's).
    pub fn of_spec(spec: &RunSpec) -> Players {
        Players {
            agent: spec.agent.clone(),
            options: spec.agent_options.clone(),
            expert: spec
                .expert
                .as_ref()
                .map(|e| (e.clone(), spec.expert_options.clone())),
        }
    }

    /// `spec` with its agent, expert and their options set to these players'.
    pub fn into_spec(self, spec: RunSpec) -> RunSpec {
        let (expert, expert_options) = match self.expert {
            Some((e, o)) => (Some(e), o),
            None => (None, BTreeMap::new()),
        };
        RunSpec {
            agent: self.agent,
            agent_options: self.options,
            expert,
            expert_options,
            ..spec
        }
    }
}

/// Makes the backend that answers for a model spec in place of its provider.
pub type StandIn = Arc<dyn Fn(&str) -> Arc<dyn escapade_llm::Backend> + Send + Sync>;

/// How the model clients of a run's agents are opened, beyond each agent's own options.
#[derive(Clone, Default)]
pub struct Opener {
    /// What every client starts from before its agent's options are applied: the
    /// session's response cache and cost cap (`escapade run --cache`, `--max-cost`).
    pub base: ClientOptions,
    /// Every model (agents and captioners alike) answered by the backend this makes
    /// from the model's spec instead of the provider: `escapade estimate` plays episodes
    /// against a stand-in that only counts, so nothing is sent and nothing is paid.
    pub stand_in: Option<StandIn>,
}

impl std::fmt::Debug for Opener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opener")
            .field("base", &self.base)
            .field("stand_in", &self.stand_in.is_some())
            .finish()
    }
}

impl Opener {
    /// The client of `model` with a model agent's `options` over [`Opener::base`].
    async fn open(
        &self,
        model: &str,
        options: &BTreeMap<String, String>,
    ) -> std::result::Result<escapade_llm::Client, LlmError> {
        let client_options = client_options(options, self.base.clone())
            .map_err(|e| LlmError::Config(e.to_string()))?;
        match &self.stand_in {
            Some(make) => Ok(escapade_llm::Client::new(make(model), &client_options)),
            None => escapade_llm::open(model, &client_options).await,
        }
    }
}

/// The roles of the world's scenarios (empty for one-role worlds), from an env of the
/// first scenario.
pub fn roles_of(
    world: &dyn World,
    scenarios: &[(String, String)],
) -> std::result::Result<Vec<String>, CoreError> {
    match scenarios.first() {
        None => Ok(Vec::new()),
        Some((_, json)) => Ok(world.env(json, &escapade_core::Options::new())?.roles()),
    }
}

/// The agent factory for a run whose scenarios have `roles` ([`roles_of`]). One-role
/// worlds: a model agent over `options["model"]` (`llm`, or VisEscape's `base` and
/// `visescaper`) or one of the world's baselines. Worlds whose scenarios have roles
/// (comma): a model agent gets one agent per role (a [`TeamFactory`], members sharing one
/// client); a baseline without `--expert` is the world's own pair; with `--expert`,
/// `agent` plays every role but `expert`.
pub async fn agents(
    world: &dyn World,
    roles: &[String],
    players: &Players,
) -> Result<Box<dyn AgentFactory>> {
    agents_with(world, roles, players, &Opener::default()).await
}

/// [`agents`] with model clients opened by `opener` (a session's cache and cost cap, or
/// an estimate's stand-in backend).
pub async fn agents_with(
    world: &dyn World,
    roles: &[String],
    players: &Players,
    opener: &Opener,
) -> Result<Box<dyn AgentFactory>> {
    let agent = players.agent.as_str();
    // every player is checked before any backend opens: a misspelled or keyless
    // --expert-model must not wait for the agent's local model to start
    check(world, roles, players)?;
    if opener.stand_in.is_none() {
        preflight(players, &opener.base)?;
    }
    // `check` refused an expert in a one-role world, a baseline given options and an
    // expert without an expert role
    if roles.is_empty() {
        return single_agent_with(world, agent, &players.options, None, opener).await;
    }
    let Some((expert, expert_options)) = &players.expert else {
        if !MODEL_AGENTS.contains(&agent) {
            // the world's own pair plays both roles
            return Ok(Box::new(Baseline::new(world, agent)?));
        }
        let client = open_client(&players.options, opener).await?;
        let mut members = Vec::new();
        for role in roles {
            let f = single_agent_with(world, agent, &players.options, Some(client.clone()), opener);
            members.push((role.clone(), f.await?));
        }
        return Ok(Box::new(TeamFactory::new(members)));
    };
    let expert = expert.as_str();
    // one client per distinct backend: a model expert on the agent's model shares it
    let backend = |o: &BTreeMap<String, String>| {
        o.iter()
            .filter(|(k, _)| CLIENT_KEYS.contains(&k.as_str()) || k.as_str() == "model")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<BTreeMap<_, _>>()
    };
    let agent_client = match MODEL_AGENTS.contains(&agent) {
        true => Some(open_client(&players.options, opener).await?),
        false => None,
    };
    let expert_client = match (MODEL_AGENTS.contains(&expert), &agent_client) {
        (false, _) => None,
        (true, Some(c)) if backend(&players.options) == backend(expert_options) => Some(c.clone()),
        (true, _) => Some(open_client(expert_options, opener).await?),
    };
    let mut members = Vec::new();
    for role in roles {
        let f = if role == EXPERT_ROLE {
            single_agent_with(world, expert, expert_options, expert_client.clone(), opener).await?
        } else {
            single_agent_with(world, agent, &players.options, agent_client.clone(), opener).await?
        };
        members.push((role.clone(), f));
    }
    Ok(Box::new(TeamFactory::new(members)))
}

/// Checks `players` as [`agents`] does — the roles, the baselines, every model agent's
/// options — without opening a model backend: what a driver checks before it hands the
/// players to workers.
pub fn check(world: &dyn World, roles: &[String], players: &Players) -> Result<()> {
    let mut specs = vec![(players.agent.as_str(), &players.options)];
    check_baseline_options(&players.agent, &players.options)?;
    match &players.expert {
        None if !roles.is_empty() && !MODEL_AGENTS.contains(&players.agent.as_str()) => {
            // the world's own pair
            Baseline::new(world, &players.agent)?;
            return Ok(());
        }
        None => {}
        Some(_) if roles.is_empty() => {
            return Err(PlayersError::ExpertOfOneRole {
                world: world.name().to_string(),
            });
        }
        Some((expert, expert_options)) => {
            check_baseline_options(expert, expert_options)?;
            if !roles.iter().any(|r| r == EXPERT_ROLE) {
                return Err(PlayersError::NoExpertRole {
                    world: world.name().to_string(),
                    roles: roles.join(", "),
                });
            }
            specs.push((expert.as_str(), expert_options));
        }
    }
    for (spec, options) in specs {
        if MODEL_AGENTS.contains(&spec) {
            config_of(spec, options)?;
            client_options(options, ClientOptions::default())?;
        } else {
            Baseline::new(world, spec)?;
        }
    }
    Ok(())
}

/// The settings of model agent `spec` from its options: the agent's, and an escaper's
/// when `spec` is one of VisEscape's agents. Each kind checks its own keys.
fn config_of(
    spec: &str,
    options: &BTreeMap<String, String>,
) -> Result<(LlmConfig, Option<EscaperConfig>)> {
    let model = options
        .get("model")
        .map(String::as_str)
        .unwrap_or(DEFAULT_MODEL);
    Ok(match EscaperKind::from_spec(spec) {
        None => (LlmConfig::from_options(model, options)?, None),
        Some(kind) => {
            let e = EscaperConfig::from_options(kind, model, options)?;
            (e.llm.clone(), Some(e))
        }
    })
}

/// Refuses what opening the players' model backends would refuse (an unknown provider,
/// a missing key or server address) without opening any of them.
fn preflight(players: &Players, base: &ClientOptions) -> Result<()> {
    let expert = players.expert.iter().map(|(spec, o)| (spec.as_str(), o));
    for (spec, options) in std::iter::once((players.agent.as_str(), &players.options)).chain(expert)
    {
        if !MODEL_AGENTS.contains(&spec) {
            continue;
        }
        let model = options
            .get("model")
            .map(String::as_str)
            .unwrap_or(DEFAULT_MODEL);
        let client_options = client_options(options, base.clone())?;
        escapade_llm::preflight(model, &client_options).map_err(|error| PlayersError::Backend {
            model: model.to_string(),
            error,
        })?;
    }
    Ok(())
}

/// Baselines take no options.
fn check_baseline_options(spec: &str, options: &BTreeMap<String, String>) -> Result<()> {
    if !MODEL_AGENTS.contains(&spec) && !options.is_empty() {
        return Err(PlayersError::OptionsOfBaseline {
            models: MODEL_AGENTS.join("|"),
            spec: spec.to_string(),
        });
    }
    Ok(())
}

/// The model backend of a model agent's options (its `model`, or the default).
async fn open_client(
    options: &BTreeMap<String, String>,
    opener: &Opener,
) -> Result<escapade_llm::Client> {
    let model = options
        .get("model")
        .map(String::as_str)
        .unwrap_or(DEFAULT_MODEL);
    // bad options are the agent's error, not the backend's
    client_options(options, ClientOptions::default())?;
    opener
        .open(model, options)
        .await
        .map_err(|error| PlayersError::Backend {
            model: model.to_string(),
            error,
        })
}

/// The factory of one agent spec: a world baseline, or a model agent talking through
/// `client` (opened here when `None`).
pub async fn single_agent(
    world: &dyn World,
    spec: &str,
    options: &BTreeMap<String, String>,
    client: Option<escapade_llm::Client>,
) -> Result<Box<dyn AgentFactory>> {
    single_agent_with(world, spec, options, client, &Opener::default()).await
}

/// [`single_agent`] with model clients opened by `opener`.
pub async fn single_agent_with(
    world: &dyn World,
    spec: &str,
    options: &BTreeMap<String, String>,
    client: Option<escapade_llm::Client>,
    opener: &Opener,
) -> Result<Box<dyn AgentFactory>> {
    if !MODEL_AGENTS.contains(&spec) {
        check_baseline_options(spec, options)?;
        return Ok(Box::new(Baseline::new(world, spec)?));
    }
    let (config, escaper) = config_of(spec, options)?;
    let client = match client {
        Some(c) => c,
        None => open_client(options, opener).await?,
    };
    let factory = match escaper {
        None => LlmFactory::new(config.clone(), client),
        Some(e) => LlmFactory::escaper(e, client),
    };
    let factory = match &config.captioner {
        None => factory,
        Some(spec) => {
            let captioner =
                opener
                    .open(spec, options)
                    .await
                    .map_err(|error| PlayersError::Captioner {
                        model: spec.clone(),
                        error,
                    })?;
            factory.with_captioner(captioner)
        }
    };
    Ok(Box::new(factory))
}

/// The expert's spec and options: `--expert` (`llm` when only `--expert-model` is
/// given), `-E key=value`, `--expert-model`, and the run's `--base-url` for a model
/// expert without its own.
pub fn expert_options(
    expert: Option<&str>,
    model: Option<&str>,
    pairs: &[String],
    base_url: Option<&str>,
) -> Result<Option<(String, BTreeMap<String, String>)>> {
    let spec = match (expert, model) {
        (Some(e), _) => e.to_string(),
        (None, Some(_)) => "llm".to_string(),
        (None, None) => {
            if !pairs.is_empty() {
                return Err(PlayersError::ExpertOptionsAlone);
            }
            return Ok(None);
        }
    };
    let has_url = pairs
        .iter()
        .any(|p| p.trim_start().starts_with("base_url="));
    let url = base_url.filter(|_| MODEL_AGENTS.contains(&spec.as_str()) && !has_url);
    let options = options_of(
        &spec,
        pairs,
        model,
        url,
        ("-E", "--expert-model", "--expert"),
    )?;
    Ok(Some((spec, options)))
}

/// `KEY=VALUE` pairs (keys trimmed, values as given) of the flag `flag`; `what` names
/// them in messages (`agent option`, `world option`).
pub fn key_values(
    pairs: &[String],
    what: &'static str,
    flag: &'static str,
) -> Result<BTreeMap<String, String>> {
    let mut options = BTreeMap::new();
    for pair in pairs {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| PlayersError::NotKeyValue {
                what,
                pair: pair.clone(),
                flag,
            })?;
        let k = k.trim();
        if k.is_empty() {
            return Err(PlayersError::EmptyKey {
                what,
                pair: pair.clone(),
            });
        }
        options.insert(k.to_string(), v.to_string());
    }
    Ok(options)
}

/// The world options of `-W key=value` pairs, values trimmed (the world checks the keys
/// when it opens an environment).
pub fn world_options(pairs: &[String]) -> Result<BTreeMap<String, String>> {
    let mut options = key_values(pairs, "world option", "-W")?;
    for v in options.values_mut() {
        *v = v.trim().to_string();
    }
    Ok(options)
}

/// Options of one agent spec from `key=value` pairs, a model and a base URL. `flags`
/// names the options', the model's and the agent's flags in messages.
fn options_of(
    spec: &str,
    pairs: &[String],
    model: Option<&str>,
    base_url: Option<&str>,
    flags: (&'static str, &'static str, &'static str),
) -> Result<BTreeMap<String, String>> {
    let mut options = key_values(pairs, "agent option", flags.0)?;
    if MODEL_AGENTS.contains(&spec) {
        let model = model
            .map(String::from)
            .or_else(|| options.get("model").cloned())
            .unwrap_or_else(|| DEFAULT_MODEL.to_string());
        options.insert("model".into(), model);
    } else if model.is_some() {
        return Err(PlayersError::ModelOfBaseline {
            model_flag: flags.1,
            agent_flag: flags.2,
            spec: spec.to_string(),
        });
    }
    if let Some(url) = base_url {
        options.insert("base_url".into(), url.to_string());
    }
    // the server a run talks to is part of its config (hashed, and reused by resume)
    let compatible = options
        .get("model")
        .is_some_and(|m| m.starts_with("openai-compatible/"));
    let from_env = std::env::var("OPENAI_BASE_URL")
        .ok()
        .filter(|u| !u.trim().is_empty());
    if let (true, false, Some(url)) = (compatible, options.contains_key("base_url"), from_env) {
        options.insert("base_url".into(), url);
    }
    // files named in options are recorded by absolute path, so that `resume` from another
    // directory finds them (the runner records their content hashes)
    for key in ["model", "captioner", "prices"] {
        let Some(value) = options.get(key) else {
            continue;
        };
        let (prefix, path) = match value.strip_prefix("scripted/") {
            Some(path) => ("scripted/", path),
            None if key == "prices" => ("", value.as_str()),
            None => continue,
        };
        if let Ok(abs) = std::fs::canonicalize(path) {
            let abs = format!("{prefix}{}", abs.display());
            options.insert(key.to_string(), abs);
        }
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(agent: &str, pairs: &[&str]) -> AgentFlags {
        AgentFlags {
            agent: agent.into(),
            options: pairs.iter().map(|p| p.to_string()).collect(),
            ..AgentFlags::default()
        }
    }

    #[test]
    fn a_model_agent_gets_the_default_model_and_the_suites_settings() {
        let mut settings = SuiteSettings::default();
        settings.agent.insert("temperature".into(), "0.7".into());
        let p = flags("llm", &["max_tokens=50"]).players(&settings).unwrap();
        assert_eq!(p.options["model"], DEFAULT_MODEL);
        assert_eq!(p.options["temperature"], "0.7");
        assert_eq!(p.options["max_tokens"], "50");
        // what the user gave wins over the paper's setting
        let p = flags("llm", &["temperature=0"]).players(&settings).unwrap();
        assert_eq!(p.options["temperature"], "0");
        // a baseline takes none of them
        let p = flags("oracle", &[]).players(&settings).unwrap();
        assert!(p.options.is_empty() && p.expert.is_none());
    }

    #[test]
    fn bad_flags_are_clear_errors() {
        let none = SuiteSettings::default();
        let e = flags("llm", &["nokey"]).players(&none).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad agent option `nokey` (-A): expected KEY=VALUE"
        );
        let e = flags("llm", &[" =1"]).players(&none).unwrap_err();
        assert_eq!(e.to_string(), "bad agent option ` =1`: the key is empty");
        let mut f = flags("random", &[]);
        f.model = Some("openai/x".into());
        let e = f.players(&none).unwrap_err().to_string();
        assert!(
            e.starts_with("--model applies only to `--agent llm`"),
            "{e}"
        );
        let mut f = flags("llm", &[]);
        f.expert_options = vec!["temperature=0".into()];
        assert!(matches!(
            f.players(&none),
            Err(PlayersError::ExpertOptionsAlone)
        ));
    }

    #[test]
    fn a_model_expert_inherits_the_base_url_and_players_round_trip_a_spec() {
        let mut f = flags("llm", &[]);
        f.base_url = Some("http://h".into());
        f.expert_model = Some("openai/m".into());
        let p = f.players(&SuiteSettings::default()).unwrap();
        let (spec, options) = p.expert.clone().unwrap();
        assert_eq!(spec, "llm");
        assert_eq!(options["base_url"], "http://h");
        assert_eq!(options["model"], "openai/m");
        let spec = p.clone().into_spec(RunSpec::default());
        assert_eq!(spec.expert.as_deref(), Some("llm"));
        assert_eq!(Players::of_spec(&spec), p);
    }
}
