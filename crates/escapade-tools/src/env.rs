//! The tools environment (§3.1, App. B): investigate, call, submit, give up.
//!
//! The agent starts with the room's setting and the visible nodes. Investigating shows a
//! node's story, parameters, clues and outputs (and resolves an item). A call with every
//! parameter right runs the template's real function on the agent's values; a container
//! opens; nodes wired to a resolved node's physical outputs become visible (drop events).
//! A failed call gets per-parameter feedback and one error type of App. B.1. A reply may
//! hold several actions (App. C); they run in order, each is answered in
//! [`escapade_core::Step::results`], and the reply is one turn of the step budget (App.
//! B). The episode ends on a correct `submit_answer` once the terminal has shown the flag
//! (success, §3.1), `give_up`, or the step budget (truncated).
//!
//! Metrics ([`ToolsEnv::outcome`]) follow §3.1 and §4: sub-problem resolution,
//! hidden-node discovery, tool calls against the minimum, source-node convergence speed,
//! premature invocation rate, clue adherence rate and error counts per type — the
//! counts per call, `steps` per turn.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};

use escapade_core::env::{ActionResult, Env, Outcome, RESULTS_SEPARATOR, Step};
use escapade_core::{Action, EnvError, Observation, ToolSchema};

use crate::clue::ClueStyle;
use crate::interface::{self, ErrorKind, ToolsAction};
use crate::library;
use crate::render;
use crate::sandbox::CodeRunner;
use crate::scenario::ToolsScenario;
use crate::template::NodeKind;

/// Precomputed structure of a scenario.
#[derive(Debug, Clone)]
pub(crate) struct Graph {
    /// Data-flow predecessors (producers feeding data ports), per node.
    pub preds: Vec<Vec<usize>>,
    /// For each (node, data parameter): the producer node and port, if wired.
    pub feeds: Vec<BTreeMap<String, (usize, String)>>,
    /// Nodes revealed when this node is resolved (physical edges).
    pub reveals: Vec<Vec<usize>>,
    /// Consumers of each node's outputs: (consumer, port name, output name).
    pub consumers: Vec<Vec<(usize, String, String)>>,
    /// Source nodes (§4.1): callable, and no data input comes from a callable node.
    pub source: Vec<bool>,
    /// Nodes the goal depends on (itself and its ancestors over data and physical
    /// edges): the ones the oracle's distance counts.
    pub needed: Vec<bool>,
}

impl Graph {
    pub(crate) fn new(s: &ToolsScenario) -> Self {
        let n = s.nodes.len();
        let mut g = Graph {
            preds: vec![Vec::new(); n],
            feeds: vec![BTreeMap::new(); n],
            reveals: vec![Vec::new(); n],
            consumers: vec![Vec::new(); n],
            source: vec![false; n],
            needed: vec![false; n],
        };
        for e in &s.edges {
            let (Some(a), Some(b)) = (s.node_index(&e.from), s.node_index(&e.to)) else {
                continue;
            };
            let physical = s.nodes[b]
                .inputs
                .get(&e.to_port)
                .is_some_and(|p| p.ty.is_physical());
            if physical {
                g.reveals[a].push(b);
            } else {
                if !g.preds[b].contains(&a) {
                    g.preds[b].push(a);
                }
                g.feeds[b].insert(e.to_port.clone(), (a, e.from_port.clone()));
                g.consumers[a].push((b, e.to_port.clone(), e.from_port.clone()));
            }
        }
        for (i, node) in s.nodes.iter().enumerate() {
            g.source[i] = node.kind.is_callable()
                && g.preds[i].iter().all(|p| !s.nodes[*p].kind.is_callable());
        }
        let mut todo: Vec<usize> = s.node_index(&s.goal).into_iter().collect();
        while let Some(i) = todo.pop() {
            if !std::mem::replace(&mut g.needed[i], true) {
                todo.extend(g.preds[i].iter().copied());
                todo.extend((0..n).filter(|&a| g.reveals[a].contains(&i)));
            }
        }
        g
    }
}

