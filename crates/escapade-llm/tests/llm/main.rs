//! Integration tests of escapade-llm: wire formats against a loopback HTTP server, the
//! client's retry and limit behaviour over scripted backends, and the local model.
//! Nothing here needs a network beyond 127.0.0.1.

mod anthropic_wire; // Anthropic request/response mapping, tool_use/tool_result merging
mod client_retries; // retries, timeouts, limits, stats over scripted and HTTP backends
mod local_model; // local/smollm2 end to end (skipped when not installed, fails under CI)
mod openai_wire; // OpenAI request shape, lenient replies, HTTP error mapping
mod scripted_replay; // script order, fault kinds, recovery, and a never-panics proptest
mod spending; // response cache (hits, modes, samples, kill -9), cost cap, pictures dropped
mod support; // a tiny loopback HTTP server that records requests and replays replies
