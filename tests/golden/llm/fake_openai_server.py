#!/usr/bin/env python3
"""A scripted OpenAI-compatible server, used once to record the golden
transcripts of `kopt explain --llm` (tests/golden/llm/README.md); the golden
tests themselves replay the transcripts with no network.

Usage: fake_openai_server.py PORT FIRST_ANSWER_FILE [REGENERATED_ANSWER_FILE]
  - a request whose prompt asks for hypotheses gets HYPOTHESES below;
  - a request with three messages (a regeneration) gets REGENERATED_ANSWER_FILE;
  - any other request gets FIRST_ANSWER_FILE.
Serves until killed.
"""
import http.server
import json
import sys

HYPOTHESES = ('```json\n[{"kernel": "", "findings": ["uncoalesced_loads"], "lines": [], '
              '"title": "Strided global loads", "reason": "each thread reads one float far from its '
              'neighbours"}]\n```')


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        messages = request.get("messages", [])
        everything = " ".join(str(m.get("content", "")) for m in messages)
        if "predict the likely" in everything:
            content = HYPOTHESES
        elif len([m for m in messages if m.get("role") != "system"]) >= 3 and len(sys.argv) > 3:
            content = open(sys.argv[3], encoding="utf-8").read()
        else:
            content = open(sys.argv[2], encoding="utf-8").read()
        body = json.dumps({
            "id": "chatcmpl-golden", "object": "chat.completion", "model": "golden-model-1",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