/// Per-episode state.
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub visible: Vec<bool>,
    pub investigated: Vec<bool>,
    pub resolved: Vec<bool>,
    steps: u32,
    actions: u32,
    over: bool,
    success: bool,
    investigations: u32,
    invocations: u32,
    errors: [u32; 8],
    attempts: Vec<u32>,
    source_attempts: Vec<u32>,
    premature: u32,
    non_source_invocations: u32,
    adherent: u32,
    adherence_total: u32,
    wrong_answers: u32,
    unearned_submissions: u32,
}

/// The tools world's environment for one scenario.
pub struct ToolsEnv {
    scenario: Arc<ToolsScenario>,
    graph: Graph,
    runner: Arc<dyn CodeRunner>,
    clues: ClueStyle,
    /// Whether each observation ends with the turn and resolved-node counter
    /// (`-W status=on`).
    status: bool,
    state: Option<State>,
    /// The function schemas last built, with the node states they were built from
    /// ([`SchemaKey`]): agent loops and the Python environments ask after every step,
    /// most steps change none of those states, and building the JSON costs about a
    /// step.
    schemas: Mutex<Option<(SchemaKey, Vec<ToolSchema>)>>,
}

/// What the function schemas depend on: each node's visibility, and whether it is
/// investigated and not yet resolved.
type SchemaKey = (Vec<bool>, Vec<bool>);

struct Reply {
    feedback: String,
    valid: bool,
    error: Option<ErrorKind>,
}

impl Reply {
    fn ok(feedback: String) -> Self {
        Reply {
            feedback,
            valid: true,
            error: None,
        }
    }
    fn err(kind: ErrorKind, feedback: String) -> Self {
        Reply {
            feedback,
            valid: false,
            error: Some(kind),
        }
    }
}

impl ToolsEnv {
    /// Opens an environment on a validated scenario.
    pub fn new(scenario: Arc<ToolsScenario>, runner: Arc<dyn CodeRunner>) -> Self {
        let graph = Graph::new(&scenario);
        ToolsEnv {
            scenario,
            graph,
            runner,
            clues: ClueStyle::default(),
            status: false,
            state: None,
            schemas: Mutex::new(None),
        }
    }

    /// Ends every observation with a counter line, `[turn k/N · r of v revealed nodes
    /// resolved]` (`-W status=on`). Off by default: the paper describes no such line
    /// (§3.1 lists what an observation holds), and the counter counts only nodes the
    /// agent has seen, so it never tells how many are still hidden.
    pub fn with_status(mut self, on: bool) -> Self {
        self.status = on;
        self
    }

    /// Writes clues in `style` (`-W clues=…`; themed by default).
    pub fn with_clues(mut self, style: ClueStyle) -> Self {
        self.clues = style;
        self
    }

    /// The scenario being played.
    pub fn scenario(&self) -> &ToolsScenario {
        &self.scenario
    }

    fn index(&self, id: &str) -> Option<usize> {
        self.scenario.node_index(id)
    }

    fn locate(&self, st: &State, id: &str) -> Result<usize, Reply> {
        match self.index(id) {
            None => Err(Reply::err(
                ErrorKind::NodeNotExist,
                format!(
                    "There is no node `{}` in this room. Use the ids from the room listing (like {}).",
                    escapade_core::action::truncate_chars(id, 40),
                    self.example_id(st)
                ),
            )),
            Some(i) if !st.visible[i] => Err(Reply::err(
                ErrorKind::NodeNotVisible,
                format!("Node `{id}` is not visible yet; something must reveal it first."),
            )),
            Some(i) => Ok(i),
        }
    }

    fn example_id(&self, st: &State) -> String {
        (0..self.scenario.nodes.len())
            .find(|i| st.visible[*i])
            .map(|i| self.scenario.nodes[i].id.clone())
            .unwrap_or_else(|| "N100".into())
    }

    fn investigate(&self, st: &mut State, id: &str) -> Reply {
        let i = match self.locate(st, id) {
            Ok(i) => i,
            Err(r) => return r,
        };
        st.investigated[i] = true;
        let mut feedback = render::details(&self.scenario, &self.graph, st, i, self.clues);
        if self.scenario.nodes[i].kind == NodeKind::Item && !st.resolved[i] {
            st.resolved[i] = true;
            let revealed = self.reveal(st, i);
            feedback.push_str(&revealed);
        }
        Reply::ok(feedback)
    }

