//! `local/smollm2` end to end: start the server, get a schema-constrained reply, and check
//! that the server process is gone once the client drops. Skipped (with a note on stderr)
//! when the model is not installed, unless `CI` is set, where that is a failure.

use std::time::Duration;

use escapade_llm::{ClientOptions, LocalOptions};
use serde_json::json;

use crate::support::ask;

fn process_alive(pid: u32) -> bool {
    // A reaped process has no /proc entry; a zombie would still show state Z.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
        Err(_) => false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smollm2_answers_with_schema_and_stops_with_the_client() {
    let local = LocalOptions {
        threads: 2,
        context: 2048,
        ..LocalOptions::default()
    };
    if let Err(error) = escapade_llm::local::check_install(&local) {
        if std::env::var_os("CI").is_some() {
            panic!("the local model must be installed in CI (run `escapade setup`): {error}");
        }
        eprintln!("skipping local_model: {error}");
        return;
    }
    let options = ClientOptions {
        local,
        timeout: Duration::from_secs(300),
        max_retries: 1,
        ..ClientOptions::default()
    };
    let client = escapade_llm::open("local/smollm2", &options)
        .await
        .expect("server starts");
    assert_eq!(client.name(), "local/smollm2");
    let pid = find_server_pid().expect("a server process is running");
    assert!(process_alive(pid));

    let mut request = ask("You are in a room with a closed door. Choose an action.");
    request.response_schema = Some(json!({
        "type": "object",
        "properties": {"action": {"enum": ["open door", "look"]}},
        "required": ["action"]
    }));
    request.temperature = Some(0.0);
    request.max_tokens = Some(32);
    let reply = client.chat(&request).await.expect("the model replies");
    let value: serde_json::Value = serde_json::from_str(&reply.response.text)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", reply.response.text));
    let action = value["action"].as_str().unwrap_or_default();
    assert!(["open door", "look"].contains(&action), "{value}");
    assert!(reply.usage.input > 0 && reply.usage.output > 0);
    assert_eq!(reply.usage.cost_usd, 0.0);

    let clone = client.clone();
    drop(client);
    assert!(process_alive(pid), "a clone still holds the server");
    drop(clone);
    assert!(
        !process_alive(pid),
        "the server must stop with the last client"
    );
}

/// The launcher process started by this test process.
fn find_server_pid() -> Option<u32> {
    let me = std::process::id().to_string();
    for entry in std::fs::read_dir("/proc").ok()?.filter_map(Result::ok) {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let parent = stat
            .rsplit_once(") ")
            .and_then(|(_, rest)| rest.split(' ').nth(1));
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if parent == Some(me.as_str())
            && String::from_utf8_lossy(&cmdline).contains("escapade_server.py")
        {
            return Some(pid);
        }
    }
    None
}
