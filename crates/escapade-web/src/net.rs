//! Serving connections so that slow or idle clients cannot hold a server: the accept
//! loop every escapade server runs (`view`, `play --web`, `serve`, `mcp --http`).
//!
//! axum's own `serve` reads a request for as long as the client takes and accepts
//! connections until the process runs out of file descriptors; then nothing answers.
//! Here, before any request reaches a router (so before the access check too):
//!
//! - a request's head (and the wait for the next request on a kept-alive connection)
//!   must arrive within [`Limits::header_timeout`], else the connection is closed;
//! - its body must arrive within [`Limits::body_timeout`] of its head, else the handler
//!   reading it gets an error (a 400) and the connection is closed;
//! - at most [`Limits::max_connections`] connections are open at once, a WebSocket
//!   counted until it closes. One more makes room by closing the oldest connection with
//!   no request in progress (idle, or still sending its head: what a flood of clients
//!   that never finish a request holds, token or not), and is answered `503` and closed
//!   at once only when every connection is busy, so the process never runs out of
//!   descriptors, a client that sends its request promptly is served through a flood,
//!   and the clients over the cap learn why;
//! - a stop stops accepting, lets requests in progress finish for [`Limits::grace`],
//!   then drops what is left (a live page's event stream never ends by itself). A
//!   connection with no request in progress — idle, or still sending a head — is
//!   dropped at once: a client that never finishes its head cannot hold the stop.
//!
//! [`raise_fd_limit`] lifts the soft limit on open files to the hard one (the usual
//! 1,024 is low for a server) and [`Limits::connections_for`] sizes the cap from it. Each
//! request carries the client's address as axum's `ConnectInfo<SocketAddr>`.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::ConnectInfo;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tower::Service;

/// How long a client may take, and how many may be connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Time to send a request's head; also how long a kept-alive connection may wait
    /// idle for its next request.
    pub header_timeout: Duration,
    /// Time to send a request's body, from its head.
    pub body_timeout: Duration,
    /// Connections open at once (a WebSocket counts until it closes).
    pub max_connections: usize,
    /// After a stop, how long requests in progress may take to finish.
    pub grace: Duration,
}

/// [`Limits::header_timeout`] unless told otherwise.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// [`Limits::body_timeout`] unless told otherwise.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// [`Limits::grace`] unless told otherwise.
pub const GRACE: Duration = Duration::from_secs(10);
/// The most connections a server allows, however many descriptors it may open.
pub const MAX_CONNECTIONS: usize = 4096;
/// Connections over [`Limits::max_connections`] while the ones closed to make room for
/// them let go of their descriptors (well within [`SPARE_FDS`]).
const CLOSING: usize = 16;

/// Descriptors a server keeps for itself beside its connections and its sessions'
/// records (the listener, the runtime, files read for a page, a picture written).
pub const SPARE_FDS: usize = 64;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: HEADER_TIMEOUT,
            body_timeout: BODY_TIMEOUT,
            max_connections: Limits::connections_for(0),
            grace: GRACE,
        }
    }
}

impl Limits {
    /// The connection cap that leaves `held` descriptors (what the server's sessions
    /// hold: a recorded episode holds its run directory's lock) and [`SPARE_FDS`] free
    /// under this process's limit on open files; at least 16, at most
    /// [`MAX_CONNECTIONS`].
    pub fn connections_for(held: usize) -> usize {
        let limit = fd_limit().map_or(1024, |l| usize::try_from(l).unwrap_or(usize::MAX));
        limit
            .saturating_sub(held + SPARE_FDS)
            .clamp(16, MAX_CONNECTIONS)
    }
}

/// The soft limit on open files, raised to the hard limit (as far as the system lets
/// it); the limit now in force. `None` where there is no such limit to read.
pub fn raise_fd_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let now = getrlimit(Resource::Nofile);
        // an unlimited hard limit is not a number the kernel takes as the soft one
        let want = now.maximum.unwrap_or(1 << 20);
        if now.current.is_some_and(|c| c < want) {
            let _ = setrlimit(
                Resource::Nofile,
                Rlimit {
                    current: Some(want),
                    maximum: now.maximum,
                },
            );
        }
        fd_limit()
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The soft limit on open files now in force.
pub fn fd_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        rustix::process::getrlimit(rustix::process::Resource::Nofile).current
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Descriptors this process has open (`None` where it cannot tell).
pub fn open_fds() -> Option<u64> {
    std::fs::read_dir("/proc/self/fd")
        .ok()
        .map(|d| d.count() as u64)
}