    /// Marks nodes wired to `i`'s physical outputs visible; returns the announcement.
    fn reveal(&self, st: &mut State, i: usize) -> String {
        let mut text = String::new();
        for &j in &self.graph.reveals[i] {
            if !st.visible[j] {
                st.visible[j] = true;
                if text.is_empty() {
                    text.push_str("\n\nNewly revealed:");
                }
                text.push('\n');
                text.push_str(&render::listing_line(&self.scenario.nodes[j]));
            }
        }
        text
    }

    fn call(&self, st: &mut State, id: &str, params: &Map<String, Value>) -> Reply {
        let i = match self.locate(st, id) {
            Ok(i) => i,
            Err(r) => return r,
        };
        let node = &self.scenario.nodes[i];
        if !node.kind.is_callable() {
            return Reply::err(
                ErrorKind::WrongNodeType,
                format!(
                    "`{id}` is an item: it takes no parameters. Read it with `investigate {id}`."
                ),
            );
        }
        if st.resolved[i] {
            return Reply::err(
                ErrorKind::RepeatedSolvedNode,
                format!(
                    "`{id}` is already solved. Its outputs: {}",
                    render::outputs_inline(node)
                ),
            );
        }
        // an invocation that reached a callable, unsolved node: behavioural metrics
        st.invocations += 1;
        st.attempts[i] += 1;
        let premature = self.graph.preds[i].iter().any(|p| !st.resolved[*p]);
        if !self.graph.source[i] {
            st.non_source_invocations += 1;
            if premature {
                st.premature += 1;
            }
        }
        let expected: Vec<(&String, &crate::scenario::PortValue)> = node.parameters().collect();
        let missing: Vec<&str> = expected
            .iter()
            .filter(|(name, _)| !params.contains_key(name.as_str()))
            .map(|(name, _)| name.as_str())
            .collect();
        let unknown: Vec<&str> = params
            .keys()
            .filter(|k| {
                node.inputs
                    .get(k.as_str())
                    .is_none_or(|p| p.ty.is_physical())
            })
            .map(String::as_str)
            .collect();
        let signature = render::signature(node);
        // clue adherence: every wired parameter carries its resolved predecessor's output
        if !self.graph.feeds[i].is_empty() {
            st.adherence_total += 1;
            let adherent = self.graph.feeds[i].iter().all(|(port, (p, out))| {
                let golden = &self.scenario.nodes[*p].outputs[out.as_str()];
                st.resolved[*p]
                    && params
                        .get(port.as_str())
                        .and_then(|v| golden.ty.canonicalize_json(v).ok())
                        .is_some_and(|v| v == golden.value)
            });
            if adherent {
                st.adherent += 1;
            }
        }
        if !missing.is_empty() {
            let mut msg = format!(
                "Missing required parameter(s): {}. {signature}",
                missing.join(", ")
            );
            if !unknown.is_empty() {
                msg.push_str(&format!(" Unknown parameter(s): {}.", unknown.join(", ")));
            }
            return Reply::err(ErrorKind::MissingRequiredParameter, msg);
        }
        let mut type_errors = Vec::new();
        let mut values = Vec::new();
        for (name, pv) in &expected {
            match pv.ty.canonicalize_json(&params[name.as_str()]) {
                Ok(v) => values.push(v),
                Err(e) => type_errors.push(format!("{name}: {e}")),
            }
        }
        if !type_errors.is_empty() {
            return Reply::err(
                ErrorKind::WrongParameterType,
                format!("Wrong parameter type — {}.", type_errors.join("; ")),
            );
        }
        if !unknown.is_empty() {
            return Reply::err(
                ErrorKind::Other,
                format!("Unknown parameter(s): {}. {signature}", unknown.join(", ")),
            );
        }
        let checks: Vec<(&str, bool)> = expected
            .iter()
            .zip(&values)
            .map(|((name, pv), v)| (name.as_str(), *v == pv.value))
            .collect();
        if checks.iter().any(|(_, ok)| !ok) {
            let parts: Vec<String> = checks
                .iter()
                .map(|(name, ok)| {
                    format!("{name} {}", if *ok { "✓ correct" } else { "✗ incorrect" })
                })
                .collect();
            let what = if node.kind == NodeKind::Container {
                "The lock does not open."
            } else {
                "The call failed: wrong parameter value(s)."
            };
            return Reply::err(
                ErrorKind::Other,
                format!("{what} Parameter check: {}.", parts.join(", ")),
            );
        }
        if premature {
            let waiting: Vec<String> = self.graph.preds[i]
                .iter()
                .filter(|p| !st.resolved[**p])
                .map(|p| {
                    if st.visible[*p] {
                        self.scenario.nodes[*p].id.clone()
                    } else {
                        "a node not found yet".to_string()
                    }
                })
                .collect();
            return Reply::err(
                ErrorKind::Other,
                format!(
                    "Missing dependency: the values look right, but `{id}` needs its inputs to be produced first by {}.",
                    waiting.join(", ")
                ),
            );
        }
        // every parameter is right: run the real function on the agent's values
        let template = library::template(&node.template).expect("validated scenario");
        let mut inputs = Vec::with_capacity(template.inputs.len());
        let mut k = 0;
        for spec in template.inputs {
            if spec.ty.is_physical() {
                inputs.push(String::new());
            } else {
                inputs.push(values[k].clone());
                k += 1;
            }
        }
        let outputs = match library::execute(template, &inputs, &self.scenario.files, &*self.runner)
        {
            Ok(o) => o,
            Err(e) => {
                return Reply::err(
                    ErrorKind::Other,
                    format!("`{id}` malfunctioned while running ({e}). Try the call again."),
                );
            }
        };
        let golden: Vec<&str> = node.outputs.values().map(|p| p.value.as_str()).collect();
        if outputs
            .iter()
            .map(String::as_str)
            .ne(golden.iter().copied())
        {
            return Reply::err(
                ErrorKind::Other,
                format!("`{id}` produced an unexpected result; the scenario may be corrupt."),
            );
        }
        st.resolved[i] = true;
        if self.graph.source[i] {
            st.source_attempts[i] = st.attempts[i];
        }
        let mut feedback = match node.kind {
            NodeKind::Terminal => format!(
                "{} accepts the input and displays the flag: {}. Submit it with `submit_answer`.",
                render::label(node),
                render::literal(&self.scenario.answer)
            ),
            NodeKind::Container => format!("{} opens.", render::label(node)),
            _ => format!(
                "{} ran successfully. Output: {}",
                render::label(node),
                render::outputs_inline(node)
            ),
        };
        feedback.push_str(&self.reveal(st, i));
        if node.kind == NodeKind::Container && self.graph.reveals[i].is_empty() {
            feedback.push_str(" It is empty.");
        }
        Reply::ok(feedback)
    }

