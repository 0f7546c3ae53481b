"""The short version of python/bench/gym_speed.py that CI runs: the Gymnasium env's
pictures are the world's PNG pictures, pixel for pixel, whichever way they reach Python
(craft's as the renderer's pixels, the others' decoded once and shared). Equality, not
speed: speed is measured by the benchmark."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import escapade
from escapade.gym_env import DECODED_BYTES, _DECODED, as_png

WORLDS = [("visescape", {}), ("comma", {}), ("mm-escape", {"width": 128, "height": 64})]


def _oracle_run(suite, options, share, steps=6):
    """The Gymnasium env's observations and, beside each, its native observation (the
    pictures as PNG)."""
    env = escapade.make(suite, scenario=0, seed=5, reask=False, share_pictures=share, **options)
    obs, _ = env.reset()
    agent = escapade.Agent(env.env, "oracle-talk" if env.role else "oracle", 0)
    agent.reset(env.env, 0)
    pairs = [(obs, env.native_observation)]
    for _ in range(steps):
        obs, _, terminated, truncated, _ = env.step(agent.act(env.env))
        pairs.append((obs, env.native_observation))
        if terminated or truncated:
            break
    return env, pairs


@pytest.mark.parametrize("share", [False, True])
@pytest.mark.parametrize("suite,options", WORLDS)
def test_the_arrays_are_the_png_pictures(suite, options, share):
    _, pairs = _oracle_run(suite, options, share)
    seen = 0
    for obs, native in pairs:
        assert len(obs.get("images", ())) == len(native["images"])
        for array, image in zip(obs.get("images", ()), native["images"]):
            assert image["png"] and image["sha256"] == hashlib.sha256(image["png"]).hexdigest()
            height, width, rgb = escapade.decode_png(image["png"])
            decoded = np.frombuffer(rgb, np.uint8).reshape(height, width, 3)
            assert array.dtype == np.uint8 and np.array_equal(array, decoded)
            # shared: read-only (one array for identical pictures); else the caller's own
            assert array.flags.writeable is not share
            seen += 1
    assert seen, f"{suite} showed no picture"


def test_craft_hands_pixels_and_its_png_is_the_one_the_world_encodes():
    options = {"width": "128", "height": "64"}
    resolved = escapade.resolve("mm-escape")
    scenario = resolved["scenarios"][0]
    as_pixels = escapade.Env("craft", scenario, options, pixels=True).reset(3)
    as_files = escapade.Env("craft", scenario, options).reset(3)
    [image] = as_pixels["images"]
    assert image["png"] is None and image["pixels"][:2] == (64, 128)
    assert as_files["images"][0]["pixels"] is None
    # the PNG made of the pixels is byte for byte the world's own, with its address
    assert as_png(as_pixels)["images"][0]["png"] == as_files["images"][0]["png"]
    assert as_png(as_pixels)["images"][0]["sha256"] == as_files["images"][0]["sha256"]
    assert as_png(as_files) is as_files


def test_identical_pictures_share_one_array_and_the_cache_is_bounded_by_bytes():
    env = escapade.make("visescape", scenario=0, seed=1, reask=False, share_pictures=True)
    first, _ = env.reset()
    again, _ = env.reset()
    assert first["images"][0] is again["images"][0]
    own = escapade.make("visescape", scenario=0, seed=1, reask=False)
    assert not np.shares_memory(own.reset()[0]["images"][0], own.reset()[0]["images"][0])
    assert sum(a.nbytes for a in _DECODED.values()) <= DECODED_BYTES


def test_tool_schemas_are_built_once_while_they_do_not_change():
    craft = escapade.make("mm-escape", scenario=0, seed=1, width=64, height=32)
    _, info = craft.reset()
    _, _, _, _, info2 = craft.step("rotate_right(30)")
    assert info2["tool_schemas"] is info["tool_schemas"], "craft's schemas never change"
    # vis's schemas list the available actions: new when they change, equal to the world's
    vis = escapade.make("visescape", scenario=0, seed=1, reask=False)
    _, info = vis.reset()
    _, _, _, _, info2 = vis.step(info["actions"][0])
    assert info2["tool_schemas"] == vis.env.tool_schemas() != info["tool_schemas"]
