//! The prop chain: which props a room holds, what locks what, and in which order a player
//! must use them (MM-Escape §3.3, App. C.2.1, Table 7).
//!
//! Why a module of its own: the chain is the puzzle. The room layout only decides *where*
//! its visible props sit; the environment, the oracle and the metrics (prop gain counts
//! the chain's props) all read the chain. It is plain data with serde JSON in a stable
//! field order, a validator ([`Chain::validate`]) and a planner ([`Chain::plan`]) giving
//! the shortest ordered list of sub-goals the oracle executes.
//!
//! The paper calls the chain a singly linked list whose tail is the exit. We store it as
//! the original's level files do — a list of props with locks and contents plus the exit's
//! lock — which holds any list (and any tree) of links; [`generate`] builds the lists of
//! the paper's difficulty levels, of any length.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::CraftError;

/// The id the chain uses for the room's exit door (the original's levels name it so too).
pub const EXIT: &str = "exit";

/// How a lockable thing (a box or the exit door) is opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Unlock {
    /// It opens when interacted with (the Difficulty-1 door, §3.3).
    Interact,
    /// It opens with the key prop `key`.
    Key {
        /// Id of the key prop.
        key: String,
    },
    /// It opens when the digits of the password prop `password` are entered.
    Password {
        /// Id of the password prop.
        password: String,
    },
}

/// One thing written on a note (App. C.2.1: a note is both narrative and functional).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum NoteLine {
    /// The digits of a password prop.
    Password {
        /// Id of the password prop.
        password: String,
    },
    /// A piece of the background story (for the post-game debriefing, §3.1).
    Story {
        /// The text.
        text: String,
    },
    /// A picture, as in the original's `image` contents; it may show a password.
    Image {
        /// The original's path of the picture (kept as given; nothing reads it).
        image_path: String,
        /// The password the picture shows, if any.
        password: Option<String>,
    },
}

/// What a prop is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PropKind {
    /// A key; `opens` is the box id or [`EXIT`] whose lock names it (`None`: a key that
    /// opens nothing, a decoy).
    Key {
        /// What it opens.
        opens: Option<String>,
    },
    /// A box that holds other props and opens by `lock`; opening it hands its contents to
    /// the player at once (App. C.1.2, "Locked Props").
    Box {
        /// How it opens.
        lock: Unlock,
        /// Ids of the props inside, in order.
        contents: Vec<String>,
    },
    /// A note (the original's `paper`): read from the inventory.
    Note {
        /// What is written on it, in order.
        lines: Vec<NoteLine>,
    },
    /// A password: knowledge, never placed in the room. The original drew four random
    /// digits when a level loaded; escapade derives them from the seed
    /// ([`password_digits`]).
    Password {
        /// The digits to enter.
        digits: String,
    },
    /// A number pattern painted on a wall that shows a password (§5.2, Fig. 5): seen, not
    /// grabbed or read.
    WallPattern {
        /// Id of the password prop whose digits the pattern shows.
        password: String,
    },
}

impl PropKind {
    /// The kind's name as written in JSON (`key`, `box`, `note`, `password`,
    /// `wall_pattern`).
    pub fn name(&self) -> &'static str {
        match self {
            PropKind::Key { .. } => "key",
            PropKind::Box { .. } => "box",
            PropKind::Note { .. } => "note",
            PropKind::Password { .. } => "password",
            PropKind::WallPattern { .. } => "wall_pattern",
        }
    }
}

/// One node of the chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prop {
    /// Unique id in the room (`key_1`, `box_1`, `note_2`, `password_1`).
    pub id: String,
    /// Whether it is placed visibly in the room (`true`) or starts inside a box
    /// (`false`); passwords are never placed (App. C.2.1, the `show` property).
    pub show: bool,
    /// What it is, with its links.
    #[serde(flatten)]
    pub kind: PropKind,
}

impl Prop {
    /// Whether the room shows it as an object (a visible key, box, note or wall pattern).
    pub fn is_placed(&self) -> bool {
        self.show && !matches!(self.kind, PropKind::Password { .. })
    }
}