    /// §3.1: success iff the agent "produces the correct output value for the terminal
    /// (victory) node and submits it" — the terminal must have shown the flag in this
    /// episode (a call that resolved it); a flag worked out on the side does not count.
    /// Before that, every submission gets the same answer, right or wrong, so none
    /// reveals the flag.
    fn submit(&self, st: &mut State, answer: &str) -> Reply {
        let a = answer
            .trim()
            .trim_matches(|c: char| matches!(c, '"' | '\'' | '`'))
            .trim();
        let goal = self.index(&self.scenario.goal).unwrap_or(0);
        if !st.resolved[goal] {
            st.wrong_answers += 1;
            st.unearned_submissions += 1;
            return Reply::ok(
                "The exit does not react: no terminal has shown a flag yet. A flag counts only \
                 once the terminal has produced it — call the terminal first."
                    .into(),
            );
        }
        if a == self.scenario.answer {
            st.success = true;
            st.over = true;
            Reply::ok("Correct! The exit opens — you escaped.".into())
        } else {
            st.wrong_answers += 1;
            Reply::ok("That is not the flag. The exit stays shut.".into())
        }
    }

    /// Runs one parsed action and counts it (B.1 errors are counted per failed call,
    /// and per unreadable action as `wrong_format`).
    fn apply(&self, st: &mut State, parsed: Result<ToolsAction, interface::ParseError>) -> Reply {
        st.actions += 1;
        let is_call = matches!(parsed, Ok(ToolsAction::Call { .. }));
        let reply = match parsed {
            Err(e) => Reply::err(ErrorKind::WrongFormat, e.0),
            Ok(ToolsAction::Investigate { node }) => {
                st.investigations += 1;
                self.investigate(st, &node)
            }
            Ok(ToolsAction::Call { node, params }) => self.call(st, &node, &params),
            Ok(ToolsAction::Submit { answer }) => self.submit(st, &answer),
            Ok(ToolsAction::GiveUp) => {
                st.over = true;
                Reply::ok("You give up. The episode ends.".into())
            }
        };
        if let Some(kind) = reply.error
            && (is_call || kind == ErrorKind::WrongFormat)
        {
            // B.1 classifies failed invocations (not investigations or submissions);
            // unparseable requests count as wrong_format
            st.errors[kind.index()] += 1;
        }
        reply
    }

