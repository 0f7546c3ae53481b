//! An episode step by step, two runs side by side on one scenario, and the pictures.
//!
//! Each step shows what the agent saw (text, pictures and their descriptions), what was
//! sent to the model since its previous step (the request delta), the raw reply and
//! reasoning, the parsed action, whether it was valid, the world's feedback, progress and
//! usage; replies the parser rejected (re-asks) come first. In a two-role world the steps
//! read as a chat, each role's turn showing that role's view.

use std::path::Path;
use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use escapade_core::{Action, StepRow};
use escapade_run::rundir::{JsonlFile, read_jsonl, read_run_toml};
use serde::Serialize;
use serde_json::Value;

use super::{query_pairs, required};
use crate::error::Problem;
use crate::folders::{media_path, run_file, trajectory_path};
use crate::pages;
use crate::server::Site;

/// A picture the agent saw.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Picture {
    /// Its SHA-256 (its address under `media/`).
    pub sha: String,
    /// The world's exact description of it, when it has one.
    pub description: Option<String>,
}

/// A reply the parser rejected before the step's action.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReaskView {
    /// The raw reply.
    pub reply: Option<String>,
    /// The action it was read as.
    pub action: String,
    /// The message the agent was re-asked with.
    pub error: String,
}

/// One step as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepView {
    /// Step number, from 1.
    pub step: u32,
    /// Who acted.
    pub role: String,
    /// Observation text.
    pub text: String,
    /// Pictures.
    pub pictures: Vec<Picture>,
    /// What was sent to the model beyond what it was sent at this role's previous step
    /// (pretty JSON), or the whole request when it is not a growing list of messages.
    pub request: Option<String>,
    /// Whether `request` is only the new part.
    pub request_is_delta: bool,
    /// The raw reply.
    pub reply: Option<String>,
    /// Exposed reasoning.
    pub reasoning: Option<String>,
    /// The action as sent to the world.
    pub action: String,
    /// Whether it parsed and was legal.
    pub valid: bool,
    /// The world's feedback.
    pub feedback: String,
    /// The world's error kind.
    pub error: Option<String>,
    /// Progress after the step, in percent.
    pub progress: f64,
    /// The task ended here.
    pub terminated: bool,
    /// A limit ended the episode here.
    pub truncated: bool,
    /// `in / out tokens, $cost, latency` (empty for baselines).
    pub usage: String,
    /// Re-asks before this step's action.
    pub reasks: Vec<ReaskView>,
    /// Answers to each action of a reply with several, as text.
    pub results: Vec<String>,
}