/// A room's prop chain: its props and the exit's lock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chain {
    /// How the exit door opens.
    pub exit: Unlock,
    /// Every prop, in the order the level lists them.
    pub props: Vec<Prop>,
}

/// One step of the shortest way through a chain, as the oracle executes it.
///
/// Opening the exit (an [`Subgoal::Interact`], [`Subgoal::UseKey`] or
/// [`Subgoal::EnterPassword`] whose target is [`EXIT`]) is always the last sub-goal; what
/// it means (escaped, or on to the next room) is the environment's business.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "goal", rename_all = "snake_case")]
pub enum Subgoal {
    /// Pick up a visible key or note.
    Grab {
        /// The prop's id.
        prop: String,
    },
    /// Read a note in the inventory (learns the passwords written on it).
    Read {
        /// The note's id.
        note: String,
    },
    /// Look at a wall pattern (learns the password it shows).
    Inspect {
        /// The pattern's id.
        pattern: String,
    },
    /// Open a box or the exit that opens by interaction.
    Interact {
        /// A box id or [`EXIT`].
        target: String,
    },
    /// Use a key from the inventory on a box or the exit.
    UseKey {
        /// The key's id.
        key: String,
        /// A box id or [`EXIT`].
        target: String,
    },
    /// Enter a password's digits at a box or the exit.
    EnterPassword {
        /// The password prop's id.
        password: String,
        /// A box id or [`EXIT`].
        target: String,
    },
}

impl Subgoal {
    /// Whether this step is one hop of the chain (every step but reading a note: the hops
    /// of Fig. 3 are finding a prop and opening a lock).
    pub fn is_hop(&self) -> bool {
        !matches!(self, Subgoal::Read { .. })
    }
}

/// The four digits of password prop `id` in a scenario made from `seed`.
///
/// The original drew them at random whenever a level loaded, so a level never played the
/// same twice; deriving them from `(seed, id)` keeps every scenario reproducible.
pub fn password_digits(seed: u64, id: &str) -> String {
    let n = escapade_core::seed::derive(seed, &format!("craft/password/{id}"), 0) % 10_000;
    format!("{n:04}")
}

impl Chain {
    /// The prop with this id.
    pub fn prop(&self, id: &str) -> Option<&Prop> {
        self.props.iter().find(|p| p.id == id)
    }

    /// The props the room shows as objects, in chain order.
    pub fn placed(&self) -> impl Iterator<Item = &Prop> {
        self.props.iter().filter(|p| p.is_placed())
    }

    /// The box holding prop `id`, if any.
    pub fn container_of(&self, id: &str) -> Option<&str> {
        self.props.iter().find_map(|p| match &p.kind {
            PropKind::Box { contents, .. } if contents.iter().any(|c| c == id) => {
                Some(p.id.as_str())
            }
            _ => None,
        })
    }

    /// The lock of a box id or of [`EXIT`].
    pub fn lock_of(&self, target: &str) -> Option<&Unlock> {
        if target == EXIT {
            return Some(&self.exit);
        }
        match &self.prop(target)?.kind {
            PropKind::Box { lock, .. } => Some(lock),
            _ => None,
        }
    }

    /// The digits of password prop `id`.
    pub fn digits(&self, id: &str) -> Option<&str> {
        match &self.prop(id)?.kind {
            PropKind::Password { digits } => Some(digits),
            _ => None,
        }
    }

    /// How many props a player can collect (keys and notes, visible or boxed): the
    /// denominator of the paper's prop gain (§3.3, Eq. 1).
    pub fn collectible_count(&self) -> usize {
        self.props
            .iter()
            .filter(|p| matches!(p.kind, PropKind::Key { .. } | PropKind::Note { .. }))
            .count()
    }

