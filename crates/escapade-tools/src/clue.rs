//! Clues: what a node's narrative discloses of the data flow (§2 Stage 6, App. A.6).
//!
//! The paper's narratives "partially disclose the data-flow structure — hinting at which
//! upstream output feeds a given downstream input — without revealing the complete
//! solution path", in the room's theme. Here each clue is one themed sentence picked,
//! deterministically, from many phrasings per relation and per theme, seeded by the
//! scenario's seed, the node and the port (so the same scenario always reads the same):
//!
//! | relation | when | what the sentence carries |
//! |---|---|---|
//! | given | a seeded input (A.3 source) | the value itself, as a JSON string literal |
//! | from | an input wired from a visible node with one data output | the producer's visible name |
//! | from-output | … from a visible node with several data outputs | the producer's name and the output's name |
//! | hidden | … from a node not revealed yet | only that its source is not found yet |
//! | feeds | a node's outputs wired into visible nodes | each consumer's name and parameter |
//!
//! A clue never holds a node id, never an upstream output's value (an edge's value is
//! earned by calling its producer, or by reading the item that holds it), and never more
//! than one hop of the graph: the path from the sources to the terminal is left for the
//! agent to assemble, as in the paper.
//!
//! **Why every edge stays inferable from what the agent sees.** A wired input's clue
//! names its producer by the display name shown in the room listing (`N123 · Brass Route
//! Planner`), or by the template title alone (`the Route Planner`) when no other node of
//! the scenario, hidden or not, has that title; names are unique per scenario, so either
//! reference picks out exactly one listed node, and the listing maps it to its id. When
//! the producer has several data outputs, the clue also names the output as the
//! producer's own investigation lists it (`` `distance` ``). An input whose producer is
//! still hidden says so, and its clue names the producer once a drop event reveals it
//! (clues are rendered when a node is investigated, against what is visible then). Every
//! other input is a seeded source whose value the clue states. So a reader who maps
//! names to ids can wire every edge; the observation-only agent in
//! `tests/solvable.rs` does exactly that, and per-parameter feedback on a failed call
//! (§4.1) remains as a second signal.
//!
//! `-W clues=literal` keeps escapade's first clues, which wire rather than hint (`Clue:
//! it takes what N971 · Brass Hasher produces`, `Where it leads: `digest` feeds `text` of
//! N154 · …`): an easier task than the paper's.

use std::fmt;
use std::str::FromStr;

use rand::Rng as _;

use escapade_core::seed;

use crate::env::Graph;
use crate::narrative::Theme;
use crate::render::{label, literal};
use crate::scenario::{Origin, ToolsScenario};
use crate::value::PortType;

/// How clues are written (`-W clues=…`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ClueStyle {
    /// Themed sentences that name things by their visible names (App. A.6; default).
    #[default]
    Themed,
    /// escapade's first clues: node ids and explicit wiring (easier than the paper).
    Literal,
}

impl FromStr for ClueStyle {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "themed" => Ok(ClueStyle::Themed),
            "literal" => Ok(ClueStyle::Literal),
            other => Err(format!(
                "`clues` is `themed` (the paper's hints) or `literal` (easier), not `{other}`"
            )),
        }
    }
}

impl fmt::Display for ClueStyle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClueStyle::Themed => "themed",
            ClueStyle::Literal => "literal",
        })
    }
}

/// What a clue is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Relation {
    /// A seeded input: the clue states its value.
    Given,
    /// An input wired from a visible node with one data output.
    From,
    /// An input wired from one of several data outputs of a visible node.
    FromOutput,
    /// An input wired from a node that is still hidden.
    Hidden,
    /// Where a node's outputs go (visible consumers only).
    Feeds,
}

impl Relation {
    /// Every relation.
    pub const ALL: [Relation; 5] = [
        Relation::Given,
        Relation::From,
        Relation::FromOutput,
        Relation::Hidden,
        Relation::Feeds,
    ];

    fn key(self) -> &'static str {
        match self {
            Relation::Given => "given",
            Relation::From => "from",
            Relation::FromOutput => "from-output",
            Relation::Hidden => "hidden",
            Relation::Feeds => "feeds",
        }
    }
}

