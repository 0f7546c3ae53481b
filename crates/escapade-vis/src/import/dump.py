"""Reads VisEscape rooms out of a user's copy of the original code, for `escapade import vis`.

escapade runs this file with the user's python3 as

    python3 -B - <checkout> <room dir>... [--walks N] [--walk-steps M] [--seed S]

(the file on standard input). For each room directory (`assets/roomN`) it executes the
room's own `config.py` with the copy's `vis_escape` package on the path and prints, as
one JSON document on standard output:

- the room's structure as the original's objects hold it: walls and their receptacles,
  each receptacle's states, initial state and transitions (with their rules), the items
  it holds and the states in which each can be seen; every item's class, actions and
  fields (appliable receptacle and state, the state it leads to, the answer of a lock);
  the start wall, the clear condition and the hint table;
- a trace of the room's `walkthrough_oracle.json` replayed through the original's own
  game engine (after each action: the receptacle states, triggers, inventory, view,
  whether the room is cleared, the hint the original would give, and the picture its
  view manager would show);
- optional seeded random walks through the original engine, traced the same way, so
  the importer can check its conversion against the original's behaviour.

Nothing here is the original's code: it only calls the copy's classes and reads their
attributes. What the original prints while it runs is swallowed; a room that fails to
load is reported with its error and the others still dump. Works with Python 3.8+.
"""

import contextlib
import importlib.util
import io
import json
import os
import random
import sys

FORMAT = 1


def rule_json(rule):
    """A transition rule as escapade's rule format (an unknown class is reported)."""
    name = type(rule).__name__
    if name == "AlwaysAllowRule":
        return "always"
    if name == "HasItemRule":
        return {"has_item": rule._required_item}
    if name == "TriggerActiveRule":
        return {"trigger": rule._trigger_name}
    if name == "AndRule":
        return {"and": [rule_json(r) for r in rule._rules]}
    if name == "NotRule":
        return {"not": rule_json(rule._rule)}
    return {"unknown": "%s: %s" % (name, rule)}