    /// Checks the chain's rules; see the module docs of [`crate::chain`] and the list
    /// below.
    ///
    /// 1. ids are unique, non-empty and never [`EXIT`];
    /// 2. every reference (lock, content, note line, pattern, a key's `opens`) names a
    ///    prop of the right kind, and a key's `opens` agrees with the lock naming it;
    /// 3. a hidden prop (other than a password) sits in exactly one box; a visible prop in
    ///    none; boxes never contain themselves, directly or not;
    /// 4. passwords are digits and never shown; keys open at most one lock;
    /// 5. playing forward from the visible props opens the exit and reaches every prop
    ///    (so no lock waits on something behind itself: no cycles).
    ///
    /// # Errors
    /// [`CraftError::InvalidChain`] naming the first broken rule.
    pub fn validate(&self) -> Result<(), CraftError> {
        let bad = |reason: String| Err(CraftError::InvalidChain { room: None, reason });
        let mut ids = BTreeSet::new();
        for p in &self.props {
            if p.id.is_empty() || p.id == EXIT {
                return bad(format!("prop id `{}` is reserved or empty", p.id));
            }
            if !ids.insert(p.id.as_str()) {
                return bad(format!("prop id `{}` appears twice", p.id));
            }
        }
        let kind_of = |id: &str| self.prop(id).map(|p| p.kind.name());
        let expect = |id: &str, kind: &str, by: &str| -> Result<(), CraftError> {
            match kind_of(id) {
                Some(k) if k == kind => Ok(()),
                Some(k) => bad(format!("{by} names `{id}` as a {kind}, but it is a {k}")),
                None => bad(format!("{by} names `{id}`, which does not exist")),
            }
        };
        let check_lock = |lock: &Unlock, by: &str| -> Result<(), CraftError> {
            match lock {
                Unlock::Interact => Ok(()),
                Unlock::Key { key } => expect(key, "key", by),
                Unlock::Password { password } => expect(password, "password", by),
            }
        };
        check_lock(&self.exit, "the exit")?;
        let mut key_users: Vec<(&str, &str)> = Vec::new();
        if let Unlock::Key { key } = &self.exit {
            key_users.push((key, EXIT));
        }
        for p in &self.props {
            let by = format!("`{}`", p.id);
            match &p.kind {
                PropKind::Key { opens } => {
                    if let Some(target) = opens {
                        match self.lock_of(target) {
                            Some(Unlock::Key { key }) if key == &p.id => {}
                            _ => {
                                return bad(format!(
                                    "key `{}` claims to open `{target}`, whose lock does not name it",
                                    p.id
                                ));
                            }
                        }
                    }
                }
                PropKind::Box { lock, contents } => {
                    check_lock(lock, &by)?;
                    if let Unlock::Key { key } = lock {
                        key_users.push((key, &p.id));
                    }
                    for c in contents {
                        match kind_of(c) {
                            None => return bad(format!("{by} holds `{c}`, which does not exist")),
                            Some("password") => {
                                return bad(format!(
                                    "{by} holds password `{c}`; passwords go on notes or walls"
                                ));
                            }
                            Some(_) => {}
                        }
                    }
                }
                PropKind::Note { lines } => {
                    for line in lines {
                        match line {
                            NoteLine::Password { password }
                            | NoteLine::Image {
                                password: Some(password),
                                ..
                            } => expect(password, "password", &by)?,
                            _ => {}
                        }
                    }
                }
                PropKind::Password { digits } => {
                    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                        return bad(format!("password `{}` is not digits: `{digits}`", p.id));
                    }
                    if p.show {
                        return bad(format!("password `{}` is shown; write it on a note", p.id));
                    }
                }
                PropKind::WallPattern { password } => {
                    expect(password, "password", &by)?;
                    if !p.show {
                        return bad(format!("wall pattern `{}` must be shown", p.id));
                    }
                }
            }
        }
        // every key opens at most one lock, and keys agree with the locks naming them
        for (i, (key, target)) in key_users.iter().enumerate() {
            if key_users[..i].iter().any(|(k, _)| k == key) {
                return bad(format!("key `{key}` is named by two locks"));
            }
            if let Some(PropKind::Key { opens: Some(o) }) = self.prop(key).map(|p| &p.kind)
                && o != target
            {
                return bad(format!("key `{key}` opens `{o}` but `{target}` names it"));
            }
        }
        // containment: hidden props in exactly one box, visible ones in none, no loops
        for p in &self.props {
            let holders = self
                .props
                .iter()
                .filter(|b| matches!(&b.kind, PropKind::Box { contents, .. } if contents.contains(&p.id)))
                .count();
            let hidden = !p.show && !matches!(p.kind, PropKind::Password { .. });
            if hidden && holders != 1 {
                return bad(format!(
                    "hidden prop `{}` is in {holders} boxes (it must be in exactly one)",
                    p.id
                ));
            }
            if p.show && holders > 0 {
                return bad(format!("`{}` is shown in the room and also boxed", p.id));
            }
            let mut at = p.id.as_str();
            for _ in 0..=self.props.len() {
                match self.container_of(at) {
                    Some(b) if b == p.id => {
                        return bad(format!("box `{}` ends up inside itself", p.id));
                    }
                    Some(b) => at = b,
                    None => break,
                }
            }
        }
        // play forward
        let reach = self.play_forward();
        if !reach.exit_open {
            return bad("the exit can never be opened".into());
        }
        for p in &self.props {
            let ok = match p.kind {
                PropKind::Password { .. } => reach.known.contains(&p.id),
                _ => reach.have.contains(&p.id),
            };
            if !ok {
                return bad(format!("`{}` can never be reached", p.id));
            }
        }
        Ok(())
    }

    /// Everything a player can reach by playing forward without limit.
    fn play_forward(&self) -> Reach {
        let mut r = Reach::default();
        for p in self.placed() {
            r.have.insert(p.id.clone());
        }
        loop {
            let before = (r.have.len(), r.known.len(), r.opened.len());
            for p in &self.props {
                if !r.have.contains(&p.id) {
                    continue;
                }
                match &p.kind {
                    PropKind::Note { lines } => r.known.extend(note_passwords(lines)),
                    PropKind::WallPattern { password } => {
                        r.known.insert(password.clone());
                    }
                    PropKind::Box { lock, contents }
                        if !r.opened.contains(&p.id) && r.can_open(lock) =>
                    {
                        r.opened.insert(p.id.clone());
                        r.have.extend(contents.iter().cloned());
                    }
                    _ => {}
                }
            }
            if (r.have.len(), r.known.len(), r.opened.len()) == before {
                break;
            }
        }
        r.exit_open = r.can_open(&self.exit);
        r
    }

    /// The shortest ordered list of sub-goals that opens the exit, for the oracle.
    ///
    /// Requirements are resolved backwards from the exit: a key is grabbed if visible or
    /// comes with the box holding it; a password is learnt from whichever source (a note
    /// to grab and read, a wall pattern to look at) costs fewer steps, ties going to the
    /// source listed first. Props not needed to escape (story notes) are left out.
    ///
    /// # Errors
    /// [`CraftError::InvalidChain`] when the chain does not [`validate`](Self::validate).
    pub fn plan(&self) -> Result<Vec<Subgoal>, CraftError> {
        self.validate()?;
        let mut planner = Planner {
            chain: self,
            steps: Vec::new(),
            have: BTreeSet::new(),
            known: BTreeSet::new(),
            opened: BTreeSet::new(),
        };
        planner.open(EXIT);
        Ok(planner.steps)
    }

    /// The chain's difficulty tier: the number of hops on its shortest path (Fig. 3:
    /// Difficulty-1 is the door alone, Difficulty-2 a key or password plus the door,
    /// Difficulty-3 both, and so on).
    ///
    /// # Errors
    /// [`CraftError::InvalidChain`] when the chain does not validate.
    pub fn hops(&self) -> Result<u32, CraftError> {
        Ok(self.plan()?.iter().filter(|s| s.is_hop()).count() as u32)
    }
}