/// Descriptors this process may still open (`None` where it cannot tell).
pub fn fd_headroom() -> Option<u64> {
    Some(fd_limit()?.saturating_sub(open_fds()?))
}

/// Serves `router` on `listener` within `limits` until `stop` completes (see the
/// [module docs](self)).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let open = Arc::new(AtomicUsize::new(0));
    let idle = Arc::new(Connections::default());
    // every connection's task holds a receiver: the sender's `closed` is all of them done
    let (stopping, stopped) = tokio::sync::watch::channel(false);
    let mut stop = std::pin::pin!(stop);
    let mut refused_note = false;
    loop {
        let accepted = tokio::select! {
            () = &mut stop => break,
            a = listener.accept() => a,
        };
        let (stream, addr) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // out of descriptors (or memory) for a moment: the cap should prevent it,
                // but a handler's files count too; wait a little instead of spinning
                if !refused_note {
                    eprintln!("escapade: cannot accept a connection: {e}");
                    refused_note = true;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        // a closed connection lets go of its descriptor a moment later: no more than
        // `CLOSING` of them beyond the cap at once
        let now = open.load(Ordering::SeqCst);
        if now >= limits.max_connections
            && (now >= limits.max_connections + CLOSING || !idle.close_oldest())
        {
            tokio::spawn(refuse(stream, limits.max_connections));
            continue;
        }
        let io = Counted::new(stream, open.clone());
        let (busy, closing) = idle.add();
        tokio::spawn(connection(
            io,
            addr,
            router.clone(),
            limits,
            stopped.clone(),
            (busy, closing),
        ));
    }
    drop(listener);
    stopping.send_replace(true);
    drop(stopped);
    // requests in progress finish; after the grace, what is left is dropped
    let _ = tokio::time::timeout(limits.grace, stopping.closed()).await;
    Ok(())
}

/// One connection: HTTP/1.1 with upgrades (WebSockets), the timeouts, the client's
/// address on each request.
async fn connection(
    io: Counted,
    addr: SocketAddr,
    router: Router,
    limits: Limits,
    mut stop: tokio::sync::watch::Receiver<bool>,
    (busy, mut closing): (Arc<AtomicUsize>, Closing),
) {
    // `busy`: requests of this connection whose head came and whose answer is not all
    // sent; `closing`: the accept loop closes it to make room for another
    let counted = busy.clone();
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        let held = Counter::new(counted.clone());
        let mut req = req.map(|body| {
            axum::body::Body::new(TimedBody {
                body,
                deadline: Box::pin(tokio::time::sleep(limits.body_timeout)),
            })
        });
        req.extensions_mut().insert(ConnectInfo(addr));
        let mut router = router.clone();
        async move {
            let response = router.call(req).await?;
            Ok::<_, std::convert::Infallible>(
                response.map(|body| axum::body::Body::new(HeldBody { body, _held: held })),
            )
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let conn = builder
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = closing.wait() => return,
        _ = stop.wait_for(|s| *s) => {}
    }
    if busy.load(Ordering::SeqCst) == 0 {
        return; // nothing to finish: an idle connection, or a head still on its way
    }
    conn.as_mut().graceful_shutdown();
    let _ = conn.await;
}

