"""escapade's launcher for the local model: one llama.cpp HTTP server (via xllamacpp).

escapade starts this script with a pipe on stdin and waits for GET /health. The server
lives as long as the pipe: when escapade exits (or is killed) the pipe closes and this
process ends at once, so no server outlives the run that started it.
"""

import argparse
import os
import sys
import threading
import time


def watch_stdin():
    # Block until escapade closes our stdin (normal exit or crash), then leave at once:
    # the server's threads are not daemon-friendly, so skip interpreter shutdown.
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except Exception:
        pass
    os._exit(0)


def main():
    parser = argparse.ArgumentParser(description="escapade local model server")
    parser.add_argument("--model", required=True, help="path to a .gguf file")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--alias", default="")
    args = parser.parse_args()

    threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()

    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = args.model
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    if args.alias:
        params.model_alias = args.alias

    # The server runs on background threads for as long as this object is alive.
    try:
        server = xlc.Server(params)
    except Exception as error:  # bad model file, port taken (see the log above)
        print("escapade: the server did not start:", error, flush=True)
        sys.stdout.flush()
        os._exit(2)
    print("escapade: serving", args.model, "at", server.listening_address, flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