/// One rendered clue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clue {
    /// The node whose details show it.
    pub node: String,
    /// The input it is about (`None` for [`Relation::Feeds`]).
    pub port: Option<String>,
    /// What it is about.
    pub relation: Relation,
    /// The sentence template used (`from/steampunk/1`, `given/any/0`, `literal/from`).
    pub template: String,
    /// The text as shown, after `Clue: ` (or after `Where it leads: `).
    pub text: String,
}

// Placeholders: {value} (a JSON literal, then {note} for files), {producer}, {output},
// {consumer}, {port}, {what}. Sentences are capitalised when rendered.

const GIVEN: &[&str] = &[
    "a label beside it reads {value}{note}",
    "someone has already set it to {value}{note}",
    "the setting scratched next to it is {value}{note}",
    "a note taped to it says to use {value}{note}",
];
const FROM: &[&str] = &[
    "what the {producer} gives belongs here",
    "the {producer} seems to supply this",
    "this waits on the {producer}",
    "whatever comes from the {producer} fits this slot",
];
const FROM_OUTPUT: &[&str] = &[
    "the `{output}` of the {producer} belongs here",
    "of everything the {producer} gives, the `{output}` fits here",
    "use the `{output}` from the {producer}, nothing else of it",
];
const HIDDEN: &[&str] = &[
    "its source is something you have not found yet",
    "whatever supplies this is still hidden",
    "the piece that fills this has not turned up",
];
const FEEDS: &[&str] = &[
    "{what} is wanted by the `{port}` of the {consumer}",
    "the {consumer} takes {what} as its `{port}`",
    "{what} should go into the {consumer} (`{port}`)",
];

/// Each theme's own phrasings, per relation: given, from, from-output, hidden, feeds.
struct Phrasings {
    given: &'static [&'static str],
    from: &'static [&'static str],
    from_output: &'static [&'static str],
    hidden: &'static [&'static str],
    feeds: &'static [&'static str],
}

