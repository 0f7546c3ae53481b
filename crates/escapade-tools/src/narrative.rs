//! Narratives in eight themes (App. A.6), from templates instead of an LLM.
//!
//! Each scenario gets one theme. Nodes get a display name (a theme adjective plus the
//! template's title), a one-line brief for the room listing and a short story for
//! investigation. Clues about data flow are in [`crate::clue`], rendered when a node is
//! investigated, so a clue never names a node the agent has not found yet.
//! All text here is escapade's own.

use rand::Rng as _;
use rand::seq::{IndexedRandom, SliceRandom};
use serde::{Deserialize, Serialize};

use escapade_core::seed::Rng;

use crate::template::{NodeKind, Template};

/// The eight thematic styles of A.6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Theme {
    /// Neon, chrome and data.
    Cyberpunk,
    /// Trench coats and case files.
    Detective,
    /// Starships and alien consoles.
    SciFi,
    /// Runes, towers and enchanted devices.
    Fantasy,
    /// Brass, steam and clockwork.
    Steampunk,
    /// Ruins, scavenged machines and dust.
    PostApocalyptic,
    /// An old manor and its secrets.
    Mystery,
    /// Servers, agencies and countdowns.
    TechnoThriller,
}

struct Style {
    settings: &'static [&'static str],
    adjectives: &'static [&'static str],
    tool_lines: &'static [&'static str],
    item_lines: &'static [&'static str],
    container_lines: &'static [&'static str],
    terminal_lines: &'static [&'static str],
}

impl Theme {
    /// All themes.
    pub const ALL: [Theme; 8] = [
        Theme::Cyberpunk,
        Theme::Detective,
        Theme::SciFi,
        Theme::Fantasy,
        Theme::Steampunk,
        Theme::PostApocalyptic,
        Theme::Mystery,
        Theme::TechnoThriller,
    ];

