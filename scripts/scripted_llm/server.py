#!/usr/bin/env python3
"""A local OpenAI-compatible chat endpoint that answers from a script, for running
kopt's LLM paths end to end where no LLM is reachable (the device machines, the
golden tests). POST /v1/chat/completions (any path) is answered by a policy:

  answers PORT ANSWER_DIR LOG   the files of ANSWER_DIR in order (answer_files.py)
  echo PORT                     narratives, "A" for questions, the parent echoed back
                                (echo_parent.py)
  suite PORT TASKS_DIR LOG      per task: a compile error, a wrong output, a cheat, a
                                correct kernel (suite_tasks.py)
  explain PORT FIRST [SECOND]   the answers of the `kopt explain --llm` golden transcripts
                                (explain_answers.py)

Usage: server.py POLICY PORT [ARGS...]. The HTTP side is here, once: the request is
read as JSON, the policy's answer sent as a chat.completion whose usage counts
the characters the policy says the prompt had and the answer's content, / 4
(unless the policy gives the usage itself).

A policy is a module with make_policy(args) returning an object with
  answer(body, headers) -> Answer   (called under a lock: one answer at a time)
  log_path                          a file or None: each Answer.log, as a JSON line
  threaded                          serve requests on threads (the answers stay ordered)
"""
import dataclasses
import importlib
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer

POLICIES = {"answers": "answer_files", "echo": "echo_parent", "suite": "suite_tasks", "explain": "explain_answers"}


@dataclasses.dataclass
class Answer:
    """One assistant turn: the message, why it stopped, what the usage counts, what is logged."""
    message: dict
    finish_reason: str = "stop"
    prompt_chars: int = 0
    reply_id: str = "scripted"
    log: dict | None = None
    model: str | None = None   # the reply's model; None: the request's (or "scripted")
    usage: dict | None = None  # the reply's usage as it is; None: counted from prompt_chars and the content


def last_user_text(messages):
    """The content of the last user message ("" when none)."""
    return next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")


def reply_of(answer, body):
    content = answer.message.get("content") or ""
    usage = answer.usage or {"prompt_tokens": answer.prompt_chars // 4, "completion_tokens": len(content) // 4,
                             "total_tokens": (answer.prompt_chars + len(content)) // 4}
    return {"id": answer.reply_id, "object": "chat.completion", "model": answer.model or body.get("model") or "scripted",
            "choices": [{"index": 0, "message": answer.message, "finish_reason": answer.finish_reason}],
            "usage": usage}


def make_handler(policy):
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            with lock:
                answer = policy.answer(body, self.headers)
                if policy.log_path and answer.log is not None:
                    with open(policy.log_path, "a") as log:
                        log.write(json.dumps(answer.log) + "\n")
            data = json.dumps(reply_of(answer, body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    return Handler


def serve(port, policy):
    server_class = ThreadingHTTPServer if policy.threaded else HTTPServer
    server_class(("127.0.0.1", port), make_handler(policy)).serve_forever()


def main(argv):
    if len(argv) < 3 or argv[1] not in POLICIES:
        sys.exit(f"usage: server.py {{{'|'.join(POLICIES)}}} PORT [ARGS...]")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    module = importlib.import_module(POLICIES[argv[1]])
    serve(int(argv[2]), module.make_policy(argv[3:]))


if __name__ == "__main__":
    main(sys.argv)
