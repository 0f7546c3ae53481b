//! Half-open connections must not hold slots: clients that drop their TCP connection
//! mid-session without a close, and clients that hold it open and fall silent, all end
//! with 0 slots held, and the server still serves.

use std::time::Duration;

use escapade_serve::ServeOptions;
use futures::SinkExt;
use tokio_tungstenite::tungstenite::Message;

use crate::kit::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_abrupt_disconnects_leave_no_slot_held() {
    let r = start(ServeOptions {
        max_sessions: 1000,
        idle_timeout: Duration::from_secs(4),
        ..Default::default()
    })
    .await;
    let mut silent = Vec::new();
    for i in 0..1000 {
        let mut w = ws(&r).await;
        let o = send(&mut w, reset(counter(50))).await;
        assert_eq!(o["type"], "observation", "{o}");
        // mid-session: a step sent, its answer never read
        w.send(Message::text(step("inc").to_string()))
            .await
            .unwrap();
        if i % 2 == 0 {
            // the TCP connection reset under the WebSocket: no close frame, no FIN
            let tcp = match w.get_ref() {
                tokio_tungstenite::MaybeTlsStream::Plain(s) => s,
                _ => unreachable!("plain TCP"),
            };
            #[allow(deprecated)] // a reset, not a blocking close: the linger is zero
            tcp.set_linger(Some(Duration::ZERO)).unwrap();
            drop(w);
        } else {
            // a client that vanished with its connection left open (half-open)
            silent.push(w);
        }
    }
    assert!(
        !r.app.sessions.is_empty(),
        "the silent ones hold their slots until reaped"
    );
    assert!(
        eventually(|| r.app.sessions.is_empty()).await,
        "{} slots still held",
        r.app.sessions.len()
    );
    // the server still serves a new client
    let mut w = ws(&r).await;
    let o = send(&mut w, reset(counter(1))).await;
    assert_eq!(o["type"], "observation", "{o}");
    drop(silent);
    r.stop().await;
}