    /// The oracle's distance from `st` ([`Env::steps_to_go`]), in tool calls and the
    /// submission as the oracle makes them ([`crate::baseline::oracle_plan`], App. A's
    /// minimum): each node the goal depends on and not yet resolved costs its
    /// investigation (unless read already) and, when callable, its invocation; then one
    /// submission. Counts only grow smaller: nothing unresolves or unreads a node.
    fn distance(&self, st: &State) -> u32 {
        if st.success {
            return 0;
        }
        let calls: usize = (0..self.scenario.nodes.len())
            .filter(|&i| self.graph.needed[i] && !st.resolved[i])
            .map(|i| {
                usize::from(!st.investigated[i])
                    + usize::from(self.scenario.nodes[i].kind.is_callable())
            })
            .sum();
        u32::try_from(calls + 1).unwrap_or(u32::MAX)
    }

    /// The counter line of `-W status=on`, or nothing. Only revealed nodes count: a
    /// hidden node is never resolved, and counting it would tell how many remain hidden.
    fn status(&self, st: &State) -> Option<String> {
        if !self.status {
            return None;
        }
        let revealed = st.visible.iter().filter(|v| **v).count();
        let resolved = st
            .resolved
            .iter()
            .zip(&st.visible)
            .filter(|(r, v)| **r && **v)
            .count();
        Some(format!(
            "[turn {}/{} · {resolved} of {revealed} revealed nodes resolved]",
            st.steps, self.scenario.step_budget,
        ))
    }
}

impl Env for ToolsEnv {
    fn reset(&mut self, _seed: u64) -> Observation {
        let n = self.scenario.nodes.len();
        let st = State {
            visible: self.scenario.nodes.iter().map(|x| !x.hidden).collect(),
            investigated: vec![false; n],
            resolved: vec![false; n],
            steps: 0,
            actions: 0,
            over: false,
            success: false,
            investigations: 0,
            invocations: 0,
            errors: [0; 8],
            attempts: vec![0; n],
            source_attempts: vec![0; n],
            premature: 0,
            non_source_invocations: 0,
            adherent: 0,
            adherence_total: 0,
            wrong_answers: 0,
            unearned_submissions: 0,
        };
        let mut text = render::opening(&self.scenario, &st);
        if let Some(status) = self.status(&st) {
            text.push_str("\n\n");
            text.push_str(&status);
        }
        self.state = Some(st);
        Observation::text(text)
    }

