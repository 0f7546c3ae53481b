//! Speed of the vis world, one function per measurement, all in one criterion group.
//!
//! `render`: drawing a view to PNG bytes (target: at most 5 ms per view in release, so a
//! 300-step episode spends under two seconds drawing).
//! `env step`: one step of `VisEnv` without drawing, along the oracle's path of a suite
//! room and for a reply that is not an action (target: p50 at most 20 µs).
//! `agent loop`: one turn of an episode as a run plays it — the agent acts, the
//! environment steps and hands back the next observation with its picture — over every
//! room of `visescape@4`, episode after episode (target: at most 0.25 ms). Pictures come
//! from the process-wide store once drawn, as in a run's later epochs and revisited
//! views; `render` above is what a view costs the first time.
//! `steps_to_go`: the oracle's distance a step reports (issue 29), on a suite room: a
//! random player's step (its distance searched when the state is new, looked up when
//! the store has it, as over a run's epochs), and one cold search from a state off the
//! oracle's path (the most a step can cost; target for a step: at most 10 % more than
//! one without it).
//! `suite`: building `visescape@4` — generating, linting and solving 20 rooms — and
//! verifying each through the world's oracle (target: at most 2 s).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use escapade_vis::render::render;
use std::sync::Arc;

use escapade_core::{Action, Env, World};
use escapade_vis::{Game, Move, Room, State, View, VisEnv, VisWorld, oracle};

/// One wall with an exit door, an open wardrobe and a safe with a keypad; a clue in the
/// wardrobe.
const ROOM: &str = r#"{
  "world": "vis", "id": "vis-bench", "difficulty": 1, "seed": 0, "title": "Bench",
  "start": "north",
  "receptacles": [
    {"id": "door", "name": "exit door", "wall": "north", "furniture": "door",
     "states": ["locked", "open"], "initial": "locked"},
    {"id": "wardrobe", "name": "wardrobe", "wall": "north", "furniture": "wardrobe",
     "states": ["closed", "open"], "initial": "closed"},
    {"id": "safe", "name": "safe", "wall": "north", "furniture": "safe",
     "states": ["locked", "open"], "initial": "locked"}
  ],
  "items": [
    {"id": "key", "name": "brass key", "type": "applicable", "receptacle": "wardrobe",
     "visible_in": ["open"], "look": "a small brass key"},
    {"id": "poster", "name": "poster", "type": "clue", "quiz": "q",
     "receptacle": "wardrobe", "visible_in": ["open"]},
    {"id": "keypad", "name": "safe keypad", "type": "lock", "quiz": "q",
     "receptacle": "safe", "visible_in": ["locked"]}
  ],
  "quizzes": [
    {"id": "q", "code": "number", "answer": "3221",
     "spec": {"kind": "colour_count",
              "objects": [["star", "red"], ["circle", "blue"], ["triangle", "green"],
                          ["star", "red"], ["square", "yellow"], ["moon", "purple"],
                          ["triangle", "green"], ["circle", "blue"], ["star", "red"]],
              "slots": ["red", "blue", "green", "yellow"]}}
  ],
  "interactions": [
    {"receptacle": "wardrobe", "by": "verb", "verb": "open", "from": "closed", "to": "open"},
    {"receptacle": "safe", "by": "answer", "lock": "keypad", "from": "locked", "to": "open"},
    {"receptacle": "door", "by": "item", "item": "key", "from": "locked", "to": "open"}
  ],
  "checkpoints": [{"trigger": "escaped", "hint": "Open the door."}],
  "exit": {"receptacle": "door", "state": "open"}
}"#;

/// The bench room with its wardrobe open, looking at `view`.
fn scene(view: View) -> (Game, State) {
    let game = Game::new(Room::from_json(ROOM).expect("bench room loads")).expect("compiles");
    let mut state = game.start();
    state.set_view(View::Receptacle(1));
    game.apply(
        &mut state,
        &Move::Verb {
            receptacle: 1,
            verb: "open".into(),
        },
    );
    state.set_view(view);
    (game, state)
}

fn render_views(c: &mut Criterion) {
    let mut group = c.benchmark_group("render");
    for (name, view) in [
        ("wall view", View::Wall(escapade_vis::room::Wall::North)),
        ("receptacle view", View::Receptacle(1)),
        ("clue item view", View::Item(1)),
        ("lock item view", View::Item(2)),
    ] {
        let (game, state) = scene(view);
        group.bench_function(name, |b| {
            b.iter(|| render(&game, black_box(&state)).unwrap())
        });
    }
    group.finish();
}