/// An action as text, whole (the log's summary without a length limit).
pub fn action_text(action: &Action) -> String {
    action.summary(usize::MAX)
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// The part of `now` that `before` did not have: the messages after a common prefix,
/// when both are lists of messages (or `{"messages": [...]}`) and `before` is a prefix.
pub fn request_delta(before: Option<&Value>, now: &Value) -> (String, bool) {
    // the runner logs a request as its size, hash and the messages new since the role's
    // previous call (`{"messages", "sha256", "system"?, "new"}`): that is the delta
    if let Some(new) = now.get("new").filter(|n| n.is_array()) {
        let mut shown = serde_json::Map::new();
        if let Some(total) = now.get("messages") {
            shown.insert("messages in all".into(), total.clone());
        }
        if let Some(system) = now.get("system") {
            shown.insert("system".into(), system.clone());
        }
        shown.insert("new".into(), new.clone());
        return (pretty(&Value::Object(shown)), true);
    }
    fn messages(v: &Value) -> Option<&Vec<Value>> {
        v.as_array()
            .or_else(|| v.get("messages").and_then(Value::as_array))
    }
    if let (Some(b), Some(n)) = (before.and_then(messages), messages(now))
        && b.len() <= n.len()
        && n[..b.len()] == b[..]
    {
        return (pretty(&Value::Array(n[b.len()..].to_vec())), true);
    }
    (pretty(now), false)
}

/// The steps of one trajectory, as the page shows them.
pub fn step_views(rows: &[StepRow]) -> Vec<StepView> {
    let mut last_request: std::collections::BTreeMap<&str, &Value> = Default::default();
    rows.iter()
        .map(|r| {
            let (request, request_is_delta) = match &r.request {
                Some(now) if !now.is_null() => {
                    let (text, delta) =
                        request_delta(last_request.get(r.role.as_str()).copied(), now);
                    last_request.insert(&r.role, now);
                    (Some(text), delta)
                }
                _ => (None, false),
            };
            let u = &r.usage;
            let usage = if u.input + u.output > 0 || u.cost_usd > 0.0 {
                let mut extra = String::new();
                if u.reasoning > 0 {
                    extra.push_str(&format!(" ({} thinking)", u.reasoning));
                }
                if u.cost_usd > 0.0 {
                    extra.push_str(&format!(", ${:.5}", u.cost_usd));
                }
                if u.cache_hits > 0 {
                    extra.push_str(", from the response cache");
                }
                if u.truncated > 0 {
                    extra.push_str(", cut at the token limit");
                }
                format!(
                    "{} in / {} out tokens{extra}, {} ms",
                    u.input, u.output, u.latency_ms
                )
            } else {
                String::new()
            };
            StepView {
                step: r.step,
                role: r.role.clone(),
                text: r.observation.text.clone(),
                pictures: r
                    .observation
                    .images
                    .iter()
                    .enumerate()
                    .map(|(i, sha)| Picture {
                        sha: sha.clone(),
                        description: r
                            .observation
                            .descriptions
                            .get(i)
                            .filter(|d| !d.is_empty())
                            .cloned(),
                    })
                    .collect(),
                request,
                request_is_delta,
                reply: r.raw_response.clone(),
                reasoning: r.reasoning.clone().filter(|s| !s.is_empty()),
                action: action_text(&r.action),
                valid: r.valid,
                feedback: r.feedback.clone(),
                error: r.error.clone(),
                progress: r.progress * 100.0,
                terminated: r.terminated,
                truncated: r.truncated,
                usage,
                reasks: r
                    .reasks
                    .iter()
                    .map(|q| ReaskView {
                        reply: q.raw_response.clone(),
                        action: action_text(&q.action),
                        error: q.error.clone(),
                    })
                    .collect(),
                results: r
                    .results
                    .iter()
                    .map(|x| serde_json::to_string(x).unwrap_or_default())
                    .collect(),
            }
        })
        .collect()
}

/// The curve of the oracle's distance (`steps_to_go`, issue 29) over an episode, as
/// inline SVG: one point per step that reports it (after the step), from the episode's
/// start when its row gives the distance there, each point linking to its step. `None`
/// when no step reports a distance (a world that cannot say, or a run recorded before the
/// field existed): the page then shows nothing.
pub fn distance_curve(start: Option<u32>, rows: &[StepRow]) -> Option<String> {
    const W: f64 = 640.0;
    const H: f64 = 150.0;
    const LEFT: f64 = 36.0;
    const RIGHT: f64 = 10.0;
    const TOP: f64 = 10.0;
    const BOTTOM: f64 = 24.0;
    if rows.iter().all(|r| r.steps_to_go.is_none()) {
        return None;
    }
    // (step, distance); a step without one breaks the line
    let mut points: Vec<(u32, Option<u32>)> = Vec::with_capacity(rows.len() + 1);
    if let Some(start) = start {
        points.push((0, Some(start)));
    }
    points.extend(rows.iter().map(|r| (r.step, r.steps_to_go)));
    let last_step = points.iter().map(|p| p.0).max().unwrap_or(0).max(1);
    let first_step = points.iter().map(|p| p.0).min().unwrap_or(0);
    let top = points.iter().filter_map(|p| p.1).max().unwrap_or(0).max(1);
    let span = f64::from(last_step - first_step).max(1.0);
    let x = |step: u32| LEFT + f64::from(step - first_step) / span * (W - LEFT - RIGHT);
    let y = |d: u32| TOP + (1.0 - f64::from(d) / f64::from(top)) * (H - TOP - BOTTOM);
    let mut svg = format!(
        "<svg id=\"distance\" class=\"distance\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" \
         height=\"{H}\" role=\"img\" aria-label=\"steps to go over the steps\">\
         <line class=\"axis\" x1=\"{LEFT}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\"/>\
         <line class=\"axis\" x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{b}\"/>\
         <text x=\"{tx}\" y=\"{ty}\" text-anchor=\"end\">{top}</text>\
         <text x=\"{tx}\" y=\"{b}\" text-anchor=\"end\">0</text>\
         <text x=\"{LEFT}\" y=\"{lx}\">step {first_step}</text>\
         <text x=\"{r}\" y=\"{lx}\" text-anchor=\"end\">step {last_step}</text>",
        b = H - BOTTOM,
        r = W - RIGHT,
        tx = LEFT - 4.0,
        ty = TOP + 10.0,
        lx = H - 6.0,
    );
    for run in points.split(|p| p.1.is_none()).filter(|r| !r.is_empty()) {
        let line: Vec<String> = run
            .iter()
            .filter_map(|&(s, d)| d.map(|d| format!("{:.1},{:.1}", x(s), y(d))))
            .collect();
        svg.push_str(&format!(
            "<polyline class=\"curve\" points=\"{}\"/>",
            line.join(" ")
        ));
    }
    for &(step, d) in &points {
        let Some(d) = d else { continue };
        let circle = format!(
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\"><title>{} {d} to go</title></circle>",
            x(step),
            y(d),
            if step == 0 {
                "start:".to_string()
            } else {
                format!("after step {step}:")
            }
        );
        if step == 0 {
            svg.push_str(&circle);
        } else {
            svg.push_str(&format!("<a href=\"#step-{step}\">{circle}</a>"));
        }
    }
    svg.push_str("</svg>");
    Some(svg)
}

/// `text` as one word of a POSIX shell: as it is when it holds only characters no shell
/// treats specially, else in single quotes (a quote inside written `'\''`).
pub fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// What the page's "continue from this step" control needs: the `escapade run --from`
/// command up to `--step`, and the model it proposes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ForkCommand {
    /// `escapade run --from DIR --episode SCENARIO:EPOCH`, each word shell-quoted.
    pub base: String,
    /// The model proposed (the run's own, else the built-in local one), shell-quoted.
    pub model: String,
}