fn phrasings(theme: Theme) -> Phrasings {
    match theme {
        Theme::Cyberpunk => Phrasings {
            given: &[
                "a flickering holo-tag reads {value}{note}",
                "a street hacker left {value}{note} in its cache",
            ],
            from: &[
                "a cable runs here from the {producer}",
                "the {producer} streams its data into this port",
            ],
            from_output: &["route the `{output}` channel of the {producer} here"],
            hidden: &[
                "the data for this sits behind hardware still dark",
                "its feed comes from a device you have not jacked into yet",
            ],
            feeds: &[
                "{what} pipes into the `{port}` port of the {consumer}",
                "the {consumer} pulls {what} into `{port}`",
            ],
        },
        Theme::Detective => Phrasings {
            given: &[
                "the case file lists {value}{note} for it",
                "your partner scribbled {value}{note} in the margin",
            ],
            from: &[
                "the trail leads back to the {producer}",
                "your notes link this to what the {producer} turns up",
            ],
            from_output: &["of the findings of the {producer}, only the `{output}` matters here"],
            hidden: &[
                "the evidence for this has not surfaced yet",
                "a witness you have not found holds this",
            ],
            feeds: &[
                "{what} is the lead the {consumer} needs for `{port}`",
                "file {what} under `{port}` of the {consumer}",
            ],
        },
        Theme::SciFi => Phrasings {
            given: &[
                "the ship's log records {value}{note} for this input",
                "a diagnostic readout suggests {value}{note}",
            ],
            from: &[
                "a conduit connects this input to the {producer}",
                "telemetry shows the {producer} feeding this channel",
            ],
            from_output: &["patch in the `{output}` reading of the {producer}"],
            hidden: &[
                "its source is in a compartment still sealed",
                "sensors place its source somewhere not yet scanned",
            ],
            feeds: &[
                "{what} is routed to the `{port}` input of the {consumer}",
                "the {consumer} draws {what} for its `{port}`",
            ],
        },
        Theme::Fantasy => Phrasings {
            given: &[
                "runes around it spell out {value}{note}",
                "an old grimoire names {value}{note} for it",
            ],
            from: &[
                "a thread of light binds this to the {producer}",
                "the {producer} is said to hold what this needs",
            ],
            from_output: &["the `{output}` of the {producer} is the part this needs"],
            hidden: &[
                "what fills this lies behind a ward not yet broken",
                "its source is still veiled by old magic",
            ],
            feeds: &[
                "{what} answers the call of the {consumer} for `{port}`",
                "the {consumer} hungers for {what} as its `{port}`",
            ],
        },
        Theme::Steampunk => Phrasings {
            given: &[
                "a brass tag hung on it is stamped {value}{note}",
                "the engineer's blueprint specifies {value}{note}",
            ],
            from: &[
                "a pneumatic tube runs here from the {producer}",
                "gears link this dial to the {producer}",
            ],
            from_output: &["the `{output}` gauge of the {producer} drives this"],
            hidden: &[
                "its feed comes from a mechanism still locked away",
                "the pipe to this leads somewhere you cannot see yet",
            ],
            feeds: &[
                "{what} drives the `{port}` lever of the {consumer}",
                "a tube carries {what} to the {consumer}, into `{port}`",
            ],
        },
        Theme::PostApocalyptic => Phrasings {
            given: &[
                "someone painted {value}{note} beside it",
                "a survivor's scrawl reads {value}{note}",
            ],
            from: &[
                "a patched wire trails off to the {producer}",
                "scavenger marks point to the {producer} for this",
            ],
            from_output: &["salvage the `{output}` from the {producer} for this"],
            hidden: &[
                "whatever feeds this is still buried",
                "its source is in a stash you have not cracked",
            ],
            feeds: &[
                "{what} is what the {consumer} needs for `{port}`",
                "hand {what} over to the {consumer} as its `{port}`",
            ],
        },
        Theme::Mystery => Phrasings {
            given: &[
                "an inscription on the frame reads {value}{note}",
                "a calling card tucked into it says {value}{note}",
            ],
            from: &[
                "a faint draught suggests a link to the {producer}",
                "the diary hints that the {producer} holds this",
            ],
            from_output: &["the {producer} keeps its `{output}` for this very purpose"],
            hidden: &[
                "its source is hidden somewhere in the house",
                "the answer lies behind a door not yet opened",
            ],
            feeds: &[
                "{what} belongs with the {consumer}, as its `{port}`",
                "the {consumer} awaits {what} for its `{port}`",
            ],
        },
        Theme::TechnoThriller => Phrasings {
            given: &[
                "the intercepted briefing gives {value}{note}",
                "a redacted memo still shows {value}{note}",
            ],
            from: &[
                "the wiretap traces this to the {producer}",
                "forensics tie this input to the {producer}",
            ],
            from_output: &["the `{output}` field of the {producer} is the one to feed here"],
            hidden: &[
                "its source is in a vault still under lockdown",
                "the intel for this is still classified",
            ],
            feeds: &[
                "{what} is the payload for `{port}` of the {consumer}",
                "relay {what} to the {consumer} as `{port}`",
            ],
        },
    }
}

fn theme_key(theme: Theme) -> &'static str {
    match theme {
        Theme::Cyberpunk => "cyberpunk",
        Theme::Detective => "detective",
        Theme::SciFi => "sci-fi",
        Theme::Fantasy => "fantasy",
        Theme::Steampunk => "steampunk",
        Theme::PostApocalyptic => "post-apocalyptic",
        Theme::Mystery => "mystery",
        Theme::TechnoThriller => "techno-thriller",
    }
}

/// Every sentence template of a relation for a theme: the shared ones first, then the
/// theme's own, each with its id.
fn templates(theme: Theme, relation: Relation) -> Vec<(String, &'static str)> {
    let p = phrasings(theme);
    let (shared, own) = match relation {
        Relation::Given => (GIVEN, p.given),
        Relation::From => (FROM, p.from),
        Relation::FromOutput => (FROM_OUTPUT, p.from_output),
        Relation::Hidden => (HIDDEN, p.hidden),
        Relation::Feeds => (FEEDS, p.feeds),
    };
    let key = relation.key();
    shared
        .iter()
        .enumerate()
        .map(|(k, t)| (format!("{key}/any/{k}"), *t))
        .chain(
            own.iter()
                .enumerate()
                .map(|(k, t)| (format!("{key}/{}/{k}", theme_key(theme)), *t)),
        )
        .collect()
}

