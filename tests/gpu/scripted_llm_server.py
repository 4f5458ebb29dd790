#!/usr/bin/env python3
"""A local OpenAI-compatible chat endpoint that serves scripted answers, for
`kopt optimize --generator llm` runs on machines that reach no LLM (our H200
device): POST /v1/chat/completions answers with the next file of ANSWER_DIR
(sorted by name; a .cu file is wrapped in a ```cuda fence, a *.tool.json
file {"content": "...", "tool_calls": [{"name": ..., "arguments": {...}}]}
is sent as an assistant turn that calls tools (finish_reason "tool_calls",
ids "call_<answer>_<index>"), any other file is sent as it is), then "I have
no further ideas." once they run out. Every request is appended to LOG (JSON
lines: the model, the tools offered, the results of earlier tool calls it
carries, the last user message's first 4,000 characters) so a run can show
what the generator was told. Usage: scripted_llm_server.py PORT ANSWER_DIR LOG
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

port, answer_dir, log_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
answers = sorted(os.path.join(answer_dir, f) for f in os.listdir(answer_dir)
                 if os.path.isfile(os.path.join(answer_dir, f)))
served = [0]


def next_answer():
    """The next assistant message and its finish_reason."""
    if served[0] >= len(answers):
        return {"role": "assistant", "content": "I have no further ideas."}, "stop"
    path = answers[served[0]]
    served[0] += 1
    text = open(path).read()
    if path.endswith(".tool.json"):
        script = json.loads(text)
        calls = [{"id": f"call_{served[0]}_{i}", "type": "function",
                  "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])}}
                 for i, call in enumerate(script["tool_calls"])]
        return {"role": "assistant", "content": script.get("content"), "tool_calls": calls}, "tool_calls"
    content = f"Here is the kernel.\n\n```cuda\n{text}\n```\n" if path.endswith(".cu") else text
    return {"role": "assistant", "content": content}, "stop"


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        messages = body.get("messages", [])
        user = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
        tools = [tool.get("function", {}).get("name") for tool in body.get("tools", [])]
        results = [{"tool_call_id": m.get("tool_call_id"), "first_line": (m.get("content") or "").split("\n")[0]}
                   for m in messages if m.get("role") == "tool"]
        with open(log_path, "a") as log:
            log.write(json.dumps({"model": body.get("model"), "authorization_present":
                                  "Authorization" in self.headers, "tools": tools, "tool_results": results,
                                  "user": user[:4000]}) + "\n")
        message, finish_reason = next_answer()
        content = message.get("content") or ""
        reply = {"id": f"scripted-{served[0]}", "object": "chat.completion", "model": body.get("model", "scripted"),
                 "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
                 "usage": {"prompt_tokens": len(user) // 4, "completion_tokens": len(content) // 4,
                           "total_tokens": (len(user) + len(content)) // 4}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", port), Handler).serve_forever()