fn note_passwords(lines: &[NoteLine]) -> impl Iterator<Item = String> + '_ {
    lines.iter().filter_map(|l| match l {
        NoteLine::Password { password }
        | NoteLine::Image {
            password: Some(password),
            ..
        } => Some(password.clone()),
        _ => None,
    })
}

#[derive(Default)]
struct Reach {
    have: BTreeSet<String>,
    known: BTreeSet<String>,
    opened: BTreeSet<String>,
    exit_open: bool,
}

impl Reach {
    fn can_open(&self, lock: &Unlock) -> bool {
        match lock {
            Unlock::Interact => true,
            Unlock::Key { key } => self.have.contains(key),
            Unlock::Password { password } => self.known.contains(password),
        }
    }
}

#[derive(Clone)]
struct Planner<'a> {
    chain: &'a Chain,
    steps: Vec<Subgoal>,
    have: BTreeSet<String>,
    known: BTreeSet<String>,
    opened: BTreeSet<String>,
}

impl Planner<'_> {
    fn obtain(&mut self, id: &str) {
        if self.have.contains(id) {
            return;
        }
        let Some(prop) = self.chain.prop(id) else {
            return;
        };
        if prop.show {
            if matches!(prop.kind, PropKind::Key { .. } | PropKind::Note { .. }) {
                self.steps.push(Subgoal::Grab { prop: id.into() });
            }
            self.have.insert(id.into());
        } else if let Some(holder) = self.chain.container_of(id) {
            let holder = holder.to_string();
            self.open(&holder);
        }
    }

    fn know(&mut self, password: &str) {
        if self.known.contains(password) {
            return;
        }
        let mut best: Option<Planner> = None;
        for p in &self.chain.props {
            let mut trial = self.clone();
            match &p.kind {
                PropKind::Note { lines } if note_passwords(lines).any(|x| x == password) => {
                    trial.obtain(&p.id);
                    if !trial.have.contains(&p.id) {
                        continue;
                    }
                    trial.steps.push(Subgoal::Read { note: p.id.clone() });
                    trial.known.extend(note_passwords(lines));
                }
                PropKind::WallPattern { password: shown } if shown == password && p.show => {
                    trial.steps.push(Subgoal::Inspect {
                        pattern: p.id.clone(),
                    });
                    trial.known.insert(shown.clone());
                }
                _ => continue,
            }
            if best
                .as_ref()
                .is_none_or(|b| trial.steps.len() < b.steps.len())
            {
                best = Some(trial);
            }
        }
        if let Some(b) = best {
            *self = b;
        }
    }

    fn open(&mut self, target: &str) {
        if self.opened.contains(target) {
            return;
        }
        // guard against re-entry on malformed input (validate rules out cycles)
        self.opened.insert(target.into());
        let Some(lock) = self.chain.lock_of(target).cloned() else {
            return;
        };
        if target != EXIT {
            self.obtain(target);
        }
        match lock {
            Unlock::Interact => self.steps.push(Subgoal::Interact {
                target: target.into(),
            }),
            Unlock::Key { key } => {
                self.obtain(&key);
                self.steps.push(Subgoal::UseKey {
                    key,
                    target: target.into(),
                });
            }
            Unlock::Password { password } => {
                self.know(&password);
                self.steps.push(Subgoal::EnterPassword {
                    password,
                    target: target.into(),
                });
            }
        }
        if let Some(Prop {
            kind: PropKind::Box { contents, .. },
            ..
        }) = self.chain.prop(target)
        {
            self.have.extend(contents.iter().cloned());
        }
    }
}

