//! escapade-web's integration tests: the pages over real baseline runs, through the router
//! and in a real browser.

mod browser; // headless Chromium over WebDriver: runs page, episode by keyboard, live run
mod pages; // every page through the router: figures, 4xx pages, access
mod support; // real baseline runs into temporary folders, a server on a free port
