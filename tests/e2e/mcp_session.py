"""A minimal MCP stdio client for the end-to-end tests (Python stdlib only).

Spawns the real neuronlens binary, writes JSON-RPC lines to its stdin and reads lines from its stdout on
a background thread, so tests can assert on ordering, timing and silence (e.g. no response to a
notification or a cancelled call). Every line the server writes must parse as JSON; anything else fails
the test that reads it.
"""
import json
import os
import queue
import subprocess
import threading
import time

BINARY = os.environ.get('NEURONLENS', 'build/neuronlens')
PROTOCOL = '2025-11-25'


class Session:
    def __init__(self, *args, binary=BINARY, stdin=subprocess.PIPE, prefix=()):
        """`prefix`: argv run in front of the binary (a wrapper such as valgrind and its options)."""
        self.proc = subprocess.Popen([*prefix, binary, 'serve', *args], stdin=stdin, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0)
        self.lines = queue.Queue()
        self.raw = []
        self.stderr = b''
        self.next_id = 1
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._err_reader = threading.Thread(target=self._read_err, daemon=True)
        self._err_reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.raw.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def _read_err(self):
        self.stderr = self.proc.stderr.read()

    # -- sending
    def send_raw(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, obj):
        self.send_raw(json.dumps(obj, separators=(',', ':')).encode() + b'\n')

    def request(self, method, params=None, id=None, meta=None):
        if id is None:
            id = self.next_id
            self.next_id += 1
        msg = {'jsonrpc': '2.0', 'id': id, 'method': method}
        if params is not None:
            msg['params'] = params
        if meta is not None:
            msg.setdefault('params', {})['_meta'] = meta
        self.send(msg)
        return id

    def notify(self, method, params=None):
        msg = {'jsonrpc': '2.0', 'method': method}
        if params is not None:
            msg['params'] = params
        self.send(msg)

    # -- receiving
    def read(self, timeout=5.0):
        """Next message (parsed), or None on EOF; raises on timeout or a non-JSON line."""
        line = self.lines.get(timeout=timeout)
        if line is None:
            return None
        assert line.endswith(b'\n'), line
        return json.loads(line)

    def response(self, id, timeout=5.0, notes=None):
        """Wait for the response to `id`; notifications seen meanwhile are appended to `notes`."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError('no response to id %r' % (id,))
            msg = self.read(timeout=left)
            if msg is None:
                raise EOFError('server closed stdout before answering %r' % (id,))
            if 'method' not in msg and msg.get('id') == id and type(msg.get('id')) is type(id):
                return msg
            if notes is not None:
                notes.append(msg)
            elif 'method' not in msg:
                raise AssertionError('unexpected response %r while waiting for %r' % (msg, id))

    def call(self, method, params=None, timeout=5.0, **kw):
        return self.response(self.request(method, params, **kw), timeout=timeout)

    def silent_for(self, seconds):
        """True when the server writes nothing for `seconds`."""
        try:
            msg = self.lines.get(timeout=seconds)
        except queue.Empty:
            return True
        self.lines.put(msg)
        return False

    def initialize(self, version=PROTOCOL):
        r = self.call('initialize', {'protocolVersion': version, 'capabilities': {},
                                     'clientInfo': {'name': 'e2e', 'version': '1'}})
        self.notify('notifications/initialized')
        return r

    # -- ending
    def close_stdin(self):
        self.proc.stdin.close()

    def wait(self, timeout=5.0):
        return self.proc.wait(timeout=timeout)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            if not self.proc.stdin.closed:
                self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except Exception:
            self.kill()
            raise
        self._reader.join(timeout=5)
        self._err_reader.join(timeout=5)
        self.proc.stdout.close()
        self.proc.stderr.close()


def schema_errors(schema, value, path='value'):
    """Validate `value` against the JSON Schema subset neuronlens uses; returns a list of problems.

    Independent of the server's C validator on purpose: the tests check its output with this one.
    """
    errs = []
    types = schema.get('type')
    if types is not None:
        names = [types] if isinstance(types, str) else types
        def ok(t):
            return {'object': isinstance(value, dict), 'array': isinstance(value, list),
                    'string': isinstance(value, str), 'boolean': isinstance(value, bool),
                    'null': value is None,
                    'integer': isinstance(value, int) and not isinstance(value, bool),
                    'number': isinstance(value, (int, float)) and not isinstance(value, bool)}.get(t, True)
        if not any(ok(t) for t in names):
            return ['%s: expected %s, got %r' % (path, names, type(value).__name__)]
    if 'enum' in schema and value not in schema['enum']:
        errs.append('%s: %r not in %r' % (path, value, schema['enum']))
    if isinstance(value, dict):
        for key in schema.get('required', []):
            if key not in value:
                errs.append('%s: missing %s' % (path, key))
        props = schema.get('properties', {})
        for key, item in value.items():
            if key in props:
                errs += schema_errors(props[key], item, path + '.' + key)
            elif schema.get('additionalProperties') is False:
                errs.append('%s: unexpected property %s' % (path, key))
    if isinstance(value, list) and isinstance(schema.get('items'), dict):
        for i, item in enumerate(value):
            errs += schema_errors(schema['items'], item, '%s[%d]' % (path, i))
    return errs