/// Answers a connection over the cap with `503` and closes it.
async fn refuse(mut stream: TcpStream, cap: usize) {
    let body =
        format!("this server has its maximum of {cap} connections open; try again in a moment\n");
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n\
         retry-after: 5\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(answer.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

/// A request body that fails once its deadline passes.
struct TimedBody {
    body: Incoming,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl hyper::body::Body for TimedBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.body).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err("the request body took too long".into()))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The open connections, oldest first, with what the accept loop needs to close the
/// oldest one that has no request in progress.
#[derive(Default)]
struct Connections {
    next: AtomicUsize,
    table: std::sync::Mutex<std::collections::BTreeMap<usize, Entry>>,
}

/// A connection in [`Connections`]: its requests in progress, and how to close it.
struct Entry {
    busy: Arc<AtomicUsize>,
    close: tokio::sync::oneshot::Sender<()>,
}

/// A connection's side of [`Connections`]: told when to close, and out of the table
/// when dropped.
struct Closing {
    id: usize,
    table: Arc<Connections>,
    told: tokio::sync::oneshot::Receiver<()>,
}

impl Closing {
    /// Completes when the accept loop closes this connection.
    async fn wait(&mut self) {
        if (&mut self.told).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for Closing {
    fn drop(&mut self) {
        self.table.lock().remove(&self.id);
    }
}

impl Connections {
    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::BTreeMap<usize, Entry>> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new connection: its count of requests in progress, and its [`Closing`].
    fn add(self: &Arc<Self>) -> (Arc<AtomicUsize>, Closing) {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let busy = Arc::new(AtomicUsize::new(0));
        let (close, told) = tokio::sync::oneshot::channel();
        self.lock().insert(
            id,
            Entry {
                busy: busy.clone(),
                close,
            },
        );
        let closing = Closing {
            id,
            table: self.clone(),
            told,
        };
        (busy, closing)
    }

    /// Closes the oldest connection with no request in progress; `false` when every
    /// one has a request in progress.
    fn close_oldest(&self) -> bool {
        let mut table = self.lock();
        let oldest = table
            .iter()
            .find(|(_, e)| e.busy.load(Ordering::SeqCst) == 0)
            .map(|(id, _)| *id);
        match oldest.and_then(|id| table.remove(&id)) {
            Some(entry) => entry.close.send(()).is_ok(),
            None => false,
        }
    }
}

/// One more in a count while it lives (a request in progress on its connection).
struct Counter(Arc<AtomicUsize>);

impl Counter {
    fn new(count: Arc<AtomicUsize>) -> Counter {
        count.fetch_add(1, Ordering::SeqCst);
        Counter(count)
    }
}

impl Drop for Counter {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// An answer's body, its request counted in progress until the body is sent or dropped.
struct HeldBody {
    body: axum::body::Body,
    _held: Counter,
}

impl hyper::body::Body for HeldBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A connection's socket, counted as open until it is dropped (also after an upgrade,
/// which carries the socket away from the HTTP connection).
struct Counted {
    stream: TcpStream,
    open: Arc<AtomicUsize>,
}

impl Counted {
    fn new(stream: TcpStream, open: Arc<AtomicUsize>) -> Counted {
        open.fetch_add(1, Ordering::SeqCst);
        Counted { stream, open }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::SeqCst);
    }
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_rises_to_the_hard_one() {
        let now = raise_fd_limit();
        #[cfg(target_os = "linux")]
        {
            let now = now.unwrap();
            assert!(now >= 16);
            assert!(open_fds().unwrap() > 0);
            assert!(fd_headroom().unwrap() < now);
        }
        let _ = now;
    }

    #[tokio::test]
    async fn room_is_made_by_closing_the_oldest_connection_without_a_request() {
        let table = Arc::new(Connections::default());
        let (first, mut first_closing) = table.add();
        let (_second, mut second_closing) = table.add();
        first.fetch_add(1, Ordering::SeqCst); // a request in progress: kept
        assert!(table.close_oldest());
        second_closing.wait().await;
        assert!(!table.close_oldest(), "the busy one is never closed");
        first.fetch_sub(1, Ordering::SeqCst);
        assert!(table.close_oldest());
        first_closing.wait().await;
        drop(second_closing);
        assert!(table.lock().is_empty());
    }

    #[test]
    fn the_cap_leaves_room_for_what_sessions_hold() {
        let all = Limits::connections_for(0);
        let fewer = Limits::connections_for(200);
        assert!(fewer <= all && fewer >= 16);
        assert_eq!(Limits::connections_for(usize::MAX / 2), 16);
    }
}