fn env_steps(c: &mut Criterion) {
    let world = VisWorld::new();
    let rooms = world.build_suite("visescape@4").expect("suite builds");
    let room = Room::from_json(&rooms[10]).expect("room loads");
    let game = Arc::new(Game::new(room).expect("compiles"));
    let plan: Vec<Action> = oracle::solve(&game)
        .expect("solvable")
        .moves
        .iter()
        .map(|m| match m {
            Move::Answer(a) => Action::text(format!("<ANSWER>{a}</ANSWER>")),
            other => Action::text(game.label(other)),
        })
        .collect();
    let mut group = c.benchmark_group("env step");
    let mut env = VisEnv::new(game.clone()).expect("env").without_images();
    let mut next = 0;
    env.reset(0);
    group.bench_function("oracle path, no drawing", |b| {
        b.iter(|| {
            if next == plan.len() {
                env.reset(0);
                next = 0;
            }
            let step = env.step(black_box(&plan[next])).expect("step");
            next += 1;
            step
        })
    });
    let junk = Action::text("let me think about this");
    let mut env = VisEnv::new(game).expect("env").without_images();
    env.reset(0);
    group.bench_function("unparseable reply, no drawing", |b| {
        b.iter(|| {
            let step = env.step(black_box(&junk)).expect("step");
            if step.truncated {
                env.reset(0);
            }
            step
        })
    });
    group.finish();
}

fn suite(c: &mut Criterion) {
    let mut group = c.benchmark_group("suite");
    group.sample_size(10);
    group.bench_function("visescape@4 build + verify", |b| {
        b.iter(|| {
            let world = VisWorld::new();
            let rooms = world.build_suite("visescape@4").expect("suite builds");
            for room in &rooms {
                assert!(world.oracle(room).expect("oracle").solved);
            }
            rooms.len()
        })
    });
    group.finish();
}

fn agent_loop(c: &mut Criterion) {
    let world = VisWorld::new();
    let rooms = world.build_suite("visescape@4").expect("suite builds");
    let mut group = c.benchmark_group("agent loop");
    for agent_kind in ["oracle", "random"] {
        let mut room = 0;
        let mut seed = 0;
        let open = |room: usize, seed: u64| {
            let mut env = world.env(&rooms[room], &Default::default()).expect("env");
            let mut agent = world
                .agent(agent_kind, &rooms[room], seed, &Default::default())
                .expect("agent");
            agent.reset(escapade_core::EpisodeStart::new(seed, "", &[]));
            let observation = env.reset(seed);
            (env, agent, observation)
        };
        // one episode of every room first: the views drawn once, as in a run's later
        // epochs (a 3 s warm-up on a loaded machine may not reach every room)
        for r in 0..rooms.len() {
            let (mut env, mut agent, mut observation) = open(r, 0);
            for _ in 0..300 {
                let turn = agent.act(&observation, None).expect("acts");
                let step = env.step(&turn.action).expect("step");
                if step.terminated || step.truncated {
                    break;
                }
                observation = step.observation;
            }
        }
        let (mut env, mut agent, mut observation) = open(room, seed);
        group.bench_function(format!("{agent_kind} step with picture"), |b| {
            b.iter(|| {
                let turn = agent.act(&observation, None).expect("acts");
                let step = env.step(&turn.action).expect("step");
                if step.terminated || step.truncated {
                    room = (room + 1) % rooms.len();
                    seed += 1;
                    (env, agent, observation) = open(room, seed);
                } else {
                    observation = step.observation;
                }
            })
        });
    }
    group.finish();
}

fn distance(c: &mut Criterion) {
    use escapade_core::{Agent, EpisodeStart};
    let world = VisWorld::new();
    let rooms = world.build_suite("visescape@4").expect("suite builds");
    let room = Room::from_json(&rooms[10]).expect("room loads");
    let game = Arc::new(Game::new(room).expect("compiles"));
    let mut group = c.benchmark_group("steps_to_go");
    // the random player's replies over a few episodes, played again and again
    let mut env = VisEnv::new(game.clone()).expect("env").without_images();
    let mut replies = Vec::new();
    let mut states = Vec::new();
    for seed in 0..4 {
        let mut agent = escapade_vis::baseline::RandomAgent::new(seed);
        agent.reset(EpisodeStart::new(seed, "", &[]));
        let mut o = env.reset(seed);
        let mut episode = Vec::new();
        loop {
            let a = agent.act(&o, None).expect("acts").action;
            let step = env.step(&a).expect("step");
            episode.push(a);
            states.push(env.state().clone());
            o = step.observation;
            if step.terminated || step.truncated {
                break;
            }
        }
        replies.push(episode);
    }
    let (mut episode, mut next) = (0, 0);
    env.reset(0);
    group.bench_function("random step, store warm", |b| {
        b.iter(|| {
            if next == replies[episode].len() {
                episode = (episode + 1) % replies.len();
                next = 0;
                env.reset(episode as u64);
            }
            let step = env.step(black_box(&replies[episode][next])).expect("step");
            next += 1;
            step
        })
    });
    let solution = oracle::solve(&game).expect("solvable");
    let mut k = 0;
    group.bench_function("cold search from a random state", |b| {
        b.iter(|| {
            let mut store = oracle::Distances::new(&game, &solution, oracle::STATE_LIMIT);
            k = (k + 1) % states.len();
            store.of(&game, black_box(&states[k]))
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    render_views,
    env_steps,
    agent_loop,
    distance,
    suite
);
criterion_main!(benches);