/// How many distinct sentence templates exist over all themes and relations.
pub fn template_count() -> usize {
    let mut ids = std::collections::BTreeSet::new();
    for theme in Theme::ALL {
        for r in Relation::ALL {
            ids.extend(templates(theme, r).into_iter().map(|(id, _)| id));
        }
    }
    ids.len()
}

/// A seeded generator for one clue: same scenario, node and port ⇒ same choices.
fn rng(s: &ToolsScenario, node: &str, port: &str) -> seed::Rng {
    seed::rng(seed::derive(
        s.seed,
        &format!("tools/clue/{node}/{port}"),
        0,
    ))
}

/// How a clue refers to node `j`: its display name, or (when no other node of the
/// scenario has the same template title) sometimes the title alone.
fn reference(s: &ToolsScenario, j: usize, r: &mut seed::Rng) -> String {
    let node = &s.nodes[j];
    let title = crate::library::template(&node.template).map(|t| t.title);
    let unique = title.filter(|t| {
        s.nodes
            .iter()
            .filter(|n| crate::library::template(&n.template).map(|x| x.title) == Some(t))
            .count()
            == 1
    });
    match unique {
        Some(t) if r.random_bool(0.4) => t.to_string(),
        _ => node.name.clone(),
    }
}

fn fill(template: &str, slots: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (k, v) in slots {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    let mut chars = out.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => out,
    }
}

fn pick(
    s: &ToolsScenario,
    relation: Relation,
    r: &mut seed::Rng,
    slots: &[(&str, &str)],
) -> (String, String) {
    let choices = templates(s.theme, relation);
    let (id, t) = &choices[r.random_range(0..choices.len())];
    (id.clone(), fill(t, slots))
}

/// ` (a file named x of type y)` for a file id, else nothing.
pub(crate) fn file_note(s: &ToolsScenario, id: &str) -> String {
    match s.files.get(id) {
        Some(f) => format!(" (a file named {} of type {})", f.name, f.media_type),
        None => String::new(),
    }
}

/// The clue on input `port` of node `i`, given what is visible.
pub(crate) fn input_clue(
    s: &ToolsScenario,
    g: &Graph,
    visible: &[bool],
    i: usize,
    port: &str,
    style: ClueStyle,
) -> Option<Clue> {
    let node = &s.nodes[i];
    let p = node.inputs.get(port)?;
    let clue = |relation, template: String, text: String| Clue {
        node: node.id.clone(),
        port: Some(port.to_string()),
        relation,
        template,
        text,
    };
    let mut r = rng(s, &node.id, port);
    match p.origin? {
        Origin::Physical => None,
        Origin::Seed => {
            let note = if p.ty == PortType::FileId {
                file_note(s, &p.value)
            } else {
                String::new()
            };
            let value = literal(&p.value);
            Some(match style {
                ClueStyle::Literal => clue(
                    Relation::Given,
                    "literal/given".into(),
                    format!("its value is {value}{note}."),
                ),
                ClueStyle::Themed => {
                    let (id, text) = pick(
                        s,
                        Relation::Given,
                        &mut r,
                        &[("value", &value), ("note", &note)],
                    );
                    clue(Relation::Given, id, format!("{text}."))
                }
            })
        }
        Origin::Edge => {
            let Some((src, out)) = g.feeds[i].get(port).filter(|(src, _)| visible[*src]) else {
                return Some(match style {
                    ClueStyle::Literal => clue(
                        Relation::Hidden,
                        "literal/hidden".into(),
                        "its value comes from something you have not found yet.".into(),
                    ),
                    ClueStyle::Themed => {
                        let (id, text) = pick(s, Relation::Hidden, &mut r, &[]);
                        clue(Relation::Hidden, id, format!("{text}."))
                    }
                });
            };
            let producer = &s.nodes[*src];
            let several = producer
                .outputs
                .values()
                .filter(|o| !o.ty.is_physical())
                .count()
                > 1;
            let relation = if several {
                Relation::FromOutput
            } else {
                Relation::From
            };
            Some(match style {
                ClueStyle::Literal if several => clue(
                    relation,
                    "literal/from-output".into(),
                    format!("it takes the `{out}` output of {}.", label(producer)),
                ),
                ClueStyle::Literal => clue(
                    relation,
                    "literal/from".into(),
                    format!("it takes what {} produces.", label(producer)),
                ),
                ClueStyle::Themed => {
                    let name = reference(s, *src, &mut r);
                    let (id, text) =
                        pick(s, relation, &mut r, &[("producer", &name), ("output", out)]);
                    clue(relation, id, format!("{text}."))
                }
            })
        }
    }
}