/// What the first visible link of a generated chain is, and how the links alternate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// A visible note gives the first password; then key, password, key… (Table 7).
    NoteFirst,
    /// A visible key opens the first lock; then password, key, password… (the original's
    /// `level3_key_first`).
    KeyFirst,
    /// Every link is a key (the original's `level3.5`: one key for the box, one for the
    /// door, and the player must tell them apart).
    TwoKey,
    /// A number pattern on a wall gives the first password (§5.2, Fig. 5); then key,
    /// password… as in [`Order::NoteFirst`].
    WallPattern,
}

impl Order {
    /// The shortest chain (in hops) this order makes sense for.
    pub fn min_hops(self) -> u32 {
        match self {
            Order::NoteFirst | Order::KeyFirst | Order::WallPattern => 2,
            Order::TwoKey => 3,
        }
    }
}

/// What [`generate`] builds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainSpec {
    /// Hops on the shortest path (1 = the door alone).
    pub hops: u32,
    /// The first link and the alternation (ignored when `hops` is 1).
    pub order: Order,
    /// Seed of the password digits.
    pub seed: u64,
    /// Number of the first prop of each kind (`key_<first>`…); multi-room scenarios
    /// start the second room after the first room's numbers so ids stay unique.
    pub first: u32,
    /// Story text put on an extra note in the last box, when the chain has a box.
    pub story_note: Option<String>,
}

