//! escapade-web's integration tests: the pages over real baseline runs, through the router
//! and in a real browser.

mod browser; // headless Chromium over WebDriver: runs page, episode by keyboard, live run
mod links; // over loopback: links and FIFOs inside a run are refused in every route
mod pages; // every page through the router: figures, 4xx pages, access
mod support; // real baseline runs into temporary folders, a server on a free port
#[allow(dead_code)]
mod wire; // a server on a loopback port and a client for it
