"""A minimal LSP client over a subprocess's stdin/stdout (stdlib only):
Content-Length framing, requests with ids, and a queue of what the server
sends, read by a thread so a test can wait for a notification with a
deadline and never hang."""
import json
import queue
import subprocess
import threading
import time


class Client:
    def __init__(self, argv, cwd=None):
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.inbox = queue.Queue()
        self.next_id = 1
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stderr(self):
        self.stderr = self.proc.stderr.read()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            body = out.read(int(headers["content-length"]))
            self.inbox.put(json.loads(body))

    def send_raw(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout=60):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout, f"reply to {method}")

    def wait(self, pred, timeout=60, what="message"):
        """The first message matching `pred`; the others received before it
        are kept in `self.seen`."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {what}")
            try:
                m = self.inbox.get(timeout=left)
            except queue.Empty:
                raise AssertionError(f"timed out waiting for {what}")
            if m is None:
                raise AssertionError(f"the server exited while waiting for {what}: {self.stderr.decode()}")
            if pred(m):
                return m
            self.seen.append(m)

    seen = []

    def diagnostics(self, uri, timeout=60):
        m = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"] == uri, timeout, f"diagnostics of {uri}")
        return m["params"]["diagnostics"]

    def close(self, timeout=30):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        return self.proc.wait(timeout)