impl ForkCommand {
    /// The command that forks `scenario` epoch `epoch` of the run in `dir` (see
    /// `escapade run --from`); `model` is the run's model, when it had one.
    pub fn new(dir: &Path, scenario: &str, epoch: u32, model: Option<&str>) -> ForkCommand {
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        ForkCommand {
            base: format!(
                "escapade run --from {} --episode {}",
                shell_word(&dir.to_string_lossy()),
                shell_word(&format!("{scenario}:{epoch}"))
            ),
            model: shell_word(model.unwrap_or("local/smollm2")),
        }
    }
}

/// A final metric of an episode, for its banner.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricView {
    /// The metric's key (`psr`).
    pub key: String,
    /// Its name for people (`Partial success rate (PSR)`), from the world's paper, or the key.
    pub name: String,
    /// What it measures and where the paper defines it, when the paper does.
    pub about: Option<String>,
    /// Its value, as text.
    pub value: String,
}

/// How an episode ended, shown at the top of its page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Banner {
    /// The ending in a few words (`escaped`, `gave up`, …), or `in progress`.
    pub how: String,
    /// What that means, in a sentence.
    pub meaning: String,
    /// `good`, `bad` or `muted`: the banner's colour.
    pub tone: &'static str,
    /// The error that stopped the episode, when one did.
    pub error: Option<String>,
    /// Steps taken (the episode row's count; the steps shown while in progress).
    pub steps: u32,
    /// The final metrics, the world's paper's names.
    pub metrics: Vec<MetricView>,
}

/// A metric's value as a reader reads it: whole numbers without decimals.
fn shown(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        format!("{value:.3}")
    }
}

