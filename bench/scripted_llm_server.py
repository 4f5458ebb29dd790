#!/usr/bin/env python3
"""A scripted OpenAI-compatible endpoint for running kopt's LLM paths end to end where no real endpoint is
reachable (the device machines): POST /v1/chat/completions answers
  - an explanation request (its prompt holds "kopt evidence digest"): a four-section narrative naming the
    digest's first finding id, without numbers;
  - an MCQ request ("Question:" and options A-D): "A";
  - anything else (a programmer request): the first ```cuda block of the last user message, echoed back
    with a comment naming the feedback it was given (so the candidate is the parent, correct by
    construction: the run exercises the loop, not a model's skill).
Usage tokens are the prompt's and answer's byte counts / 4. Usage: scripted_llm_server.py PORT
The same commands with a real endpoint only change --llm-config."""
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def answer_for(messages):
    user = "\n".join(m.get("content") or "" for m in messages if m.get("role") == "user")
    last = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")
    if "kopt evidence digest" in user:
        finding = re.search(r"\(id ([a-z0-9_]+)\)", user)
        name = finding.group(1) if finding else "no finding"
        return ("## What the kernel does\nIt runs the profiled kernel.\n## What limits it\n"
                f"The finding {name} limits it.\n## Why\nThe evidence digest names it first.\n"
                f"## What to change\nApply the first recommendation of {name}.")
    if "Question:" in last and "\nA. " in last:
        return "A"
    code = re.findall(r"```(?:cuda|cpp|c\+\+)?\n(.*?)```", last, re.S)
    feedback = "explanation" if "EXPLANATION" in last or "## What limits it" in last else "other"
    return f"```cuda\n// scripted candidate (feedback seen: {feedback})\n{code[0] if code else ''}```\n"


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        messages = body.get("messages", [])
        text = answer_for(messages)
        prompt = sum(len(m.get("content") or "") for m in messages)
        reply = {"id": "scripted", "object": "chat.completion", "model": body.get("model") or "scripted",
                 "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                              "finish_reason": "stop"}],
                 "usage": {"prompt_tokens": prompt // 4, "completion_tokens": len(text) // 4}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
