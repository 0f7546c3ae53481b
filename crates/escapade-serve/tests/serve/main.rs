//! Integration tests of `escapade serve` over real sockets.

mod bad_input; // malformed JSON, oversized bodies, unknown sessions, step after end, concurrent steps, drops
mod descriptions; // a text-only client's picture descriptions say no more than the paper's prompt
mod kit; // a server on a free port, HTTP and WebSocket clients
mod python; // the real openenv-core client plays every world (through .venv)
mod reaping; // 1,000 abrupt disconnects and silent clients leave 0 slots held