/// The banner of an episode: its row when it has finished (`None`: still playing or
/// never finished), the steps of its trajectory, and its world's paper for the names.
pub fn banner(
    row: Option<&escapade_core::EpisodeRow>,
    rows: &[StepRow],
    paper: Option<&escapade_core::paper::Paper>,
) -> Banner {
    use escapade_run::ending::Ending;
    let Some(row) = row else {
        return Banner {
            how: "in progress".into(),
            meaning: "The episode has not finished: these are its steps so far.".into(),
            tone: "muted",
            error: None,
            steps: rows.len() as u32,
            metrics: Vec::new(),
        };
    };
    let ending = Ending::of(row, rows.last());
    let mut metrics = vec![MetricView {
        key: "steps".into(),
        name: "steps".into(),
        about: Some("actions the agent took".into()),
        value: row.steps.to_string(),
    }];
    metrics.extend(row.metrics.iter().map(|(key, value)| {
        let info = paper.and_then(|p| p.metric(key).map(|m| (p, m)));
        MetricView {
            key: key.clone(),
            name: info.map_or_else(|| key.clone(), |(_, m)| m.name.clone()),
            about: info.map(|(p, m)| format!("{} ({} {})", m.definition, p.name, m.section)),
            value: shown(*value),
        }
    }));
    Banner {
        how: ending.label().into(),
        meaning: ending.meaning().into(),
        tone: match ending {
            Ending::Escaped => "good",
            Ending::GaveUp => "muted",
            _ => "bad",
        },
        error: row.error.clone().filter(|_| ending == Ending::Error),
        steps: row.steps,
        metrics,
    }
}

/// The finished row of `(scenario, epoch)` in the run in `dir` (the later one, when a
/// resume played it again), if it has one.
fn finished_row(
    dir: &Path,
    scenario: &str,
    epoch: u32,
) -> Result<Option<escapade_core::EpisodeRow>, Problem> {
    Ok(super::run::episode_rows(dir)?
        .into_iter()
        .rev()
        .find(|r| r.scenario == scenario && r.epoch == epoch))
}

/// Reads the trajectory of `(scenario, epoch)` of the run in `dir`.
pub fn read_trajectory(dir: &Path, scenario: &str, epoch: u32) -> Result<Vec<StepRow>, Problem> {
    let Some(path) = run_file(dir, &trajectory_path(dir, scenario, epoch))? else {
        return Err(Problem::not_found(
            "no such episode",
            format!("this run has no trajectory for scenario `{scenario}`, epoch {epoch}"),
        ));
    };
    read_jsonl::<StepRow>(&path)
        .map(|f: JsonlFile<StepRow>| f.rows)
        .map_err(|e| Problem::internal(e.to_string()))
}

fn epoch_of(pairs: &[(String, String)], key: &str) -> Result<u32, Problem> {
    match pairs.iter().find(|(k, _)| k == key) {
        None => Ok(0),
        Some((_, v)) => v.parse().map_err(|_| {
            Problem::bad_request(
                "malformed parameter",
                format!("{key}=`{v}` is not an epoch number"),
            )
        }),
    }
}

/// The step views and whether the world has two roles (a chat), for one episode.
fn episode_of(
    site: &Site,
    run: &str,
    scenario: &str,
    epoch: u32,
) -> Result<(Vec<StepView>, bool), Problem> {
    let dir = site.folders.resolve(run)?;
    let rows = read_trajectory(&dir, scenario, epoch)?;
    let chat = rows.iter().any(|r| r.role != "agent");
    Ok((step_views(&rows), chat))
}

/// The other runs that played `scenario` (for the side-by-side picker).
fn others_with(site: &Site, run: &str, scenario: &str, epoch: u32) -> Vec<(String, String)> {
    site.folders
        .list()
        .into_iter()
        .filter(|f| {
            f.id != run
                && matches!(
                    run_file(&f.path, &trajectory_path(&f.path, scenario, epoch)),
                    Ok(Some(_))
                )
        })
        .map(|f| {
            let name = f
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (f.id, name)
        })
        .collect()
}

