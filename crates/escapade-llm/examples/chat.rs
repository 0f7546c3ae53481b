//! Talks to any backend from the terminal, one request per stdin line:
//! `cargo run -p escapade-llm --example chat -- local/smollm2`.

use std::io::BufRead;

use escapade_llm::{ChatRequest, ClientOptions, Message, Role};

#[tokio::main]
async fn main() {
    let spec = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "local/smollm2".into());
    let client = match escapade_llm::open(&spec, &ClientOptions::default()).await {
        Ok(client) => client,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::exit(1);
        }
    };
    eprintln!("{} ready; one prompt per line, end with EOF", client.name());
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let request = ChatRequest {
            messages: vec![Message::text(Role::User, line)],
            ..ChatRequest::default()
        };
        match client.chat(&request).await {
            Ok(reply) => println!("{}\n  ({:?})", reply.response.text, reply.usage),
            Err(error) => eprintln!("error: {error}"),
        }
    }
    eprintln!("{:?}", client.stats());
}