/// Builds a chain of `spec.hops` hops.
///
/// Hop 1 is the exit. With `h ≥ 2` hops there are `h - 1` secrets (keys or passwords):
/// the first is visible (a key, a note carrying a password, or a wall pattern), each later
/// one lies in a box locked by the one before it, and the exit is locked by the last. The
/// boxes are visible in the room, so a Difficulty-3 note-first chain is exactly Table 7:
/// note → box (password) → key → exit; key-first is key → box (key) → note → exit
/// (password); longer chains add a box per hop. A story note, if given, goes in the last
/// box (as in the original's Difficulty-3 levels).
///
/// # Errors
/// [`CraftError::Hops`] when `hops` is 0 or shorter than the order's
/// [`Order::min_hops`].
pub fn generate(spec: &ChainSpec) -> Result<Chain, CraftError> {
    if spec.hops == 0 {
        return Err(CraftError::Hops {
            hops: 0,
            reason: "a chain needs at least one hop".into(),
        });
    }
    if spec.hops == 1 {
        return Ok(Chain {
            exit: Unlock::Interact,
            props: Vec::new(),
        });
    }
    if spec.hops < spec.order.min_hops() {
        return Err(CraftError::Hops {
            hops: spec.hops,
            reason: format!(
                "order {:?} needs at least {} hops, got {}",
                spec.order,
                spec.order.min_hops(),
                spec.hops
            ),
        });
    }
    #[derive(Clone, Copy, PartialEq)]
    enum Secret {
        Key,
        Note,
        Pattern,
    }
    let secrets: Vec<Secret> = (0..spec.hops - 1)
        .map(|i| match (spec.order, i) {
            (Order::TwoKey, _) => Secret::Key,
            (Order::WallPattern, 0) => Secret::Pattern,
            (Order::KeyFirst, i) if i % 2 == 0 => Secret::Key,
            (Order::KeyFirst, _) => Secret::Note,
            (_, i) if i % 2 == 0 => Secret::Note,
            _ => Secret::Key,
        })
        .collect();
    let (mut keys, mut notes, mut boxes) = (spec.first, spec.first, spec.first);
    let mut props: Vec<Prop> = Vec::new();
    let mut passwords: Vec<Prop> = Vec::new();
    // the lock each secret opens with, filled in as secrets are made
    let mut previous: Option<Unlock> = None;
    let mut boxed: Option<usize> = None; // index in `props` of the box holding the next secret
    for (i, secret) in secrets.iter().enumerate() {
        let show = i == 0;
        let (ids, unlock) = match secret {
            Secret::Key => {
                let id = format!("key_{keys}");
                keys += 1;
                props.push(Prop {
                    id: id.clone(),
                    show,
                    kind: PropKind::Key { opens: None },
                });
                (vec![id.clone()], Unlock::Key { key: id })
            }
            Secret::Note | Secret::Pattern => {
                let pw = format!("password_{notes}");
                passwords.push(Prop {
                    id: pw.clone(),
                    show: false,
                    kind: PropKind::Password {
                        digits: password_digits(spec.seed, &pw),
                    },
                });
                let id = if *secret == Secret::Note {
                    let id = format!("note_{notes}");
                    props.push(Prop {
                        id: id.clone(),
                        show,
                        kind: PropKind::Note {
                            lines: vec![NoteLine::Password {
                                password: pw.clone(),
                            }],
                        },
                    });
                    id
                } else {
                    let id = format!("pattern_{notes}");
                    props.push(Prop {
                        id: id.clone(),
                        show,
                        kind: PropKind::WallPattern {
                            password: pw.clone(),
                        },
                    });
                    id
                };
                notes += 1;
                (vec![id], Unlock::Password { password: pw })
            }
        };
        if let Some(b) = boxed
            && let PropKind::Box { contents, .. } = &mut props[b].kind
        {
            contents.extend(ids);
        }
        previous = Some(unlock.clone());
        if i + 1 < secrets.len() {
            let id = format!("box_{boxes}");
            boxes += 1;
            props.push(Prop {
                id,
                show: true,
                kind: PropKind::Box {
                    lock: unlock,
                    contents: Vec::new(),
                },
            });
            boxed = Some(props.len() - 1);
        }
    }
    if let (Some(text), Some(b)) = (&spec.story_note, boxed) {
        let id = format!("note_{notes}");
        props.push(Prop {
            id: id.clone(),
            show: false,
            kind: PropKind::Note {
                lines: vec![NoteLine::Story { text: text.clone() }],
            },
        });
        if let PropKind::Box { contents, .. } = &mut props[b].kind {
            contents.push(id);
        }
    }
    let exit = previous.expect("at least one secret");
    props.extend(passwords);
    let mut chain = Chain { exit, props };
    link_keys(&mut chain);
    chain.validate()?;
    Ok(chain)
}

