//! Background stories for generated scenarios (the ground truth of the post-game
//! debriefing, §3.1 and §5.4).
//!
//! Why templates: the original's levels carry hand-written stories; generated scenarios
//! need one each, reproducibly. Each template has a background (the scenario's `story`)
//! and a diary fragment that goes on the story note in the last box, so a player who
//! reads everything can piece the background together. All text here is ours.

/// One story template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Story {
    /// A short name (for logs and tests).
    pub name: &'static str,
    /// The background, told after the game.
    pub background: &'static str,
    /// The fragment found on a note inside the last box.
    pub fragment: &'static str,
}

/// The templates, chosen by seed.
pub const STORIES: [Story; 6] = [
    Story {
        name: "lighthouse",
        background: "The house once belonged to the keeper of the lighthouse on the point. \
            When the lamp went dark one winter night and a ship ran aground, the keeper \
            locked himself away and was never seen again. Visitors say his doors still \
            lock themselves at dusk.",
        fragment: "Third night without the lamp. I hear the hull breaking on the rocks \
            in my sleep. I have hidden the spare keys where no one will look for them; \
            let whoever finds them forgive me.",
    },
    Story {
        name: "clockmaker",
        background: "A clockmaker lived here and built locks as carefully as clocks. \
            After a rival stole his designs he rebuilt every door of his home with \
            puzzles only he could solve, then vanished on the day his last clock stopped.",
        fragment: "They copied my gears, but they cannot copy this. Every lock in the \
            house answers only to numbers I chose myself. When the big clock stops, I \
            will be gone.",
    },
    Story {
        name: "greenhouse",
        background: "A botanist kept a hidden greenhouse behind this flat and bred a \
            flower said to cure any fever. When the company funding her work came to \
            take the seeds, she sealed the rooms and fled with them.",
        fragment: "They arrive tomorrow with their contracts. The seeds are safe, sewn \
            into my coat. If you are reading this, the flowers bloomed without me.",
    },
    Story {
        name: "radio",
        background: "During a long blackout a radio amateur in this building kept the \
            street in touch with the outside world. One night his broadcasts stopped, \
            and his rooms have been locked ever since.",
        fragment: "Someone answered on a frequency nobody uses. They knew my name. I am \
            locking the set away and the codes with it; do not switch it on again.",
    },
    Story {
        name: "heirloom",
        background: "Three siblings inherited this home with a single condition: the \
            family ring would go to whoever could walk out of the locked rooms their \
            grandmother left behind. None of them ever tried.",
        fragment: "My dears, the ring is not the prize. The prize is the afternoon you \
            spend together finding it. I hid the way out in plain sight.",
    },
    Story {
        name: "observatory",
        background: "An astronomer rented these rooms to watch a comet nobody else \
            believed in. On the night it was due she sent one letter to the observatory, \
            then locked her door from the inside and disappeared.",
        fragment: "It is brighter than I calculated, and closer. I have written the \
            numbers down in case I am wrong. I do not think I am wrong.",
    },
];

/// The template for a seed.
pub fn pick(seed: u64) -> &'static Story {
    let i = escapade_core::seed::derive(seed, "craft/story", 0) % STORIES.len() as u64;
    &STORIES[i as usize]
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_template_is_used_by_some_seed() {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            seen.insert(super::pick(seed).name);
        }
        assert_eq!(seen.len(), super::STORIES.len());
    }
}