    /// One turn: every action of the reply runs in order (App. C), each answered; the
    /// turn counts once against the step budget (App. B). Actions after one that ends
    /// the episode are not run.
    fn step(&mut self, action: &Action) -> Result<Step, EnvError> {
        let mut st = self.state.take().ok_or(EnvError::NotReset)?;
        if st.over {
            self.state = Some(st);
            return Err(EnvError::EpisodeOver);
        }
        st.steps += 1;
        let parsed = interface::parse_all(action);
        let several = parsed.len() > 1;
        let mut results = Vec::with_capacity(parsed.len());
        for p in parsed {
            if st.over {
                results.push(ActionResult {
                    action: p.source,
                    valid: false,
                    feedback: "Not executed: the episode ended before this action.".into(),
                    error: None,
                });
                continue;
            }
            let reply = self.apply(&mut st, p.action);
            results.push(ActionResult {
                action: p.source,
                valid: reply.valid,
                feedback: reply.feedback,
                error: reply.error.map(|k| k.name().to_string()),
            });
        }
        let terminated = st.over;
        let truncated = !terminated && st.steps >= self.scenario.step_budget;
        if truncated {
            st.over = true;
        }
        if several {
            let n = results.len();
            for (k, r) in results.iter_mut().enumerate() {
                r.feedback = format!("[{}/{n}] {}\n{}", k + 1, r.action, r.feedback);
            }
        }
        let ran: Vec<&ActionResult> = results
            .iter()
            .filter(|r| r.valid || r.error.is_some())
            .collect();
        // an invalid action always has its kind, so the step is valid exactly when no
        // action that ran has one
        let error = ran.iter().find_map(|r| r.error.clone());
        let feedback = results
            .iter()
            .map(|r| r.feedback.as_str())
            .collect::<Vec<_>>()
            .join(RESULTS_SEPARATOR);
        let mut text = feedback.clone();
        if let Some(status) = self.status(&st) {
            text.push_str(RESULTS_SEPARATOR);
            text.push_str(&status);
        }
        if truncated {
            text.push_str("\nThe step budget is spent; the episode ends.");
        }
        let progress = st.resolved.iter().filter(|r| **r).count() as f64
            / self.scenario.nodes.len().max(1) as f64;
        let steps_to_go = Some(self.distance(&st));
        self.state = Some(st);
        Ok(Step {
            observation: Observation::text(text),
            feedback,
            progress,
            terminated,
            truncated,
            error,
            results: if several { results } else { Vec::new() },
            steps_to_go,
        })
    }

    fn system_prompt(&self) -> String {
        render::system_prompt()
    }

    /// The oracle's remaining tool calls and submission (see `distance`).
    fn steps_to_go(&self) -> Option<u32> {
        self.state.as_ref().map(|st| self.distance(st))
    }

    /// Rejects replies with an action the protocol cannot read (App. B.1
    /// `wrong_format`), naming each. The paper counts them as steps, so the default
    /// re-ask limit stays 0; an agent option may raise it.
    fn check_action(&self, action: &Action) -> Result<(), String> {
        let parsed = interface::parse_all(action);
        let several = parsed.len() > 1;
        let errors: Vec<String> = parsed
            .iter()
            .enumerate()
            .filter_map(|(k, p)| {
                p.action.as_ref().err().map(|e| {
                    if several {
                        format!("action {} (`{}`): {e}", k + 1, p.source)
                    } else {
                        e.0.clone()
                    }
                })
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("\n"))
        }
    }

    fn tool_schemas(&self) -> Vec<ToolSchema> {
        let Some(st) = &self.state else {
            return render::base_schemas(&[], &[]);
        };
        let open = (st.investigated.iter().zip(&st.resolved))
            .map(|(i, r)| *i && !*r)
            .collect();
        let key = (st.visible.clone(), open);
        let mut kept = self.schemas.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((k, schemas)) = kept.as_ref()
            && *k == key
        {
            return schemas.clone();
        }
        let schemas = self.build_schemas(st);
        *kept = Some((key, schemas.clone()));
        schemas
    }

    fn step_budget(&self) -> Option<u32> {
        Some(self.scenario.step_budget)
    }