/// Sets every key's `opens` from the lock that names it (and `None` for keys nothing
/// names).
pub fn link_keys(chain: &mut Chain) {
    let mut targets: Vec<(String, String)> = Vec::new();
    if let Unlock::Key { key } = &chain.exit {
        targets.push((key.clone(), EXIT.into()));
    }
    for p in &chain.props {
        if let PropKind::Box {
            lock: Unlock::Key { key },
            ..
        } = &p.kind
        {
            targets.push((key.clone(), p.id.clone()));
        }
    }
    for p in &mut chain.props {
        if let PropKind::Key { opens } = &mut p.kind {
            *opens = targets
                .iter()
                .find(|(k, _)| *k == p.id)
                .map(|(_, t)| t.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(hops: u32, order: Order) -> ChainSpec {
        ChainSpec {
            hops,
            order,
            seed: 7,
            first: 1,
            story_note: Some("a diary page".into()),
        }
    }

    fn goal_names(plan: &[Subgoal]) -> Vec<String> {
        plan.iter()
            .map(|g| match g {
                Subgoal::Grab { prop } => format!("grab {prop}"),
                Subgoal::Read { note } => format!("read {note}"),
                Subgoal::Inspect { pattern } => format!("inspect {pattern}"),
                Subgoal::Interact { target } => format!("interact {target}"),
                Subgoal::UseKey { key, target } => format!("use {key} on {target}"),
                Subgoal::EnterPassword { password, target } => {
                    format!("enter {password} at {target}")
                }
            })
            .collect()
    }

    #[test]
    fn difficulty_one_is_the_door() {
        let c = generate(&spec(1, Order::NoteFirst)).unwrap();
        assert_eq!(goal_names(&c.plan().unwrap()), ["interact exit"]);
        assert_eq!(c.hops().unwrap(), 1);
    }

    #[test]
    fn difficulty_two_key_or_note() {
        let k = generate(&spec(2, Order::KeyFirst)).unwrap();
        assert_eq!(
            goal_names(&k.plan().unwrap()),
            ["grab key_1", "use key_1 on exit"]
        );
        let n = generate(&spec(2, Order::NoteFirst)).unwrap();
        assert_eq!(
            goal_names(&n.plan().unwrap()),
            ["grab note_1", "read note_1", "enter password_1 at exit"]
        );
        assert_eq!(n.hops().unwrap(), 2);
    }

    #[test]
    fn difficulty_three_note_first_is_table_7() {
        let c = generate(&spec(3, Order::NoteFirst)).unwrap();
        assert_eq!(
            goal_names(&c.plan().unwrap()),
            [
                "grab note_1",
                "read note_1",
                "enter password_1 at box_1",
                "use key_1 on exit"
            ]
        );
        let placed: Vec<_> = c.placed().map(|p| p.id.as_str()).collect();
        assert_eq!(placed, ["note_1", "box_1"]);
        assert_eq!(c.container_of("key_1"), Some("box_1"));
        assert_eq!(c.container_of("note_2"), Some("box_1"));
        assert_eq!(c.hops().unwrap(), 3);
    }

    #[test]
    fn difficulty_three_key_first() {
        let c = generate(&spec(3, Order::KeyFirst)).unwrap();
        assert_eq!(
            goal_names(&c.plan().unwrap()),
            [
                "grab key_1",
                "use key_1 on box_1",
                "read note_1",
                "enter password_1 at exit"
            ]
        );
    }

    #[test]
    fn two_keys_and_wall_pattern() {
        let c = generate(&spec(3, Order::TwoKey)).unwrap();
        assert_eq!(
            goal_names(&c.plan().unwrap()),
            ["grab key_1", "use key_1 on box_1", "use key_2 on exit"]
        );
        assert!(generate(&spec(2, Order::TwoKey)).is_err());
        let w = generate(&spec(2, Order::WallPattern)).unwrap();
        assert_eq!(
            goal_names(&w.plan().unwrap()),
            ["inspect pattern_1", "enter password_1 at exit"]
        );
    }

    #[test]
    fn long_chains_grow_one_hop_per_box() {
        for hops in 2..=9 {
            for order in [
                Order::NoteFirst,
                Order::KeyFirst,
                Order::TwoKey,
                Order::WallPattern,
            ] {
                if hops < order.min_hops() {
                    continue;
                }
                let c = generate(&spec(hops, order)).unwrap();
                assert_eq!(c.hops().unwrap(), hops, "{order:?} {hops}");
            }
        }
    }

    #[test]
    fn passwords_come_from_the_seed() {
        let a = password_digits(1, "password_1");
        assert_eq!(a.len(), 4);
        assert_eq!(a, password_digits(1, "password_1"));
        let differ = (0..20).any(|s| password_digits(s, "password_1") != a);
        assert!(differ);
    }

    #[test]
    fn validator_catches_broken_chains() {
        let mut c = generate(&spec(3, Order::NoteFirst)).unwrap();
        // the key locked inside the box it opens: a cycle
        if let PropKind::Box { lock, .. } = &mut c.props[1].kind {
            *lock = Unlock::Key {
                key: "key_1".into(),
            };
        }
        link_keys(&mut c);
        assert!(matches!(c.validate(), Err(CraftError::InvalidChain { .. })));

        let mut d = generate(&spec(2, Order::KeyFirst)).unwrap();
        d.props[0].show = false; // a hidden key in no box
        assert!(d.validate().is_err());

        let mut e = generate(&spec(2, Order::KeyFirst)).unwrap();
        e.exit = Unlock::Key {
            key: "key_9".into(),
        };
        assert!(e.validate().is_err());

        let mut f = generate(&spec(2, Order::KeyFirst)).unwrap();
        f.props.push(f.props[0].clone());
        assert!(f.validate().is_err());
    }

    #[test]
    fn json_field_order_is_stable() {
        let c = generate(&spec(2, Order::KeyFirst)).unwrap();
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(
            json,
            r#"{"exit":{"type":"key","key":"key_1"},"props":[{"id":"key_1","show":true,"type":"key","opens":"exit"}]}"#
        );
        let back: Chain = serde_json::from_str(&json).unwrap();
        assert_eq!(back, c);
    }
}
