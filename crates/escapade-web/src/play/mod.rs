//! `escapade play --web`: a person plays a scenario in the browser, recorded as an
//! ordinary run directory (agent `human`). Empty for now: the play pages mount their
//! routes with [`routes`], next to the viewer's, and add their templates to
//! [`crate::pages::TEMPLATES`].

use std::sync::Arc;

use axum::Router;

use crate::server::Site;

/// The play routes (none yet).
pub fn routes() -> Router<Arc<Site>> {
    Router::new()
}
