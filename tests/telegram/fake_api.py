"""A fake Telegram Bot API on loopback, for the bot's tests.

It answers ``{root}/bot{token}/{method}`` like the real one for the methods the
bot uses, records every call (method and decoded parameters), and lets a test
feed updates (messages, button presses, inline queries) that the bot receives
through ``getUpdates`` long polling with the real offset semantics: an update is
handed out until a later call's ``offset`` confirms it.

Failures on demand: :meth:`FakeBotAPI.down` closes the listening socket
(connections refused) and :meth:`up` opens it again on the same port;
:attr:`fail_next` answers the next calls with a 500 or a 429 with
``retry_after``.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl

#: Parameters the Bot API takes as JSON-serialised strings.
JSON_PARAMS = {
    "reply_markup",
    "results",
    "commands",
    "menu_button",
    "allowed_updates",
    "scope",
    "button",
    "link_preview_options",
    "reply_parameters",
}

BOT_ID = 7000001
BOT_USERNAME = "kozyr_test_bot"


class FakeBotAPI:
    def __init__(self, token: str) -> None:
        self.token = token
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.updates: list[dict[str, Any]] = []
        #: Answers to give instead of the real one: (status, body) per call, in order.
        self.fail_next: list[tuple[int, dict[str, Any]]] = []
        #: getUpdates calls refused while the API was up (500 / 429), for the tests.
        self.failed_calls: list[str] = []
        #: While set, confirmations (a later ``offset``) are not heard: updates
        #: stay to be handed out again, as when the bot's process dies before
        #: its next getUpdates reaches Telegram.
        self.lose_confirmations = False
        #: How many times each update was handed out.
        self.handed: dict[int, int] = {}
        self._ids = itertools.count(1)
        self._messages = itertools.count(100)
        self._cond = threading.Condition()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # ------------------------------------------------------------ lifecycle
    def up(self) -> FakeBotAPI:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # one request per connection: down() refuses at once

            def do_POST(self) -> None:
                api._handle(self)

            do_GET = do_POST

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def down(self) -> None:
        """Stop listening: every request is refused until :meth:`up`."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        with self._cond:
            self._cond.notify_all()

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ------------------------------------------------------------ updates
    def _push(self, kind: str, payload: dict[str, Any]) -> int:
        with self._cond:
            uid = next(self._ids)
            self.updates.append({"update_id": uid, kind: payload})
            self._cond.notify_all()
            return uid

    def message(self, user: dict[str, Any], text: str, chat: dict[str, Any] | None = None) -> int:
        chat = chat or {"id": user["id"], "type": "private", "first_name": user["first_name"]}
        msg = {
            "message_id": next(self._messages),
            "date": int(time.time()),
            "chat": chat,
            "from": user,
            "text": text,
        }
        if text.startswith("/"):
            length = len(text.split()[0])
            msg["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
        return self._push("message", msg)

    def callback(self, user: dict[str, Any], data: str, message: dict[str, Any]) -> int:
        """A press of an inline button under ``message`` (a recorded sendMessage answer)."""
        return self._push(
            "callback_query",
            {
                "id": str(next(self._ids) + 10_000),
                "from": user,
                "chat_instance": "ci-1",
                "data": data,
                "message": message,
            },
        )

    def inline(self, user: dict[str, Any], query: str) -> int:
        return self._push(
            "inline_query",
            {"id": str(next(self._ids) + 20_000), "from": user, "query": query, "offset": ""},
        )

    # ------------------------------------------------------------ recorded calls
    def calls_to(self, method: str) -> list[dict[str, Any]]:
        with self._cond:
            return [params for m, params in self.calls if m == method]

    def wait_for(
        self,
        predicate: Callable[[str, dict[str, Any]], object],
        timeout: float = 30.0,
        what: str = "",
    ) -> tuple[str, dict[str, Any]]:
        """The first recorded call (method, params) ``predicate`` accepts, waiting for it."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for call in self.calls:
                    if predicate(*call):
                        return call
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = "\n".join(f"{m} {json.dumps(p)[:300]}" for m, p in self.calls[-15:])
                    raise AssertionError(f"no call {what} within {timeout} s; last calls:\n{seen}")
                self._cond.wait(min(left, 0.5))

    def wait_sent(self, chat_id: int, contains: str, timeout: float = 30.0) -> dict[str, Any]:
        """The first sendMessage to ``chat_id`` whose text contains ``contains``."""

        def match(method: str, params: dict[str, Any]) -> bool:
            return (
                method == "sendMessage"
                and str(params.get("chat_id")) == str(chat_id)
                and contains in str(params.get("text", ""))
            )

        return self.wait_for(match, timeout, f"sendMessage({chat_id}, {contains!r})")[1]

    def pending(self) -> list[int]:
        with self._cond:
            return [u["update_id"] for u in self.updates]

    # ------------------------------------------------------------ HTTP
    def _handle(self, req: BaseHTTPRequestHandler) -> None:
        path = req.path.split("?")[0]
        prefix = f"/bot{self.token}/"
        length = int(req.headers.get("content-length") or 0)
        body = req.rfile.read(length) if length else b""
        if not path.startswith(prefix):
            self._send(req, 404, {"ok": False, "error_code": 404, "description": "Not Found"})
            return
        method = path[len(prefix) :]
        params = _decode(req.headers.get("content-type", ""), body)
        with self._cond:
            if self.fail_next:
                status, answer = self.fail_next.pop(0)
                self.failed_calls.append(method)
                self._cond.notify_all()
                self._send(req, status, answer)
                return
        if method == "getUpdates":
            result: Any = self._get_updates(params)
        else:
            with self._cond:
                self.calls.append((method, params))
                self._cond.notify_all()
            result = self._answer(method, params)
        self._send(req, 200, {"ok": True, "result": result})

    def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset") or 0)
        timeout = min(float(params.get("timeout") or 0), 5.0)
        deadline = time.monotonic() + timeout
        with self._cond:
            if offset and not self.lose_confirmations:
                # Confirmed: every update below the offset is gone for good.
                self.updates = [u for u in self.updates if u["update_id"] >= offset]
            self.calls.append(("getUpdates", {"offset": offset}))
            while not self.updates and self._server is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            out = [dict(u) for u in self.updates[:100]]
            for u in out:
                self.handed[u["update_id"]] = self.handed.get(u["update_id"], 0) + 1
            return out

    def _answer(self, method: str, params: dict[str, Any]) -> Any:
        if method == "getMe":
            return {
                "id": BOT_ID,
                "is_bot": True,
                "first_name": "Kozyr",
                "username": BOT_USERNAME,
                "can_join_groups": True,
                "can_read_all_group_messages": False,
                "supports_inline_queries": True,
            }
        if method in ("sendMessage", "editMessageText"):
            chat_id = int(params.get("chat_id", 0))
            return {
                "message_id": int(params.get("message_id") or next(self._messages)),
                "date": int(time.time()),
                "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "group"},
                "from": {"id": BOT_ID, "is_bot": True, "first_name": "Kozyr"},
                "text": params.get("text", ""),
                **({"reply_markup": params["reply_markup"]} if "reply_markup" in params else {}),
            }
        return True

    @staticmethod
    def _send(req: BaseHTTPRequestHandler, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        try:
            req.send_response(status)
            req.send_header("content-type", "application/json")
            req.send_header("content-length", str(len(data)))
            req.end_headers()
            req.wfile.write(data)
        except OSError:
            pass  # the client went away (the bot stopped)


def _decode(content_type: str, body: bytes) -> dict[str, Any]:
    """Parameters of a Bot API request: JSON, urlencoded or multipart form data."""
    if not body:
        return {}
    if content_type.startswith("application/json"):
        data: dict[str, Any] = json.loads(body)
        return data
    if content_type.startswith("multipart/form-data"):
        msg = BytesParser(policy=HTTP).parsebytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body
        )
        raw = {
            part.get_param("name", header="content-disposition"): part.get_content()
            for part in msg.iter_parts()
        }
    else:
        raw = dict(parse_qsl(body.decode(), keep_blank_values=True))
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if isinstance(value, bytes):
            value = value.decode()
        out[str(key)] = json.loads(value) if key in JSON_PARAMS else value
    return out


def user(uid: int, first_name: str, lang: str = "en") -> dict[str, Any]:
    return {"id": uid, "is_bot": False, "first_name": first_name, "language_code": lang}


def group(chat_id: int = -100500, title: str = "Friends") -> dict[str, Any]:
    return {"id": chat_id, "type": "group", "title": title}


def server_error() -> tuple[int, dict[str, Any]]:
    return 500, {"ok": False, "error_code": 500, "description": "Internal Server Error"}


def too_many(retry_after: int = 1) -> tuple[int, dict[str, Any]]:
    return 429, {
        "ok": False,
        "error_code": 429,
        "description": f"Too Many Requests: retry after {retry_after}",
        "parameters": {"retry_after": retry_after},
    }