    fn outcome(&self) -> Outcome {
        let Some(st) = &self.state else {
            return Outcome::default();
        };
        let n = self.scenario.nodes.len();
        let mut m = BTreeMap::new();
        let resolved = st.resolved.iter().filter(|r| **r).count();
        m.insert(
            "sub_problem_resolution".into(),
            resolved as f64 / n.max(1) as f64,
        );
        let hidden: Vec<usize> = (0..n).filter(|i| self.scenario.nodes[*i].hidden).collect();
        if !hidden.is_empty() {
            let found = hidden.iter().filter(|i| st.visible[**i]).count();
            m.insert(
                "hidden_discovery".into(),
                found as f64 / hidden.len() as f64,
            );
        }
        m.insert(
            "tool_calls".into(),
            (st.investigations + st.invocations + self.failed_calls_outside(st)) as f64,
        );
        m.insert("actions".into(), st.actions as f64);
        m.insert("investigations".into(), st.investigations as f64);
        m.insert("invocations".into(), st.invocations as f64);
        m.insert("min_tool_calls".into(), self.scenario.min_tool_calls as f64);
        let solved_sources: Vec<f64> = (0..n)
            .filter(|i| self.graph.source[*i] && st.resolved[*i])
            .map(|i| st.source_attempts[i] as f64)
            .collect();
        if !solved_sources.is_empty() {
            m.insert(
                "source_convergence".into(),
                solved_sources.iter().sum::<f64>() / solved_sources.len() as f64,
            );
        }
        if st.non_source_invocations > 0 {
            m.insert(
                "premature_invocation_rate".into(),
                st.premature as f64 / st.non_source_invocations as f64,
            );
        }
        if st.adherence_total > 0 {
            m.insert(
                "clue_adherence_rate".into(),
                st.adherent as f64 / st.adherence_total as f64,
            );
        }
        for kind in ErrorKind::ALL {
            m.insert(
                format!("errors_{}", kind.name()),
                st.errors[kind.index()] as f64,
            );
        }
        m.insert("wrong_answers".into(), st.wrong_answers as f64);
        m.insert(
            "unearned_submissions".into(),
            st.unearned_submissions as f64,
        );
        Outcome {
            success: st.success,
            steps: st.steps,
            metrics: m,
        }
    }

    fn secrets(&self) -> Vec<String> {
        let s = &self.scenario;
        // what the interface says in any scenario: its prompt and its replies to malformed
        // actions; an output inside them is one of its words, not ground truth
        let fixed: Vec<String> = std::iter::once(self.system_prompt())
            .chain(interface::fixed_replies())
            .collect();
        // values the agent is shown for free: seeded clues and item payloads; an output
        // contained in one of them (a regex match of a given text) is not a secret
        let public: Vec<&str> = s
            .nodes
            .iter()
            .flat_map(|n| {
                let seeded = n
                    .inputs
                    .values()
                    .filter(|p| p.origin == Some(crate::scenario::Origin::Seed))
                    .map(|p| p.value.as_str());
                let items = n
                    .outputs
                    .values()
                    .filter(move |_| n.kind == NodeKind::Item)
                    .map(|p| p.value.as_str());
                seeded.chain(items)
            })
            .chain(fixed.iter().map(String::as_str))
            .collect();
        let mut out = vec![s.answer.clone()];
        for n in &s.nodes {
            if n.hidden {
                out.push(n.name.clone());
                out.push(n.id.clone());
            }
            if n.kind.is_callable() {
                // computed outputs are earned only by a successful call
                for pv in n.outputs.values() {
                    if !pv.ty.is_physical()
                        && pv.value.chars().count() >= 6
                        && !public.iter().any(|p| p.contains(pv.value.as_str()))
                    {
                        out.push(pv.value.clone());
                    }
                }
            }
        }
        out
    }
}

impl ToolsEnv {
    /// The function schemas of state `st` (see [`Env::tool_schemas`]).
    fn build_schemas(&self, st: &State) -> Vec<ToolSchema> {
        let visible: Vec<&str> = self
            .scenario
            .nodes
            .iter()
            .zip(&st.visible)
            .filter(|(_, v)| **v)
            .map(|(n, _)| n.id.as_str())
            .collect();
        let callable: Vec<&str> = self
            .scenario
            .nodes
            .iter()
            .zip(&st.visible)
            .filter(|(n, v)| **v && n.kind.is_callable())
            .map(|(n, _)| n.id.as_str())
            .collect();
        let mut schemas = render::base_schemas(&visible, &callable);
        for (i, node) in self.scenario.nodes.iter().enumerate() {
            if st.visible[i] && st.investigated[i] && !st.resolved[i] && node.kind.is_callable() {
                schemas.push(render::node_schema(node));
            }
        }
        schemas
    }

    /// Calls that failed before reaching a node (unknown, hidden, item, solved) still
    /// count as tool calls in Table 3's sense.
    fn failed_calls_outside(&self, st: &State) -> u32 {
        st.errors[ErrorKind::NodeNotExist.index()]
            + st.errors[ErrorKind::NodeNotVisible.index()]
            + st.errors[ErrorKind::WrongNodeType.index()]
            + st.errors[ErrorKind::RepeatedSolvedNode.index()]
    }
}