def load(room_dir):
    """The room's game state, from a fresh run of its config.py."""
    path = os.path.join(room_dir, "config.py")
    spec = importlib.util.spec_from_file_location("escapade_visescape_room", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    state = getattr(module, "game_state", None)
    if state is None:
        raise ValueError("config.py defines no game_state")
    return state


def receptacles_of(gs):
    for wall in gs.walls.values():
        for rid, rs in wall.receptacles.items():
            yield wall.wall_id, rid, rs.game_receptacle


def item_json(item):
    classes = [c.__name__ for c in type(item).__mro__ if c is not object]
    actions = []
    try:
        actions = list(item.get_actions())
    except Exception as e:  # noqa: BLE001 - report, do not stop
        actions = ["<error: %s>" % e]
    return {
        "name": item.item_name,
        "class": type(item).__name__,
        "classes": classes,
        "item_type": getattr(item, "_item_type", None),
        "actions": actions,
        "appliable_receptacle": getattr(item, "_appliable_receptacle", None),
        "appliable_state": getattr(item, "_appliable_state", None),
        "after_solve_state": getattr(item, "_after_solve_state", None),
        "answer": getattr(item, "_answer", None),
    }


def structure(gs):
    walls = []
    for wall in gs.walls.values():
        walls.append({"wall": wall.wall_id, "receptacles": list(wall.receptacles.keys())})
    receptacles = []
    items = []
    seen = {}
    for _, rid, r in receptacles_of(gs):
        transitions = []
        for from_state, actions in r._transitions.items():
            for action, (to_state, rule) in actions.items():
                transitions.append(
                    {"from": from_state, "action": action, "to": to_state, "rule": rule_json(rule)}
                )
        contained = []
        for item, states in r._interactable_states.items():
            contained.append({"name": item.item_name, "states": sorted(states)})
            if item.item_name not in seen:
                seen[item.item_name] = rid
                items.append(item_json(item))
        receptacles.append(
            {
                "id": rid,
                "class": type(r).__name__,
                "states": sorted(r._possible_states),
                "initial": r.current_state,
                "transitions": transitions,
                "items": contained,
            }
        )
    hints = {}
    table = getattr(gs, "hint_message", None)
    if isinstance(table, dict):
        hints = {"table": {str(k): str(v) for k, v in table.items()}}
    elif callable(table):
        hints = {"function": True}
    clear = gs.clear_condition or {}
    return {
        "start": gs.current_wall,
        "clear": {"receptacle": clear.get("receptacle_id"), "state": clear.get("state")}
        if clear
        else None,
        "walls": walls,
        "receptacles": receptacles,
        "items": items,
        "hints": hints,
    }


def hint_now(gs):
    """The hint the original's runner would give now (its table by the last trigger, or
    the room's hint function), or None."""
    table = getattr(gs, "hint_message", None)
    try:
        if isinstance(table, dict):
            last = gs.context.peek_last_trigger()[0]
            value = table.get(last)
            return None if value is None else str(value)
        if callable(table):
            return str(table(gs))
    except Exception:  # noqa: BLE001 - a hint that fails is no hint
        return None
    return None


class Pictures:
    """The copy's own view manager, when it can be built (it chooses the picture)."""

    def __init__(self, room_dir, gs):
        self.room_dir = os.path.abspath(room_dir)
        self.manager = None
        self.error = None
        try:
            from vis_escape.game.manage.view_manager import ViewManager

            self.manager = ViewManager(room_dir, "none", gs, play_mode="human")
        except Exception as e:  # noqa: BLE001
            self.error = "%s: %s" % (type(e).__name__, e)

    def now(self, gs):
        if self.manager is None:
            return None
        try:
            path = self.manager.get_current_view_image(gs)
        except Exception:  # noqa: BLE001
            return None
        if not path:
            return None
        path = os.path.abspath(path)
        if path.startswith(self.room_dir + os.sep):
            return path[len(self.room_dir) + 1 :].replace(os.sep, "/")
        return path


def snapshot(gs, pictures):
    states = {}
    for _, rid, r in receptacles_of(gs):
        states[rid] = r.current_state
    return {
        "states": states,
        "triggers": [k for k, v in gs.context.triggers.items() if v],
        "inventory": sorted(gs.context.player_inventory.keys()),
        "view": {
            "kind": gs.current_view,
            "wall": gs.current_wall,
            "receptacle": gs.inspected_receptacle,
            "item": gs.current_item,
        },
        "clear": bool(gs.check_game_clear()),
        "hint": hint_now(gs),
        "picture": pictures.now(gs),
    }


def play(room_dir, choose):
    """Plays actions from `choose(gs, step)` (None stops) through the original engine."""
    gs = load(room_dir)
    pictures = Pictures(room_dir, gs)
    trace = {"start": snapshot(gs, pictures), "steps": [], "error": None}
    if pictures.error:
        trace["pictures_error"] = pictures.error
    step = 0
    while True:
        action = choose(gs, step)
        if action is None:
            break
        listed = action in gs.get_available_actions()
        row = {"action": action, "listed": listed, "error": None}
        try:
            gs.handle_action(action)
        except Exception as e:  # noqa: BLE001 - the original failed on this action
            row["error"] = "%s: %s" % (type(e).__name__, e)
            trace["steps"].append(row)
            trace["error"] = "step %d (%s): %s" % (step + 1, action, row["error"])
            break
        row.update(snapshot(gs, pictures))
        trace["steps"].append(row)
        step += 1
        if row["clear"]:
            break
    return trace


def walkthrough(room_dir):
    path = os.path.join(room_dir, "walkthrough_oracle.json")
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        steps = json.load(f)
    actions = [str(s.get("chosen_action", "")) for s in steps]
    return play(room_dir, lambda gs, i: actions[i] if i < len(actions) else None)


def lock_answers(gs):
    """The answers of the code locks (NonKeyLock-like items) the view shows now."""
    if gs.current_view != "ITEM" or not gs.current_item:
        return []
    try:
        rec = gs.get_current_wall().get_receptacle(gs.inspected_receptacle)
        item = rec.get_item_state(gs.current_item).game_item
    except Exception:  # noqa: BLE001
        return []
    answer = getattr(item, "_answer", None)
    if not answer or str(answer).lower().startswith("use "):
        return []
    return [str(answer), "0000", "abcd"]


def walk(room_dir, seed, steps):
    rng = random.Random(seed)

    def choose(gs, i):
        if i >= steps:
            return None
        actions = sorted(set(gs.get_available_actions()))
        answers = lock_answers(gs)
        if answers and rng.random() < 0.4:
            return rng.choice(answers)
        return rng.choice(actions) if actions else None

    return play(room_dir, choose)


def dump_room(room_dir, walks, walk_steps, seed, index):
    name = os.path.basename(os.path.normpath(room_dir))
    out = {"name": name, "error": None}
    try:
        out.update(structure(load(room_dir)))
    except Exception as e:  # noqa: BLE001
        out["error"] = "%s: %s" % (type(e).__name__, e)
        return out
    try:
        out["trace"] = walkthrough(room_dir)
    except Exception as e:  # noqa: BLE001
        out["trace"] = {"start": None, "steps": [], "error": "%s: %s" % (type(e).__name__, e)}
    out["walks"] = []
    for k in range(walks):
        try:
            out["walks"].append(walk(room_dir, seed * 1000003 + index * 101 + k, walk_steps))
        except Exception as e:  # noqa: BLE001
            out["walks"].append({"start": None, "steps": [], "error": "%s: %s" % (type(e).__name__, e)})
    return out


def main(argv):
    args = list(argv)
    opts = {"--walks": 0, "--walk-steps": 200, "--seed": 0}
    positional = []
    while args:
        a = args.pop(0)
        if a in opts:
            opts[a] = int(args.pop(0))
        else:
            positional.append(a)
    if not positional:
        sys.stderr.write("usage: dump.py <checkout> <room dir>... [--walks N]\n")
        return 2
    checkout = positional[0]
    sys.path.insert(0, os.path.join(checkout, "src"))
    sys.dont_write_bytecode = True
    real_stdout = sys.stdout
    rooms = []
    for index, room_dir in enumerate(positional[1:]):
        with contextlib.redirect_stdout(io.StringIO()):
            rooms.append(
                dump_room(room_dir, opts["--walks"], opts["--walk-steps"], opts["--seed"], index)
            )
    doc = {
        "format": FORMAT,
        "python": sys.version.split()[0],
        "rooms": rooms,
    }
    real_stdout.write(json.dumps(doc, ensure_ascii=False))
    real_stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