/// `GET /episode?run=…&scenario=…&epoch=…`.
pub async fn page(
    State(site): State<Arc<Site>>,
    RawQuery(query): RawQuery,
) -> Result<Html<String>, Problem> {
    let pairs = query_pairs(query.as_deref())?;
    let run = required(&pairs, "run")?.to_string();
    let scenario = required(&pairs, "scenario")?.to_string();
    let epoch = epoch_of(&pairs, "epoch")?;
    let (steps, chat, others, run_name, banner, curve, fork) =
        tokio::task::spawn_blocking(move || {
            let dir = site.folders.resolve(&run)?;
            let rows = read_trajectory(&dir, &scenario, epoch)?;
            let chat = rows.iter().any(|r| r.role != "agent");
            let row = finished_row(&dir, &scenario, epoch)?;
            let paper = row.as_ref().and_then(|r| {
                site.world_refs()
                    .into_iter()
                    .find(|w| w.name() == r.world)
                    .and_then(|w| w.paper())
            });
            let banner = banner(row.as_ref(), &rows, paper.as_ref());
            let curve = distance_curve(row.as_ref().and_then(|r| r.start_steps_to_go), &rows)
                .map(minijinja::Value::from_safe_string);
            let model = read_run_toml(&dir)
                .ok()
                .and_then(|t| t.config.agent_options.get("model").cloned());
            let fork = ForkCommand::new(&dir, &scenario, epoch, model.as_deref());
            let others = others_with(&site, &run, &scenario, epoch);
            let name = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok::<_, Problem>((step_views(&rows), chat, others, name, banner, curve, fork))
        })
        .await
        .map_err(|e| Problem::internal(e.to_string()))??;
    let run = required(&pairs, "run")?;
    let scenario = required(&pairs, "scenario")?;
    let first_error = steps
        .iter()
        .find(|s| !s.valid || s.error.is_some())
        .map(|s| s.step);
    pages::page(
        "episode.html",
        minijinja::context! {
            title => format!("{scenario} · epoch {epoch}"),
            run => run,
            run_name => run_name,
            scenario => scenario,
            epoch => epoch,
            steps => steps,
            chat => chat,
            first_error => first_error,
            others => others,
            banner => banner,
            curve => curve,
            fork => fork,
        },
    )
}

/// `GET /compare?a=…&b=…&scenario=…&epoch=…`: two runs side by side on one scenario.
pub async fn compare(
    State(site): State<Arc<Site>>,
    RawQuery(query): RawQuery,
) -> Result<Html<String>, Problem> {
    let pairs = query_pairs(query.as_deref())?;
    let a = required(&pairs, "a")?.to_string();
    let b = required(&pairs, "b")?.to_string();
    let scenario = required(&pairs, "scenario")?.to_string();
    let epoch = epoch_of(&pairs, "epoch")?;
    let (left, right) = tokio::task::spawn_blocking({
        let (a, b, scenario) = (a.clone(), b.clone(), scenario.clone());
        move || {
            Ok::<_, Problem>((
                episode_of(&site, &a, &scenario, epoch)?,
                episode_of(&site, &b, &scenario, epoch)?,
            ))
        }
    })
    .await
    .map_err(|e| Problem::internal(e.to_string()))??;
    pages::page(
        "compare.html",
        minijinja::context! {
            title => format!("{scenario} · two runs"),
            scenario => scenario,
            epoch => epoch,
            sides => vec![
                minijinja::context! { run => a, steps => left.0, chat => left.1 },
                minijinja::context! { run => b, steps => right.0, chat => right.1 },
            ],
        },
    )
}

