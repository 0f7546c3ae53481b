//! What `Client::chat` itself costs (permit, windows, timeout, accounting) over a
//! zero-latency scripted backend, so that the client never shows up in a run's profile.

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use escapade_llm::scripted::{ScriptLine, ScriptedBackend};
use escapade_llm::{ChatRequest, Client, ClientOptions, Message, Role};

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![
            Message::text(
                Role::System,
                "You are in a locked room. Reply with one action.",
            ),
            Message::text(Role::User, "You see a door, a desk and a note."),
        ],
        ..ChatRequest::default()
    }
}

fn client(options: &ClientOptions) -> Client {
    let backend =
        ScriptedBackend::from_lines("scripted/bench", vec![ScriptLine::text("open door")])
            .expect("a one-line script is valid");
    Client::new(Arc::new(backend), options)
}

fn chat_overhead(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let request = request();

    let plain = client(&ClientOptions::default());
    c.bench_function("client_chat_scripted", |b| {
        b.iter(|| runtime.block_on(plain.chat(&request)).expect("reply"))
    });

    let limited = client(&ClientOptions {
        rpm: Some(u32::MAX),
        tpm: Some(u64::MAX),
        timeout: Duration::from_secs(60),
        ..ClientOptions::default()
    });
    c.bench_function("client_chat_scripted_with_rpm_tpm", |b| {
        b.iter(|| runtime.block_on(limited.chat(&request)).expect("reply"))
    });
}

criterion_group!(benches, chat_overhead);
criterion_main!(benches);