/// Where node `i`'s outputs go, among the visible nodes (`None` when nowhere visible).
pub(crate) fn feeds_clue(
    s: &ToolsScenario,
    g: &Graph,
    visible: &[bool],
    i: usize,
    style: ClueStyle,
) -> Option<Clue> {
    let node = &s.nodes[i];
    let consumers: Vec<&(usize, String, String)> = g.consumers[i]
        .iter()
        .filter(|(c, _, _)| visible[*c])
        .collect();
    if consumers.is_empty() {
        return None;
    }
    let several = node
        .outputs
        .values()
        .filter(|o| !o.ty.is_physical())
        .count()
        > 1;
    let (template, text) = match style {
        ClueStyle::Literal => {
            let parts: Vec<String> = consumers
                .iter()
                .map(|(c, port, out)| format!("`{out}` feeds `{port}` of {}", label(&s.nodes[*c])))
                .collect();
            (
                "literal/feeds".to_string(),
                format!("{}.", parts.join("; ")),
            )
        }
        ClueStyle::Themed => {
            let mut ids = Vec::new();
            let mut sentences = Vec::new();
            for (c, port, out) in consumers {
                let mut r = rng(s, &node.id, &format!("->{}/{port}", s.nodes[*c].id));
                let name = reference(s, *c, &mut r);
                let what = if several {
                    format!("its `{out}`")
                } else {
                    "what it gives".to_string()
                };
                let (id, text) = pick(
                    s,
                    Relation::Feeds,
                    &mut r,
                    &[("what", &what), ("consumer", &name), ("port", port)],
                );
                ids.push(id);
                sentences.push(format!("{text}."));
            }
            (ids.join(","), sentences.join(" "))
        }
    };
    Some(Clue {
        node: node.id.clone(),
        port: None,
        relation: Relation::Feeds,
        template,
        text,
    })
}

/// Every clue of the scenario as the nodes' details show them when `visible` holds
/// (one flag per node, in node order): for scans and statistics.
pub fn clues(s: &ToolsScenario, visible: &[bool], style: ClueStyle) -> Vec<Clue> {
    let g = Graph::new(s);
    let mut out = Vec::new();
    for (i, node) in s.nodes.iter().enumerate() {
        if node.kind.is_callable() {
            for (port, _) in node.parameters() {
                out.extend(input_clue(s, &g, visible, i, port, style));
            }
        }
        out.extend(feeds_clue(s, &g, visible, i, style));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_theme_has_many_phrasings_per_relation() {
        for theme in Theme::ALL {
            for r in Relation::ALL {
                let t = templates(theme, r);
                assert!(t.len() >= 4, "{theme:?} {r:?}: {}", t.len());
                assert!(t.iter().any(|(id, _)| id.contains(theme_key(theme))));
            }
        }
        assert!(template_count() >= 80, "{}", template_count());
    }

    #[test]
    fn templates_use_only_their_relation_slots() {
        for theme in Theme::ALL {
            for (r, needs, allowed) in [
                (
                    Relation::Given,
                    &["{value}{note}"][..],
                    &["value", "note"][..],
                ),
                (Relation::From, &["{producer}"][..], &["producer"][..]),
                (
                    Relation::FromOutput,
                    &["{producer}", "`{output}`"][..],
                    &["producer", "output"][..],
                ),
                (Relation::Hidden, &[][..], &[][..]),
                (
                    Relation::Feeds,
                    &["{what}", "{consumer}", "`{port}`"][..],
                    &["what", "consumer", "port"][..],
                ),
            ] {
                for (id, t) in templates(theme, r) {
                    for n in needs {
                        assert!(t.contains(n), "{id}: {t} lacks {n}");
                    }
                    let mut rest = t.to_string();
                    for a in allowed {
                        rest = rest.replace(&format!("{{{a}}}"), "");
                    }
                    assert!(!rest.contains('{'), "{id}: {t} has a stray slot");
                    assert!(!t.ends_with('.'), "{id}: the renderer adds the period");
                }
            }
        }
    }
}