    fn style(self) -> Style {
        match self {
            Theme::Cyberpunk => Style {
                settings: &[
                    "You wake in a sealed server den under a rain-soaked megacity. The door is held by a console that wants a single code, and every device around you hums with half-erased data.",
                    "A corporate black site, locked down after a breach. Racks blink, cables snake across the floor, and the only way out is through the exit console.",
                ],
                adjectives: &[
                    "Neon", "Chrome", "Glitch", "Synth", "Holo", "Rogue", "Wired", "Static",
                    "Voltage", "Ghost", "Cobalt", "Flux",
                ],
                tool_lines: &[
                    "a battered rig patched with street firmware",
                    "a sleek module with a cracked holo-label",
                    "a black-market deck still warm to the touch",
                ],
                item_lines: &[
                    "left behind by a courier in a hurry",
                    "tagged with a faded corporate barcode",
                    "half buried under tangled fibre",
                ],
                container_lines: &[
                    "its maglock pulses red",
                    "a keypad glows beside a biometric scar",
                ],
                terminal_lines: &[
                    "the door's last line of defence",
                    "the console that controls the exit",
                ],
            },
            Theme::Detective => Style {
                settings: &[
                    "The detective's office is locked from the outside. Case files, gadgets and evidence bags crowd the desk; the way out is a keypad the previous tenant rigged.",
                    "A smoky back room of a closed precinct. Someone left a trail of evidence, and the exit will only open for the right answer.",
                ],
                adjectives: &[
                    "Dusty",
                    "Brass",
                    "Smoky",
                    "Faded",
                    "Inked",
                    "Walnut",
                    "Worn",
                    "Noir",
                    "Tarnished",
                    "Ledger",
                    "Velvet",
                    "Carbon",
                ],
                tool_lines: &[
                    "an odd instrument from the evidence locker",
                    "a contraption the forensics lab never returned",
                    "a device with a handwritten case number",
                ],
                item_lines: &[
                    "filed under an unsolved case",
                    "stained with coffee and cigarette ash",
                    "pinned to the corkboard with red string",
                ],
                container_lines: &[
                    "its lock has been picked once before",
                    "a case number is stencilled on its lid",
                ],
                terminal_lines: &[
                    "the keypad on the office door",
                    "the lock that keeps you in",
                ],
            },
            Theme::SciFi => Style {
                settings: &[
                    "You are aboard a derelict survey ship. Life support holds, but the airlock will only cycle when its console gets the right value.",
                    "An orbital lab, evacuated in a hurry. Alien-looking consoles line the walls and the hatch to the escape pod is sealed.",
                ],
                adjectives: &[
                    "Quantum", "Ion", "Stellar", "Plasma", "Orbital", "Nebula", "Photon",
                    "Graviton", "Lunar", "Vector", "Cryo", "Pulsar",
                ],
                tool_lines: &[
                    "a console from the ship's science bay",
                    "a module stamped with a survey-corps crest",
                    "a device humming on reserve power",
                ],
                item_lines: &[
                    "floating loose near the ceiling",
                    "sealed in a sample sleeve",
                    "logged in the ship's manifest",
                ],
                container_lines: &["its seal hisses when touched", "a pressure lock guards it"],
                terminal_lines: &["the airlock control", "the escape-pod hatch console"],
            },
            Theme::Fantasy => Style {
                settings: &[
                    "The wizard's tower has sealed itself. Enchanted devices crowd the shelves, and the great door will open only to the true word.",
                    "A vault beneath an elven library. Runes flicker along the walls; the exit is a sigil-lock that demands a single answer.",
                ],
                adjectives: &[
                    "Runic", "Elder", "Arcane", "Gilded", "Moonlit", "Wyrm", "Silver", "Emerald",
                    "Ancient", "Starlit", "Ember", "Oaken",
                ],
                tool_lines: &[
                    "an artefact etched with glowing runes",
                    "a device a guild of artificers once prized",
                    "an enchanted mechanism that answers to incantations",
                ],
                item_lines: &[
                    "wrapped in a faded silk cloth",
                    "marked with the seal of a forgotten house",
                    "resting on a velvet cushion",
                ],
                container_lines: &["a rune-lock binds it shut", "a ward shimmers over its lid"],
                terminal_lines: &["the sigil-lock of the great door", "the warded exit"],
            },
            Theme::Steampunk => Style {
                settings: &[
                    "An inventor's workshop, locked by clockwork. Pipes hiss, gears tick, and the exit wheel turns only for the proper code.",
                    "The engine room of a stranded airship. Brass machines line the walls and the hatch is held by a calculating lock.",
                ],
                adjectives: &[
                    "Brass",
                    "Copper",
                    "Clockwork",
                    "Steam",
                    "Geared",
                    "Riveted",
                    "Iron",
                    "Piston",
                    "Valve",
                    "Bronze",
                    "Cog",
                    "Boiler",
                ],
                tool_lines: &[
                    "a clattering engine of gears and dials",
                    "a brass apparatus with a pressure gauge",
                    "a machine built by a famous guild of engineers",
                ],
                item_lines: &[
                    "smudged with machine oil",
                    "tucked under a workbench",
                    "stamped with a patent number",
                ],
                container_lines: &[
                    "a clockwork lock ticks inside",
                    "its brass dials want a combination",
                ],
                terminal_lines: &[
                    "the calculating lock on the hatch",
                    "the exit wheel's governor",
                ],
            },
            Theme::PostApocalyptic => Style {
                settings: &[
                    "A bunker from before the fall. Scavenged machines still run on a sputtering generator, and the blast door needs one last code.",
                    "A ruined relay station in the wastes. Dust covers everything; the exit gate's panel is the only thing still fully powered.",
                ],
                adjectives: &[
                    "Rusted",
                    "Scavenged",
                    "Irradiated",
                    "Patched",
                    "Salvaged",
                    "Dusty",
                    "Scorched",
                    "Jury-rigged",
                    "Cracked",
                    "Ashen",
                    "Bent",
                    "Feral",
                ],
                tool_lines: &[
                    "a machine rebuilt from salvage",
                    "a pre-war device that somehow still works",
                    "a rig held together with wire and hope",
                ],
                item_lines: &[
                    "found in a looted locker",
                    "half melted but legible",
                    "kept by someone who did not make it",
                ],
                container_lines: &[
                    "its lock survived the fallout",
                    "someone welded it and added a keypad",
                ],
                terminal_lines: &["the blast door panel", "the gate's last working terminal"],
            },
            Theme::Mystery => Style {
                settings: &[
                    "An old manor library after midnight. The door has locked itself, and the house seems to want you to solve its puzzles first.",
                    "A locked study in a country house. Curious devices sit among the books; the exit answers only to the right phrase.",
                ],
                adjectives: &[
                    "Hidden",
                    "Veiled",
                    "Whispering",
                    "Crimson",
                    "Silent",
                    "Shadowed",
                    "Secret",
                    "Ivory",
                    "Twilight",
                    "Curious",
                    "Lost",
                    "Mirrored",
                ],
                tool_lines: &[
                    "a curious device from the late master's collection",
                    "an instrument no guest has ever seen used",
                    "a mechanism concealed behind a bookshelf",
                ],
                item_lines: &[
                    "tucked between the pages of an old book",
                    "found in a drawer that should have been empty",
                    "left on the mantelpiece",
                ],
                container_lines: &[
                    "its lock is older than the house",
                    "a family crest covers the keyhole",
                ],
                terminal_lines: &["the lock on the study door", "the manor's final riddle"],
            },
            Theme::TechnoThriller => Style {
                settings: &[
                    "An agency safe room in lockdown. Forensic tools and seized devices fill the racks; the exit terminal wants the right code before the countdown ends.",
                    "A data centre cage after a hostile takeover. Every machine is evidence, and the exit only opens for the correct flag.",
                ],
                adjectives: &[
                    "Encrypted",
                    "Classified",
                    "Redacted",
                    "Tactical",
                    "Secure",
                    "Covert",
                    "Rapid",
                    "Prime",
                    "Zero-Day",
                    "Sentinel",
                    "Vault",
                    "Cipher",
                ],
                tool_lines: &[
                    "a forensic tool seized in a raid",
                    "a device flagged by the agency",
                    "an appliance with a tamper seal",
                ],
                item_lines: &[
                    "bagged as evidence",
                    "recovered from a suspect's desk",
                    "marked TOP SECRET in red ink",
                ],
                container_lines: &[
                    "its tamper-proof lock blinks",
                    "an agency seal covers the latch",
                ],
                terminal_lines: &["the exit terminal", "the lockdown override"],
            },
        }
    }

