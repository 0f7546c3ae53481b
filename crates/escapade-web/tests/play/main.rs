//! `escapade play --web`'s tests: games played through the router in every world, and in
//! a real browser (headless Chromium over WebDriver; screenshots in
//! `target/browser-artifacts/play-*.png`).

#[path = "../web/browser.rs"]
#[allow(dead_code)]
mod browser; // the skeleton's WebDriver harness (its runs-page test runs here too)
mod kit; // the four worlds, a play site, requests, the oracle's shadow game
mod pages; // every world through the router: whole games, seats, recording, bad input
mod real; // in the browser: tools to the end, comma on two sessions, vis buttons, craft click
mod seats; // over loopback: every address a seat can reach shows only its role's view
#[path = "../web/support.rs"]
#[allow(dead_code)]
mod support; // the skeleton's baseline runs and sites
#[path = "../web/wire.rs"]
#[allow(dead_code)]
mod wire; // a server on a loopback port and a client for it