/// `GET /media?run=…&sha=…`: a picture of the run.
pub async fn media(
    State(site): State<Arc<Site>>,
    RawQuery(query): RawQuery,
) -> Result<Response, Problem> {
    let pairs = query_pairs(query.as_deref())?;
    let dir = site.folders.resolve(required(&pairs, "run")?)?;
    let missing = || {
        Problem::not_found(
            "no such picture",
            "this run has no picture with that address",
        )
    };
    let path = run_file(&dir, &media_path(&dir, required(&pairs, "sha")?)?)?.ok_or_else(missing)?;
    let bytes = tokio::fs::read(&path).await.map_err(|_| missing())?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/png"),
            // a picture's address is its content's hash: it never changes
            (header::CACHE_CONTROL, "max-age=31536000, immutable"),
        ],
        bytes,
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_delta_is_what_was_added() {
        let before = json!([{"role": "system", "content": "s"}, {"role": "user", "content": "a"}]);
        let now = json!([{"role": "system", "content": "s"}, {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]);
        let (text, delta) = request_delta(Some(&before), &now);
        assert!(delta);
        assert!(
            text.contains("\"c\"") && text.contains("\"b\"") && !text.contains("\"s\""),
            "{text}"
        );
        // a window that dropped old messages is not a delta: the whole request shows
        let cut = json!([{"role": "system", "content": "s"}, {"role": "user", "content": "c"}]);
        let (text, delta) = request_delta(Some(&now), &cut);
        assert!(!delta && text.contains("\"s\""), "{text}");
        // the first request is whole
        assert!(!request_delta(None, &now).1);
        // a hash of the request is shown as it is
        assert_eq!(request_delta(None, &json!("sha256:ab")).0, "\"sha256:ab\"");
        // the runner's own record of a request: its new messages
        let logged =
            json!({"messages": 6, "sha256": "ab", "new": [{"role": "env", "text": "West side"}]});
        let (text, delta) = request_delta(None, &logged);
        assert!(
            delta && text.contains("West side") && text.contains("\"messages in all\": 6"),
            "{text}"
        );
        assert!(!text.contains("\"ab\""), "{text}");
    }

    fn row(step: u32, steps_to_go: Option<u32>) -> StepRow {
        let mut r: StepRow = serde_json::from_value(json!({
            "format_version": 1, "step": step, "t_ms": 0, "role": "agent",
            "observation": {"text": "", "images": []}, "request": null,
            "raw_response": null, "reasoning": null, "action": {"kind": "text", "text": "look"},
            "valid": true, "feedback": "", "progress": 0.0, "terminated": false,
            "truncated": false, "error": null,
            "usage": {"input": 0, "output": 0, "cached": 0, "cost_usd": 0.0, "latency_ms": 0}
        }))
        .expect("a step row");
        r.steps_to_go = steps_to_go;
        r
    }

    #[test]
    fn the_distance_curve_has_a_point_per_step_that_tells_it() {
        // a world that cannot say draws nothing
        assert_eq!(distance_curve(None, &[row(1, None), row(2, None)]), None);
        assert_eq!(distance_curve(Some(3), &[]), None);
        // the start and three steps; the step without a distance breaks the line
        let svg = distance_curve(
            Some(3),
            &[
                row(1, Some(2)),
                row(2, None),
                row(3, Some(1)),
                row(4, Some(0)),
            ],
        )
        .unwrap();
        assert_eq!(svg.matches("<circle").count(), 4, "{svg}");
        assert_eq!(svg.matches("<polyline").count(), 2, "{svg}");
        assert!(svg.contains("<title>start: 3 to go</title>"), "{svg}");
        assert!(svg.contains("<a href=\"#step-4\">"), "{svg}");
        assert!(svg.contains("after step 4: 0 to go"), "{svg}");
        assert!(!svg.contains("#step-2"), "{svg}");
        // the highest point is at the top, 0 on the axis
        assert!(svg.contains("cy=\"10.0\""), "{svg}");
        assert!(svg.contains("cy=\"126.0\""), "{svg}");
    }

    #[test]
    fn shell_words_survive_a_shell() {
        assert_eq!(shell_word("openai/gpt-4o"), "openai/gpt-4o");
        assert_eq!(shell_word("/tmp/runs/x@1"), "/tmp/runs/x@1");
        assert_eq!(shell_word("my runs"), "'my runs'");
        assert_eq!(shell_word(""), "''");
        for text in [
            "it's here",
            "a b",
            "$HOME",
            "`x`",
            "a\\b",
            "\"q\"",
            "*",
            "x;y",
        ] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {}", shell_word(text)))
                .output()
                .expect("sh runs");
            assert_eq!(String::from_utf8_lossy(&out.stdout), text, "{text}");
        }
    }

    #[test]
    fn actions_read_as_one_line() {
        assert_eq!(action_text(&Action::text("look")), "look");
        assert_eq!(
            action_text(&Action::Call {
                name: "f".into(),
                arguments: "{\"x\":1}".into()
            }),
            "f({\"x\":1})"
        );
    }
}