    /// Picks a theme.
    pub fn pick(rng: &mut Rng) -> Theme {
        *Theme::ALL.choose(rng).expect("non-empty")
    }

    /// The opening narrative of the room.
    pub fn setting(self, rng: &mut Rng) -> String {
        let s = self.style();
        (*s.settings.choose(rng).expect("non-empty")).to_string()
    }

    /// Unique display names for templates, in order (theme adjective + title), none a
    /// part of another.
    pub fn names(self, titles: &[&str], rng: &mut Rng) -> Vec<String> {
        let mut adjectives: Vec<&str> = self.style().adjectives.to_vec();
        adjectives.shuffle(rng);
        let mut used = std::collections::BTreeSet::new();
        let mut out = Vec::with_capacity(titles.len());
        for (i, title) in titles.iter().enumerate() {
            let mut k = i;
            loop {
                let adj = adjectives[k % adjectives.len()];
                let round = k / adjectives.len();
                // a second node of the same title is "Title (Adj)", not "Adj Title 2":
                // no name then holds another as a part, so naming a visible node never
                // names a hidden one
                let name = match round {
                    0 => format!("{adj} {title}"),
                    1 => format!("{title} ({adj})"),
                    r => format!("{title} ({adj} {r})"),
                };
                if used.insert(name.clone()) {
                    out.push(name);
                    break;
                }
                k += 1;
            }
        }
        out
    }

    /// A one-line brief and a short story for a node.
    pub fn describe(self, t: &Template, rng: &mut Rng) -> (String, String) {
        let s = self.style();
        let lines = match t.kind {
            NodeKind::Tool => s.tool_lines,
            NodeKind::Item => s.item_lines,
            NodeKind::Container => s.container_lines,
            NodeKind::Terminal => s.terminal_lines,
        };
        let flavour = *lines.choose(rng).expect("non-empty");
        let brief = match t.kind {
            NodeKind::Tool => format!("{}: {flavour}.", t.family),
            NodeKind::Item => format!("an object, {flavour}."),
            NodeKind::Container => format!("a locked container; {flavour}."),
            NodeKind::Terminal => format!("{flavour}."),
        };
        let story = match (t.kind, rng.random_range(0..3)) {
            (NodeKind::Terminal, _) => format!(
                "This is {flavour}. Give it the right input and it shows the flag that opens the way out."
            ),
            (NodeKind::Container, _) => format!(
                "A locked container ({flavour}). Opening it with the right code may reveal things that are hidden now."
            ),
            (NodeKind::Item, _) => format!("Something {flavour}."),
            (_, 0) => format!("It looks like {flavour}."),
            (_, 1) => format!("On closer inspection: {flavour}, its controls clearly labelled."),
            _ => format!("You recognise it as {flavour}."),
        };
        (brief, story)
    }
}
